import { eq } from 'drizzle-orm';
import { z } from 'zod';
import { accounts } from '../../db/schema.js';
import type { Deps } from '../context.js';
import type { SavedCard } from '../payments/provider.js';
import { ProviderUnavailable } from '../payments/stripe.js';
import { Problem } from '../problems.js';
import { parseOrThrow } from '../validation.js';
import { payingCustomer, unavailable } from './top-ups.js';

export const cardBody = z.strictObject({
  card: z
    .string()
    .regex(/^\d{12,19}$/, 'card is 12 to 19 digits')
    .optional()
    .describe('Test provider only: a test card number; only brand and last four are kept'),
});

export const cardView = z.object({ brand: z.string(), last4: z.string() });
export const cardSetupView = z.union([
  z.object({ status: z.literal('saved'), card: cardView }),
  z.object({
    status: z.literal('redirect'),
    checkout_url: z.string().describe('Stripe Checkout (setup mode); a signed webhook saves the card'),
  }),
]);
export type CardSetupView = z.infer<typeof cardSetupView>;

/** The card on file: saved through the provider; the service keeps brand, last four and the provider's reference. */
export class Cards {
  constructor(private readonly deps: Deps) {}

  async setup(accountId: string, raw: z.input<typeof cardBody>, returnUrl = ''): Promise<CardSetupView> {
    const input = parseOrThrow(cardBody, raw);
    const { db, payments } = this.deps;
    if (payments.name === 'test' && input.card === undefined)
      throw new Problem('validation_failed', {
        errors: [{ pointer: '/card', detail: 'the test provider needs a test card number' }],
      });
    if (payments.name !== 'test' && input.card !== undefined)
      throw new Problem('validation_failed', {
        detail: 'Card numbers are never sent to this service: the card is entered on the provider page.',
        errors: [{ pointer: '/card', detail: 'card numbers are accepted by the test provider only' }],
      });
    const [account] = await db.select().from(accounts).where(eq(accounts.id, accountId));
    if (!account) throw new Problem('not_found');
    let result: Awaited<ReturnType<typeof payments.setupCard>>;
    try {
      result = await payments.setupCard(payingCustomer(account), { card: input.card, returnUrl });
    } catch (e) {
      if (e instanceof ProviderUnavailable) throw unavailable(e);
      throw e;
    }
    if (result.kind === 'declined')
      throw new Problem('card_declined', { detail: `The card was declined (${result.reason}).` });
    if (result.kind === 'redirect') {
      await db.update(accounts).set({ providerCustomer: result.customer }).where(eq(accounts.id, accountId));
      return { status: 'redirect', checkout_url: result.url };
    }
    await this.save(accountId, result.card, result.customer);
    return { status: 'saved', card: { brand: result.card.brand, last4: result.card.last4 } };
  }

  /** Stores the card on file (also called by the Stripe webhook when a setup Checkout completes). */
  async save(accountId: string, card: SavedCard, customer: string | null): Promise<void> {
    await this.deps.db
      .update(accounts)
      .set({
        cardOnFile: true,
        cardRef: card.ref,
        cardBrand: card.brand,
        cardLast4: card.last4,
        ...(customer ? { providerCustomer: customer } : {}),
      })
      .where(eq(accounts.id, accountId));
  }

  /** Forgets the card; auto-recharge, which needs it, goes off with it. */
  async remove(accountId: string): Promise<void> {
    await this.deps.db
      .update(accounts)
      .set({ cardOnFile: false, cardRef: null, cardBrand: null, cardLast4: null, autoRechargeEnabled: false })
      .where(eq(accounts.id, accountId));
  }
}
