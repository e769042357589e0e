/**
 * What the service needs from a payment provider. Two implementations: `test` (the embedded
 * default: test card numbers, instant settlement, declines) and `stripe` (./stripe.ts).
 * Card numbers never reach the database: only the provider's reference, brand and last four.
 */
export interface ChargeResult {
  ok: boolean;
  reference: string;
  declineReason?: string;
}

/** The account as the provider knows it; `customer` is the provider's id once one exists. */
export interface PayingCustomer {
  accountId: string;
  email: string;
  customer: string | null;
}

export interface SavedCard {
  /** The provider's reference to the card (a Stripe PaymentMethod id). */
  ref: string;
  brand: string;
  last4: string;
}

export type CardSetup =
  | { kind: 'saved'; card: SavedCard; customer: string | null }
  | { kind: 'declined'; reason: string }
  /** The owner finishes on the provider's page; a signed webhook saves the card. */
  | { kind: 'redirect'; url: string; customer: string };

export type TopUpStart =
  | { kind: 'settled'; reference: string }
  | { kind: 'declined'; reference: string; reason: string }
  /** The owner pays on the provider's page; a signed webhook credits the ledger. */
  | { kind: 'redirect'; url: string; reference: string; customer: string };

export interface PaymentProvider {
  readonly name: 'test' | 'stripe';
  /** Saves a card: `test` takes a test card number; `stripe` answers with Checkout in setup mode. */
  setupCard(who: PayingCustomer, input: { card?: string | undefined; returnUrl: string }): Promise<CardSetup>;
  /** A top-up without a saved card: `test` settles at once; `stripe` answers with Checkout in payment mode. */
  startTopUp(
    who: PayingCustomer,
    input: { topUpId: string; amount: number; card?: string | undefined; returnUrl: string },
  ): Promise<TopUpStart>;
  /** Charges the saved card off-session (auto-recharge, or a top-up with the card on file). */
  chargeSaved(
    who: PayingCustomer & { cardRef: string },
    amount: number,
    idempotencyKey: string,
  ): Promise<ChargeResult>;
  /** Refunds part or all of an earlier charge back to its card. */
  refund(chargeReference: string, amount: number, idempotencyKey: string): Promise<ChargeResult>;
}

/** Test card numbers (Stripe's own): 4242… succeeds, 0002 is declined, 0341 saves but every charge is declined. */
export const TEST_CARDS = {
  success: '4242424242424242',
  declined: '4000000000000002',
  chargeDeclined: '4000000000000341',
} as const;

/** The test provider's card references, named like Stripe's test PaymentMethods. */
const TEST_REFS = { ok: 'pm_card_visa', chargeDeclined: 'pm_card_chargeDeclined' } as const;

function brandOf(card: string): string {
  if (card.startsWith('4')) return 'visa';
  if (/^5[1-5]/.test(card)) return 'mastercard';
  if (/^3[47]/.test(card)) return 'amex';
  return 'card';
}

export class TestPaymentProvider implements PaymentProvider {
  readonly name = 'test';
  #n = 0;

  private ref(prefix: string): string {
    this.#n += 1;
    return `${prefix}_test_${Date.now().toString(36)}_${this.#n}`;
  }

  async setupCard(_who: PayingCustomer, input: { card?: string | undefined }): Promise<CardSetup> {
    const card = input.card ?? '';
    if (card === TEST_CARDS.declined) return { kind: 'declined', reason: 'card_declined' };
    const ref = card === TEST_CARDS.chargeDeclined ? TEST_REFS.chargeDeclined : TEST_REFS.ok;
    return { kind: 'saved', card: { ref, brand: brandOf(card), last4: card.slice(-4) }, customer: null };
  }

  async startTopUp(_who: PayingCustomer, input: { card?: string | undefined }): Promise<TopUpStart> {
    const reference = this.ref('pi');
    if (input.card === TEST_CARDS.declined || input.card === TEST_CARDS.chargeDeclined)
      return { kind: 'declined', reference, reason: 'card_declined' };
    return { kind: 'settled', reference };
  }

  async chargeSaved(who: { cardRef: string }): Promise<ChargeResult> {
    const reference = this.ref('pi');
    if (who.cardRef === TEST_REFS.chargeDeclined)
      return { ok: false, reference, declineReason: 'card_declined' };
    return { ok: true, reference };
  }

  async refund(): Promise<ChargeResult> {
    return { ok: true, reference: this.ref('re') };
  }
}
