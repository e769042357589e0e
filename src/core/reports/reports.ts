import { desc, eq } from 'drizzle-orm';
import { z } from 'zod';
import { posts, reports } from '../../db/schema.js';
import type { Principal } from '../accounts/keys.js';
import type { Deps } from '../context.js';
import { consume } from '../limits/daily.js';
import { POLICY } from '../policy/document.js';
import { Problem } from '../problems.js';
import { newId } from '../secrets.js';

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
  created_at: z.string(),
});
export type ReportView = z.infer<typeof reportView>;

export const reportAck = z.object({
  id: z.string(),
  status: z.literal('received'),
  detail: z.string(),
});

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
      return { id, status: 'received' as const, detail: 'Thank you. A person reviews every report.' };
    });
  }

  async list(limit = 100): Promise<ReportView[]> {
    const rows = await this.deps.db.select().from(reports).orderBy(desc(reports.createdAt)).limit(limit);
    return rows.map((r) => ({
      id: r.id,
      post_id: r.postId,
      site: r.site,
      category: r.category,
      detail: r.detail,
      status: r.status,
      created_at: r.createdAt.toISOString(),
    }));
  }
}
