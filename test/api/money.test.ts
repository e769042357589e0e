import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TEST_CARDS } from '../../src/core/payments/provider.js';
import { ledger, recharges } from '../../src/db/schema.js';
import { expectProblem, type TestAccount } from '../helpers/flows.js';
import { ADMIN_TOKEN, startTestEnv, type TestEnv } from '../helpers/harness.js';
import { moneyKit } from '../helpers/money.js';
import { PROMPT_INJECTION, story, storyWith } from '../helpers/stories.js';

let env: TestEnv;
beforeAll(async () => {
  env = await startTestEnv();
});
afterAll(async () => env?.close());

const { db, row, owned, manage } = moneyKit(() => env);
const topUp = async (a: { owner: string }, amount: number) => {
  const r = await manage(a, 'POST', '/top-ups', { amount });
  expect(r.status, r.text).toBe(201);
  return r.json;
};
const postStory = (a: TestAccount) =>
  env.call('POST', '/v1/posts', { key: a.key, body: { title: 'A story', body: story() } });
const mails = async (email: string, subject: RegExp) => {
  const r = await env.call('GET', `/v1/admin/outbox?to=${encodeURIComponent(email)}`, { key: ADMIN_TOKEN });
  return (r.json.data as { subject: string; text: string }[]).filter((m) => subject.test(m.subject));
};

describe('card on file (test provider)', () => {
  it('4242… is saved as brand and last four only; the number is never stored', async () => {
    const a = await owned();
    const r = await manage(a, 'POST', '/card', { card: TEST_CARDS.success });
    expect(r.status, r.text).toBe(201);
    expect(r.json).toEqual({ status: 'saved', card: { brand: 'visa', last4: '4242' } });
    expect((await env.call('GET', '/v1/account', { key: a.key })).json.card_on_file).toBe(true);
    const stored = JSON.stringify(await row(a.id));
    expect(stored).not.toContain(TEST_CARDS.success);
    expect((await row(a.id)).cardLast4).toBe('4242');
  });

  it('4000000000000002 is 402 card_declined and saves nothing', async () => {
    const a = await owned();
    expectProblem(await manage(a, 'POST', '/card', { card: TEST_CARDS.declined }), 402, 'card_declined');
    expect((await row(a.id)).cardOnFile).toBe(false);
  });

  it('the test provider needs a number (422); an agent key is 403 owner_action_required', async () => {
    const a = await owned();
    const p = expectProblem(await manage(a, 'POST', '/card', {}), 422, 'validation_failed');
    expect(p.errors.map((e: { pointer: string }) => e.pointer)).toEqual(['/card']);
    const agent = await env.call('POST', '/v1/manage/card', {
      key: a.key,
      body: { card: TEST_CARDS.success },
    });
    expect(expectProblem(agent, 403, 'owner_action_required').account_url).toBeTruthy();
    expect((await row(a.id)).cardOnFile).toBe(false);
  });

  it('removing the card turns auto-recharge off', async () => {
    const a = await owned();
    await manage(a, 'POST', '/card', { card: TEST_CARDS.success });
    expect((await manage(a, 'PUT', '/auto-recharge', { enabled: true })).status).toBe(200);
    expect((await manage(a, 'DELETE', '/card')).status).toBe(204);
    const me = (await env.call('GET', '/v1/account', { key: a.key })).json;
    expect(me.card_on_file).toBe(false);
    expect(me.auto_recharge.enabled).toBe(false);
  });
});

describe('top-ups', () => {
  it('/rate-limits.json lists the top-up amounts and one auto-recharge in flight per account', async () => {
    const r = await env.call('GET', '/rate-limits.json');
    const by = (op: string) => r.json.limits.find((l: { operation: string }) => l.operation === op);
    expect(by('POST /v1/manage/top-ups').amount).toEqual({
      min: 1_000_000,
      max: 500_000_000,
      multiple_of: 10_000,
    });
    expect(by('auto-recharge').limit).toBe(1);
  });

  it('whole cents only: 1_005_000 is 422, 1_010_000 is 201', async () => {
    const a = await owned();
    const p = expectProblem(await manage(a, 'POST', '/top-ups', { amount: 1_005_000 }), 422);
    expect(p.errors.map((e: { pointer: string }) => e.pointer)).toEqual(['/amount']);
    expect((await topUp(a, 1_010_000)).balance).toBe(1_010_000);
  });

  it('without a card number, a saved card is charged: a card whose charges fail is 402 payment_failed', async () => {
    const a = await owned();
    await manage(a, 'POST', '/card', { card: TEST_CARDS.chargeDeclined });
    expectProblem(await manage(a, 'POST', '/top-ups', { amount: 5_000_000 }), 402, 'payment_failed');
    expect((await row(a.id)).balance).toBe(0);
    await manage(a, 'POST', '/card', { card: TEST_CARDS.success });
    expect((await topUp(a, 5_000_000)).balance).toBe(5_000_000);
  });
});

describe('auto-recharge settings', () => {
  it('turning it on needs a card: 409 card_required, then 200 once a card is saved', async () => {
    const a = await owned();
    expectProblem(await manage(a, 'PUT', '/auto-recharge', { enabled: true }), 409, 'card_required');
    await manage(a, 'POST', '/card', { card: TEST_CARDS.success });
    const r = await manage(a, 'PUT', '/auto-recharge', {
      enabled: true,
      threshold: 2_000_000,
      amount: 10_000_000,
    });
    expect(r.status, r.text).toBe(200);
    expect(r.json).toEqual({
      enabled: true,
      threshold: 2_000_000,
      amount: 10_000_000,
      disabled_reason: null,
    });
    expect((await env.call('GET', '/v1/account', { key: a.key })).json.auto_recharge).toEqual({
      enabled: true,
      threshold: 2_000_000,
      amount: 10_000_000,
    });
  });

  it.each([
    ['threshold not whole cents', { threshold: 1_000_001 }, '/threshold'],
    ['threshold above 100_000_000', { threshold: 100_010_000 }, '/threshold'],
    ['amount below the top-up minimum', { amount: 990_000 }, '/amount'],
  ])('%s is 422', async (_n, extra, pointer) => {
    const a = await owned();
    await manage(a, 'POST', '/card', { card: TEST_CARDS.success });
    const p = expectProblem(await manage(a, 'PUT', '/auto-recharge', { enabled: true, ...extra }), 422);
    expect(p.errors.map((e: { pointer: string }) => e.pointer)).toEqual([pointer]);
    expect((await row(a.id)).autoRechargeEnabled).toBe(false);
  });

  it('the agent may turn it off but not on (403 with account_url)', async () => {
    const a = await owned();
    await manage(a, 'POST', '/card', { card: TEST_CARDS.success });
    await manage(a, 'PUT', '/auto-recharge', { enabled: true });
    const on = await env.call('PATCH', '/v1/account', {
      key: a.key,
      body: { auto_recharge: { enabled: true } },
    });
    expect(expectProblem(on, 403, 'owner_action_required').account_url).toMatch(/\/account\?token=/);
    const off = await env.call('PATCH', '/v1/account', {
      key: a.key,
      body: { auto_recharge: { enabled: false } },
    });
    expect(off.json.auto_recharge.enabled).toBe(false);
  });
});

describe('auto-recharge after a charge', () => {
  it('a post that leaves the balance exactly at the threshold does not recharge; the next one (under it) does, once', async () => {
    const a = await owned();
    await manage(a, 'POST', '/card', { card: TEST_CARDS.success });
    await manage(a, 'PUT', '/auto-recharge', { enabled: true, threshold: 800_000, amount: 5_000_000 });
    await topUp(a, 1_050_000);
    expect((await postStory(a)).status).toBe(202);
    expect((await row(a.id)).balance).toBe(800_000);
    expect(await db().select().from(recharges).where(eq(recharges.accountId, a.id))).toHaveLength(0);
    expect((await postStory(a)).status).toBe(202);
    expect((await row(a.id)).balance).toBe(550_000 + 5_000_000);
    const kinds = (await db().select().from(ledger).where(eq(ledger.accountId, a.id))).map((l) => l.kind);
    expect(kinds).toEqual(['top_up', 'post_fee', 'post_fee', 'auto_recharge']);
    const [r] = await db().select().from(recharges).where(eq(recharges.accountId, a.id));
    expect(r).toMatchObject({ status: 'succeeded', amount: 5_000_000 });
    // No low-balance mail: the recharge paid before the balance ran short.
    expect(await mails(a.email, /cannot pay/)).toHaveLength(0);
  });

  it('a metered search fee counts too: the first paid search under the threshold recharges', async () => {
    const a = await owned();
    await topUp(a, 1_000_000);
    await manage(a, 'POST', '/card', { card: TEST_CARDS.success });
    await manage(a, 'PUT', '/auto-recharge', { enabled: true, threshold: 1_000_000, amount: 2_000_000 });
    for (let i = 0; i < 100; i++)
      expect((await env.call('GET', '/v1/search?q=lighthouse', { key: a.key })).status).toBe(200);
    expect((await row(a.id)).balance).toBe(1_000_000);
    expect((await env.call('GET', '/v1/search?q=lighthouse', { key: a.key })).status).toBe(200);
    expect((await row(a.id)).balance).toBe(1_000_000 - 1_000 + 2_000_000);
    const kinds = (await db().select().from(ledger).where(eq(ledger.accountId, a.id))).map((l) => l.kind);
    expect(kinds).toEqual(['top_up', 'search_fee', 'auto_recharge']);
  });

  it('a fine (a person rejects an abusive post) counts too', async () => {
    const a = await owned();
    await topUp(a, 3_000_000);
    await manage(a, 'POST', '/card', { card: TEST_CARDS.success });
    await manage(a, 'PUT', '/auto-recharge', { enabled: true, threshold: 1_000_000, amount: 5_000_000 });
    const body = storyWith(PROMPT_INJECTION);
    const posted = await env.call('POST', '/v1/posts', { key: a.key, body: { title: 'Spam', body } });
    expect(posted.status).toBe(202);
    await env.platform.workers.drain('moderate');
    expect((await row(a.id)).balance).toBe(2_750_000);
    const r = await env.call('POST', `/v1/admin/posts/${posted.json.id}/decision`, {
      key: ADMIN_TOKEN,
      body: { decision: 'reject', category: 'agent_injection', reason: 'instructions aimed at AI readers' },
    });
    expect(r.status, r.text).toBe(200);
    // 2,750,000 - a fine of 2,250,000 = 500,000, under the threshold: one recharge of 5,000,000.
    expect((await row(a.id)).balance).toBe(500_000 + 5_000_000);
    const kinds = (await db().select().from(ledger).where(eq(ledger.accountId, a.id))).map((l) => l.kind);
    expect(kinds).toEqual(['top_up', 'post_fee', 'fine', 'auto_recharge']);
  });

  it('a decline turns it off, records why and e-mails the owner once', async () => {
    const a = await owned();
    await topUp(a, 2_000_000);
    // 4000000000000341 saves, but every charge of it is declined.
    await manage(a, 'POST', '/card', { card: TEST_CARDS.chargeDeclined });
    await manage(a, 'PUT', '/auto-recharge', { enabled: true, threshold: 2_000_000, amount: 5_000_000 });
    expect((await postStory(a)).status).toBe(202);
    const after = await row(a.id);
    expect(after.balance).toBe(1_750_000);
    expect(after.autoRechargeEnabled).toBe(false);
    expect(after.autoRechargeDisabledReason).toMatch(/declined \(card_declined\)/);
    const [r] = await db().select().from(recharges).where(eq(recharges.accountId, a.id));
    expect(r).toMatchObject({ status: 'failed', failureReason: 'card_declined' });
    const declined = await mails(a.email, /declined/);
    expect(declined).toHaveLength(1);
    expect(declined[0]!.text).toMatch(/auto-recharge is now turned off/);
    // Off means off: the next post under the threshold tries nothing.
    expect((await postStory(a)).status).toBe(202);
    expect(await db().select().from(recharges).where(eq(recharges.accountId, a.id))).toHaveLength(1);
    expect(await mails(a.email, /declined/)).toHaveLength(1);
    // The owner's page says why.
    const page = await env.call('GET', '/account', { headers: { cookie: `ap_owner=${a.owner}` } });
    expect(page.status).toBe(200);
    expect(page.text).toMatch(/Turned off by the service: The card was declined \(card_declined\)/);
    // Turning it on again clears the reason.
    await manage(a, 'POST', '/card', { card: TEST_CARDS.success });
    const on = await manage(a, 'PUT', '/auto-recharge', { enabled: true });
    expect(on.json.disabled_reason).toBeNull();
  });
});

describe('low-balance e-mail', () => {
  it('goes out once when the balance cannot pay for the next post, and again only after a top-up', async () => {
    const a = await owned();
    await topUp(a, 1_000_000);
    for (let i = 0; i < 3; i++) expect((await postStory(a)).status).toBe(202);
    // 250_000 left: it still pays for one post, so no mail yet.
    expect(await mails(a.email, /cannot pay/)).toHaveLength(0);
    expect((await postStory(a)).status).toBe(202);
    const first = await mails(a.email, /cannot pay/);
    expect(first).toHaveLength(1);
    expect(first[0]!.text).toMatch(/\$0\.00/);
    expectProblem(await postStory(a), 402, 'insufficient_balance');
    expect(await mails(a.email, /cannot pay/)).toHaveLength(1);
    await topUp(a, 1_000_000);
    for (let i = 0; i < 4; i++) expect((await postStory(a)).status).toBe(202);
    expect(await mails(a.email, /cannot pay/)).toHaveLength(2);
  });
});

describe('GET /v1/manage/ledger', () => {
  it('lists every movement newest first with paging; the balances add up', async () => {
    const a = await owned();
    await topUp(a, 1_000_000);
    await topUp(a, 2_000_000);
    expect((await postStory(a)).status).toBe(202);
    const page1 = await manage(a, 'GET', '/ledger?limit=2');
    expect(page1.status, page1.text).toBe(200);
    expect(page1.json.data.map((e: { kind: string }) => e.kind)).toEqual(['post_fee', 'top_up']);
    expect(page1.json.data[0]).toMatchObject({ amount: -250_000, balance_after: 2_750_000 });
    expect(page1.json.next_cursor).toBeTruthy();
    const page2 = await manage(a, 'GET', `/ledger?limit=2&cursor=${page1.json.next_cursor}`);
    expect(page2.json.data.map((e: { amount: number }) => e.amount)).toEqual([1_000_000]);
    expect(page2.json.next_cursor).toBeNull();
    expectProblem(await manage(a, 'GET', '/ledger?cursor=abc'), 422, 'validation_failed');
    expectProblem(await env.call('GET', '/v1/manage/ledger', { key: a.key }), 403, 'owner_action_required');
  });
});

describe('account deletion', () => {
  it('DELETE /v1/account -> pending_deletion; the owner cancels (reversible); cancel twice is 409', async () => {
    const a = await owned();
    const d = await env.call('DELETE', '/v1/account', { key: a.key });
    expect(d.status, d.text).toBe(202);
    expect(d.json).toMatchObject({ status: 'pending_deletion', for_human: true });
    expect((await postStory(a)).status).toBe(402); // the key still works (no balance)
    expect((await manage(a, 'POST', '/deletion/cancel')).json).toEqual({ status: 'active' });
    expect((await env.call('GET', '/v1/account', { key: a.key })).json.status).toBe('active');
    expectProblem(await manage(a, 'POST', '/deletion/cancel'), 409, 'invalid_state');
  });

  it('confirming without a request is 409 invalid_state; an agent key cannot confirm', async () => {
    const a = await owned();
    expectProblem(await manage(a, 'POST', '/deletion/confirm', { refund: true }), 409, 'invalid_state');
    await env.call('DELETE', '/v1/account', { key: a.key });
    expectProblem(
      await env.call('POST', '/v1/manage/deletion/confirm', { key: a.key, body: { refund: true } }),
      403,
      'owner_action_required',
    );
    expect((await row(a.id)).status).toBe('active');
  });

  it('confirm with refund: keys stop, data is erased, the balance goes back to the card in the ledger, posts stay up', async () => {
    const a = await owned();
    await topUp(a, 3_000_000);
    await topUp(a, 1_000_000);
    const posted = await postStory(a);
    expect(posted.status).toBe(202);
    await env.platform.workers.drain('moderate');
    const before = await env.call('GET', `/p/${posted.json.id}.json`);
    expect(before.status, before.text).toBe(200);
    const author = before.json.author.name;

    await env.call('DELETE', '/v1/account', { key: a.key });
    const r = await manage(a, 'POST', '/deletion/confirm', { refund: true });
    expect(r.status, r.text).toBe(200);
    expect(r.json).toEqual({
      status: 'deleted',
      refund_requested: true,
      refunded: 3_750_000,
      refund_failed: 0,
    });

    expectProblem(await env.call('GET', '/v1/account', { key: a.key }), 401, 'unauthorized');
    expectProblem(await manage(a, 'GET', '/account'), 401, 'unauthorized');
    const gone = await row(a.id);
    expect(gone).toMatchObject({ status: 'deleted', email: '', cardOnFile: false, balance: 0 });
    expect(JSON.stringify(gone)).not.toContain(a.email);
    const rows = await db().select().from(ledger).where(eq(ledger.accountId, a.id));
    expect(rows.at(-1)).toMatchObject({ kind: 'withdrawal', amount: -3_750_000, balanceAfter: 0 });

    const after = await env.call('GET', `/p/${posted.json.id}.json`);
    expect(after.status).toBe(200);
    expect(after.json.author).toEqual({ name: author });
    expect(after.json.license.name).toBe('CC BY 4.0');
    expect(after.text).not.toContain(a.id);
    // The receipt went to the address the account had.
    expect(await mails(a.email, /was deleted/)).toHaveLength(1);
    // Confirming again: the session is gone.
    expectProblem(await manage(a, 'POST', '/deletion/confirm', { refund: true }), 401, 'unauthorized');
  });

  it('confirm without refund keeps the balance in the ledger (nothing refunded)', async () => {
    const a = await owned();
    await topUp(a, 2_000_000);
    await env.call('DELETE', '/v1/account', { key: a.key });
    const r = await manage(a, 'POST', '/deletion/confirm', {});
    expect(r.json).toEqual({ status: 'deleted', refund_requested: false, refunded: 0, refund_failed: 0 });
    expect((await row(a.id)).balance).toBe(2_000_000);
  });

  it('the owner can request deletion on the page too (POST /v1/manage/deletion)', async () => {
    const a = await owned();
    const r = await manage(a, 'POST', '/deletion');
    expect(r.status, r.text).toBe(202);
    expect((await env.call('GET', '/v1/account', { key: a.key })).json.status).toBe('pending_deletion');
  });
});
