import { eq } from 'drizzle-orm';
import Stripe from 'stripe';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { post as ledgerPost, ledgerSum } from '../../src/core/billing/ledger.js';
import { accounts, ledger, stripeEvents, topUps } from '../../src/db/schema.js';
import { FakeStripe } from '../helpers/fake-stripe.js';
import { expectProblem, newAccount, ownerToken, type TestAccount } from '../helpers/flows.js';
import { ADMIN_TOKEN, startTestEnv, type TestEnv } from '../helpers/harness.js';
import { story } from '../helpers/stories.js';

const WEBHOOK_SECRET = 'whsec_test_0123456789abcdef0123456789abcdef';
const stripe = new Stripe('sk_test_unused');
const fake = new FakeStripe();
let env: TestEnv;

beforeAll(async () => {
  await fake.start();
  env = await startTestEnv({
    env: {
      PAYMENTS: 'stripe',
      STRIPE_SECRET_KEY: fake.secretKey,
      STRIPE_WEBHOOK_SECRET: WEBHOOK_SECRET,
      STRIPE_API_BASE: fake.base,
    },
  });
});
afterAll(async () => {
  await env?.close();
  await fake.stop();
});

const db = () => env.platform.database.db;
const row = async (id: string) => (await db().select().from(accounts).where(eq(accounts.id, id)))[0]!;
const touched = new Set<string>();
afterEach(async () => {
  for (const id of touched)
    expect(await ledgerSum(db(), id), `ledger of ${id}`).toBe((await row(id)).balance);
  touched.clear();
});

async function owned(): Promise<TestAccount & { owner: string }> {
  const a = await newAccount(env);
  touched.add(a.id);
  return { ...a, owner: await ownerToken(env, a) };
}
const manage = (a: { owner: string }, method: string, path: string, body?: unknown) =>
  env.call(method, `/v1/manage${path}`, { key: a.owner, ...(body === undefined ? {} : { body }) });

/** Posts an event to the webhook signed the way Stripe signs it. */
function deliver(
  event: unknown,
  opts: { secret?: string; tamper?: boolean; signature?: string | null } = {},
) {
  const payload = JSON.stringify(event);
  const header = stripe.webhooks.generateTestHeaderString({ payload, secret: opts.secret ?? WEBHOOK_SECRET });
  const sig = opts.signature === undefined ? header : opts.signature;
  return env.call('POST', '/v1/stripe/webhook', {
    raw: opts.tamper ? payload.replace('"paid"', '"paid" ') : payload,
    headers: { 'content-type': 'application/json', ...(sig === null ? {} : { 'stripe-signature': sig }) },
  });
}

const sessionIdOf = (checkoutUrl: string) => checkoutUrl.split('/').at(-1)!;

async function withCard(a: { owner: string; id: string }) {
  const r = await manage(a, 'POST', '/card', {});
  expect(r.status, r.text).toBe(202);
  const saved = await deliver(fake.completeSetup(sessionIdOf(r.json.checkout_url)));
  expect(saved.status, saved.text).toBe(200);
  expect((await row(a.id)).cardOnFile).toBe(true);
}

describe('stripe provider: card through Checkout in setup mode', () => {
  it('202 with the Checkout url; the signed checkout.session.completed saves brand and last4', async () => {
    const a = await owned();
    const r = await manage(a, 'POST', '/card', {});
    expect(r.status, r.text).toBe(202);
    expect(r.json.status).toBe('redirect');
    expect(r.json.checkout_url).toMatch(/^https:\/\/checkout\.stripe\.test\/c\/pay\/cs_test_/);
    const [customer] = fake.calls('POST', '/v1/customers').filter((c) => c.params.email === a.email);
    expect(customer?.params.metadata).toEqual({ account_id: a.id });
    const session = fake.sessions.get(sessionIdOf(r.json.checkout_url))!;
    expect(session.mode).toBe('setup');
    expect(session.customer).toMatch(/^cus_/);
    expect((await row(a.id)).cardOnFile).toBe(false);

    const done = await deliver(fake.completeSetup(session.id, { brand: 'mastercard', last4: '4444' }));
    expect(done.status, done.text).toBe(200);
    expect(done.json).toEqual({ received: true, applied: true, type: 'checkout.session.completed' });
    const saved = await row(a.id);
    expect(saved).toMatchObject({ cardOnFile: true, cardBrand: 'mastercard', cardLast4: '4444' });
    expect(saved.cardRef).toMatch(/^pm_/);
    expect(saved.providerCustomer).toBe(session.customer);
  });

  it('card numbers are never taken with PAYMENTS=stripe (422)', async () => {
    const a = await owned();
    const p = expectProblem(await manage(a, 'POST', '/card', { card: '4242424242424242' }), 422);
    expect(p.errors.map((e: { pointer: string }) => e.pointer)).toEqual(['/card']);
    expectProblem(await manage(a, 'POST', '/top-ups', { amount: 5_000_000, card: '4242424242424242' }), 422);
  });
});

describe('stripe provider: top-up through Checkout in payment mode', () => {
  it('202 pending with checkout_url; the paid event credits once; a replayed event credits nothing', async () => {
    const a = await owned();
    const r = await manage(a, 'POST', '/top-ups', { amount: 25_000_000 });
    expect(r.status, r.text).toBe(202);
    expect(r.json).toMatchObject({ amount: 25_000_000, status: 'pending', balance: 0 });
    const session = fake.sessions.get(sessionIdOf(r.json.checkout_url))!;
    expect(session).toMatchObject({ mode: 'payment', amount_total: 2500, currency: 'usd' });
    expect(session.metadata).toEqual({ account_id: a.id, top_up_id: r.json.id, purpose: 'top_up' });
    expect((await row(a.id)).balance).toBe(0);

    const event = fake.completePayment(session.id);
    const first = await deliver(event);
    expect(first.status, first.text).toBe(200);
    expect(first.json.applied).toBe(true);
    expect((await row(a.id)).balance).toBe(25_000_000);

    // Stripe delivers at least once: the same event again (freshly signed) changes nothing.
    const replay = await deliver(event);
    expect(replay.status, replay.text).toBe(200);
    expect(replay.json.applied).toBe(false);
    // Even another event id for the same paid session cannot credit twice.
    const again = await deliver({ ...event, id: `${event.id}_b` });
    expect(again.json.applied).toBe(true);
    expect((await row(a.id)).balance).toBe(25_000_000);
    const rows = await db().select().from(ledger).where(eq(ledger.accountId, a.id));
    expect(rows).toHaveLength(1);
    expect(rows[0]).toMatchObject({ kind: 'top_up', amount: 25_000_000, reference: r.json.id });
    expect(await db().select().from(stripeEvents).where(eq(stripeEvents.id, event.id))).toHaveLength(1);
  });

  it('an expired Checkout fails the pending top-up; a late paid event for it credits nothing', async () => {
    const a = await owned();
    const r = await manage(a, 'POST', '/top-ups', { amount: 5_000_000 });
    const sessionId = sessionIdOf(r.json.checkout_url);
    expect((await deliver(fake.expire(sessionId))).json).toMatchObject({ applied: true });
    const [t] = await db().select().from(topUps).where(eq(topUps.id, r.json.id));
    expect(t?.status).toBe('failed');
    expect((await deliver(fake.completePayment(sessionId))).status).toBe(200);
    expect((await row(a.id)).balance).toBe(0);
  });

  it('20 concurrent deliveries of one event credit once', async () => {
    const a = await owned();
    const r = await manage(a, 'POST', '/top-ups', { amount: 5_000_000 });
    const event = fake.completePayment(sessionIdOf(r.json.checkout_url));
    const replies = await Promise.all(Array.from({ length: 20 }, () => deliver(event)));
    expect(replies.map((x) => x.status)).toEqual(Array(20).fill(200));
    expect(replies.filter((x) => x.json.applied)).toHaveLength(1);
    expect((await row(a.id)).balance).toBe(5_000_000);
  });

  it('with a card on file a top-up is an off-session PaymentIntent that settles at once (201)', async () => {
    const a = await owned();
    await withCard(a);
    const r = await manage(a, 'POST', '/top-ups', { amount: 10_000_000 });
    expect(r.status, r.text).toBe(201);
    expect(r.json).toMatchObject({ status: 'succeeded', balance: 10_000_000 });
    const [pi] = fake
      .calls('POST', '/v1/payment_intents')
      .filter((c) => c.idempotencyKey === `topup-${r.json.id}`);
    expect(pi?.params).toMatchObject({
      amount: '1000',
      currency: 'usd',
      off_session: 'true',
      confirm: 'true',
    });
  });
});

describe('the webhook signature', () => {
  it.each([
    ['signed with another secret', { secret: 'whsec_other' }],
    ['a body changed after signing', { tamper: true }],
    ['no stripe-signature header', { signature: null }],
    ['a malformed header', { signature: 't=1,v1=abc' }],
  ])('%s is 400 invalid_signature and credits nothing', async (_n, opts) => {
    const a = await owned();
    const r = await manage(a, 'POST', '/top-ups', { amount: 5_000_000 });
    const event = fake.completePayment(sessionIdOf(r.json.checkout_url));
    expectProblem(await deliver(event, opts), 400, 'invalid_signature');
    expect((await row(a.id)).balance).toBe(0);
    expect(await db().select().from(stripeEvents).where(eq(stripeEvents.id, event.id))).toHaveLength(0);
    // The genuine delivery still works afterwards.
    expect((await deliver(event)).json.applied).toBe(true);
    expect((await row(a.id)).balance).toBe(5_000_000);
  });

  it('other event kinds are acknowledged and recorded once', async () => {
    const e = fake.event('customer.created', { id: 'cus_x', object: 'customer' });
    expect((await deliver(e)).json).toEqual({ received: true, applied: true, type: 'customer.created' });
    expect((await deliver(e)).json.applied).toBe(false);
  });
});

describe('stripe provider: auto-recharge with off-session PaymentIntents', () => {
  const postStory = (a: TestAccount) =>
    env.call('POST', '/v1/posts', { key: a.key, body: { title: 'Paid by card', body: story() } });

  it('a post under the threshold charges the saved card off-session and credits the ledger', async () => {
    const a = await owned();
    await withCard(a);
    await manage(a, 'POST', '/top-ups', { amount: 1_000_000 });
    expect(
      (await manage(a, 'PUT', '/auto-recharge', { enabled: true, threshold: 900_000, amount: 5_000_000 }))
        .status,
    ).toBe(200);
    const before = fake.calls('POST', '/v1/payment_intents').length;
    expect((await postStory(a)).status).toBe(202);
    const pis = fake.calls('POST', '/v1/payment_intents').slice(before);
    expect(pis).toHaveLength(1);
    expect(pis[0]!.params).toMatchObject({ amount: '500', off_session: 'true', confirm: 'true' });
    expect(pis[0]!.idempotencyKey).toMatch(/^recharge-rchg_/);
    expect((await row(a.id)).balance).toBe(750_000 + 5_000_000);
  });

  it('a decline (402 card_error) turns it off, records the decline code and e-mails the owner', async () => {
    const a = await owned();
    fake.nextCardDeclines = true;
    try {
      await withCard(a);
    } finally {
      fake.nextCardDeclines = false;
    }
    // A top-up with that card is declined the same way.
    expectProblem(await manage(a, 'POST', '/top-ups', { amount: 1_000_000 }), 402, 'payment_failed');
    // Money that came in earlier (credited straight to the ledger, as a settled top-up would be).
    await db().transaction((tx) =>
      ledgerPost(tx, { accountId: a.id, kind: 'top_up', amount: 1_000_000, at: env.clock.now() }),
    );
    const on = await manage(a, 'PUT', '/auto-recharge', {
      enabled: true,
      threshold: 900_000,
      amount: 5_000_000,
    });
    expect(on.status, on.text).toBe(200);
    expect((await postStory(a)).status).toBe(202);
    const after = await row(a.id);
    expect(after.autoRechargeEnabled).toBe(false);
    expect(after.autoRechargeDisabledReason).toMatch(/insufficient_funds/);
    const mail = await env.call('GET', `/v1/admin/outbox?to=${encodeURIComponent(a.email)}`, {
      key: ADMIN_TOKEN,
    });
    expect(mail.json.data.filter((m: { subject: string }) => /declined/.test(m.subject))).toHaveLength(1);
    expect(after.balance).toBe(750_000);
  });
});

describe('stripe provider: refund on deletion', () => {
  it('refunds the unused balance to the PaymentIntents it came from, newest first, and records it', async () => {
    const a = await owned();
    await withCard(a);
    const t1 = await manage(a, 'POST', '/top-ups', { amount: 5_000_000 });
    env.clock.advance(1000);
    const t2 = await manage(a, 'POST', '/top-ups', { amount: 1_000_000 });
    expect([t1.status, t2.status]).toEqual([201, 201]);
    expect(
      (await env.call('POST', '/v1/posts', { key: a.key, body: { title: 'One', body: story() } })).status,
    ).toBe(202);
    await env.call('DELETE', '/v1/account', { key: a.key });
    const before = fake.calls('POST', '/v1/refunds').length;
    const r = await manage(a, 'POST', '/deletion/confirm', { refund: true });
    expect(r.status, r.text).toBe(200);
    expect(r.json).toMatchObject({ refunded: 5_750_000, refund_failed: 0 });
    const refunds = fake.calls('POST', '/v1/refunds').slice(before);
    expect(refunds.map((c) => c.params.amount)).toEqual(['100', '475']);
    const rows = await db().select().from(ledger).where(eq(ledger.accountId, a.id));
    expect(rows.at(-1)).toMatchObject({ kind: 'withdrawal', amount: -5_750_000, balanceAfter: 0 });
  });
});

describe('stripe provider: failures', () => {
  it('Stripe answering 500 is a 503 service_unavailable with Retry-After; nothing is stored', async () => {
    const a = await owned();
    fake.failNext = 2; // the first try and the client's one retry
    const r = await manage(a, 'POST', '/top-ups', { amount: 5_000_000 });
    expectProblem(r, 503, 'service_unavailable');
    expect(Number(r.headers['retry-after'])).toBeGreaterThan(0);
    expect(r.text).not.toMatch(/api_error|unknown error|127\.0\.0\.1/);
    expect((await row(a.id)).balance).toBe(0);
    expect((await manage(a, 'POST', '/top-ups', { amount: 5_000_000 })).status).toBe(202);
  });

  it('a refund Stripe refuses is credited back: refund_failed, and the ledger still adds up', async () => {
    const a = await owned();
    await withCard(a);
    expect((await manage(a, 'POST', '/top-ups', { amount: 2_000_000 })).status).toBe(201);
    await env.call('DELETE', '/v1/account', { key: a.key });
    fake.refundsFail = true;
    try {
      const r = await manage(a, 'POST', '/deletion/confirm', { refund: true });
      expect(r.json).toMatchObject({ status: 'deleted', refunded: 0, refund_failed: 2_000_000 });
    } finally {
      fake.refundsFail = false;
    }
    const rows = await db().select().from(ledger).where(eq(ledger.accountId, a.id));
    expect(rows.map((l) => [l.kind, l.amount])).toEqual([
      ['top_up', 2_000_000],
      ['withdrawal', -2_000_000],
      ['withdrawal', 2_000_000],
    ]);
    expect((await row(a.id)).balance).toBe(2_000_000);
  });
});

describe('PAYMENTS=test has no Stripe webhook', () => {
  it('is 404 there', async () => {
    const other = await startTestEnv();
    try {
      const r = await other.call('POST', '/v1/stripe/webhook', {
        raw: '{}',
        headers: { 'content-type': 'application/json', 'stripe-signature': 't=1,v1=x' },
      });
      expectProblem(r, 404, 'not_found');
    } finally {
      await other.close();
    }
  });
});
