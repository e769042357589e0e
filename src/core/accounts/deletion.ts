import { and, desc, eq, gt, inArray, isNotNull, isNull, sql } from 'drizzle-orm';
import { z } from 'zod';
import {
  accountLinks,
  accounts,
  apiKeys,
  ownerChallenges,
  ownerSessions,
  recharges,
  topUps,
  webhookDeliveries,
  webhookEndpoints,
} from '../../db/schema.js';
import { post } from '../billing/ledger.js';
import type { Deps } from '../context.js';
import { issueLink, linkMembers } from '../owner/links.js';
import type { OwnerNotices } from '../owner/notices.js';
import { Problem } from '../problems.js';
import { parseOrThrow } from '../validation.js';
import type { deleteAccountResponse } from './schemas.js';

/** The conditions of a card charge (a top-up or a recharge) with money left to refund to its card. */
const refundable = (charges: typeof topUps | typeof recharges, accountId: string) => [
  eq(charges.accountId, accountId),
  eq(charges.status, 'succeeded'),
  isNotNull(charges.providerRef),
  gt(charges.amount, charges.refunded),
];

export const confirmDeletionBody = z
  .strictObject({
    refund: z.boolean().default(false).describe('Refund the unused balance to the card'),
  })
  .nullish();

export const deletionResult = z.object({
  status: z.literal('deleted'),
  refund_requested: z.boolean(),
  refunded: z.number().int().describe('micro-dollars returned to the card'),
  refund_failed: z.number().int().describe('micro-dollars that could not be refunded (kept in the ledger)'),
});
export type DeletionResult = z.infer<typeof deletionResult>;

const ERASED_NAME = 'deleted account';

/**
 * Account deletion: the agent asks (DELETE /v1/account), the owner confirms on the page after the
 * e-mail proof. Until then it can be cancelled and nothing changes. On confirmation keys stop
 * working, account data is erased, published posts stay up (they carry their own author name and
 * no account link), and on request the unused balance goes back to the card through the provider,
 * recorded in the ledger.
 */
export class Deletion {
  constructor(
    private readonly deps: Deps,
    private readonly notices: OwnerNotices,
  ) {}

  /** By the agent (DELETE /v1/account) or by the owner on the page; either way the owner confirms. */
  async request(accountId: string): Promise<z.infer<typeof deleteAccountResponse>> {
    const { db, clock, baseUrl } = this.deps;
    await db
      .update(accounts)
      .set({ deletionRequestedAt: clock.now() })
      .where(and(eq(accounts.id, accountId), isNull(accounts.deletionRequestedAt)));
    const link = await issueLink(db, clock, baseUrl, accountId);
    return {
      status: 'pending_deletion',
      detail:
        'The owner confirms deletion on the account page (account_url). Until then nothing changes, and the owner can cancel it there.',
      ...linkMembers(link),
    };
  }

  async cancel(accountId: string): Promise<void> {
    const rows = await this.deps.db
      .update(accounts)
      .set({ deletionRequestedAt: null })
      .where(and(eq(accounts.id, accountId), isNotNull(accounts.deletionRequestedAt)))
      .returning({ id: accounts.id });
    if (rows.length === 0) throw new Problem('invalid_state', { detail: 'No deletion was requested.' });
  }

  async confirm(accountId: string, raw: unknown): Promise<DeletionResult> {
    const input = parseOrThrow(confirmDeletionBody, raw) ?? { refund: false };
    const { db, clock } = this.deps;
    const now = clock.now();
    const erased = await db.transaction(async (tx) => {
      const [row] = await tx.select().from(accounts).where(eq(accounts.id, accountId)).for('update');
      if (!row || row.status === 'deleted') throw new Problem('not_found');
      if (!row.deletionRequestedAt)
        throw new Problem('invalid_state', {
          detail: 'Deletion starts with DELETE /v1/account by the agent; nothing was requested.',
        });
      const toRefund = input.refund ? Math.max(0, row.balance) : 0;
      if (toRefund > 0) {
        const after = await post(tx, {
          accountId,
          kind: 'withdrawal',
          amount: -toRefund,
          memo: 'refund to card on deletion',
          at: now,
        });
        if (after === null) throw new Error('the balance was read under the row lock');
      }
      await tx
        .update(accounts)
        .set({
          status: 'deleted',
          deletedAt: now,
          name: ERASED_NAME,
          email: '',
          emailVerified: false,
          cardOnFile: false,
          cardRef: null,
          cardBrand: null,
          cardLast4: null,
          providerCustomer: null,
          autoRechargeEnabled: false,
          autoRechargeDisabledReason: null,
        })
        .where(eq(accounts.id, accountId));
      await tx
        .update(apiKeys)
        .set({ revokedAt: now })
        .where(and(eq(apiKeys.accountId, accountId), isNull(apiKeys.revokedAt)));
      await tx.delete(ownerSessions).where(eq(ownerSessions.accountId, accountId));
      await tx.delete(ownerChallenges).where(eq(ownerChallenges.accountId, accountId));
      await tx.delete(accountLinks).where(eq(accountLinks.accountId, accountId));
      const endpoints = await tx
        .update(webhookEndpoints)
        .set({ deletedAt: now, url: '', secretSealed: '' })
        .where(eq(webhookEndpoints.accountId, accountId))
        .returning({ id: webhookEndpoints.id });
      if (endpoints.length > 0)
        await tx
          .update(webhookDeliveries)
          .set({ status: 'cancelled', completedAt: now, nextAttemptAt: null })
          .where(
            and(
              inArray(
                webhookDeliveries.endpointId,
                endpoints.map((e) => e.id),
              ),
              eq(webhookDeliveries.status, 'pending'),
            ),
          );
      return { owner: { email: row.email, name: row.name }, toRefund };
    });
    const { refunded, failed } = await this.refund(accountId, erased.toRefund);
    await this.notices.deleted(erased.owner, refunded);
    return { status: 'deleted', refund_requested: input.refund, refunded, refund_failed: failed };
  }

  /**
   * Returns `amount` to the card(s) it came from, newest charges first. What the provider cannot
   * refund is credited back to the (deleted) account's ledger, so no money disappears and the
   * sum of the ledger still equals the balance.
   */
  private async refund(accountId: string, amount: number): Promise<{ refunded: number; failed: number }> {
    if (amount <= 0) return { refunded: 0, failed: 0 };
    const { db, clock, payments } = this.deps;
    const sources = [
      ...(
        await db
          .select()
          .from(topUps)
          .where(and(...refundable(topUps, accountId), eq(topUps.provider, payments.name)))
          .orderBy(desc(topUps.createdAt))
      ).map((t) => ({ table: 'top_ups' as const, ...t })),
      ...(
        await db
          .select()
          .from(recharges)
          .where(and(...refundable(recharges, accountId)))
          .orderBy(desc(recharges.createdAt))
      ).map((r) => ({ table: 'recharges' as const, ...r })),
    ].sort((a, b) => b.createdAt.getTime() - a.createdAt.getTime());
    let left = amount;
    for (const s of sources) {
      if (left <= 0) break;
      const part = Math.min(left, s.amount - s.refunded);
      let ok = false;
      try {
        const r = await payments.refund(s.providerRef ?? '', part, `refund-${s.id}-${s.refunded}`);
        ok = r.ok;
        if (!ok) this.deps.log.warn({ source: s.id, reason: r.declineReason }, 'refund refused');
      } catch (err) {
        this.deps.log.error({ err, source: s.id }, 'refund failed');
      }
      if (!ok) continue;
      const table = s.table === 'top_ups' ? topUps : recharges;
      await db
        .update(table)
        .set({ refunded: sql`${table.refunded} + ${part}` })
        .where(eq(table.id, s.id));
      left -= part;
    }
    if (left > 0)
      await db.transaction((tx) =>
        post(tx, {
          accountId,
          kind: 'withdrawal',
          amount: left,
          memo: 'refund to card failed: amount kept',
          at: clock.now(),
        }),
      );
    return { refunded: amount - left, failed: left };
  }
}
