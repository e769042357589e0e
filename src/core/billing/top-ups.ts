import { and, eq } from 'drizzle-orm';
import { z } from 'zod';
import type { Executor } from '../../db/client.js';
import { accounts, topUps } from '../../db/schema.js';
import type { Deps } from '../context.js';
import type { PayingCustomer } from '../payments/provider.js';
import { ProviderUnavailable } from '../payments/stripe.js';
import { PRICES } from '../pricing.js';
import { Problem } from '../problems.js';
import { newId } from '../secrets.js';
import { parseOrThrow } from '../validation.js';
import { post } from './ledger.js';

/** Providers count in cents: an amount in micro-dollars must be a whole number of cents. */
export const CENT = 10_000;

export const topUpAmount = z
  .number()
  .int('amount is whole micro-dollars')
  .min(PRICES.top_up_min, `amount is at least ${PRICES.top_up_min} micro-dollars`)
  .max(PRICES.top_up_max, `amount is at most ${PRICES.top_up_max} micro-dollars`)
  // Only judged once the other checks pass, so a wrong amount gets one error, not two.
  .refine(
    (n) => !Number.isInteger(n) || n < PRICES.top_up_min || n > PRICES.top_up_max || n % CENT === 0,
    'amount is whole cents (a multiple of 10000 micro-dollars)',
  );

export const topUpBody = z.strictObject({
  amount: topUpAmount.describe(`micro-dollars; the page offers ${PRICES.top_up_amounts.join(', ')}`),
  card: z
    .string()
    .regex(/^\d{12,19}$/, 'card is 12 to 19 digits')
    .optional()
    .describe('Test provider only: a test card number for this one top-up (never stored)'),
});

export const topUpView = z.object({
  id: z.string(),
  amount: z.number().int(),
  status: z.enum(['pending', 'succeeded', 'failed']),
  balance: z.number().int(),
  checkout_url: z
    .string()
    .optional()
    .describe('Stripe without a saved card: pay here; the balance moves when Stripe confirms'),
});
export type TopUpView = z.infer<typeof topUpView>;

type AccountRow = typeof accounts.$inferSelect;

export function payingCustomer(row: AccountRow): PayingCustomer {
  return { accountId: row.id, email: row.email, customer: row.providerCustomer };
}

/** A provider that did not answer is a 503: nothing was charged or credited. */
export function unavailable(e: unknown): Problem {
  return new Problem('service_unavailable', {
    detail: 'The payment provider did not answer. Nothing was charged; try again in a minute.',
    headers: { 'retry-after': '60' },
    cause: e,
  });
}

/** Credits a pending top-up exactly once (the pending -> succeeded update is the guard). */
export async function settleTopUp(
  tx: Executor,
  id: string,
  reference: string,
  at: Date,
): Promise<number | null> {
  const [row] = await tx
    .update(topUps)
    .set({ status: 'succeeded', providerRef: reference })
    .where(and(eq(topUps.id, id), eq(topUps.status, 'pending')))
    .returning();
  if (!row) return null;
  return post(tx, { accountId: row.accountId, kind: 'top_up', amount: row.amount, reference: id, at });
}

export class TopUps {
  constructor(private readonly deps: Deps) {}

  /**
   * The owner adds money. A card number (test provider only) pays this one top-up; else the
   * saved card is charged off-session; else the provider settles at once (test) or answers with
   * a Checkout page (stripe), whose signed webhook credits the ledger later.
   */
  async create(accountId: string, raw: z.input<typeof topUpBody>, returnUrl = ''): Promise<TopUpView> {
    const input = parseOrThrow(topUpBody, raw);
    const { db, clock, payments } = this.deps;
    if (input.card !== undefined && payments.name !== 'test')
      throw new Problem('validation_failed', {
        detail: 'Card numbers are never sent to this service; add the card on the account page.',
        errors: [{ pointer: '/card', detail: 'card numbers are accepted by the test provider only' }],
      });
    const [account] = await db.select().from(accounts).where(eq(accounts.id, accountId));
    if (!account) throw new Problem('not_found');
    const id = newId('topup');
    const record = (status: 'pending' | 'failed', providerRef: string | null) =>
      db.insert(topUps).values({
        id,
        accountId,
        amount: input.amount,
        status,
        provider: payments.name,
        providerRef,
        createdAt: clock.now(),
      });
    let result: { ok: true; reference: string } | { ok: false; reference: string; reason: string };
    try {
      if (input.card === undefined && account.cardOnFile && account.cardRef) {
        const c = await payments.chargeSaved(
          { ...payingCustomer(account), cardRef: account.cardRef },
          input.amount,
          `topup-${id}`,
        );
        result = c.ok
          ? { ok: true, reference: c.reference }
          : { ok: false, reference: c.reference, reason: c.declineReason ?? 'declined' };
      } else {
        const start = await payments.startTopUp(payingCustomer(account), {
          topUpId: id,
          amount: input.amount,
          card: input.card,
          returnUrl,
        });
        if (start.kind === 'redirect') {
          await db
            .update(accounts)
            .set({ providerCustomer: start.customer })
            .where(eq(accounts.id, accountId));
          await record('pending', start.reference);
          return {
            id,
            amount: input.amount,
            status: 'pending',
            balance: account.balance,
            checkout_url: start.url,
          };
        }
        result =
          start.kind === 'settled'
            ? { ok: true, reference: start.reference }
            : { ok: false, reference: start.reference, reason: start.reason };
      }
    } catch (e) {
      if (e instanceof ProviderUnavailable) throw unavailable(e);
      throw e;
    }
    if (!result.ok) {
      await record('failed', result.reference);
      throw new Problem('payment_failed', { detail: `The payment was declined (${result.reason}).` });
    }
    const reference = result.reference;
    return db.transaction(async (tx) => {
      await tx.insert(topUps).values({
        id,
        accountId,
        amount: input.amount,
        status: 'pending',
        provider: payments.name,
        providerRef: reference,
        createdAt: clock.now(),
      });
      const balance = await settleTopUp(tx, id, reference, clock.now());
      if (balance === null) throw new Error('a fresh top-up settles');
      return { id, amount: input.amount, status: 'succeeded' as const, balance };
    });
  }
}
