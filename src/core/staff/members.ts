import { asc, eq } from 'drizzle-orm';
import { z } from 'zod';
import { staffMembers, staffSessions } from '../../db/schema.js';
import type { Deps } from '../context.js';
import { normalAddress, quoted } from '../mail/mailer.js';
import { Problem } from '../problems.js';
import { newId } from '../secrets.js';
import { line } from '../validation.js';
import { type Actor, Audit, type StaffRole } from './audit.js';

export const STAFF_ROLES = ['moderator', 'admin'] as const satisfies readonly StaffRole[];

export const staffView = z.object({
  id: z.string(),
  email: z.string(),
  name: z.string(),
  role: z.enum(STAFF_ROLES),
  invited_by: z.string(),
  created_at: z.string(),
  disabled_at: z.string().nullable(),
});
export type StaffView = z.infer<typeof staffView>;

export const inviteBody = z.strictObject({
  email: z.email().max(254),
  name: line().trim().min(1).max(100),
  role: z.enum(STAFF_ROLES),
});

export const staffUpdateBody = z
  .strictObject({
    role: z.enum(STAFF_ROLES).optional(),
    disabled: z.boolean().optional(),
  })
  .refine((b) => b.role !== undefined || b.disabled !== undefined, {
    message: 'send role, disabled or both',
  });

export const staffIdParams = z.object({ id: z.string().min(1).max(64) });

type Row = typeof staffMembers.$inferSelect;
const view = (r: Row): StaffView => ({
  id: r.id,
  email: r.email,
  name: r.name,
  role: r.role,
  invited_by: r.invitedBy,
  created_at: r.createdAt.toISOString(),
  disabled_at: r.disabledAt?.toISOString() ?? null,
});

/** Staff accounts: an admin invites (by e-mail), changes roles, disables; each change is audited. */
export class StaffMembers {
  readonly #audit: Audit;
  constructor(private readonly deps: Deps) {
    this.#audit = new Audit(deps);
  }

  async list(): Promise<StaffView[]> {
    const rows = await this.deps.db.select().from(staffMembers).orderBy(asc(staffMembers.createdAt));
    return rows.map(view);
  }

  async invite(actor: Actor, input: z.infer<typeof inviteBody>): Promise<StaffView> {
    const { db, clock, baseUrl, mailer, log } = this.deps;
    const email = normalAddress(input.email);
    const created = await db.transaction(async (tx) => {
      const [row] = await tx
        .insert(staffMembers)
        .values({
          id: newId('stf'),
          email,
          name: input.name,
          role: input.role,
          invitedBy: actor.id,
          createdAt: clock.now(),
        })
        .onConflictDoNothing({ target: staffMembers.email })
        .returning();
      if (!row) throw new Problem('already_staff', { detail: `${email} is already on the staff.` });
      await this.#audit.record(tx, {
        actor,
        action: 'staff.invited',
        subject: row.id,
        detail: { email, role: row.role },
      });
      return row;
    });
    // The invitation is a courtesy: the member signs in with their address whether it arrives or not.
    try {
      await mailer.send({
        kind: 'staff_invite',
        to: email,
        subject: 'You are invited to the agentpress staff console',
        text: [
          `You were added to the agentpress staff as ${created.role}, under the name ${quoted(created.name)}.`,
          '',
          `Sign in at ${baseUrl}/admin with this e-mail address: a one-time code is e-mailed to you each time.`,
        ].join('\n'),
      });
    } catch (err) {
      log.warn({ err }, 'staff invitation: mail not sent');
    }
    return view(created);
  }

  async update(actor: Actor, id: string, input: z.infer<typeof staffUpdateBody>): Promise<StaffView> {
    const { db, clock } = this.deps;
    if (actor.id === id && (input.disabled === true || input.role === 'moderator'))
      throw new Problem('invalid_state', {
        detail: 'An admin cannot disable or demote themselves; ask another admin.',
      });
    return db.transaction(async (tx) => {
      const [row] = await tx
        .update(staffMembers)
        .set({
          ...(input.role ? { role: input.role } : {}),
          ...(input.disabled === undefined ? {} : { disabledAt: input.disabled ? clock.now() : null }),
        })
        .where(eq(staffMembers.id, id))
        .returning();
      if (!row) throw new Problem('not_found', { detail: `No staff member ${id}.` });
      // A disabled member is signed out everywhere at once.
      if (input.disabled) await tx.delete(staffSessions).where(eq(staffSessions.staffId, id));
      await this.#audit.record(tx, { actor, action: 'staff.updated', subject: id, detail: input });
      return view(row);
    });
  }
}
