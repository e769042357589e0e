import { and, eq } from 'drizzle-orm';
import { z } from 'zod';
import { accounts, recharges } from '../../db/schema.js';
import type { Deps } from '../context.js';
import type { OwnerNotices } from '../owner/notices.js';
import { ProviderUnavailable } from '../payments/stripe.js';
import { Problem } from '../problems.js';
import { newId } from '../secrets.js';
import { parseOrThrow } from '../validation.js';
import { post } from './ledger.js';
import { CENT, payingCustomer, topUpAmount } from './top-ups.js';

export const MAX_THRESHOLD = 100_000_000;

export const autoRechargeBody = z.strictObject({
  enabled: z.boolean(),
  threshold: z
    .number()
    .int('threshold is whole micro-dollars')
    .min(0, 'threshold is at least 0')
    .max(MAX_THRESHOLD, `threshold is at most ${MAX_THRESHOLD} micro-dollars`)
    .refine(
      (n) => !Number.isInteger(n) || n < 0 || n > MAX_THRESHOLD || n % CENT === 0,
      'threshold is whole cents (a multiple of 10000 micro-dollars)',
    )
    .optional()
    .describe('Recharge when a charge leaves the balance below this (micro-dollars)'),
  amount: topUpAmount.optional().describe('How much one recharge adds (micro-dollars)'),
});

export const autoRechargeSettings = z.object({
  enabled: z.boolean(),
  threshold: z.number().int(),
  amount: z.number().int(),
  disabled_reason: z.string().nullable().describe('Why the service turned it off (a declined card)'),
});
export type AutoRechargeSettings = z.infer<typeof autoRechargeSettings>;

export type RechargeOutcome = 'not_needed' | 'in_flight' | 'succeeded' | 'declined' | 'unavailable';

/**
 * Auto-recharge: only the owner turns it on (it needs a card). After a charge commits and leaves
 * the balance under the threshold, one recharge is attempted: the claim runs under the account's
 * row lock and the partial unique index on recharges allows one pending attempt per account, so
 * concurrent charges never start two. A decline turns it off, records why and e-mails the owner.
 */
export class AutoRecharge {
  constructor(
    private readonly deps: Deps,
    private readonly notices: OwnerNotices,
  ) {}

  async configure(accountId: string, raw: z.input<typeof autoRechargeBody>): Promise<AutoRechargeSettings> {
    const input = parseOrThrow(autoRechargeBody, raw);
    const { db } = this.deps;
    return db.transaction(async (tx) => {
      const [row] = await tx.select().from(accounts).where(eq(accounts.id, accountId)).for('update');
      if (!row) throw new Problem('not_found');
      if (input.enabled && !row.cardOnFile)
        throw new Problem('card_required', {
          detail: 'Auto-recharge charges the card on file: add a card first, then turn it on.',
        });
      const [saved] = await tx
        .update(accounts)
        .set({
          autoRechargeEnabled: input.enabled,
          ...(input.threshold !== undefined ? { autoRechargeThreshold: input.threshold } : {}),
          ...(input.amount !== undefined ? { autoRechargeAmount: input.amount } : {}),
          ...(input.enabled ? { autoRechargeDisabledReason: null } : {}),
        })
        .where(eq(accounts.id, accountId))
        .returning();
      return settingsOf(saved ?? row);
    });
  }

  /** Attempts one recharge if the balance is under the threshold and none is in flight. */
  async attempt(accountId: string): Promise<RechargeOutcome> {
    const { db, clock, payments } = this.deps;
    const claim = await db.transaction(async (tx) => {
      const [row] = await tx.select().from(accounts).where(eq(accounts.id, accountId)).for('update');
      if (!row) return 'not_needed' as const;
      if (
        row.status !== 'active' ||
        row.deletionRequestedAt ||
        !row.autoRechargeEnabled ||
        !row.cardOnFile ||
        !row.cardRef ||
        row.balance >= row.autoRechargeThreshold
      )
        return 'not_needed' as const;
      const [inserted] = await tx
        .insert(recharges)
        .values({
          id: newId('rchg'),
          accountId,
          amount: row.autoRechargeAmount,
          status: 'pending',
          createdAt: clock.now(),
        })
        .onConflictDoNothing()
        .returning();
      if (!inserted) return 'in_flight' as const;
      return { recharge: inserted, account: row, cardRef: row.cardRef };
    });
    if (typeof claim === 'string') return claim;
    const { recharge, account, cardRef } = claim;
    let result: Awaited<ReturnType<typeof payments.chargeSaved>>;
    try {
      result = await payments.chargeSaved(
        { ...payingCustomer(account), cardRef },
        recharge.amount,
        `recharge-${recharge.id}`,
      );
    } catch (e) {
      // Not a decline: the card stays on, the attempt is closed and the next charge may retry.
      this.deps.log.warn({ err: e }, 'auto-recharge: provider unavailable');
      await this.finish(recharge.id, 'failed', null, 'provider_unavailable');
      if (e instanceof ProviderUnavailable) return 'unavailable';
      throw e;
    }
    // Both closing transactions take the account row first (as the claim does), then the recharge
    // row: a claim waiting on the pending row's index entry never holds what they need.
    if (result.ok) {
      await db.transaction(async (tx) => {
        await tx.select({ id: accounts.id }).from(accounts).where(eq(accounts.id, accountId)).for('update');
        const [done] = await tx
          .update(recharges)
          .set({ status: 'succeeded', providerRef: result.reference, completedAt: clock.now() })
          .where(and(eq(recharges.id, recharge.id), eq(recharges.status, 'pending')))
          .returning();
        if (!done) return;
        await post(tx, {
          accountId,
          kind: 'auto_recharge',
          amount: recharge.amount,
          reference: recharge.id,
          memo: 'auto-recharge',
          at: clock.now(),
        });
      });
      return 'succeeded';
    }
    const reason = result.declineReason ?? 'declined';
    await db.transaction(async (tx) => {
      await tx
        .update(accounts)
        .set({
          autoRechargeEnabled: false,
          autoRechargeDisabledReason: `The card was declined (${reason}) on ${clock.now().toISOString().slice(0, 10)}.`,
        })
        .where(eq(accounts.id, accountId));
      await tx
        .update(recharges)
        .set({
          status: 'failed',
          providerRef: result.reference || null,
          failureReason: reason,
          completedAt: clock.now(),
        })
        .where(and(eq(recharges.id, recharge.id), eq(recharges.status, 'pending')));
    });
    await this.notices.rechargeDeclined(account, recharge.amount, reason);
    return 'declined';
  }

  private async finish(id: string, status: 'failed', ref: string | null, reason: string) {
    await this.deps.db
      .update(recharges)
      .set({ status, providerRef: ref, failureReason: reason, completedAt: this.deps.clock.now() })
      .where(and(eq(recharges.id, id), eq(recharges.status, 'pending')));
  }
}

export function settingsOf(row: typeof accounts.$inferSelect): AutoRechargeSettings {
  return {
    enabled: row.autoRechargeEnabled,
    threshold: row.autoRechargeThreshold,
    amount: row.autoRechargeAmount,
    disabled_reason: row.autoRechargeDisabledReason,
  };
}
