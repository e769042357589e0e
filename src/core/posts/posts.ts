import { and, asc, count, desc, eq, gt, isNull, lt, or, sql } from 'drizzle-orm';
import type { Executor } from '../../db/client.js';
import { posts } from '../../db/schema.js';
import type { Accounts } from '../accounts/accounts.js';
import type { Principal } from '../accounts/keys.js';
import { post as ledgerPost } from '../billing/ledger.js';
import type { Deps } from '../context.js';
import type { JobSender } from '../jobs.js';
import { appealOfPost } from '../moderation/appeals.js';
import { nearestEarlierPost, postFingerprint } from '../moderation/duplicates.js';
import type { ModelLifecycle } from '../moderation/lifecycle.js';
import { type PrefilterResult, prefilter } from '../moderation/prefilter.js';
import { Problem } from '../problems.js';
import { newId } from '../secrets.js';
import type { SitePost, SiteRebuilds } from '../sites/changes.js';
import type { SiteKind } from '../sites/sites.js';
import { invalidCursor } from '../validation.js';
import { normalizeBody } from './bodies.js';
import { checkIdempotencyKey, Idempotency, requestHash } from './idempotency.js';
import { cancelWaitingEdit, textColumns } from './revisions.js';
import {
  type ModerationEstimate,
  type OwnPost,
  type PostRow,
  type PublicPost,
  toOwn,
  toPublic,
} from './views.js';

export interface CreateOptions {
  dryRun?: boolean;
  idempotencyKey?: string | undefined;
}

export interface DryRunResult {
  dry_run: true;
  valid: true;
  price: number;
  balance_after: number;
  prefilter: { signals: PrefilterResult['signals']; hint: PrefilterResult['hint'] };
}

/** The view of a charged write waiting for its verdict: it says when to expect the verdict. */
export interface Queued {
  moderation: ModerationEstimate;
}

/** A post just charged and queued (its estimate is always there). */
export type QueuedPost = OwnPost & Queued;

/** The dry run passed: nothing was charged or stored. */
export interface DryRun {
  kind: 'dry_run';
  result: DryRunResult;
}

/** A charged write (a post, an edit) taken and queued for moderation. */
export interface Accepted<V extends Queued> {
  kind: 'accepted';
  view: V;
  /** The stored first answer to the same Idempotency-Key and request: nothing was charged again. */
  replayed: boolean;
}

/** What posting and editing answer, in domain terms; REST and MCP each render it. */
export type PostingResult<V extends Queued> = DryRun | Accepted<V>;

/** Who pays, in the 402 detail. */
type Charge = 'Posting' | 'An edit';

export interface ListFilters {
  topic?: string | undefined;
  country?: string | undefined;
  state?: string | undefined;
  city?: string | undefined;
  /** Classified ads: `fields.category`. */
  category?: string | undefined;
  /** `starts_at`: soonest event first (no cursor); default newest published first. */
  order?: 'newest' | 'starts_at';
  limit: number;
  cursor?: string | undefined;
}

export class Posts {
  readonly idempotency: Idempotency;

  constructor(
    private readonly deps: Deps,
    private readonly accounts: Accounts,
    private readonly lifecycle: ModelLifecycle,
    private readonly jobs: JobSender,
    /** Runs after a charge commits: auto-recharge and the low-balance e-mail. */
    private readonly watch?: { afterDebit(accountId: string): Promise<void> },
    private readonly site?: SiteRebuilds,
  ) {
    this.idempotency = new Idempotency(deps.db, deps.clock);
  }

  /** Rules for posting 1-4: validate, price, standing, then charge and queue in one transaction. */
  async create(
    principal: Principal,
    site: SiteKind,
    body: unknown,
    opts: CreateOptions = {},
  ): Promise<PostingResult<QueuedPost>> {
    if (opts.idempotencyKey !== undefined) checkIdempotencyKey(opts.idempotencyKey);
    const post = normalizeBody(site, body, this.deps.clock.now());
    this.accounts.assertActive(principal);
    if (opts.dryRun) return this.dryRun(principal, { site, ...post }, 'Posting');
    return this.chargeOnce(principal, opts.idempotencyKey, requestHash({ site, body }), 'Posting', (tx) =>
      this.chargeAndQueue(tx, principal, site, post),
    );
  }

  /**
   * A charged write (a post, an edit) at most once per Idempotency-Key: the key is claimed first
   * (a concurrent retry answers 409, a later one replays the stored view); the work and the
   * stored view commit in one transaction; a failure releases the claim. `work` throws
   * InsufficientBalance when the balance cannot pay: the owner's 402 with account_url.
   */
  async chargeOnce<V extends Queued>(
    principal: Principal,
    key: string | undefined,
    hash: string,
    what: Charge,
    work: (tx: Executor) => Promise<V>,
  ): Promise<Accepted<V>> {
    if (key !== undefined) {
      const claim = await this.idempotency.claim(principal.accountId, key, hash);
      // What complete() stored below for this key and request hash: a V.
      if (claim.kind === 'replay') return { kind: 'accepted', view: claim.view as V, replayed: true };
    }
    try {
      const view = await this.deps.db.transaction(async (tx) => {
        const view = await work(tx);
        if (key !== undefined) await this.idempotency.complete(tx, principal.accountId, key, view);
        return view;
      });
      await this.watch?.afterDebit(principal.accountId);
      return { kind: 'accepted', view, replayed: false };
    } catch (e) {
      if (key !== undefined) await this.idempotency.releaseSoon(principal.accountId, key);
      if (e instanceof InsufficientBalance) throw await this.insufficient(principal.accountId, e.price, what);
      throw e;
    }
  }

  private async chargeAndQueue(
    tx: Executor,
    principal: Principal,
    site: SiteKind,
    post: ReturnType<typeof normalizeBody>,
  ): Promise<QueuedPost> {
    const now = this.deps.clock.now();
    const id = newId('post');
    const balance = await ledgerPost(tx, {
      accountId: principal.accountId,
      kind: 'post_fee',
      amount: -post.price,
      reference: id,
      at: now,
    });
    if (balance === null) throw new InsufficientBalance(post.price);
    const [row] = await tx
      .insert(posts)
      .values({
        id,
        site,
        accountId: principal.accountId,
        keyId: principal.keyId,
        status: 'queued',
        ...textColumns(post),
        authorName: principal.name,
        charged: post.price,
        createdAt: now,
      })
      .returning();
    const [ahead] = await tx.select({ n: count() }).from(posts).where(eq(posts.status, 'queued'));
    const estimate = await this.lifecycle.wake(tx, Math.max(0, (ahead?.n ?? 1) - 1));
    await this.jobs.send(tx, 'moderate', { post_id: id });
    // toOwn already put the estimate of a queued post in its place; this only tells the type.
    return { ...toOwn(row!, this.deps.baseUrl, estimate), moderation: estimate };
  }

  /**
   * The dry run of a charged write: the balance pays `price` (else the owner's 402) and the
   * prefilter's signals on the text as it would stand (an edit is not its own post's duplicate).
   */
  async dryRun(
    principal: Principal,
    text: { site: SiteKind; price: number; title: string | null; body: string; otherThan?: string },
    what: Charge,
  ): Promise<DryRun> {
    const { site, price } = text;
    const account = await this.accounts.row(principal.accountId);
    if (account.balance < price) throw await this.insufficient(principal.accountId, price, what);
    const nearDuplicate = await nearestEarlierPost(this.deps.db, {
      site,
      accountId: principal.accountId,
      fingerprint: postFingerprint(text.body),
      before: this.deps.clock.now(),
      otherThan: text.otherThan,
    });
    const pf = prefilter(text.title, text.body, { site, nearDuplicate });
    return {
      kind: 'dry_run',
      result: {
        dry_run: true,
        valid: true,
        price,
        balance_after: account.balance - price,
        prefilter: { signals: pf.signals, hint: pf.hint },
      },
    };
  }

  /** 402 insufficient_balance with the owner's account_url. */
  insufficient(accountId: string, price: number, what: Charge) {
    return this.accounts.ownerProblem(
      accountId,
      'insufficient_balance',
      `${what} costs ${price} micro-dollars and the balance cannot pay it. Give account_url to your human to top up.`,
    );
  }

  /** Published posts to anyone; every status to the key's own account; 404 otherwise. */
  async get(id: string, principal?: Principal): Promise<PublicPost | OwnPost> {
    const [row] = await this.deps.db.select().from(posts).where(eq(posts.id, id));
    if (row && principal && row.accountId === principal.accountId) return this.own(row);
    if (row?.status !== 'published') throw new Problem('not_found', { detail: `No published post ${id}.` });
    return toPublic(row, this.deps.baseUrl);
  }

  /** True when the post existed and was deleted or removed (its page answers 410 Gone). */
  async gone(id: string): Promise<boolean> {
    const [row] = await this.deps.db.select({ status: posts.status }).from(posts).where(eq(posts.id, id));
    return row?.status === 'deleted' || row?.status === 'removed';
  }

  /** What each published post of a site contributes to the site's pages (see pathsForPost). */
  async publishedOn(site: SiteKind): Promise<SitePost[]> {
    return this.deps.db
      .select({
        id: posts.id,
        site: posts.site,
        topics: posts.topics,
        fields: posts.fields,
        country: posts.country,
        state: posts.state,
      })
      .from(posts)
      .where(and(eq(posts.site, site), eq(posts.status, 'published')));
  }

  async own(row: PostRow): Promise<OwnPost> {
    if (row.status !== 'queued')
      return toOwn(row, this.deps.baseUrl, undefined, await appealOfPost(this.deps.db, row));
    const [ahead] = await this.deps.db
      .select({ n: count() })
      .from(posts)
      .where(and(eq(posts.status, 'queued'), lt(posts.createdAt, row.createdAt)));
    return toOwn(row, this.deps.baseUrl, await this.lifecycle.estimate(this.deps.db, ahead?.n ?? 0));
  }

  /** DELETE by the owning key: from queued, published, review or rejected; no refund; final. An
   *  edit still waiting is cancelled with it (its fee is not refunded either). */
  async delete(id: string, principal: Principal): Promise<void> {
    const now = this.deps.clock.now();
    await this.deps.db.transaction(async (tx) => {
      const [row] = await tx
        .select()
        .from(posts)
        .where(and(eq(posts.id, id), eq(posts.accountId, principal.accountId)))
        .for('update');
      if (!row) throw new Problem('not_found', { detail: `No post ${id} of this account.` });
      if (row.status === 'deleted') return;
      const [done] = await tx
        .update(posts)
        .set({ status: 'deleted', deletedAt: now })
        .where(and(eq(posts.id, id), sql`${posts.status} in ('queued', 'published', 'review', 'rejected')`))
        .returning();
      if (!done) throw new Problem('invalid_state', { detail: `A ${row.status} post cannot be deleted.` });
      await cancelWaitingEdit(tx, id, now);
      // "page is removed on the next site rebuild"
      if (row.status === 'published') await this.site?.postChanged(tx, done);
    });
  }

  /** Newest published posts of a site; expired classifieds and ended events are left out. */
  async list(site: SiteKind, f: ListFilters): Promise<{ data: PublicPost[]; next_cursor: string | null }> {
    const now = this.deps.clock.now();
    const after = f.cursor ? decodeCursor(f.cursor) : undefined;
    const rows = await this.deps.db
      .select()
      .from(posts)
      .where(
        and(
          eq(posts.site, site),
          eq(posts.status, 'published'),
          or(isNull(posts.visibleUntil), gt(posts.visibleUntil, now)),
          f.topic ? sql`${posts.topics} @> ${JSON.stringify([f.topic])}::jsonb` : undefined,
          f.country ? eq(posts.country, f.country) : undefined,
          f.state ? eq(posts.state, f.state) : undefined,
          f.city ? sql`lower(${posts.city}) = lower(${f.city})` : undefined,
          f.category ? sql`${posts.fields}->>'category' = ${f.category}` : undefined,
          after
            ? or(
                lt(posts.publishedAt, after.at),
                and(eq(posts.publishedAt, after.at), lt(posts.id, after.id)),
              )
            : undefined,
        ),
      )
      .orderBy(
        ...(f.order === 'starts_at'
          ? [asc(posts.startsAt), asc(posts.id)]
          : [desc(posts.publishedAt), desc(posts.id)]),
      )
      .limit(f.limit + 1);
    const page = rows.slice(0, f.limit);
    const last = page.at(-1);
    return {
      data: page.map((r) => toPublic(r, this.deps.baseUrl)),
      next_cursor:
        f.order !== 'starts_at' && rows.length > f.limit && last?.publishedAt
          ? encodeCursor(last.publishedAt, last.id)
          : null,
    };
  }
}

/** Thrown inside a charged write when the balance cannot pay `price`. */
export class InsufficientBalance extends Error {
  constructor(readonly price: number) {
    super('insufficient balance');
  }
}

function encodeCursor(at: Date, id: string): string {
  return Buffer.from(`${at.toISOString()}|${id}`).toString('base64url');
}

/** What encodeCursor writes: a millisecond UTC timestamp and a post id. */
const CURSOR_SHAPE = /^[A-Za-z0-9_-]{1,200}$/;
const CURSOR_AT = /^(\d{4})-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;
const CURSOR_ID = /^[A-Za-z0-9_-]{1,64}$/;

/**
 * Reads a cursor back, refusing (422 at /query/cursor) anything encodeCursor cannot have written:
 * not canonical base64url, not exactly `<timestamp>|<id>`, an impossible date (2024-02-30), a year
 * outside 1970..9999 (PostgreSQL would fail on year 0), an id that is not an id. Nothing else
 * reaches the query.
 */
function decodeCursor(cursor: unknown): { at: Date; id: string } {
  if (typeof cursor !== 'string' || !CURSOR_SHAPE.test(cursor)) throw invalidCursor();
  const raw = Buffer.from(cursor, 'base64url');
  if (raw.toString('base64url') !== cursor) throw invalidCursor();
  const parts = raw.toString().split('|');
  const [at = '', id = ''] = parts;
  const year = Number(CURSOR_AT.exec(at)?.[1]);
  const d = new Date(at);
  if (
    parts.length !== 2 ||
    !(year >= 1970 && year <= 9999) ||
    Number.isNaN(d.getTime()) ||
    d.toISOString() !== at ||
    !CURSOR_ID.test(id)
  ) {
    throw invalidCursor();
  }
  return { at: d, id };
}
