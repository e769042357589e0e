import { z } from 'zod';
import { topUps } from '../../db/schema.js';
import type { Deps } from '../context.js';
import { PRICES } from '../pricing.js';
import { Problem } from '../problems.js';
import { newId } from '../secrets.js';
import { parseOrThrow } from '../validation.js';
import { post } from './ledger.js';

export const topUpBody = z.strictObject({
  amount: z
    .number()
    .int('amount is whole micro-dollars')
    .min(PRICES.top_up_min, `amount is at least ${PRICES.top_up_min} micro-dollars`)
    .max(PRICES.top_up_max, `amount is at most ${PRICES.top_up_max} micro-dollars`),
  card: z
    .string()
    .regex(/^\d{12,19}$/, 'card is 12 to 19 digits')
    .optional(),
});

export const topUpView = z.object({
  id: z.string(),
  amount: z.number().int(),
  status: z.enum(['pending', 'succeeded', 'failed']),
  balance: z.number().int(),
});

export class TopUps {
  constructor(private readonly deps: Deps) {}

  /** Charges through the provider, then credits the ledger in one transaction. */
  async create(accountId: string, raw: z.input<typeof topUpBody>): Promise<z.infer<typeof topUpView>> {
    const input = parseOrThrow(topUpBody, raw);
    const { db, clock, payments } = this.deps;
    const id = newId('topup');
    const result = await payments.charge(accountId, input.amount, input.card);
    if (!result.ok) {
      await db.insert(topUps).values({
        id,
        accountId,
        amount: input.amount,
        status: 'failed',
        provider: payments.name,
        providerRef: result.reference,
        createdAt: clock.now(),
      });
      throw new Problem('payment_failed', {
        detail: `The payment was declined (${result.declineReason ?? 'declined'}).`,
      });
    }
    return db.transaction(async (tx) => {
      await tx.insert(topUps).values({
        id,
        accountId,
        amount: input.amount,
        status: 'succeeded',
        provider: payments.name,
        providerRef: result.reference,
        createdAt: clock.now(),
      });
      const balance = await post(tx, {
        accountId,
        kind: 'top_up',
        amount: input.amount,
        reference: id,
        at: clock.now(),
      });
      if (balance === null) throw new Error('a credit cannot fail');
      return { id, amount: input.amount, status: 'succeeded' as const, balance };
    });
  }
}
