import { sql } from 'drizzle-orm';
import {
  bigint,
  bigserial,
  boolean,
  index,
  integer,
  jsonb,
  pgTable,
  primaryKey,
  text,
  timestamp,
  uniqueIndex,
} from 'drizzle-orm/pg-core';

const ts = (name: string) => timestamp(name, { withTimezone: true, mode: 'date' });
const micros = (name: string) => bigint(name, { mode: 'number' });

export const accounts = pgTable('accounts', {
  id: text('id').primaryKey(),
  name: text('name').notNull(),
  email: text('email').notNull(),
  emailVerified: boolean('email_verified').notNull().default(false),
  status: text('status', { enum: ['active', 'banned', 'pending_deletion', 'deleted'] })
    .notNull()
    .default('active'),
  balance: micros('balance').notNull().default(0),
  strikes: integer('strikes').notNull().default(0),
  cardOnFile: boolean('card_on_file').notNull().default(false),
  cardLast4: text('card_last4'),
  cardBrand: text('card_brand'),
  /** The provider's reference of the saved card (a Stripe PaymentMethod id); never a card number. */
  cardRef: text('card_ref'),
  /** The provider's customer (a Stripe Customer id). */
  providerCustomer: text('provider_customer'),
  autoRechargeEnabled: boolean('auto_recharge_enabled').notNull().default(false),
  autoRechargeThreshold: micros('auto_recharge_threshold').notNull().default(1_000_000),
  autoRechargeAmount: micros('auto_recharge_amount').notNull().default(10_000_000),
  /** Why auto-recharge was turned off by the service (a declined card), shown on the account page. */
  autoRechargeDisabledReason: text('auto_recharge_disabled_reason'),
  /** DELETE /v1/account asked the owner; cleared by cancel, final on confirm. */
  deletionRequestedAt: ts('deletion_requested_at'),
  /** The low-balance e-mail went out; cleared when a credit lets the balance pay for a post again. */
  lowBalanceNoticeAt: ts('low_balance_notice_at'),
  createdAt: ts('created_at').notNull(),
  deletedAt: ts('deleted_at'),
});

export const apiKeys = pgTable(
  'api_keys',
  {
    id: text('id').primaryKey(),
    accountId: text('account_id')
      .notNull()
      .references(() => accounts.id),
    prefix: text('prefix').notNull(),
    hash: text('hash').notNull(),
    createdAt: ts('created_at').notNull(),
    revokedAt: ts('revoked_at'),
  },
  (t) => [uniqueIndex('api_keys_hash_idx').on(t.hash), index('api_keys_account_idx').on(t.accountId)],
);

/** One row per account_url handed out; the token itself is never stored. */
export const accountLinks = pgTable(
  'account_links',
  {
    id: text('id').primaryKey(),
    accountId: text('account_id')
      .notNull()
      .references(() => accounts.id),
    tokenHash: text('token_hash').notNull(),
    createdAt: ts('created_at').notNull(),
    expiresAt: ts('expires_at').notNull(),
  },
  (t) => [
    uniqueIndex('account_links_token_idx').on(t.tokenHash),
    index('account_links_expiry_idx').on(t.expiresAt),
  ],
);

/** A six-digit code e-mailed to the owner; one live challenge per link. */
export const ownerChallenges = pgTable('owner_challenges', {
  linkId: text('link_id')
    .primaryKey()
    .references(() => accountLinks.id),
  accountId: text('account_id').notNull(),
  codeHash: text('code_hash').notNull(),
  attempts: integer('attempts').notNull().default(0),
  expiresAt: ts('expires_at').notNull(),
  usedAt: ts('used_at'),
});

export const ownerSessions = pgTable(
  'owner_sessions',
  {
    id: text('id').primaryKey(),
    accountId: text('account_id')
      .notNull()
      .references(() => accounts.id),
    tokenHash: text('token_hash').notNull(),
    createdAt: ts('created_at').notNull(),
    expiresAt: ts('expires_at').notNull(),
  },
  (t) => [uniqueIndex('owner_sessions_token_idx').on(t.tokenHash)],
);

/** A named staff member (core/staff/members.ts): invited by an admin, signs in by an e-mailed code. */
export const staffMembers = pgTable(
  'staff_members',
  {
    id: text('id').primaryKey(),
    /** Lower-cased. */
    email: text('email').notNull(),
    name: text('name').notNull(),
    role: text('role', { enum: ['moderator', 'admin'] }).notNull(),
    /** The actor who invited them ("admin-token" or a staff id). */
    invitedBy: text('invited_by').notNull(),
    createdAt: ts('created_at').notNull(),
    disabledAt: ts('disabled_at'),
  },
  (t) => [uniqueIndex('staff_members_email_idx').on(t.email)],
);

/** A six-digit sign-in code e-mailed to a staff member; one live challenge per member. */
export const staffChallenges = pgTable('staff_challenges', {
  staffId: text('staff_id')
    .primaryKey()
    .references(() => staffMembers.id),
  codeHash: text('code_hash').notNull(),
  attempts: integer('attempts').notNull().default(0),
  expiresAt: ts('expires_at').notNull(),
  usedAt: ts('used_at'),
});

/**
 * A staff console session (/admin): the cookie holds a random token, stored here only hashed.
 * `staff_id` is the member signed in; null for a session opened with the shared ADMIN_TOKEN.
 */
export const staffSessions = pgTable(
  'staff_sessions',
  {
    tokenHash: text('token_hash').primaryKey(),
    staffId: text('staff_id').references(() => staffMembers.id),
    createdAt: ts('created_at').notNull(),
    expiresAt: ts('expires_at').notNull(),
  },
  (t) => [index('staff_sessions_expiry_idx').on(t.expiresAt)],
);

/** Append-only: who decided, removed, struck or changed what, and when (core/staff/audit.ts). */
export const auditLog = pgTable(
  'audit_log',
  {
    id: bigserial('id', { mode: 'number' }).primaryKey(),
    at: ts('at').notNull(),
    /** "admin-token" or a staff member's id. */
    actor: text('actor').notNull(),
    /** The actor's e-mail (or "ADMIN_TOKEN") at the time: the log reads without joins. */
    actorLabel: text('actor_label').notNull(),
    action: text('action').notNull(),
    /** What it was done to: a post, report, account, staff or appeal id. */
    subject: text('subject').notNull(),
    detail: jsonb('detail').$type<Record<string, unknown>>().notNull().default(sql`'{}'::jsonb`),
  },
  (t) => [index('audit_log_subject_idx').on(t.subject, t.id)],
);

/** Who holds a post in review, until when: two people never decide the same item. */
export const reviewClaims = pgTable('review_claims', {
  postId: text('post_id')
    .primaryKey()
    .references(() => posts.id),
  actor: text('actor').notNull(),
  actorLabel: text('actor_label').notNull(),
  claimedAt: ts('claimed_at').notNull(),
  expiresAt: ts('expires_at').notNull(),
});

/** Append-only: every movement of money. Sum of amounts per account = its balance. */
export const ledger = pgTable(
  'ledger',
  {
    id: bigserial('id', { mode: 'number' }).primaryKey(),
    accountId: text('account_id')
      .notNull()
      .references(() => accounts.id),
    kind: text('kind', {
      enum: ['top_up', 'post_fee', 'edit_fee', 'refund', 'fine', 'search_fee', 'auto_recharge', 'withdrawal'],
    }).notNull(),
    amount: micros('amount').notNull(),
    balanceAfter: micros('balance_after').notNull(),
    reference: text('reference'),
    memo: text('memo'),
    createdAt: ts('created_at').notNull(),
  },
  (t) => [index('ledger_account_idx').on(t.accountId, t.id)],
);

export const topUps = pgTable('top_ups', {
  id: text('id').primaryKey(),
  accountId: text('account_id')
    .notNull()
    .references(() => accounts.id),
  amount: micros('amount').notNull(),
  status: text('status', { enum: ['pending', 'succeeded', 'failed'] }).notNull(),
  provider: text('provider').notNull(),
  providerRef: text('provider_ref'),
  /** Micro-dollars of this top-up already refunded to the card. */
  refunded: micros('refunded').notNull().default(0),
  createdAt: ts('created_at').notNull(),
});

/** Auto-recharge attempts; the partial unique index allows one in flight per account. */
export const recharges = pgTable(
  'recharges',
  {
    id: text('id').primaryKey(),
    accountId: text('account_id')
      .notNull()
      .references(() => accounts.id),
    amount: micros('amount').notNull(),
    status: text('status', { enum: ['pending', 'succeeded', 'failed'] }).notNull(),
    providerRef: text('provider_ref'),
    failureReason: text('failure_reason'),
    /** Micro-dollars of this charge already refunded to the card. */
    refunded: micros('refunded').notNull().default(0),
    createdAt: ts('created_at').notNull(),
    completedAt: ts('completed_at'),
  },
  (t) => [
    uniqueIndex('recharges_one_pending_idx').on(t.accountId).where(sql`${t.status} = 'pending'`),
    index('recharges_account_idx').on(t.accountId, t.createdAt),
  ],
);

/** Stripe webhook events already applied: the event id as primary key makes a replay a no-op. */
export const stripeEvents = pgTable('stripe_events', {
  id: text('id').primaryKey(),
  type: text('type').notNull(),
  receivedAt: ts('received_at').notNull(),
});

export const mailOutbox = pgTable(
  'mail_outbox',
  {
    id: text('id').primaryKey(),
    to: text('to').notNull(),
    subject: text('subject').notNull(),
    text: text('text').notNull(),
    replyTo: text('reply_to'),
    createdAt: ts('created_at').notNull(),
  },
  (t) => [index('mail_outbox_to_idx').on(t.to, t.createdAt)],
);

/** A text as posted or edited: the columns a post and each of its revisions share. */
const textColumns = () => ({
  title: text('title'),
  body: text('body').notNull(),
  topics: jsonb('topics').$type<string[]>().notNull().default(sql`'[]'::jsonb`),
  /** The site-specific members of the body beyond title, body and topics. */
  fields: jsonb('fields').$type<Record<string, unknown>>().notNull().default(sql`'{}'::jsonb`),
  country: text('country'),
  state: text('state'),
  city: text('city'),
  /** Classifieds expire; events end. Lists leave out posts past this instant. */
  visibleUntil: ts('visible_until'),
  startsAt: ts('starts_at'),
  /** MinHash of title and body (core/moderation/near-duplicate.ts), set when the text is queued. */
  fingerprint: text('fingerprint'),
});

/** What moderation records on a post and on a revision alike (core/moderation/verdicts.ts). */
const decisionColumns = () => ({
  prefilter: jsonb('prefilter').$type<Record<string, unknown>>(),
  moderation: jsonb('moderation').$type<Record<string, unknown>>(),
  rejectionCategory: text('rejection_category'),
  rejectionReason: text('rejection_reason'),
  refunded: boolean('refunded').notNull().default(false),
  createdAt: ts('created_at').notNull(),
  decidedAt: ts('decided_at'),
  publishedAt: ts('published_at'),
});

/** `posts.search` (a generated tsvector with a GIN index) is added by the hand-written migration
 *  0002_posts_search.sql and read only through SQL in core/search. */
export const posts = pgTable(
  'posts',
  {
    id: text('id').primaryKey(),
    site: text('site').notNull(),
    accountId: text('account_id')
      .notNull()
      .references(() => accounts.id),
    keyId: text('key_id'),
    status: text('status', {
      enum: ['queued', 'published', 'review', 'rejected', 'removed', 'deleted'],
    }).notNull(),
    ...textColumns(),
    authorName: text('author_name').notNull(),
    charged: micros('charged').notNull(),
    /** The statement of reasons of the post's latest decision (core/moderation/statement.ts). */
    statement: jsonb('statement').$type<Record<string, unknown>>(),
    ...decisionColumns(),
    /** The public revision: 1 as posted, the number of the last published edit after that. */
    revision: integer('revision').notNull().default(1),
    /** When a published edit last replaced the text (null: never edited). */
    updatedAt: ts('updated_at'),
    deletedAt: ts('deleted_at'),
  },
  (t) => [
    index('posts_site_published_idx').on(t.site, t.status, t.publishedAt),
    index('posts_account_idx').on(t.accountId, t.createdAt),
    index('posts_status_idx').on(t.status),
  ],
);

/**
 * Revisions of a published post (PATCH /v1/posts/{id}): each edit is a row, moderated like a post.
 * The post row keeps the public (current) text; revision 1 is copied here from it when the first
 * edit arrives, so the history is complete. At most one revision per post waits (queued or review).
 */
export const postRevisions = pgTable(
  'post_revisions',
  {
    id: text('id').primaryKey(),
    postId: text('post_id')
      .notNull()
      .references(() => posts.id),
    number: integer('number').notNull(),
    site: text('site').notNull(),
    accountId: text('account_id')
      .notNull()
      .references(() => accounts.id),
    keyId: text('key_id'),
    status: text('status', {
      enum: ['queued', 'review', 'published', 'superseded', 'rejected', 'cancelled'],
    }).notNull(),
    ...textColumns(),
    /** Micro-dollars paid for this revision (the edit fee; revision 1: the post fee). */
    charged: micros('charged').notNull(),
    /** What posting this text would cost: the base of the abuse fine (abuse_multiplier times it in all). */
    postPrice: micros('post_price').notNull(),
    ...decisionColumns(),
  },
  (t) => [
    uniqueIndex('post_revisions_number_idx').on(t.postId, t.number),
    uniqueIndex('post_revisions_one_pending_idx')
      .on(t.postId)
      .where(sql`${t.status} in ('queued', 'review')`),
    index('post_revisions_status_idx').on(t.status, t.createdAt),
  ],
);

export const idempotencyKeys = pgTable(
  'idempotency_keys',
  {
    accountId: text('account_id').notNull(),
    key: text('key').notNull(),
    requestHash: text('request_hash').notNull(),
    state: text('state', { enum: ['in_flight', 'done'] }).notNull(),
    responseStatus: integer('response_status'),
    responseHeaders: jsonb('response_headers').$type<Record<string, string>>(),
    responseBody: text('response_body'),
    createdAt: ts('created_at').notNull(),
    expiresAt: ts('expires_at').notNull(),
  },
  (t) => [primaryKey({ columns: [t.accountId, t.key] }), index('idempotency_expiry_idx').on(t.expiresAt)],
);

/** Model lifecycle and other single-row service state. */
export const serviceState = pgTable('service_state', {
  name: text('name').primaryKey(),
  value: jsonb('value').$type<Record<string, unknown>>().notNull(),
  updatedAt: ts('updated_at').notNull(),
});

/** Reports of posts that break the policy; a person reviews each. */
export const reports = pgTable(
  'reports',
  {
    id: text('id').primaryKey(),
    postId: text('post_id').notNull(),
    site: text('site').notNull(),
    category: text('category').notNull(),
    detail: text('detail'),
    reporterIp: text('reporter_ip').notNull(),
    reporterAccountId: text('reporter_account_id'),
    status: text('status', { enum: ['open', 'resolved'] })
      .notNull()
      .default('open'),
    /** content_removed | no_action, set with status resolved. */
    resolution: text('resolution'),
    /** A person's reason for no_action. */
    resolutionReason: text('resolution_reason'),
    createdAt: ts('created_at').notNull(),
    resolvedAt: ts('resolved_at'),
  },
  (t) => [index('reports_status_idx').on(t.status, t.createdAt), index('reports_post_idx').on(t.postId)],
);

/**
 * Append-only: every moderation decision (a verdict, a person's review outcome, a removal), the
 * record its statement of reasons is built from and the transparency report counts.
 */
export const decisions = pgTable(
  'decisions',
  {
    id: text('id').primaryKey(),
    postId: text('post_id').notNull(),
    accountId: text('account_id').notNull(),
    /** published | review | rejected | removed */
    outcome: text('outcome').notNull(),
    category: text('category'),
    /** The decision was made by a machine (rules or a model), not a person. */
    automated: boolean('automated').notNull(),
    /** How long the post waited for this decision (from its creation), in milliseconds. */
    waitedMs: bigint('waited_ms', { mode: 'number' }).notNull(),
    strike: boolean('strike').notNull().default(false),
    banned: boolean('banned').notNull().default(false),
    decidedAt: ts('decided_at').notNull(),
  },
  (t) => [index('decisions_post_idx').on(t.postId), index('decisions_decided_idx').on(t.decidedAt)],
);

/** One appeal per decision (the unique index), filed by the post's account, decided by a person. */
export const appeals = pgTable(
  'appeals',
  {
    id: text('id').primaryKey(),
    decisionId: text('decision_id').notNull(),
    postId: text('post_id').notNull(),
    accountId: text('account_id').notNull(),
    statement: text('statement').notNull(),
    status: text('status', { enum: ['pending', 'upheld', 'reversed'] })
      .notNull()
      .default('pending'),
    reason: text('reason'),
    /** Who decided: a text actor ("admin-token" for the shared token or its console session). */
    decidedBy: text('decided_by'),
    createdAt: ts('created_at').notNull(),
    decidedAt: ts('decided_at'),
    /** Money and standing the reversal gave back (audit). */
    refunded: micros('refunded').notNull().default(0),
    strikeRemoved: boolean('strike_removed').notNull().default(false),
    banLifted: boolean('ban_lifted').notNull().default(false),
  },
  (t) => [
    uniqueIndex('appeals_decision_idx').on(t.decisionId),
    index('appeals_status_idx').on(t.status, t.createdAt),
    index('appeals_account_idx').on(t.accountId, t.createdAt),
  ],
);

/** Daily allowances (search, reports) counted per subject and UTC day, shared by every process. */
export const dailyCounters = pgTable(
  'daily_counters',
  {
    scope: text('scope').notNull(),
    subject: text('subject').notNull(),
    day: text('day').notNull(),
    count: integer('count').notNull().default(0),
  },
  (t) => [primaryKey({ columns: [t.scope, t.subject, t.day] })],
);

export const webhookEndpoints = pgTable(
  'webhook_endpoints',
  {
    id: text('id').primaryKey(),
    accountId: text('account_id')
      .notNull()
      .references(() => accounts.id),
    url: text('url').notNull(),
    events: jsonb('events').$type<string[]>().notNull(),
    /** whsec_… sealed with SECRET_KEY (AES-256-GCM). */
    secretSealed: text('secret_sealed').notNull(),
    createdAt: ts('created_at').notNull(),
    disabledAt: ts('disabled_at'),
    disabledReason: text('disabled_reason'),
    deletedAt: ts('deleted_at'),
  },
  (t) => [index('webhook_endpoints_account_idx').on(t.accountId)],
);

/** One message to one endpoint; `id` is the stable webhook-id across retries. */
export const webhookDeliveries = pgTable(
  'webhook_deliveries',
  {
    id: text('id').primaryKey(),
    endpointId: text('endpoint_id')
      .notNull()
      .references(() => webhookEndpoints.id),
    eventType: text('event_type').notNull(),
    payload: text('payload').notNull(),
    status: text('status', { enum: ['pending', 'succeeded', 'failed', 'cancelled'] }).notNull(),
    attempts: integer('attempts').notNull().default(0),
    nextAttemptAt: ts('next_attempt_at'),
    lastStatus: integer('last_status'),
    lastError: text('last_error'),
    createdAt: ts('created_at').notNull(),
    completedAt: ts('completed_at'),
  },
  (t) => [index('webhook_deliveries_endpoint_idx').on(t.endpointId, t.createdAt)],
);

export const webhookAttempts = pgTable(
  'webhook_attempts',
  {
    id: bigserial('id', { mode: 'number' }).primaryKey(),
    deliveryId: text('delivery_id')
      .notNull()
      .references(() => webhookDeliveries.id),
    attemptedAt: ts('attempted_at').notNull(),
    status: integer('status'),
    latencyMs: integer('latency_ms'),
    error: text('error'),
  },
  (t) => [index('webhook_attempts_delivery_idx').on(t.deliveryId)],
);
