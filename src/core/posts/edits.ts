import { and, asc, count, eq, inArray, lt, max } from 'drizzle-orm';
import { z } from 'zod';
import type { Executor } from '../../db/client.js';
import { postRevisions, posts } from '../../db/schema.js';
import type { Accounts } from '../accounts/accounts.js';
import type { Principal } from '../accounts/keys.js';
import { post as ledgerPost } from '../billing/ledger.js';
import type { Deps } from '../context.js';
import type { JobSender } from '../jobs.js';
import type { ModelLifecycle } from '../moderation/lifecycle.js';
import { Problem } from '../problems.js';
import { newId } from '../secrets.js';
import type { SiteKind } from '../sites/sites.js';
import { wholeList } from '../validation.js';
import { editPrice, normalizeEdit } from './bodies.js';
import { checkIdempotencyKey, requestHash } from './idempotency.js';
import { type CreateOptions, InsufficientBalance, type PostingResult, type Posts } from './posts.js';
import { postAsRevision, type RevisionView, revisionView, textColumns, toRevision } from './revisions.js';
import { moderationEstimate, ownPost, type PostRow, toOwn } from './views.js';

/** Statuses of an edit that still waits for its verdict; a post has at most one such edit. */
export const WAITING = ['queued', 'review'] as const;

/** PATCH /v1/posts/{id} (202) and the MCP tool edit_post: the post as published, and the edit queued. */
export const editAccepted = ownPost
  .extend({
    moderation: moderationEstimate.describe('When to expect the verdict on the edit.'),
    edit: z.object({
      revision: z
        .number()
        .int()
        .describe('The number of the new revision (the post keeps `revision` until it is published).'),
      status: z.literal('queued'),
      charged: z.number().int().describe('micro-dollars charged for the edit'),
      created_at: z.string(),
    }),
  })
  .describe(
    'The edit is charged and queued for moderation. Until its verdict the post keeps its published text; poll GET /v1/posts/{id}/revisions or wait for the webhook.',
  );
export type EditAccepted = z.output<typeof editAccepted>;

/** GET /v1/posts/{id}/revisions and the MCP tool list_revisions: oldest first. */
export const revisionList = wholeList(revisionView);

/**
 * Edits of published posts. An edit is a new revision: validated like the post's creation body
 * (any subset of its members over the current text), charged the edit price at once, moderated
 * by the same job, rules and verdicts as a post. Until its verdict the published revision stays
 * up; published, the edit replaces it under the same id and URL.
 *
 * Only a published post is edited: a queued or review post waits for its own verdict, and a
 * rejected post is posted again (its fee was refunded; an edit at the edit price would make
 * publishing cost a fifth of the post price). A post has at most one edit waiting: a second
 * answers 409 edit_pending.
 */
export class Edits {
  constructor(
    private readonly deps: Deps,
    private readonly accounts: Accounts,
    private readonly lifecycle: ModelLifecycle,
    private readonly jobs: JobSender,
    private readonly posts: Posts,
  ) {}

  async edit(
    principal: Principal,
    postId: string,
    patch: unknown,
    opts: CreateOptions = {},
  ): Promise<PostingResult<EditAccepted>> {
    if (opts.idempotencyKey !== undefined) checkIdempotencyKey(opts.idempotencyKey);
    this.accounts.assertActive(principal);
    const row = await this.ownRow(this.deps.db, postId, principal);
    assertEditable(row);
    const next = normalizeEdit(row.site as SiteKind, row, patch, this.deps.clock.now());
    const price = editPrice(next);
    if (opts.dryRun) {
      await assertNoneWaiting(this.deps.db, postId);
      const text = { ...next, site: row.site as SiteKind, price, otherThan: row.id };
      return this.posts.dryRun(principal, text, 'An edit');
    }
    return this.posts.chargeOnce(
      principal,
      opts.idempotencyKey,
      requestHash({ edit: postId, body: patch }),
      'An edit',
      (tx) => this.chargeAndQueue(tx, principal, postId, patch),
    );
  }

  /**
   * Under the post's row lock (two edits of one post serialise here): the post is still published,
   * no edit waits, the patch is applied to the text as it is now; then the charge, the revision
   * and the moderation job commit together.
   */
  private async chargeAndQueue(
    tx: Executor,
    principal: Principal,
    postId: string,
    patch: unknown,
  ): Promise<EditAccepted> {
    const now = this.deps.clock.now();
    const [row] = await tx
      .select()
      .from(posts)
      .where(and(eq(posts.id, postId), eq(posts.accountId, principal.accountId)))
      .for('update');
    if (!row) throw notFound(postId);
    assertEditable(row);
    await assertNoneWaiting(tx, postId);
    const next = normalizeEdit(row.site as SiteKind, row, patch, now);
    const price = editPrice(next);
    await keepFirstRevision(tx, row);
    const [last] = await tx
      .select({ n: max(postRevisions.number) })
      .from(postRevisions)
      .where(eq(postRevisions.postId, postId));
    const number = (last?.n ?? row.revision) + 1;
    const id = newId('rev');
    const balance = await ledgerPost(tx, {
      accountId: principal.accountId,
      kind: 'edit_fee',
      amount: -price,
      reference: id,
      memo: postId,
      at: now,
    });
    if (balance === null) throw new InsufficientBalance(price);
    await tx.insert(postRevisions).values({
      id,
      postId,
      number,
      site: row.site,
      accountId: principal.accountId,
      keyId: principal.keyId,
      status: 'queued',
      ...textColumns(next),
      charged: price,
      postPrice: next.price,
      createdAt: now,
    });
    const estimate = await this.lifecycle.wake(tx, Math.max(0, (await waiting(tx)) - 1));
    await this.jobs.send(tx, 'moderate', { post_id: postId });
    return {
      ...toOwn(row, this.deps.baseUrl),
      moderation: estimate,
      edit: { revision: number, status: 'queued', charged: price, created_at: now.toISOString() },
    };
  }

  /** Every revision of the key's own post, oldest first; 404 to anyone else. */
  async revisions(postId: string, principal: Principal): Promise<z.output<typeof revisionList>> {
    const { db } = this.deps;
    const post = await this.ownRow(db, postId, principal);
    const rows = await db
      .select()
      .from(postRevisions)
      .where(eq(postRevisions.postId, postId))
      .orderBy(asc(postRevisions.number));
    if (rows.length === 0) {
      const own = await this.posts.own(post);
      return { data: [postAsRevision(post, own.moderation)], next_cursor: null };
    }
    const data: RevisionView[] = [];
    for (const r of rows) {
      const estimate =
        r.status === 'queued'
          ? await this.lifecycle.estimate(db, await waitingBefore(db, r.createdAt))
          : undefined;
      data.push(toRevision(r, post, estimate));
    }
    return { data, next_cursor: null };
  }

  private async ownRow(exec: Executor, postId: string, principal: Principal): Promise<PostRow> {
    const [row] = await exec
      .select()
      .from(posts)
      .where(and(eq(posts.id, postId), eq(posts.accountId, principal.accountId)));
    if (!row) throw notFound(postId);
    return row;
  }
}

const notFound = (postId: string) =>
  new Problem('not_found', { detail: `No post ${postId} of this account.` });

/** Only a published post is edited (see the class comment for why). */
function assertEditable(row: PostRow): void {
  if (row.status === 'published') return;
  const why: Record<string, string> = {
    queued: 'it is queued for moderation; wait for its verdict, then edit it once published',
    review: 'a person is reviewing it; wait for their decision',
    rejected:
      'it was rejected; post the corrected text as a new post (a low-quality rejection refunded the fee)',
    removed: 'it was removed by a person',
    deleted: 'it was deleted',
  };
  throw new Problem('invalid_state', {
    detail: `Post ${row.id} cannot be edited: ${why[row.status] ?? row.status}. Only published posts are edited.`,
  });
}

async function assertNoneWaiting(exec: Executor, postId: string): Promise<void> {
  const [w] = await exec
    .select({ number: postRevisions.number, status: postRevisions.status })
    .from(postRevisions)
    .where(and(eq(postRevisions.postId, postId), inArray(postRevisions.status, [...WAITING])));
  if (w) {
    throw new Problem('edit_pending', {
      detail: `Revision ${w.number} of post ${postId} is ${w.status === 'review' ? 'with a person' : 'queued for moderation'}; one edit waits at a time. Send the next edit after its verdict (GET /v1/posts/${postId}/revisions, or the webhook).`,
      extra: { pending_revision: w.number },
    });
  }
}

/** Revision 1 (the post as posted, or the last published text) is copied to the history once. */
async function keepFirstRevision(tx: Executor, row: PostRow): Promise<void> {
  await tx
    .insert(postRevisions)
    .values({
      id: newId('rev'),
      postId: row.id,
      number: row.revision,
      site: row.site,
      accountId: row.accountId,
      keyId: row.keyId,
      status: 'published',
      ...textColumns(row),
      charged: row.charged,
      postPrice: row.charged,
      prefilter: row.prefilter,
      moderation: row.moderation,
      createdAt: row.createdAt,
      decidedAt: row.decidedAt,
      publishedAt: row.publishedAt,
    })
    .onConflictDoNothing();
}

/** Posts and edits waiting for the model. */
async function waiting(exec: Executor): Promise<number> {
  const [p] = await exec.select({ n: count() }).from(posts).where(eq(posts.status, 'queued'));
  const [e] = await exec.select({ n: count() }).from(postRevisions).where(eq(postRevisions.status, 'queued'));
  return (p?.n ?? 0) + (e?.n ?? 0);
}

async function waitingBefore(exec: Executor, at: Date): Promise<number> {
  const [p] = await exec
    .select({ n: count() })
    .from(posts)
    .where(and(eq(posts.status, 'queued'), lt(posts.createdAt, at)));
  const [e] = await exec
    .select({ n: count() })
    .from(postRevisions)
    .where(and(eq(postRevisions.status, 'queued'), lt(postRevisions.createdAt, at)));
  return (p?.n ?? 0) + (e?.n ?? 0);
}
