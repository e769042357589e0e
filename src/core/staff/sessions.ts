import { and, eq, gt, isNull, lt, sql } from 'drizzle-orm';
import { staffChallenges, staffMembers, staffSessions } from '../../db/schema.js';
import { secondsToUtcMidnight } from '../clock.js';
import type { Deps } from '../context.js';
import { consume, used } from '../limits/daily.js';
import { maskAddress, normalAddress } from '../mail/mailer.js';
import { CODE_TTL_MS, checkCode, MAX_CODE_ATTEMPTS, sendSignInCode } from '../owner/codes.js';
import { Problem } from '../problems.js';
import { hashToken, newToken, safeEqual } from '../secrets.js';
import { type Actor, ADMIN_TOKEN_ACTOR, Audit } from './audit.js';

export const STAFF_SESSION_TTL_MS = 8 * 60 * 60 * 1000;
/** Wrong admin tokens one IP may try per UTC day before sign-in answers 429. */
export const STAFF_SIGN_IN_FAILURES_PER_IP = 10;
/** Sign-in codes e-mailed to one staff member per UTC day (as for owners: 100 guesses a day at most). */
export const STAFF_CODES_PER_DAY = 20;

export interface OpenedSession {
  session: string;
  expires_at: string;
  actor: Actor;
}

/**
 * The staff console's sign-in. A named staff member enters their e-mail address and the
 * six-digit code e-mailed to it (the owners' code path: src/core/owner/codes.ts); the shared
 * admin token may still be typed once, and that session acts as "admin-token". Either way the
 * browser holds a session (a random token in an HttpOnly cookie, stored only hashed, with an
 * expiry and a sign-out), never the admin token, and the session knows who it is.
 */
export class StaffSessions {
  readonly #audit: Audit;
  constructor(
    private readonly deps: Deps,
    private readonly adminToken: string,
  ) {
    this.#audit = new Audit(deps);
  }

  /** True when `token` is the admin token (constant time, over digests). */
  isAdminToken(token: string): boolean {
    return safeEqual(token, this.adminToken);
  }

  /** Exchanges the admin token for a session token; wrong tokens are counted per IP. */
  async signIn(token: string, ip: string): Promise<OpenedSession> {
    const { db, clock } = this.deps;
    const now = clock.now();
    const limited = () =>
      new Problem('rate_limited', {
        detail: `Too many wrong admin tokens from this address today (${STAFF_SIGN_IN_FAILURES_PER_IP}); try again after 00:00 UTC.`,
        headers: { 'retry-after': String(secondsToUtcMidnight(now)) },
      });
    if ((await used(db, 'staff_sign_in_ip', ip, now)) >= STAFF_SIGN_IN_FAILURES_PER_IP) throw limited();
    if (!this.isAdminToken(token)) {
      if ((await consume(db, 'staff_sign_in_ip', ip, now, STAFF_SIGN_IN_FAILURES_PER_IP)) === null)
        throw limited();
      throw new Problem('unauthorized', { detail: 'Wrong token.' });
    }
    return this.#open(ADMIN_TOKEN_ACTOR, null);
  }

  /**
   * E-mails a sign-in code to a staff member. An address that is not (or no longer) on the staff
   * gets the same answer and no mail, so the form does not tell who is staff.
   */
  async sendCode(email: string): Promise<{ sent_to: string; expires_at: string }> {
    const { db, clock } = this.deps;
    const address = normalAddress(email);
    const member = await this.#member(address);
    if (!member)
      return {
        sent_to: maskAddress(address),
        expires_at: new Date(clock.now().getTime() + CODE_TTL_MS).toISOString(),
      };
    const sent = await sendSignInCode(this.deps, {
      kind: 'staff_code',
      to: member.email,
      cap: { scope: 'staff_code', subject: member.id, perDay: STAFF_CODES_PER_DAY, unit: 'staff member' },
      context: 'Someone is signing in to the agentpress staff console with this address.',
      store: async (codeHash, expiresAt) => {
        await db
          .insert(staffChallenges)
          .values({ staffId: member.id, codeHash, expiresAt })
          .onConflictDoUpdate({
            target: staffChallenges.staffId,
            set: { codeHash, attempts: 0, expiresAt, usedAt: null },
          });
      },
    });
    return { sent_to: maskAddress(member.email), ...sent };
  }

  /** The code from the mail opens a session for that member (at most MAX_CODE_ATTEMPTS tries a code). */
  async verifyCode(email: string, code: string): Promise<OpenedSession> {
    const { db, clock } = this.deps;
    const now = clock.now();
    const member = await this.#member(normalAddress(email));
    if (!member) throw new Problem('invalid_code', { detail: 'No live code for this address.' });
    // One attempt is spent before comparing, in one conditional UPDATE (as for owners).
    const [spent] = await db
      .update(staffChallenges)
      .set({ attempts: sql`${staffChallenges.attempts} + 1` })
      .where(
        and(
          eq(staffChallenges.staffId, member.id),
          isNull(staffChallenges.usedAt),
          gt(staffChallenges.expiresAt, now),
          lt(staffChallenges.attempts, MAX_CODE_ATTEMPTS),
        ),
      )
      .returning();
    const challenge = await checkCode(
      code,
      now,
      spent,
      async () => (await db.select().from(staffChallenges).where(eq(staffChallenges.staffId, member.id)))[0],
      'No live code for this address.',
    );
    const [claimed] = await db
      .update(staffChallenges)
      .set({ usedAt: now })
      .where(
        and(
          eq(staffChallenges.staffId, member.id),
          eq(staffChallenges.codeHash, challenge.codeHash),
          isNull(staffChallenges.usedAt),
        ),
      )
      .returning({ id: staffChallenges.staffId });
    if (!claimed) throw new Problem('invalid_code', { detail: 'This code was already used.' });
    return this.#open({ id: member.id, label: member.email, role: member.role }, member.id);
  }

  async #member(email: string) {
    const [row] = await this.deps.db
      .select()
      .from(staffMembers)
      .where(and(eq(staffMembers.email, email), isNull(staffMembers.disabledAt)));
    return row;
  }

  async #open(actor: Actor, staffId: string | null): Promise<OpenedSession> {
    const { db, clock } = this.deps;
    const now = clock.now();
    const session = newToken('ap_staff');
    const expiresAt = new Date(now.getTime() + STAFF_SESSION_TTL_MS);
    await db.transaction(async (tx) => {
      await tx.delete(staffSessions).where(lt(staffSessions.expiresAt, now));
      await tx
        .insert(staffSessions)
        .values({ tokenHash: hashToken(session), staffId, createdAt: now, expiresAt });
      await this.#audit.record(tx, { actor, action: 'staff.signed_in', subject: actor.id });
    });
    return { session, expires_at: expiresAt.toISOString(), actor };
  }

  /** Who a live session stands for (null: unknown, expired, or its member was disabled). */
  async authenticate(session: string): Promise<Actor | null> {
    const [row] = await this.deps.db
      .select({
        staffId: staffSessions.staffId,
        email: staffMembers.email,
        role: staffMembers.role,
        disabledAt: staffMembers.disabledAt,
      })
      .from(staffSessions)
      .leftJoin(staffMembers, eq(staffMembers.id, staffSessions.staffId))
      .where(
        and(
          eq(staffSessions.tokenHash, hashToken(session)),
          gt(staffSessions.expiresAt, this.deps.clock.now()),
        ),
      )
      .limit(1);
    if (!row) return null;
    if (row.staffId === null) return ADMIN_TOKEN_ACTOR;
    if (!row.email || !row.role || row.disabledAt) return null;
    return { id: row.staffId, label: row.email, role: row.role };
  }

  /** /v1/admin/*: the admin token, or a staff session token sent as a Bearer. */
  async authenticateBearer(token: string): Promise<Actor | null> {
    if (this.isAdminToken(token)) return ADMIN_TOKEN_ACTOR;
    return token.startsWith('ap_staff_') ? this.authenticate(token) : null;
  }

  async end(session: string): Promise<void> {
    await this.deps.db.delete(staffSessions).where(eq(staffSessions.tokenHash, hashToken(session)));
  }
}
