import { and, eq, inArray, sql } from 'drizzle-orm';
import type { Executor } from '../../db/client.js';
import { accounts, decisions, postRevisions, posts } from '../../db/schema.js';
import { post as ledgerPost } from '../billing/ledger.js';
import type { Clock } from '../clock.js';
import { type RevisionRow, textColumns } from '../posts/revisions.js';
import type { PostRow } from '../posts/views.js';
import { MAX_STRIKES, PRICES } from '../pricing.js';
import { newId } from '../secrets.js';
import type { Verdict } from './moderator.js';
import { buildStatement, type Outcome, type StatementInput, type StatementOfReasons } from './statement.js';

export interface Applied {
  post: PostRow;
  banned: boolean;
}

interface Move {
  from: 'queued' | 'review';
  to: 'published' | 'review' | 'rejected';
  /** The model's verdict is kept on the row; a person's decision keeps the model's it overrode. */
  recordVerdict: boolean;
}

/**
 * Where a verdict moves a queued text (the model: publish, review or reject) or one in review
 * (a person: publish or reject), for a post and an edit alike.
 */
function moveFor(from: Move['from'], v: Verdict): Move {
  if (from === 'review')
    return { from, to: v.decision === 'reject' ? 'rejected' : 'published', recordVerdict: false };
  const to = v.decision === 'publish' ? 'published' : v.decision === 'review' ? 'review' : 'rejected';
  return { from, to, recordVerdict: true };
}

/** The decision's columns, shared by posts and post_revisions (with the prefilter's signals, for the model's). */
function decisionColumns(v: Verdict, move: Move, now: Date, prefilter: object | undefined) {
  const rejected = move.to === 'rejected';
  return {
    ...(prefilter ? { prefilter: prefilter as Record<string, unknown> } : {}),
    status: move.to,
    decidedAt: now,
    publishedAt: move.to === 'published' ? now : null,
    rejectionCategory: rejected ? (v.category ?? 'low_quality') : null,
    rejectionReason: rejected ? v.reason : null,
    refunded: rejected && v.category === 'low_quality',
    ...(move.recordVerdict
      ? { moderation: { ...v, decided_at: now.toISOString() } as unknown as Record<string, unknown> }
      : {}),
  };
}

interface Settled {
  banned: boolean;
  fine: number;
  strike: boolean;
}

/**
 * Applies a verdict to a post in `from` (queued: the model's; review: a person's) in one
 * transaction, at most once: the conditional UPDATE on the status makes a second run (a job that
 * ran twice, a second reviewer) a no-op. Money and strikes move in the same transaction.
 */
export async function decidePost(
  tx: Executor,
  clock: Clock,
  postId: string,
  v: Verdict,
  from: Move['from'],
  prefilter?: object,
): Promise<Applied | null> {
  const move = moveFor(from, v);
  const now = clock.now();
  const [row] = await tx
    .update(posts)
    .set(decisionColumns(v, move, now, prefilter))
    .where(and(eq(posts.id, postId), eq(posts.status, move.from)))
    .returning();
  if (!row) return null;
  const settled = await settleMoney(
    tx,
    clock,
    { accountId: row.accountId, charged: row.charged, reference: row.id, postPrice: row.charged },
    v,
  );
  const post = await recordDecision(tx, row, {
    outcome: move.to,
    category: v.category ?? null,
    reason: v.reason,
    source: v.source,
    notice: false,
    // A person's decision carries the evidence the model flagged before them.
    details:
      v.details ??
      (v.source === 'person' ? ((row.moderation?.details as Record<string, unknown>) ?? null) : null),
    fine: settled.fine,
    feeRefunded: row.refunded,
    strike: settled.strike,
    banned: settled.banned,
    decidedAt: now,
  });
  return { post, banned: settled.banned };
}

/**
 * Writes one decision: its row in the decisions log (transparency) and its statement of reasons
 * on the post, in the caller's transaction. Answers the post as it now is.
 */
export async function recordDecision(
  tx: Executor,
  row: PostRow,
  d: Omit<StatementInput, 'decisionId' | 'postId' | 'postCreatedAt'>,
): Promise<PostRow> {
  const id = newId('dec');
  const statement = buildStatement({ ...d, decisionId: id, postId: row.id, postCreatedAt: row.createdAt });
  await tx.insert(decisions).values({
    id,
    postId: row.id,
    accountId: row.accountId,
    outcome: d.outcome,
    category: d.category,
    automated: d.source !== 'person',
    waitedMs: Math.max(0, d.decidedAt.getTime() - row.createdAt.getTime()),
    strike: d.strike,
    banned: d.banned,
    decidedAt: d.decidedAt,
  });
  const [updated] = await tx
    .update(posts)
    .set({ statement: statement as unknown as Record<string, unknown> })
    .where(eq(posts.id, row.id))
    .returning();
  return updated ?? row;
}

export interface Reversed {
  post: PostRow;
  refunded: number;
  strikeRemoved: boolean;
  banLifted: boolean;
}

/**
 * Undoes a decision a person reversed on appeal, in the caller's transaction: the post is
 * published (or restored), the fine its statement records is refunded (a ledger row), the strike
 * taken back and the ban lifted when the strikes fall below MAX_STRIKES. Null when the post is no
 * longer under that decision (deleted, or decided again since).
 */
export async function reverseDecision(
  tx: Executor,
  clock: Clock,
  postId: string,
  decision: StatementOfReasons,
): Promise<Reversed | null> {
  const now = clock.now();
  const from: Outcome[] = ['rejected', 'removed'];
  const [row] = await tx
    .update(posts)
    .set({
      status: 'published',
      publishedAt: sql`coalesce(${posts.publishedAt}, ${now})`,
      rejectionCategory: null,
      rejectionReason: null,
    })
    .where(
      and(
        eq(posts.id, postId),
        inArray(posts.status, from as ('rejected' | 'removed')[]),
        sql`${posts.statement}->>'id' = ${decision.id}`,
      ),
    )
    .returning();
  if (!row) return null;
  let refunded = 0;
  if (decision.fine > 0) {
    await ledgerPost(tx, {
      accountId: row.accountId,
      kind: 'refund',
      amount: decision.fine,
      reference: row.id,
      memo: 'appeal_reversed',
      at: now,
    });
    refunded = decision.fine;
  }
  let strikeRemoved = false;
  let banLifted = false;
  if (decision.strike) {
    const [before] = await tx
      .select({ status: accounts.status })
      .from(accounts)
      .where(eq(accounts.id, row.accountId))
      .for('update');
    const [acct] = await tx
      .update(accounts)
      .set({
        strikes: sql`greatest(${accounts.strikes} - 1, 0)`,
        status: sql`case when ${accounts.status} = 'banned' and greatest(${accounts.strikes} - 1, 0) < ${MAX_STRIKES} then 'active' else ${accounts.status} end`,
      })
      .where(eq(accounts.id, row.accountId))
      .returning({ status: accounts.status });
    strikeRemoved = true;
    banLifted = before?.status === 'banned' && acct?.status === 'active';
  }
  return { post: row, refunded, strikeRemoved, banLifted };
}

/** What a verdict settles: the fee paid for the text, and what posting that text costs (the fine's base). */
export interface Charge {
  accountId: string;
  /** Micro-dollars paid for this text (a post's fee, an edit's fee). */
  charged: number;
  /** The post or revision id the ledger rows name. */
  reference: string;
  /** What posting this text costs; an abusive text costs abuse_multiplier times this in all. */
  postPrice: number;
}

/**
 * The money rules of every verdict, for a post and an edit alike: a low-quality rejection refunds
 * what was paid; an abusive one (a verdict that may strike) costs abuse_multiplier times the post
 * price in all (the fee already paid plus the rest as a fine, which may take the balance below
 * zero) and adds a strike; the third strike bans.
 */
export async function settleMoney(tx: Executor, clock: Clock, c: Charge, v: Verdict): Promise<Settled> {
  const none = { banned: false, fine: 0, strike: false };
  if (v.decision !== 'reject') return none;
  const at = clock.now();
  if (v.category === 'low_quality') {
    await ledgerPost(tx, {
      accountId: c.accountId,
      kind: 'refund',
      amount: c.charged,
      reference: c.reference,
      memo: 'low_quality',
      at,
    });
    return none;
  }
  if (!v.strike) return none;
  const fine = c.postPrice * PRICES.abuse_multiplier - c.charged;
  await ledgerPost(tx, {
    accountId: c.accountId,
    kind: 'fine',
    amount: -fine,
    reference: c.reference,
    memo: v.category ?? 'abuse',
    at,
    allowNegative: true,
  });
  const [acct] = await tx
    .update(accounts)
    .set({
      strikes: sql`${accounts.strikes} + 1`,
      status: sql`case when ${accounts.strikes} + 1 >= ${MAX_STRIKES} and ${accounts.status} = 'active' then 'banned' else ${accounts.status} end`,
    })
    .where(eq(accounts.id, c.accountId))
    .returning({ strikes: accounts.strikes, status: accounts.status });
  // This decision banned the account when it was the one that reached MAX_STRIKES.
  return { banned: acct?.status === 'banned' && acct.strikes === MAX_STRIKES, fine, strike: true };
}

export interface AppliedEdit {
  /** The post after the verdict (the edit's text when it was published). */
  post: PostRow;
  /** The post before the verdict: what its pages showed. */
  before: PostRow;
  revision: RevisionRow;
  banned: boolean;
}

/**
 * An edit's verdict, with the moves and money rules of a post's, at most once (conditional UPDATE). Published: its text
 * replaces the post's under the same id, the revision it replaces becomes superseded. The post
 * row is locked first, as DELETE and removal do, so an edit is never published onto a post that
 * is being deleted (they cancel the waiting edit in their own transaction).
 */
export async function decideEdit(
  tx: Executor,
  clock: Clock,
  revisionId: string,
  v: Verdict,
  from: Move['from'],
  prefilter?: object,
): Promise<AppliedEdit | null> {
  const move = moveFor(from, v);
  const now = clock.now();
  const [pending] = await tx
    .select({ postId: postRevisions.postId })
    .from(postRevisions)
    .where(eq(postRevisions.id, revisionId));
  if (!pending) return null;
  const [before] = await tx.select().from(posts).where(eq(posts.id, pending.postId)).for('update');
  if (!before) return null;
  if (before.status !== 'published') {
    // The post left the site while the edit waited (its DELETE or removal cancels it; this is the
    // safety net): nothing is decided and nothing moves.
    await tx
      .update(postRevisions)
      .set({ status: 'cancelled', decidedAt: now })
      .where(and(eq(postRevisions.id, revisionId), eq(postRevisions.status, move.from)));
    return null;
  }
  const [rev] = await tx
    .update(postRevisions)
    .set(decisionColumns(v, move, now, prefilter))
    .where(and(eq(postRevisions.id, revisionId), eq(postRevisions.status, move.from)))
    .returning();
  if (!rev) return null;
  let post = before;
  if (move.to === 'published') {
    await tx
      .update(postRevisions)
      .set({ status: 'superseded' })
      .where(
        and(
          eq(postRevisions.postId, rev.postId),
          eq(postRevisions.number, before.revision),
          eq(postRevisions.status, 'published'),
        ),
      );
    const [updated] = await tx
      .update(posts)
      .set({
        ...textColumns(rev),
        revision: rev.number,
        updatedAt: now,
      })
      .where(eq(posts.id, rev.postId))
      .returning();
    if (updated) post = updated;
  }
  const { banned } = await settleMoney(
    tx,
    clock,
    { accountId: rev.accountId, charged: rev.charged, reference: rev.id, postPrice: rev.postPrice },
    v,
  );
  return { post, before, revision: rev, banned };
}
