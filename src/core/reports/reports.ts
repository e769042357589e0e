import { and, desc, eq } from 'drizzle-orm';
import { z } from 'zod';
import { posts, reports } from '../../db/schema.js';
import type { Principal } from '../accounts/keys.js';
import type { Deps } from '../context.js';
import { consume } from '../limits/daily.js';
import { POLICY } from '../policy/document.js';
import { Problem } from '../problems.js';
import { newId } from '../secrets.js';
import { type Actor, recordAudit } from '../staff/audit.js';

/** How a person resolved a report (reports.resolution, with status resolved). */
export const REPORT_OUTCOMES = ['content_removed', 'no_action'] as const;
type ReportOutcomeKind = (typeof REPORT_OUTCOMES)[number];

export const REPORTS_PER_IP_PER_DAY = 20;

export const reportBody = z.strictObject({
  post_id: z.string().min(1).max(64),
  category: z.enum(['low_quality', ...POLICY.abuse.map((c) => c.id)] as [string, ...string[]]),
  detail: z.string().trim().max(2000).optional(),
});

/** GET /v1/admin/reports items. */
export const reportView = z.object({
  id: z.string(),
  post_id: z.string(),
  site: z.string(),
  category: z.string(),
  detail: z.string().nullable(),
  status: z.string(),
  outcome: z.enum(REPORT_OUTCOMES).nullable(),
  created_at: z.string(),
  resolved_at: z.string().nullable(),
});
export type ReportView = z.infer<typeof reportView>;

export const reportAck = z.object({
  id: z.string(),
  status: z.literal('received'),
  detail: z.string(),
});

export const reportIdParams = z.object({ id: z.string().min(1).max(64) });

/** GET /v1/reports/{id}: what became of a report, to the account that filed it with its key. */
export const reportOutcome = z
  .object({
    id: z.string(),
    post_id: z.string(),
    category: z.string(),
    status: z.enum(['open', 'resolved']),
    outcome: z
      .enum(REPORT_OUTCOMES)
      .nullable()
      .describe('content_removed: the post was removed; no_action: a person found it within the policy.'),
    reason: z.string().nullable().describe('Why no action was taken, when a person said so.'),
    created_at: z.string(),
    resolved_at: z.string().nullable(),
  })
  .describe(
    'A report and its outcome. Only reports filed with an API key can be read back, by that account.',
  );
export type ReportOutcome = z.infer<typeof reportOutcome>;

/** POST /v1/admin/reports/{id}/dismiss: a person finds the reported post within the policy. */
export const dismissBody = z.strictObject({ reason: z.string().trim().min(1).max(2000) });

type ReportRow = typeof reports.$inferSelect;
const outcomeOf = (r: ReportRow): ReportOutcomeKind | null =>
  r.status === 'resolved' && (REPORT_OUTCOMES as readonly string[]).includes(r.resolution ?? '')
    ? (r.resolution as ReportOutcomeKind)
    : null;

function toView(r: ReportRow): ReportView {
  return {
    id: r.id,
    post_id: r.postId,
    site: r.site,
    category: r.category,
    detail: r.detail,
    status: r.status,
    outcome: outcomeOf(r),
    created_at: r.createdAt.toISOString(),
    resolved_at: r.resolvedAt?.toISOString() ?? null,
  };
}

export class Reports {
  constructor(private readonly deps: Deps) {}

  /** Anyone may report a published post; 20 reports per IP address per UTC day across all sites. */
  async create(
    input: z.infer<typeof reportBody>,
    ip: string,
    principal?: Principal,
  ): Promise<z.infer<typeof reportAck>> {
    const { db, clock } = this.deps;
    const [post] = await db
      .select({ site: posts.site, status: posts.status })
      .from(posts)
      .where(eq(posts.id, input.post_id));
    if (post?.status !== 'published')
      throw new Problem('not_found', { detail: `No published post ${input.post_id}.` });
    return db.transaction(async (tx) => {
      const n = await consume(tx, 'report_ip', ip, clock.now(), REPORTS_PER_IP_PER_DAY);
      if (n === null) {
        throw new Problem('rate_limited', {
          detail: `At most ${REPORTS_PER_IP_PER_DAY} reports per IP address per UTC day, across all sites.`,
        });
      }
      const id = newId('rep');
      await tx.insert(reports).values({
        id,
        postId: input.post_id,
        site: post.site,
        category: input.category,
        detail: input.detail ?? null,
        reporterIp: ip,
        reporterAccountId: principal?.accountId ?? null,
        createdAt: clock.now(),
      });
      return {
        id,
        status: 'received' as const,
        detail: principal
          ? `Thank you. A person reviews every report; read its outcome at GET /v1/reports/${id} with this key.`
          : 'Thank you. A person reviews every report.',
      };
    });
  }

  async list(limit = 100): Promise<ReportView[]> {
    const rows = await this.deps.db.select().from(reports).orderBy(desc(reports.createdAt)).limit(limit);
    return rows.map(toView);
  }

  /** A report's outcome, to the account whose key filed it; 404 to anyone else (as for posts). */
  async outcome(id: string, principal: Principal): Promise<ReportOutcome> {
    const [r] = await this.deps.db
      .select()
      .from(reports)
      .where(and(eq(reports.id, id), eq(reports.reporterAccountId, principal.accountId)));
    if (!r) throw new Problem('not_found', { detail: `No report ${id} filed by this account.` });
    const outcome = outcomeOf(r);
    return {
      id: r.id,
      post_id: r.postId,
      category: r.category,
      status: r.status,
      outcome,
      reason: outcome === 'no_action' ? (r.resolutionReason ?? null) : null,
      created_at: r.createdAt.toISOString(),
      resolved_at: r.resolvedAt?.toISOString() ?? null,
    };
  }

  /** A person finds the reported post within the policy: the report is resolved with no action. */
  async dismiss(actor: Actor, id: string, reason: string): Promise<ReportView> {
    const { db, clock } = this.deps;
    return db.transaction(async (tx) => {
      const [r] = await tx
        .update(reports)
        .set({
          status: 'resolved',
          resolution: 'no_action',
          resolutionReason: reason,
          resolvedAt: clock.now(),
        })
        .where(and(eq(reports.id, id), eq(reports.status, 'open')))
        .returning();
      if (!r) {
        const [exists] = await tx.select({ status: reports.status }).from(reports).where(eq(reports.id, id));
        if (!exists) throw new Problem('not_found', { detail: `No report ${id}.` });
        throw new Problem('invalid_state', { detail: `Report ${id} is already resolved.` });
      }
      await recordAudit(tx, clock.now(), {
        actor,
        action: 'report.resolved',
        subject: id,
        detail: { resolution: 'no_action', reason, post_id: r.postId },
      });
      return toView(r);
    });
  }
}
