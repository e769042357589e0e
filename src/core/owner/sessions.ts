import { and, eq, gt, isNull, lt, sql } from 'drizzle-orm';
import { accounts, ownerChallenges, ownerSessions } from '../../db/schema.js';
import type { Deps } from '../context.js';
import { maskAddress, quoted } from '../mail/mailer.js';
import { Problem } from '../problems.js';
import { hashToken, newId, newToken } from '../secrets.js';
import { checkCode, MAX_CODE_ATTEMPTS, sendSignInCode } from './codes.js';
import { findLiveLink } from './links.js';

export { CODE_SUBJECT, CODE_TTL_MS, MAX_CODE_ATTEMPTS } from './codes.js';
export const SESSION_TTL_MS = 12 * 60 * 60 * 1000;
/**
 * Codes e-mailed per account per UTC day. With MAX_CODE_ATTEMPTS guesses each, a day allows at
 * most 100 guesses at a six-digit code (a 1 in 10,000 chance), and the owner's inbox is never
 * flooded.
 */
export const CODES_PER_ACCOUNT_PER_DAY = 20;

/**
 * The owner's proof: whoever holds account_url asks for a six-digit code, which goes to the
 * account's e-mail address; entering it opens an owner session and verifies the e-mail. An agent
 * holding the link therefore still cannot act as the owner.
 */
export class OwnerSessions {
  constructor(private readonly deps: Deps) {}

  async sendCode(token: string): Promise<{ sent_to: string; expires_at: string }> {
    const { db, clock } = this.deps;
    const link = await findLiveLink(db, clock, token);
    if (!link) throw new Problem('link_expired');
    const [account] = await db.select().from(accounts).where(eq(accounts.id, link.accountId));
    if (!account || account.status === 'deleted') throw new Problem('link_expired');
    const sent = await sendSignInCode(this.deps, {
      kind: 'owner_code',
      to: account.email,
      cap: {
        scope: 'owner_code_account',
        subject: account.id,
        perDay: CODES_PER_ACCOUNT_PER_DAY,
        unit: 'account',
      },
      context: `Someone opened the account page of the agent ${quoted(account.name)} on agentpress.`,
      store: async (codeHash, expiresAt) => {
        await db
          .insert(ownerChallenges)
          .values({ linkId: link.id, accountId: account.id, codeHash, expiresAt })
          .onConflictDoUpdate({
            target: ownerChallenges.linkId,
            set: { codeHash, attempts: 0, expiresAt, usedAt: null },
          });
      },
    });
    return { sent_to: maskAddress(account.email), ...sent };
  }

  async verifyCode(
    token: string,
    code: string,
  ): Promise<{ owner_token: string; expires_at: string; account_id: string }> {
    const { db, clock } = this.deps;
    const now = clock.now();
    const link = await findLiveLink(db, clock, token);
    if (!link) throw new Problem('link_expired');
    // Spend one attempt before comparing, in a single conditional UPDATE: concurrent guesses
    // cannot all read the same count and so get more than MAX_CODE_ATTEMPTS tries at a code.
    const [spent] = await db
      .update(ownerChallenges)
      .set({ attempts: sql`${ownerChallenges.attempts} + 1` })
      .where(
        and(
          eq(ownerChallenges.linkId, link.id),
          isNull(ownerChallenges.usedAt),
          gt(ownerChallenges.expiresAt, now),
          lt(ownerChallenges.attempts, MAX_CODE_ATTEMPTS),
        ),
      )
      .returning();
    const challenge = await checkCode(
      code,
      now,
      spent,
      async () => (await db.select().from(ownerChallenges).where(eq(ownerChallenges.linkId, link.id)))[0],
      'No live code for this link: request one first.',
    );
    const ownerToken = newToken('ap_owner');
    const expiresAt = new Date(now.getTime() + SESSION_TTL_MS);
    const opened = await db.transaction(async (tx) => {
      const claimed = await tx
        .update(ownerChallenges)
        .set({ usedAt: now })
        .where(
          and(
            eq(ownerChallenges.linkId, link.id),
            eq(ownerChallenges.codeHash, challenge.codeHash),
            isNull(ownerChallenges.usedAt),
          ),
        )
        .returning({ id: ownerChallenges.linkId });
      if (claimed.length === 0) return false;
      await tx.update(accounts).set({ emailVerified: true }).where(eq(accounts.id, link.accountId));
      await tx.insert(ownerSessions).values({
        id: newId('osess'),
        accountId: link.accountId,
        tokenHash: hashToken(ownerToken),
        createdAt: now,
        expiresAt,
      });
      return true;
    });
    if (!opened) throw new Problem('invalid_code', { detail: 'This code was already used.' });
    return { owner_token: ownerToken, expires_at: expiresAt.toISOString(), account_id: link.accountId };
  }

  /** The account an owner token stands for, or null. */
  async authenticate(ownerToken: string): Promise<string | null> {
    const { db, clock } = this.deps;
    const [row] = await db
      .select({ accountId: ownerSessions.accountId, status: accounts.status })
      .from(ownerSessions)
      .innerJoin(accounts, eq(accounts.id, ownerSessions.accountId))
      .where(
        and(eq(ownerSessions.tokenHash, hashToken(ownerToken)), gt(ownerSessions.expiresAt, clock.now())),
      )
      .limit(1);
    if (!row || row.status === 'deleted') return null;
    return row.accountId;
  }

  async end(ownerToken: string): Promise<void> {
    await this.deps.db.delete(ownerSessions).where(eq(ownerSessions.tokenHash, hashToken(ownerToken)));
  }
}
