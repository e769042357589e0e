import { and, eq } from 'drizzle-orm';
import type Stripe from 'stripe';
import type { Executor } from '../../db/client.js';
import { accounts, stripeEvents, topUps } from '../../db/schema.js';
import type { Deps } from '../context.js';
import { ProviderUnavailable, StripePaymentProvider } from '../payments/stripe.js';
import { Problem } from '../problems.js';
import { settleTopUp, unavailable } from './top-ups.js';

export interface StripeEventResult {
  received: true;
  /** false when this event id was applied before (a replay changes nothing). */
  applied: boolean;
  type: string;
}

/**
 * Signed Stripe webhooks. The signature is checked over the raw body; the event id is the primary
 * key of stripe_events and is inserted in the same transaction as its effect, so a replayed event
 * (Stripe delivers at least once) credits the ledger exactly once.
 */
export class StripeEvents {
  constructor(private readonly deps: Deps) {}

  private get stripe(): StripePaymentProvider {
    const p = this.deps.payments;
    if (!(p instanceof StripePaymentProvider))
      throw new Problem('not_found', { detail: 'Stripe webhooks are accepted only with PAYMENTS=stripe.' });
    return p;
  }

  async handle(raw: Buffer, signature: string | undefined): Promise<StripeEventResult> {
    const provider = this.stripe;
    let event: Stripe.Event;
    try {
      event = provider.verifyEvent(raw, signature ?? '');
    } catch (e) {
      throw new Problem('invalid_signature', {
        detail: 'The stripe-signature header does not match the body (or is older than five minutes).',
        cause: e,
      });
    }
    const { db, clock } = this.deps;
    const now = clock.now();
    if (event.type === 'checkout.session.completed') {
      const session = event.data.object;
      const accountId = session.metadata?.account_id ?? session.client_reference_id ?? '';
      if (session.mode === 'setup') {
        // Reading the card from Stripe happens before the transaction; the event id still guards the write.
        let card: Awaited<ReturnType<StripePaymentProvider['cardOfSetupSession']>>;
        try {
          card = await provider.cardOfSetupSession(session);
        } catch (e) {
          if (e instanceof ProviderUnavailable) throw unavailable(e);
          throw e;
        }
        const applied = await db.transaction(async (tx) => {
          if (!(await claimEvent(tx, event, now))) return false;
          const [account] = await tx.select().from(accounts).where(eq(accounts.id, accountId));
          if (!card || !account || account.status === 'deleted') return true;
          await tx
            .update(accounts)
            .set({
              cardOnFile: true,
              cardRef: card.ref,
              cardBrand: card.brand,
              cardLast4: card.last4,
              ...(typeof session.customer === 'string' ? { providerCustomer: session.customer } : {}),
            })
            .where(eq(accounts.id, accountId));
          return true;
        });
        return { received: true, applied, type: event.type };
      }
      if (session.mode === 'payment' && session.payment_status === 'paid') {
        const topUpId = session.metadata?.top_up_id ?? '';
        const pi = session.payment_intent;
        const reference = (typeof pi === 'string' ? pi : pi?.id) ?? session.id;
        const applied = await db.transaction(async (tx) => {
          if (!(await claimEvent(tx, event, now))) return false;
          await settleTopUp(tx, topUpId, reference, now);
          return true;
        });
        return { received: true, applied, type: event.type };
      }
    }
    if (event.type === 'checkout.session.expired') {
      // The owner left Checkout without paying: the pending top-up fails; nothing was credited.
      const topUpId = event.data.object.metadata?.top_up_id ?? '';
      const applied = await db.transaction(async (tx) => {
        if (!(await claimEvent(tx, event, now))) return false;
        await tx
          .update(topUps)
          .set({ status: 'failed' })
          .where(and(eq(topUps.id, topUpId), eq(topUps.status, 'pending')));
        return true;
      });
      return { received: true, applied, type: event.type };
    }
    // Other kinds are recorded (so a replay is recognisable) and otherwise ignored.
    const applied = await db.transaction((tx) => claimEvent(tx, event, now));
    return { received: true, applied, type: event.type };
  }
}

async function claimEvent(tx: Executor, event: Stripe.Event, at: Date): Promise<boolean> {
  const rows = await tx
    .insert(stripeEvents)
    .values({ id: event.id, type: event.type, receivedAt: at })
    .onConflictDoNothing()
    .returning({ id: stripeEvents.id });
  return rows.length > 0;
}
