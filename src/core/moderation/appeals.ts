import { and, asc, desc, eq } from 'drizzle-orm';
import { z } from 'zod';
import type { Executor } from '../../db/client.js';
import { appeals, posts } from '../../db/schema.js';
import type { Principal } from '../accounts/keys.js';
import type { Deps } from '../context.js';
import { type AppealSummary, ownPost, toOwn } from '../posts/views.js';
import { Problem } from '../problems.js';
import { newId } from '../secrets.js';
import type { SiteRebuilds } from '../sites/changes.js';
import { type Actor, recordAudit } from '../staff/audit.js';
import { line } from '../validation.js';
import type { Events } from '../webhooks/events.js';
import { type Announcer, announcePost } from './announce.js';
import { APPEAL_WINDOW_MONTHS, APPEALABLE, appealDeadline, type StatementOfReasons } from './statement.js';
import { reverseDecision } from './verdicts.js';

export const appealBody = z.strictObject({
  statement: z
    .string()
    .trim()
    .min(1)
    .max(5000)
    .describe('Why the decision is wrong, in your own words; a person reads it beside the original verdict.'),
});

export const appealDecisionBody = z.strictObject({
  decision: z.enum(['uphold', 'reverse']),
  reason: line().trim().min(1).max(2000),
});

export const appealIdParams = z.object({ appeal_id: z.string().min(1).max(64) });

export const APPEAL_STATUSES = ['pending', 'upheld', 'reversed'] as const;
export const appealQueueQuery = z.strictObject({
  status: z.enum([...APPEAL_STATUSES, 'all']).default('pending'),
});

/** POST /v1/posts/{id}/appeal and appeal_verdict: the appeal as filed. */
export const appealView = z
  .object({
    id: z.string(),
    post_id: z.string(),
    decision_id: z.string().describe('The statement_of_reasons.id appealed.'),
    status: z.enum(APPEAL_STATUSES),
    statement: z.string(),
    created_at: z.string(),
    decided_at: z.string().nullable(),
    reason: z.string().nullable(),
  })
  .describe('An appeal of a moderation decision; a person decides it. Free.');
export type AppealView = z.infer<typeof appealView>;

/** GET /v1/admin/appeals items and the decision's answer: the appeal beside the post and its verdict. */
export const appealItem = appealView.extend({
  account_id: z.string(),
  decided_by: z
    .string()
    .nullable()
    .describe('Who decided: "admin-token" for the shared token or its console.'),
  refunded: z.number().int().describe('Micro-dollars the reversal refunded.'),
  strike_removed: z.boolean(),
  ban_lifted: z.boolean(),
  post: ownPost,
});
export type AppealItem = z.infer<typeof appealItem>;

type AppealRow = typeof appeals.$inferSelect;
type PostRow = typeof posts.$inferSelect;

const view = (a: AppealRow): AppealView => ({
  id: a.id,
  post_id: a.postId,
  decision_id: a.decisionId,
  status: a.status,
  statement: a.statement,
  created_at: a.createdAt.toISOString(),
  decided_at: a.decidedAt?.toISOString() ?? null,
  reason: a.reason,
});

export const summary = (a: AppealRow): AppealSummary => ({
  id: a.id,
  decision_id: a.decisionId,
  status: a.status,
  created_at: a.createdAt.toISOString(),
  decided_at: a.decidedAt?.toISOString() ?? null,
  reason: a.reason,
});

/**
 * Appeals (DSA Article 20): the owning account contests a rejection or a removal, once per
 * decision, within APPEAL_WINDOW_MONTHS, for free; a person upholds it (nothing changes) or
 * reverses it (the post is published or restored, the fine refunded, the strike removed and a
 * ban lifted below three strikes, in one transaction with its ledger rows).
 */
export class Appeals {
  readonly #announce: Announcer;

  constructor(
    private readonly deps: Deps,
    private readonly events: Events,
    site?: SiteRebuilds,
  ) {
    this.#announce = { events, site, baseUrl: deps.baseUrl };
  }

  async file(principal: Principal, postId: string, input: z.infer<typeof appealBody>): Promise<AppealView> {
    const { db, clock } = this.deps;
    const now = clock.now();
    return db.transaction(async (tx) => {
      const [post] = await tx
        .select()
        .from(posts)
        .where(and(eq(posts.id, postId), eq(posts.accountId, principal.accountId)));
      if (!post) throw new Problem('not_found', { detail: `No post ${postId} of this account.` });
      const decision = post.statement as unknown as StatementOfReasons | null;
      if (decision) {
        const [earlier] = await tx.select().from(appeals).where(eq(appeals.decisionId, decision.id));
        if (earlier) throw appealExists(earlier);
      }
      if (!decision || !APPEALABLE.includes(decision.outcome) || post.status !== decision.outcome)
        throw new Problem('invalid_state', {
          detail: `Only a rejection or a removal can be appealed; post ${postId} is ${post.status}.`,
        });
      const deadline = appealDeadline(new Date(decision.application_date));
      if (now.getTime() > deadline.getTime())
        throw new Problem('appeal_window_closed', {
          detail: `Decision ${decision.id} was taken on ${decision.application_date}; it could be appealed until ${deadline.toISOString()} (${APPEAL_WINDOW_MONTHS} months).`,
        });
      const [row] = await tx
        .insert(appeals)
        .values({
          id: newId('apl'),
          decisionId: decision.id,
          postId,
          accountId: principal.accountId,
          statement: input.statement,
          createdAt: now,
        })
        .onConflictDoNothing()
        .returning();
      if (!row) {
        // A concurrent appeal of the same decision won the unique index.
        const [winner] = await tx.select().from(appeals).where(eq(appeals.decisionId, decision.id));
        throw appealExists(winner);
      }
      return view(row);
    });
  }

  /** The account page: every appeal of the account, newest first. */
  async ofAccount(accountId: string, limit = 50): Promise<(AppealView & { post_title: string | null })[]> {
    const rows = await this.deps.db
      .select({ appeal: appeals, title: posts.title })
      .from(appeals)
      .innerJoin(posts, eq(posts.id, appeals.postId))
      .where(eq(appeals.accountId, accountId))
      .orderBy(desc(appeals.createdAt))
      .limit(limit);
    return rows.map((r) => ({ ...view(r.appeal), post_title: r.title }));
  }

  /** The queue: pending appeals oldest first (or every appeal of a status, newest first). */
  async queue(
    status: (typeof APPEAL_STATUSES)[number] | 'all' = 'pending',
    limit = 100,
  ): Promise<AppealItem[]> {
    const rows = await this.deps.db
      .select({ appeal: appeals, post: posts })
      .from(appeals)
      .innerJoin(posts, eq(posts.id, appeals.postId))
      .where(status === 'all' ? undefined : eq(appeals.status, status))
      .orderBy(status === 'pending' ? asc(appeals.createdAt) : desc(appeals.createdAt))
      .limit(limit);
    return rows.map((r) => this.item(r.appeal, r.post));
  }

  /**
   * A person decides an appeal, once: the conditional UPDATE on status = 'pending' lets exactly
   * one of two concurrent decisions through; the other answers 409 invalid_state.
   */
  async decide(
    appealId: string,
    input: z.infer<typeof appealDecisionBody>,
    actor: Actor,
  ): Promise<AppealItem> {
    const { db, clock } = this.deps;
    return db.transaction(async (tx) => {
      const now = clock.now();
      const [decided] = await tx
        .update(appeals)
        .set({
          status: input.decision === 'reverse' ? 'reversed' : 'upheld',
          reason: input.reason,
          decidedBy: actor.id,
          decidedAt: now,
        })
        .where(and(eq(appeals.id, appealId), eq(appeals.status, 'pending')))
        .returning();
      if (!decided) {
        const [a] = await tx.select({ status: appeals.status }).from(appeals).where(eq(appeals.id, appealId));
        if (!a) throw new Problem('not_found', { detail: `No appeal ${appealId}.` });
        throw new Problem('invalid_state', {
          detail: `Appeal ${appealId} was already decided (${a.status}).`,
        });
      }
      await recordAudit(tx, now, {
        actor,
        action: 'appeal.decided',
        subject: appealId,
        detail: { decision: input.decision, reason: input.reason, post_id: decided.postId },
      });
      let [post] = await tx.select().from(posts).where(eq(posts.id, decided.postId));
      if (!post) throw new Problem('not_found', { detail: `No post ${decided.postId}.` });
      let appeal: AppealRow = decided;
      if (input.decision === 'reverse') {
        const statement = post.statement as unknown as StatementOfReasons | null;
        const reversed =
          statement?.id === decided.decisionId ? await reverseDecision(tx, clock, post.id, statement) : null;
        if (!reversed)
          throw new Problem('invalid_state', {
            detail: `Post ${post.id} is ${post.status} and no longer under the appealed decision; it cannot be reversed.`,
          });
        post = reversed.post;
        const [withMoney] = await tx
          .update(appeals)
          .set({
            refunded: reversed.refunded,
            strikeRemoved: reversed.strikeRemoved,
            banLifted: reversed.banLifted,
          })
          .where(eq(appeals.id, appealId))
          .returning();
        appeal = withMoney ?? decided;
        await announcePost(tx, this.#announce, post);
      }
      const item = this.item(appeal, post);
      await this.events.emitPost(tx, post.accountId, 'post.appeal_decided', item.post, {
        appeal: summary(appeal),
      });
      return item;
    });
  }

  private item(a: AppealRow, post: PostRow): AppealItem {
    return {
      ...view(a),
      account_id: a.accountId,
      decided_by: a.decidedBy,
      refunded: a.refunded,
      strike_removed: a.strikeRemoved,
      ban_lifted: a.banLifted,
      post: toOwn(
        post,
        this.deps.baseUrl,
        undefined,
        a.decisionId === statementId(post) ? summary(a) : undefined,
      ),
    };
  }
}

/** The appeal of the post's current decision, for the owner's view of the post. */
export async function appealOfPost(exec: Executor, post: PostRow): Promise<AppealSummary | undefined> {
  const id = statementId(post);
  if (typeof id !== 'string') return undefined;
  const [a] = await exec.select().from(appeals).where(eq(appeals.decisionId, id));
  return a ? summary(a) : undefined;
}

const statementId = (post: PostRow) => (post.statement as { id?: unknown } | null)?.id;

function appealExists(earlier: AppealRow | undefined): Problem {
  return new Problem('appeal_exists', {
    detail: `This decision was already appealed${earlier ? ` (${earlier.id}, ${earlier.status})` : ''}; each decision can be appealed once.`,
  });
}
