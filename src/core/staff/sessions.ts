import { and, eq, gt, lt } from 'drizzle-orm';
import { staffSessions } from '../../db/schema.js';
import { secondsToUtcMidnight } from '../clock.js';
import type { Deps } from '../context.js';
import { consume, used } from '../limits/daily.js';
import { Problem } from '../problems.js';
import { hashToken, newToken, safeEqual } from '../secrets.js';

export const STAFF_SESSION_TTL_MS = 8 * 60 * 60 * 1000;
/** Wrong admin tokens one IP may try per UTC day before sign-in answers 429. */
export const STAFF_SIGN_IN_FAILURES_PER_IP = 10;

/**
 * The staff console's sign-in: the admin token is typed once and exchanged for a session (a
 * random token in an HttpOnly cookie, stored only hashed, with an expiry and a sign-out), so the
 * admin token itself never sits in a browser.
 */
export class StaffSessions {
  constructor(
    private readonly deps: Deps,
    private readonly adminToken: string,
  ) {}

  /** True when `token` is the admin token (constant time, over digests). */
  isAdminToken(token: string): boolean {
    return safeEqual(token, this.adminToken);
  }

  /** Exchanges the admin token for a session token; wrong tokens are counted per IP. */
  async signIn(token: string, ip: string): Promise<{ session: string; expires_at: string }> {
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
    const session = newToken('ap_staff');
    const expiresAt = new Date(now.getTime() + STAFF_SESSION_TTL_MS);
    await db.delete(staffSessions).where(lt(staffSessions.expiresAt, now));
    await db.insert(staffSessions).values({ tokenHash: hashToken(session), createdAt: now, expiresAt });
    return { session, expires_at: expiresAt.toISOString() };
  }

  async authenticate(session: string): Promise<boolean> {
    const [row] = await this.deps.db
      .select({ expiresAt: staffSessions.expiresAt })
      .from(staffSessions)
      .where(
        and(
          eq(staffSessions.tokenHash, hashToken(session)),
          gt(staffSessions.expiresAt, this.deps.clock.now()),
        ),
      )
      .limit(1);
    return !!row;
  }

  async end(session: string): Promise<void> {
    await this.deps.db.delete(staffSessions).where(eq(staffSessions.tokenHash, hashToken(session)));
  }
}
