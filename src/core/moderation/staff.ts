import { and, desc, eq } from 'drizzle-orm';
import { z } from 'zod';
import type { Executor } from '../../db/client.js';
import { postRevisions, posts, reports } from '../../db/schema.js';
import type { Deps } from '../context.js';
import { cancelWaitingEdit, withRevision } from '../posts/revisions.js';
import { type OwnPost, ownPost, toOwn } from '../posts/views.js';
import { Problem } from '../problems.js';
import type { SiteRebuilds } from '../sites/changes.js';
import { type Actor, Audit } from '../staff/audit.js';
import {
  type AuthorHistory,
  authorHistory,
  type ClaimView,
  claimView,
  DECISION_CATEGORIES,
  type EvidenceView,
  evidenceOf,
  evidenceView,
  historyOf,
  liveClaims,
  takeClaim,
} from '../staff/review.js';
import { line } from '../validation.js';
import type { Events } from '../webhooks/events.js';
import { type Announcer, announceEdit, announcePost } from './announce.js';
import type { RejectionCategory } from './moderator.js';
import { type AppliedEdit, decideEdit, decidePost, recordDecision } from './verdicts.js';

export const decisionBody = z
  .strictObject({
    decision: z.enum(['publish', 'reject']),
    category: z.enum(DECISION_CATEGORIES).optional(),
    reason: line().trim().min(1).max(2000),
  })
  .refine((d) => d.decision === 'publish' || d.category !== undefined, {
    path: ['category'],
    message: 'a rejection needs a category',
  });

export const removeBody = z.strictObject({
  reason: line().trim().min(1).max(2000),
  category: z
    .enum(DECISION_CATEGORIES)
    .optional()
    .describe("The policy category broken (default: the open reports' category)."),
});

/** GET /v1/admin/review items: the post with its author, what the rules and the model said, its claim. */
export const reviewItem = ownPost.extend({
  account_id: z.string(),
  edit: z
    .boolean()
    .describe('An edit of a published post: title, body and topics are the edit, `revision` its number.'),
  prefilter: z.record(z.string(), z.unknown()).nullable(),
  model: z.record(z.string(), z.unknown()).nullable(),
  claim: claimView.nullable().describe('Who is reviewing it now, until when (null: nobody)'),
});

/** GET /v1/admin/review/{id}: the item as the reviewer opens it. */
export const reviewDetail = reviewItem.extend({
  evidence: evidenceView,
  history: authorHistory,
});

export interface ReviewItem extends OwnPost {
  account_id: string;
  edit: boolean;
  prefilter: Record<string, unknown> | null;
  model: Record<string, unknown> | null;
  claim: ClaimView | null;
}

export interface ReviewDetail extends ReviewItem {
  evidence: EvidenceView;
  history: AuthorHistory;
}

/**
 * What people do: decide posts in review, remove published posts, act on reports. Same money
 * rules as the model. Every action names its actor and is written to the audit log in the same
 * transaction; a decision takes (or must already hold) the item's claim.
 */
export class Staff {
  readonly #audit: Audit;
  readonly #announce: Announcer;

  constructor(
    private readonly deps: Deps,
    events: Events,
    /** Runs after a fine commits: auto-recharge and the low-balance e-mail. */
    private readonly watch?: { afterDebit(accountId: string): Promise<void> },
    site?: SiteRebuilds,
  ) {
    this.#audit = new Audit(deps);
    this.#announce = { events, site, baseUrl: deps.baseUrl };
  }

  async reviewQueue(limit = 100): Promise<ReviewItem[]> {
    const { db, clock, baseUrl } = this.deps;
    const rows = await db
      .select()
      .from(posts)
      .where(eq(posts.status, 'review'))
      .orderBy(desc(posts.createdAt))
      .limit(limit);
    // Edits in review: the post as it would read with the edit (same id: a decision names the post).
    const edits = await db
      .select({ rev: postRevisions, post: posts })
      .from(postRevisions)
      .innerJoin(posts, eq(posts.id, postRevisions.postId))
      .where(eq(postRevisions.status, 'review'))
      .orderBy(desc(postRevisions.createdAt))
      .limit(limit);
    const claims = await liveClaims(db, clock, [...rows.map((r) => r.id), ...edits.map((e) => e.post.id)]);
    const posted: ReviewItem[] = rows.map((r) => ({
      ...toOwn(r, baseUrl),
      account_id: r.accountId,
      edit: false,
      prefilter: r.prefilter,
      model: r.moderation,
      claim: claims.get(r.id) ?? null,
    }));
    const edited: ReviewItem[] = edits.map(({ rev, post }) => ({
      ...toOwn(withRevision(post, rev), baseUrl),
      status: 'review',
      account_id: rev.accountId,
      edit: true,
      prefilter: rev.prefilter,
      model: rev.moderation,
      claim: claims.get(post.id) ?? null,
    }));
    return [...posted, ...edited]
      .sort((x, y) => (x.created_at < y.created_at ? 1 : x.created_at > y.created_at ? -1 : 0))
      .slice(0, limit);
  }

  /** One item in review with its evidence and its author's history (no claim taken). */
  async reviewDetail(postId: string): Promise<ReviewDetail> {
    const { db, clock, baseUrl } = this.deps;
    return db.transaction(async (tx) => {
      const [r] = await tx.select().from(posts).where(eq(posts.id, postId));
      if (!r) throw new Problem('not_found', { detail: `No post ${postId}.` });
      // An edit in review is shown as the post would read with it (the decision names the post).
      const [rev] =
        r.status === 'published'
          ? await tx
              .select()
              .from(postRevisions)
              .where(and(eq(postRevisions.postId, postId), eq(postRevisions.status, 'review')))
          : [];
      if (r.status !== 'review' && !rev) throw await notIn(tx, postId, 'review');
      const shown = rev ? withRevision(r, rev) : r;
      const claims = await liveClaims(tx, clock, [r.id]);
      return {
        ...toOwn(shown, baseUrl),
        ...(rev ? { status: 'review' as const } : {}),
        account_id: r.accountId,
        edit: rev !== undefined,
        prefilter: shown.prefilter,
        model: shown.moderation,
        claim: claims.get(r.id) ?? null,
        evidence: evidenceOf(shown.body, shown.moderation),
        history: await historyOf(tx, r.accountId, r.id),
      };
    });
  }

  /** Opens an item for `actor`: takes or renews its claim (review_claimed when someone else holds it). */
  async claim(actor: Actor, postId: string): Promise<ClaimView> {
    const { db, clock } = this.deps;
    return db.transaction(async (tx) => {
      await inReview(tx, postId);
      const claim = await takeClaim(tx, clock, actor, postId);
      await this.#audit.record(tx, {
        actor,
        action: 'review.claimed',
        subject: postId,
        detail: { expires_at: claim.expires_at },
      });
      return claim;
    });
  }

  /**
   * Decides the post in review, or else the post's edit in review (a post in review has no edit:
   * only published posts are edited). A person's rejection in an abuse category strikes (a person
   * can; rules alone never do). Answers the post as it now is.
   */
  async decide(actor: Actor, postId: string, input: z.infer<typeof decisionBody>): Promise<OwnPost> {
    const { db, clock, baseUrl } = this.deps;
    const { view, fined } = await db.transaction(async (tx) => {
      const status = await statusOf(tx, postId);
      const editInReview = status === 'published' && (await hasEditInReview(tx, postId));
      // Refused while another reviewer holds it (even just decided by them); taken when free.
      await takeClaim(tx, clock, actor, postId, editInReview ? 'review' : status);
      if (status !== 'review' && !editInReview)
        throw new Problem('invalid_state', { detail: `Post ${postId} is ${status}, not review.` });
      const strike = input.decision === 'reject' && input.category !== 'low_quality';
      const verdict = {
        decision: input.decision,
        ...(input.category ? { category: input.category } : {}),
        reason: input.reason,
        confidence: 1,
        strike,
        source: 'person' as const,
      };
      let post: Parameters<typeof toOwn>[0];
      let banned: boolean;
      if (editInReview) {
        const edit = await this.decideEdit(tx, postId, verdict);
        if (!edit) throw await notIn(tx, postId, 'review');
        post = edit.post;
        banned = edit.banned;
      } else {
        const applied = await decidePost(tx, clock, postId, verdict, 'review');
        if (!applied) throw await notIn(tx, postId, 'review');
        post = applied.post;
        banned = applied.banned;
        await announcePost(tx, this.#announce, post);
      }
      await this.#audit.record(tx, {
        actor,
        action: 'post.decided',
        subject: postId,
        detail: {
          decision: input.decision,
          ...(input.category && input.decision === 'reject' ? { category: input.category } : {}),
          reason: input.reason,
          account_id: post.accountId,
          ...(editInReview ? { edit: true } : {}),
        },
      });
      if (strike) {
        await this.#audit.record(tx, {
          actor,
          action: 'account.struck',
          subject: post.accountId,
          detail: { post_id: postId, category: input.category },
        });
        if (banned)
          await this.#audit.record(tx, {
            actor,
            action: 'account.banned',
            subject: post.accountId,
            detail: { post_id: postId, reason: 'three strikes' },
          });
      }
      return { view: toOwn(post, baseUrl), fined: strike ? post.accountId : null };
    });
    if (fined) await this.watch?.afterDebit(fined);
    return view;
  }

  private async decideEdit(
    tx: Executor,
    postId: string,
    verdict: Parameters<typeof decideEdit>[3],
  ): Promise<AppliedEdit | null> {
    const [rev] = await tx
      .select({ id: postRevisions.id })
      .from(postRevisions)
      .where(and(eq(postRevisions.postId, postId), eq(postRevisions.status, 'review')));
    if (!rev) return null;
    const applied = await decideEdit(tx, this.deps.clock, rev.id, verdict, 'review');
    if (!applied) return null;
    await announceEdit(tx, this.#announce, applied);
    return applied;
  }

  /**
   * A person removes a published post (event post.removed). No money moves. The post's open
   * reports are resolved as acted on (content_removed), the statement of reasons names them as the
   * notice that led to it, and an edit still waiting is cancelled.
   */
  async remove(actor: Actor, postId: string, reason: string, category?: RejectionCategory): Promise<OwnPost> {
    const { db, clock, baseUrl } = this.deps;
    return db.transaction(async (tx) => {
      const now = clock.now();
      const [removed] = await tx
        .update(posts)
        .set({ status: 'removed', rejectionReason: reason, decidedAt: now })
        .where(and(eq(posts.id, postId), eq(posts.status, 'published')))
        .returning();
      if (!removed) throw await notIn(tx, postId, 'published');
      await this.#audit.record(tx, {
        actor,
        action: 'post.removed',
        subject: postId,
        detail: { reason, account_id: removed.accountId },
      });
      const open = await tx
        .update(reports)
        .set({ status: 'resolved', resolution: 'content_removed', resolvedAt: now })
        .where(and(eq(reports.postId, postId), eq(reports.status, 'open')))
        .returning({ id: reports.id, category: reports.category });
      for (const r of open)
        await this.#audit.record(tx, {
          actor,
          action: 'report.resolved',
          subject: r.id,
          detail: { resolution: 'content_removed', post_id: postId },
        });
      const row = await recordDecision(tx, removed, {
        outcome: 'removed',
        category: category ?? open[0]?.category ?? null,
        reason,
        source: 'person',
        notice: open.length > 0,
        details: null,
        fine: 0,
        feeRefunded: false,
        strike: false,
        banned: false,
        decidedAt: now,
      });
      await cancelWaitingEdit(tx, postId, now);
      await announcePost(tx, this.#announce, row);
      return toOwn(row, baseUrl);
    });
  }
}

async function hasEditInReview(tx: Executor, postId: string): Promise<boolean> {
  const [rev] = await tx
    .select({ id: postRevisions.id })
    .from(postRevisions)
    .where(and(eq(postRevisions.postId, postId), eq(postRevisions.status, 'review')));
  return rev !== undefined;
}

async function statusOf(tx: Executor, postId: string): Promise<string> {
  const [row] = await tx.select({ status: posts.status }).from(posts).where(eq(posts.id, postId));
  if (!row) throw new Problem('not_found', { detail: `No post ${postId}.` });
  return row.status;
}

async function inReview(tx: Executor, postId: string): Promise<void> {
  const status = await statusOf(tx, postId);
  if (status !== 'review' && !(status === 'published' && (await hasEditInReview(tx, postId))))
    throw new Problem('invalid_state', { detail: `Post ${postId} is ${status}, not review.` });
}

/** Why a post is not in the expected state (read in the caller's transaction: PGlite has one connection). */
async function notIn(tx: Executor, postId: string, status: string): Promise<Problem> {
  const [row] = await tx.select({ status: posts.status }).from(posts).where(eq(posts.id, postId));
  if (!row) return new Problem('not_found', { detail: `No post ${postId}.` });
  return new Problem('invalid_state', { detail: `Post ${postId} is ${row.status}, not ${status}.` });
}
