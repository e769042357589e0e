import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ChargeResult, TEST_CARDS, TestPaymentProvider } from '../../src/core/payments/provider.js';
import { ledger, recharges } from '../../src/db/schema.js';
import { newAccount, ownerToken } from '../helpers/flows.js';
import { listen, startTestEnv, type TestEnv } from '../helpers/harness.js';
import { expectLedgerMatchesBalance } from '../helpers/money.js';
import { story } from '../helpers/stories.js';

/**
 * The test provider, with off-session charges held at a gate the test opens: while the first
 * recharge is in flight, every other post that crosses the threshold must see it and start none.
 */
class GatedProvider extends TestPaymentProvider {
  calls = 0;
  #open = true;
  #release: () => void = () => {};
  #gate: Promise<void> = Promise.resolve();
  #firstCall: () => void = () => {};
  readonly firstCall = new Promise<void>((resolve) => {
    this.#firstCall = resolve;
  });

  hold() {
    this.#open = false;
    this.#gate = new Promise<void>((resolve) => {
      this.#release = resolve;
    });
  }
  release() {
    this.#open = true;
    this.#release();
  }
  override async chargeSaved(who: { cardRef: string }): Promise<ChargeResult> {
    this.calls += 1;
    this.#firstCall();
    if (!this.#open) await this.#gate;
    return super.chargeSaved(who);
  }
}

const payments = new GatedProvider();
let env: TestEnv;
let base: string;
beforeAll(async () => {
  env = await startTestEnv({ payments });
  base = await listen(env);
});
afterAll(async () => env?.close());

const db = () => env.platform.database.db;

async function postStory(key: string) {
  const res = await fetch(`${base}/v1/posts`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${key}` },
    body: JSON.stringify({ title: 'Concurrent', body: story() }),
  });
  await res.arrayBuffer();
  return res.status;
}

async function withAutoRecharge(balance: number, threshold: number, amount: number) {
  const a = await newAccount(env);
  const owner = await ownerToken(env, a);
  const call = (method: string, path: string, body: unknown) =>
    fetch(`${base}/v1/manage${path}`, {
      method,
      headers: { 'content-type': 'application/json', authorization: `Bearer ${owner}` },
      body: JSON.stringify(body),
    });
  expect((await call('POST', '/top-ups', { amount: balance, card: TEST_CARDS.success })).status).toBe(201);
  expect((await call('POST', '/card', { card: TEST_CARDS.success })).status).toBe(201);
  expect((await call('PUT', '/auto-recharge', { enabled: true, threshold, amount })).status).toBe(200);
  return a;
}

const invariants = (accountId: string) => expectLedgerMatchesBalance(db(), accountId);

describe('"20 concurrent posts that cross the threshold trigger exactly one auto-recharge"', () => {
  it('20 truly concurrent HTTP posts crossing the threshold: one recharge; sum of ledger rows = balance', async () => {
    const a = await withAutoRecharge(5_000_000, 3_000_000, 10_000_000);
    const before = payments.calls;
    const statuses = await Promise.all(Array.from({ length: 20 }, () => postStory(a.key)));
    expect(statuses).toEqual(Array(20).fill(202));
    const rows = await db().select().from(recharges).where(eq(recharges.accountId, a.id));
    expect(rows).toHaveLength(1);
    expect(rows[0]!.status).toBe('succeeded');
    expect(payments.calls - before).toBe(1);
    const row = await invariants(a.id);
    expect(row.balance).toBe(5_000_000 - 20 * 250_000 + 10_000_000);
    const kinds = (await db().select().from(ledger).where(eq(ledger.accountId, a.id))).map((l) => l.kind);
    expect(kinds.filter((k) => k === 'auto_recharge')).toHaveLength(1);
    expect(kinds.filter((k) => k === 'post_fee')).toHaveLength(20);
  });

  it('while one recharge is in flight, every other post under the threshold starts none (never two at once)', async () => {
    // A recharge that would not lift the balance back over the threshold: without the in-flight
    // guard, each of the posts below the threshold would start its own.
    const a = await withAutoRecharge(5_000_000, 4_900_000, 1_000_000);
    const before = payments.calls;
    payments.hold();
    let answered = 0;
    const all = Promise.all(
      Array.from({ length: 20 }, () =>
        postStory(a.key).then((status) => {
          answered++;
          return status;
        }),
      ),
    );
    await payments.firstCall;
    // The first post to cross the threshold holds the recharge; the 19 others are answered
    // meanwhile (each after its own look at the auto-recharge), none starting a second.
    for (let i = 0; answered < 19; i++) {
      if (i > 20_000)
        throw new Error(`only ${answered} of 19 posts were answered while the recharge was held`);
      await new Promise((r) => setTimeout(r, 5));
    }
    expect(answered).toBe(19);
    expect(payments.calls - before).toBe(1);
    const pending = await db().select().from(recharges).where(eq(recharges.accountId, a.id));
    expect(pending.map((r) => r.status)).toEqual(['pending']);
    payments.release();
    expect(await all).toEqual(Array(20).fill(202));
    const done = await db().select().from(recharges).where(eq(recharges.accountId, a.id));
    expect(done.map((r) => r.status)).toEqual(['succeeded']);
    expect(payments.calls - before).toBe(1);
    const row = await invariants(a.id);
    expect(row.balance).toBe(5_000_000 - 20 * 250_000 + 1_000_000);
  });
});
