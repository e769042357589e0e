import { and, desc, eq, lt } from 'drizzle-orm';
import { z } from 'zod';
import type { Executor } from '../../db/client.js';
import { auditLog } from '../../db/schema.js';
import type { Deps } from '../context.js';
import { idPage, invalidCursor } from '../validation.js';

export type StaffRole = 'moderator' | 'admin';

/**
 * Who acted: a named staff member, or the shared ADMIN_TOKEN (bootstrap and automation), which
 * is recorded as the actor "admin-token". `id` is what other tables store as text (an appeal's
 * `decided_by`, a claim's holder); `label` is for people reading the log.
 */
export interface Actor {
  /** "admin-token" or the staff member's id (stf_…). */
  id: string;
  /** The member's e-mail address, or "ADMIN_TOKEN". */
  label: string;
  role: StaffRole;
}

export const ADMIN_TOKEN_ACTOR: Actor = Object.freeze({
  id: 'admin-token',
  label: 'ADMIN_TOKEN',
  role: 'admin',
});

/** What the log records. Appeals (issue #20's other part) add `appeal.decided`. */
export type AuditAction =
  | 'post.decided'
  | 'post.removed'
  | 'report.resolved'
  | 'account.struck'
  | 'account.banned'
  | 'review.claimed'
  | 'staff.invited'
  | 'staff.updated'
  | 'staff.signed_in'
  | 'appeal.decided';

export interface AuditEntry {
  actor: Actor;
  action: AuditAction;
  /** The id of what was acted on (post, report, account, staff member, appeal). */
  subject: string;
  /** What was decided and why: small JSON (decision, category, reason, strike...). */
  detail?: Record<string, unknown>;
}

export const auditView = z.object({
  id: z.string(),
  at: z.string(),
  actor: z.string().describe('"admin-token" or the staff member id'),
  actor_label: z.string().describe('The staff member e-mail, or ADMIN_TOKEN'),
  action: z.string(),
  subject: z.string(),
  detail: z.record(z.string(), z.unknown()),
});
export type AuditView = z.infer<typeof auditView>;

export const auditQuery = z.object({
  limit: z.coerce.number().int().min(1).max(100).default(50),
  cursor: z.string().max(40).optional(),
  subject: z.string().max(64).optional(),
});

/**
 * The audit log. `record` takes the caller's executor so the entry commits (or rolls back) with
 * the change it describes: a decision without its entry cannot exist.
 */
export class Audit {
  constructor(private readonly deps: Deps) {}

  async record(exec: Executor, entry: AuditEntry): Promise<void> {
    await recordAudit(exec, this.deps.clock.now(), entry);
  }

  /** Newest first; `cursor` is the last page's next_cursor. */
  async list(q: z.infer<typeof auditQuery>): Promise<{ data: AuditView[]; next_cursor: string | null }> {
    let before: number | undefined;
    if (q.cursor !== undefined) {
      if (!/^\d{1,18}$/.test(q.cursor)) throw invalidCursor();
      before = Number(q.cursor);
    }
    const rows = await this.deps.db
      .select()
      .from(auditLog)
      .where(
        and(
          before === undefined ? undefined : lt(auditLog.id, before),
          q.subject === undefined ? undefined : eq(auditLog.subject, q.subject),
        ),
      )
      .orderBy(desc(auditLog.id))
      .limit(q.limit + 1);
    return idPage(rows, q.limit, (r) => ({
      id: String(r.id),
      at: r.at.toISOString(),
      actor: r.actor,
      actor_label: r.actorLabel,
      action: r.action,
      subject: r.subject,
      detail: r.detail,
    }));
  }
}

/** The one write to the log (for code that has a clock but no Audit at hand). */
export async function recordAudit(exec: Executor, at: Date, entry: AuditEntry): Promise<void> {
  await exec.insert(auditLog).values({
    at,
    actor: entry.actor.id,
    actorLabel: entry.actor.label,
    action: entry.action,
    subject: entry.subject,
    detail: entry.detail ?? {},
  });
}
