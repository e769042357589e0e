import { count, eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { posts } from '../../src/db/schema.js';
import { creditedAccount } from '../helpers/flows.js';
import { fetchReply, listen, startTestEnv, type TestEnv } from '../helpers/harness.js';
import { expectLedgerMatchesBalance } from '../helpers/money.js';
import { story } from '../helpers/stories.js';

/** Truly concurrent requests: a listening server and 50 fetches in flight at once. */
let env: TestEnv;
let base: string;
beforeAll(async () => {
  env = await startTestEnv();
  base = await listen(env);
});
afterAll(async () => env?.close());

async function postStory(key: string, body: unknown, headers: Record<string, string> = {}) {
  // Checked against /openapi.json like every env.call.
  const res = await fetchReply(env, `${base}/v1/posts`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${key}`, ...headers },
    body: JSON.stringify(body),
  });
  return { status: res.status, json: res.json as { id?: string; code?: string } };
}

async function invariants(accountId: string) {
  const db = env.platform.database.db;
  const acct = await expectLedgerMatchesBalance(db, accountId, 'sum of ledger = balance');
  expect(acct.balance).toBeGreaterThanOrEqual(0);
  const [n] = await db.select({ n: count() }).from(posts).where(eq(posts.accountId, accountId));
  return { balance: acct.balance, posts: n!.n };
}

describe('no double charge, no overdraft', () => {
  it('50 concurrent POSTs with one Idempotency-Key create one post and one charge', async () => {
    const a = await creditedAccount(env, 1_000_000);
    const body = { title: 'Race', body: story() };
    const rs = await Promise.all(
      Array.from({ length: 50 }, () => postStory(a.key, body, { 'idempotency-key': 'race-key-0001' })),
    );
    const statuses = rs.map((r) => r.status);
    expect(
      statuses.every((s) => s === 202 || s === 409),
      statuses.join(','),
    ).toBe(true);
    expect(rs.filter((r) => r.status === 409).every((r) => r.json.code === 'idempotency_key_in_use')).toBe(
      true,
    );
    const ids = new Set(rs.filter((r) => r.status === 202).map((r) => r.json.id));
    expect(ids.size).toBe(1);
    const after = await postStory(a.key, body, { 'idempotency-key': 'race-key-0001' });
    expect(after.status).toBe(202);
    expect(ids.has(after.json.id)).toBe(true);
    expect(await invariants(a.id)).toEqual({ balance: 750_000, posts: 1 });
  });

  it('50 concurrent POSTs on a balance for 10 create exactly 10 and answer 402 to the rest', async () => {
    const a = await creditedAccount(env, 2_500_000);
    const rs = await Promise.all(
      Array.from({ length: 50 }, (_, i) => postStory(a.key, { title: `c${i}`, body: story() })),
    );
    expect(rs.filter((r) => r.status === 202)).toHaveLength(10);
    const rest = rs.filter((r) => r.status !== 202);
    expect(rest.every((r) => r.status === 402 && r.json.code === 'insufficient_balance')).toBe(true);
    expect(await invariants(a.id)).toEqual({ balance: 0, posts: 10 });
  });

  it('concurrent posts from two keys of one account share one balance', async () => {
    const a = await creditedAccount(env, 1_250_000);
    const owner = await env.platform.services.keys.createForOwner(a.id);
    const rs = await Promise.all(
      Array.from({ length: 20 }, (_, i) =>
        postStory(i % 2 ? a.key : owner.api_key, { title: `k${i}`, body: story() }),
      ),
    );
    expect(rs.filter((r) => r.status === 202)).toHaveLength(5);
    expect(await invariants(a.id)).toEqual({ balance: 0, posts: 5 });
  });
});
