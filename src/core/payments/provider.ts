/** What the service needs from a payment provider. `test` settles at once; `stripe` comes with the money issue. */
export interface ChargeResult {
  ok: boolean;
  reference: string;
  declineReason?: string;
}

export interface PaymentProvider {
  readonly name: 'test' | 'stripe';
  /** Charges `amount` micro-dollars for a top-up; the test provider needs no card. */
  charge(accountId: string, amount: number, card?: string): Promise<ChargeResult>;
}

export const TEST_CARDS = { success: '4242424242424242', declined: '4000000000000002' } as const;

export class TestPaymentProvider implements PaymentProvider {
  readonly name = 'test';
  #n = 0;
  async charge(_accountId: string, _amount: number, card?: string): Promise<ChargeResult> {
    this.#n += 1;
    const reference = `test_ch_${Date.now().toString(36)}_${this.#n}`;
    if (card === TEST_CARDS.declined) return { ok: false, reference, declineReason: 'card_declined' };
    return { ok: true, reference };
  }
}
