import Stripe from 'stripe';
import type {
  CardSetup,
  ChargeResult,
  PayingCustomer,
  PaymentProvider,
  SavedCard,
  TopUpStart,
} from './provider.js';

export interface StripeOptions {
  secretKey: string;
  webhookSecret: string;
  /** Another API address (tests point this at a local server that speaks the Stripe wire format). */
  apiBase?: string | undefined;
}

/** Micro-dollars to the cents Stripe counts in; amounts are whole cents by validation. */
export const toCents = (micros: number) => Math.round(micros / 10_000);

/** A failure of Stripe itself (not a decline): the caller answers 503 and nothing is credited. */
export class ProviderUnavailable extends Error {}

export function stripeClient(opts: StripeOptions): Stripe {
  const base = opts.apiBase ? new URL(opts.apiBase) : undefined;
  return new Stripe(opts.secretKey, {
    maxNetworkRetries: 1,
    timeout: 20_000,
    telemetry: false,
    ...(base
      ? {
          host: base.hostname,
          port: base.port || (base.protocol === 'https:' ? 443 : 80),
          protocol: base.protocol === 'http:' ? 'http' : 'https',
        }
      : {}),
  });
}

/**
 * Stripe: Checkout in setup mode saves a card, Checkout in payment mode tops up, off-session
 * PaymentIntents recharge, refunds go back to the PaymentIntent. Results of Checkout arrive by
 * signed webhook (src/core/billing/stripe-events.ts).
 */
export class StripePaymentProvider implements PaymentProvider {
  readonly name = 'stripe';
  readonly stripe: Stripe;

  constructor(private readonly opts: StripeOptions) {
    this.stripe = stripeClient(opts);
  }

  /** Verifies the `stripe-signature` header over the raw body; throws when it does not match. */
  verifyEvent(raw: Buffer | string, signature: string): Stripe.Event {
    return this.stripe.webhooks.constructEvent(raw, signature, this.opts.webhookSecret);
  }

  private async customerOf(who: PayingCustomer): Promise<string> {
    if (who.customer) return who.customer;
    const c = await this.call(() =>
      this.stripe.customers.create(
        { email: who.email, metadata: { account_id: who.accountId } },
        { idempotencyKey: `customer-${who.accountId}` },
      ),
    );
    return c.id;
  }

  async setupCard(who: PayingCustomer, input: { returnUrl: string }): Promise<CardSetup> {
    const customer = await this.customerOf(who);
    const session = await this.call(() =>
      this.stripe.checkout.sessions.create({
        mode: 'setup',
        currency: 'usd',
        customer,
        client_reference_id: who.accountId,
        metadata: { account_id: who.accountId, purpose: 'card' },
        success_url: input.returnUrl,
        cancel_url: input.returnUrl,
      }),
    );
    if (!session.url) throw new ProviderUnavailable('Checkout returned no url');
    return { kind: 'redirect', url: session.url, customer };
  }

  async startTopUp(
    who: PayingCustomer,
    input: { topUpId: string; amount: number; returnUrl: string },
  ): Promise<TopUpStart> {
    const customer = await this.customerOf(who);
    const session = await this.call(() =>
      this.stripe.checkout.sessions.create(
        {
          mode: 'payment',
          customer,
          client_reference_id: who.accountId,
          metadata: { account_id: who.accountId, top_up_id: input.topUpId, purpose: 'top_up' },
          payment_intent_data: { metadata: { account_id: who.accountId, top_up_id: input.topUpId } },
          line_items: [
            {
              quantity: 1,
              price_data: {
                currency: 'usd',
                unit_amount: toCents(input.amount),
                product_data: { name: 'agentpress balance' },
              },
            },
          ],
          success_url: input.returnUrl,
          cancel_url: input.returnUrl,
        },
        { idempotencyKey: `topup-${input.topUpId}` },
      ),
    );
    if (!session.url) throw new ProviderUnavailable('Checkout returned no url');
    return { kind: 'redirect', url: session.url, reference: session.id, customer };
  }

  async chargeSaved(
    who: PayingCustomer & { cardRef: string },
    amount: number,
    idempotencyKey: string,
  ): Promise<ChargeResult> {
    if (!who.customer) return { ok: false, reference: '', declineReason: 'no_customer' };
    try {
      const pi = await this.stripe.paymentIntents.create(
        {
          amount: toCents(amount),
          currency: 'usd',
          customer: who.customer,
          payment_method: who.cardRef,
          off_session: true,
          confirm: true,
          metadata: { account_id: who.accountId },
        },
        { idempotencyKey },
      );
      if (pi.status === 'succeeded') return { ok: true, reference: pi.id };
      return { ok: false, reference: pi.id, declineReason: pi.status };
    } catch (e) {
      if (e instanceof Stripe.errors.StripeCardError) {
        const raw = e.raw as { payment_intent?: { id?: string } } | undefined;
        return {
          ok: false,
          reference: raw?.payment_intent?.id ?? '',
          declineReason: e.decline_code ?? e.code ?? 'card_declined',
        };
      }
      throw new ProviderUnavailable('Stripe did not answer the charge', { cause: e });
    }
  }

  async refund(chargeReference: string, amount: number, idempotencyKey: string): Promise<ChargeResult> {
    try {
      const r = await this.stripe.refunds.create(
        { payment_intent: chargeReference, amount: toCents(amount) },
        { idempotencyKey },
      );
      if (r.status === 'failed' || r.status === 'canceled')
        return { ok: false, reference: r.id, declineReason: r.failure_reason ?? r.status };
      return { ok: true, reference: r.id };
    } catch (e) {
      if (e instanceof Stripe.errors.StripeError)
        return { ok: false, reference: '', declineReason: e.code ?? 'refund_failed' };
      throw new ProviderUnavailable('Stripe did not answer the refund', { cause: e });
    }
  }

  /** The card a completed setup-mode Checkout saved. */
  async cardOfSetupSession(session: Stripe.Checkout.Session): Promise<SavedCard | null> {
    const si = session.setup_intent;
    if (!si) return null;
    const intent = typeof si === 'string' ? await this.call(() => this.stripe.setupIntents.retrieve(si)) : si;
    const pm = intent.payment_method;
    if (!pm) return null;
    const method =
      typeof pm === 'string' ? await this.call(() => this.stripe.paymentMethods.retrieve(pm)) : pm;
    return { ref: method.id, brand: method.card?.brand ?? 'card', last4: method.card?.last4 ?? '' };
  }

  private async call<T>(fn: () => Promise<T>): Promise<T> {
    try {
      return await fn();
    } catch (e) {
      throw new ProviderUnavailable('Stripe did not answer', { cause: e });
    }
  }
}
