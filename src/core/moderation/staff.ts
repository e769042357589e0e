import { and, desc, eq } from 'drizzle-orm';
import { z } from 'zod';
import type { Executor } from '../../db/client.js';
import { posts } from '../../db/schema.js';
import type { Deps } from '../context.js';
import { POLICY } from '../policy/document.js';
import { type OwnPost, ownPost, toOwn } from '../posts/views.js';
import { Problem } from '../problems.js';
import type { SiteRebuilds } from '../sites/changes.js';
import { line } from '../validation.js';
import type { Events } from '../webhooks/events.js';
import { eventFor } from './moderation.js';
import type { RejectionCategory } from './moderator.js';
import { decideReview } from './verdicts.js';

const CATEGORIES = ['low_quality', ...POLICY.abuse.map((c) => c.id)] as [
  RejectionCategory,
  ...RejectionCategory[],
];

export const decisionBody = z
  .strictObject({
    decision: z.enum(['publish', 'reject']),
    category: z.enum(CATEGORIES).optional(),
    reason: line().trim().min(1).max(2000),
  })
  .refine((d) => d.decision === 'publish' || d.category !== undefined, {
    path: ['category'],
    message: 'a rejection needs a category',
  });

export const removeBody = z.strictObject({ reason: line().trim().min(1).max(2000) });

/** GET /v1/admin/review items: the post with its author and what the rules and the model said. */
export const reviewItem = ownPost.extend({
  account_id: z.string(),
  prefilter: z.record(z.string(), z.unknown()).nullable(),
  model: z.record(z.string(), z.unknown()).nullable(),
});

export interface ReviewItem extends OwnPost {
  account_id: string;
  prefilter: Record<string, unknown> | null;
  model: Record<string, unknown> | null;
}

/** What people do: decide posts in review, remove published posts. Same money rules as the model. */
export class Staff {
  constructor(
    private readonly deps: Deps,
    private readonly events: Events,
    /** Runs after a fine commits: auto-recharge and the low-balance e-mail. */
    private readonly watch?: { afterDebit(accountId: string): Promise<void> },
    private readonly site?: SiteRebuilds,
  ) {}

  async reviewQueue(limit = 100): Promise<ReviewItem[]> {
    const rows = await this.deps.db
      .select()
      .from(posts)
      .where(eq(posts.status, 'review'))
      .orderBy(desc(posts.createdAt))
      .limit(limit);
    return rows.map((r) => ({
      ...toOwn(r, this.deps.baseUrl),
      account_id: r.accountId,
      prefilter: r.prefilter,
      model: r.moderation,
    }));
  }

  /** A person's rejection in an abuse category strikes (a person can; rules alone never do). */
  async decide(postId: string, input: z.infer<typeof decisionBody>): Promise<OwnPost> {
    const { db, clock, baseUrl } = this.deps;
    const view = await db.transaction(async (tx) => {
      const applied = await decideReview(tx, clock, postId, {
        decision: input.decision,
        ...(input.category ? { category: input.category } : {}),
        reason: input.reason,
        confidence: 1,
        strike: input.decision === 'reject' && input.category !== 'low_quality',
        source: 'person',
      });
      if (!applied) throw await notIn(tx, postId, 'review');
      const own = toOwn(applied.post, baseUrl);
      await this.events.emitPost(tx, applied.post.accountId, eventFor(applied.post.status), own);
      if (applied.post.status === 'published') await this.site?.postChanged(tx, applied.post);
      return own;
    });
    const fined = view.status === 'rejected' && view.rejection?.category !== 'low_quality';
    if (fined) {
      const [row] = await db.select({ accountId: posts.accountId }).from(posts).where(eq(posts.id, postId));
      if (row) await this.watch?.afterDebit(row.accountId);
    }
    return view;
  }

  /** A person removes a published post (event post.removed). No money moves. */
  async remove(postId: string, reason: string): Promise<OwnPost> {
    const { db, clock, baseUrl } = this.deps;
    return db.transaction(async (tx) => {
      const [row] = await tx
        .update(posts)
        .set({ status: 'removed', rejectionReason: reason, decidedAt: clock.now() })
        .where(and(eq(posts.id, postId), eq(posts.status, 'published')))
        .returning();
      if (!row) throw await notIn(tx, postId, 'published');
      const view = toOwn(row, baseUrl);
      await this.events.emitPost(tx, row.accountId, 'post.removed', view);
      await this.site?.postChanged(tx, row);
      return view;
    });
  }
}

/** Why a post is not in the expected state (read in the caller's transaction: PGlite has one connection). */
async function notIn(tx: Executor, postId: string, status: string): Promise<Problem> {
  const [row] = await tx.select({ status: posts.status }).from(posts).where(eq(posts.id, postId));
  if (!row) return new Problem('not_found', { detail: `No post ${postId}.` });
  return new Problem('invalid_state', { detail: `Post ${postId} is ${row.status}, not ${status}.` });
}
