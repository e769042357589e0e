import { eq, sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LINK_TTL_MS } from '../../src/core/owner/links.js';
import {
  CODE_TTL_MS,
  CODES_PER_ACCOUNT_PER_DAY,
  MAX_CODE_ATTEMPTS,
  SESSION_TTL_MS,
} from '../../src/core/owner/sessions.js';
import { TEST_CARDS } from '../../src/core/payments/provider.js';
import { hashToken } from '../../src/core/secrets.js';
import { accounts, ledger, topUps } from '../../src/db/schema.js';
import {
  expectProblem,
  latestCode,
  linkToken,
  newAccount,
  otherCode,
  ownerToken,
  requestOwnerCode,
  type TestAccount,
} from '../helpers/flows.js';
import { ADMIN_TOKEN, startTestEnv, type TestEnv } from '../helpers/harness.js';

let env: TestEnv;
beforeAll(async () => {
  env = await startTestEnv();
});
afterAll(async () => env?.close());

const MINUTE = 60 * 1000;
const session = (body: Record<string, string>) => env.call('POST', '/v1/manage/session', { body });
const outbox = async (to: string) => {
  const r = await env.call('GET', `/v1/admin/outbox?to=${encodeURIComponent(to)}`, { key: ADMIN_TOKEN });
  expect(r.status, r.text).toBe(200);
  return r.json.data as { id: string; to: string; subject: string; text: string; created_at: string }[];
};
const requestCode = (a: TestAccount, token?: string) => requestOwnerCode(env, a, token);

describe('owner proof: POST /v1/manage/session', () => {
  it('{token} answers 202 and mails a six-digit code to the account address', async () => {
    const a = await newAccount(env);
    expect(await outbox(a.email)).toHaveLength(0);
    const r = await session({ token: linkToken(a.account_url) });
    expect(r.status, r.text).toBe(202);
    expect(r.json.expires_at).toBe(new Date(env.clock.now().getTime() + 10 * MINUTE).toISOString());
    // The address is masked: whoever holds the link does not learn it.
    expect(r.json.sent_to).not.toBe(a.email);
    expect(r.json.sent_to).toMatch(/^o\*+@example\.com$/);
    const mail = await outbox(a.email);
    expect(mail).toHaveLength(1);
    expect(mail[0]!.to).toBe(a.email);
    expect(`${mail[0]!.subject}\n${mail[0]!.text}`).toMatch(/\b\d{6}\b/);
    expect(mail[0]!.created_at).toBe(env.clock.now().toISOString());
    // The code is in the mail, never in the answer.
    expect(r.text).not.toContain(await latestCode(env, a.email));
  });

  it('the right code answers 200 with owner_token and marks the e-mail verified', async () => {
    const a = await newAccount(env);
    const token = linkToken(a.account_url);
    const code = await requestCode(a, token);
    expect((await env.call('GET', '/v1/account', { key: a.key })).json.email_verified).toBe(false);
    const r = await session({ token, code });
    expect(r.status, r.text).toBe(200);
    expect(r.json.owner_token).toMatch(/^ap_owner_/);
    expect(r.json.expires_at).toBe(new Date(env.clock.now().getTime() + SESSION_TTL_MS).toISOString());
    expect((await env.call('GET', '/v1/account', { key: a.key })).json.email_verified).toBe(true);
    const me = await env.call('GET', '/v1/manage/account', { key: r.json.owner_token });
    expect(me.status, me.text).toBe(200);
    expect(me.json.id).toBe(a.id);
    expect(me.json.email_verified).toBe(true);
  });

  it('a wrong code is 401 invalid_code and verifies nothing', async () => {
    const a = await newAccount(env);
    const token = linkToken(a.account_url);
    const code = await requestCode(a, token);
    expectProblem(await session({ token, code: otherCode(code) }), 401, 'invalid_code');
    expect((await env.call('GET', '/v1/account', { key: a.key })).json.email_verified).toBe(false);
  });

  it('a code before any was requested is 401 invalid_code', async () => {
    const a = await newAccount(env);
    expectProblem(await session({ token: linkToken(a.account_url), code: '123456' }), 401, 'invalid_code');
  });

  it('a code that is not six digits is 422', async () => {
    const a = await newAccount(env);
    const token = linkToken(a.account_url);
    const p = expectProblem(await session({ token, code: '12345' }), 422, 'validation_failed');
    expect(p.errors.map((e: { pointer: string }) => e.pointer)).toEqual(['/code']);
  });

  it(`${MAX_CODE_ATTEMPTS} wrong codes, then even the right one is 429 too_many_attempts`, async () => {
    expect(MAX_CODE_ATTEMPTS).toBe(5);
    const a = await newAccount(env);
    const token = linkToken(a.account_url);
    const code = await requestCode(a, token);
    for (let i = 0; i < 5; i++) {
      expectProblem(await session({ token, code: otherCode(code) }), 401, 'invalid_code');
    }
    expectProblem(await session({ token, code }), 429, 'too_many_attempts');
    expect((await env.call('GET', '/v1/account', { key: a.key })).json.email_verified).toBe(false);
  });

  it('4 wrong codes, then the right one still works (the edge)', async () => {
    const a = await newAccount(env);
    const token = linkToken(a.account_url);
    const code = await requestCode(a, token);
    for (let i = 0; i < 4; i++) {
      expectProblem(await session({ token, code: otherCode(code) }), 401, 'invalid_code');
    }
    expect((await session({ token, code })).status).toBe(200);
  });

  it(`${CODES_PER_ACCOUNT_PER_DAY} codes per account per UTC day: the 21st is 429 rate_limited until midnight`, async () => {
    expect(CODES_PER_ACCOUNT_PER_DAY).toBe(20);
    const a = await newAccount(env);
    const token = linkToken(a.account_url);
    const replies = await Promise.all(Array.from({ length: 20 }, () => session({ token })));
    expect(replies.map((r) => r.status)).toEqual(Array(20).fill(202));
    const over = await session({ token });
    expectProblem(over, 429, 'rate_limited');
    expect(Number(over.headers['retry-after'])).toBeGreaterThan(0);
    expect(await outbox(a.email)).toHaveLength(20);
    // Another account is not affected; the next UTC day starts afresh.
    expect((await session({ token: linkToken((await newAccount(env)).account_url) })).status).toBe(202);
    env.clock.advance(Number(over.headers['retry-after']) * 1000);
    const fresh = linkToken((await env.call('GET', '/v1/account', { key: a.key })).json.account_url);
    expect((await session({ token: fresh })).status).toBe(202);
  });

  it('concurrent guesses cannot exceed the attempt limit', async () => {
    const a = await newAccount(env);
    const token = linkToken(a.account_url);
    const code = await requestCode(a, token);
    const guesses = Array.from({ length: 30 }, (_, i) =>
      String((Number(code) + 1 + i) % 1_000_000).padStart(6, '0'),
    );
    const replies = await Promise.all(guesses.map((g) => session({ token, code: g })));
    const wrong = replies.filter((r) => r.status === 401).length;
    expect(wrong).toBeLessThanOrEqual(MAX_CODE_ATTEMPTS);
    expect(replies.filter((r) => r.status === 429).length).toBe(30 - wrong);
    expectProblem(await session({ token, code }), 429, 'too_many_attempts');
  });

  it('a new code starts a new count and the old code stops working', async () => {
    const a = await newAccount(env);
    const token = linkToken(a.account_url);
    const first = await requestCode(a, token);
    for (let i = 0; i < 5; i++) await session({ token, code: otherCode(first) });
    expectProblem(await session({ token, code: first }), 429, 'too_many_attempts');
    let second = await requestCode(a, token);
    while (second === first) second = await requestCode(a, token);
    expectProblem(await session({ token, code: first }), 401, 'invalid_code');
    expect((await session({ token, code: second })).status).toBe(200);
  });

  it('the outbox lists the newest mail first even within one instant of the clock', async () => {
    const a = await newAccount(env);
    const token = linkToken(a.account_url);
    for (let i = 0; i < 6; i++) {
      await session({ token });
      const mails = await outbox(a.email);
      expect(mails).toHaveLength(i + 1);
      const newest = /\b(\d{6})\b/.exec(mails[0]!.text)?.[1];
      const [challenge] = (
        (await env.platform.database.db.execute(
          sql`select code_hash from owner_challenges where account_id = ${a.id}`,
        )) as unknown as { rows: { code_hash: string }[] }
      ).rows;
      expect(hashToken(newest ?? ''), `mail ${i + 1}`).toBe(challenge?.code_hash);
    }
  });

  it('a code is single use', async () => {
    const a = await newAccount(env);
    const token = linkToken(a.account_url);
    const code = await requestCode(a, token);
    expect((await session({ token, code })).status).toBe(200);
    expectProblem(await session({ token, code }), 401, 'invalid_code');
  });

  it('the same code sent twice at once opens one session', async () => {
    const a = await newAccount(env);
    const token = linkToken(a.account_url);
    const code = await requestCode(a, token);
    const replies = await Promise.all([session({ token, code }), session({ token, code })]);
    expect(replies.map((r) => r.status).sort()).toEqual([200, 401]);
  });

  it('a code belongs to its link: another link of the same account does not take it', async () => {
    const a = await newAccount(env);
    const code = await requestCode(a);
    const other = linkToken((await env.call('GET', '/v1/account', { key: a.key })).json.account_url);
    expectProblem(await session({ token: other, code }), 401, 'invalid_code');
  });

  it('an unknown token is 401 link_expired', async () => {
    expectProblem(await session({ token: 'ap_link_nope' }), 401, 'link_expired');
    expectProblem(await session({ token: 'ap_link_nope', code: '123456' }), 401, 'link_expired');
  });

  it('"expires after one hour": at 59:59 the link still works', async () => {
    const a = await newAccount(env);
    env.clock.advance(59 * MINUTE + 59 * 1000);
    const code = await requestCode(a);
    expect((await session({ token: linkToken(a.account_url), code })).status).toBe(200);
  });

  it('"expires after one hour": one hour and 1 ms later it is 401 link_expired', async () => {
    expect(LINK_TTL_MS).toBe(60 * MINUTE);
    const a = await newAccount(env);
    env.clock.advance(60 * 60 * 1000 + 1);
    const p = expectProblem(await session({ token: linkToken(a.account_url) }), 401, 'link_expired');
    expect(p.detail.length).toBeGreaterThan(0);
    expect(await outbox(a.email)).toHaveLength(0);
  });

  it('a code requested before the link expired cannot be used after it', async () => {
    const a = await newAccount(env);
    const token = linkToken(a.account_url);
    env.clock.advance(58 * MINUTE);
    const code = await requestCode(a, token);
    env.clock.advance(2 * MINUTE);
    expectProblem(await session({ token, code }), 401, 'link_expired');
  });

  it('a code past 10 minutes is refused; at 9:59 it works', async () => {
    expect(CODE_TTL_MS).toBe(10 * MINUTE);
    const a = await newAccount(env);
    const token = linkToken(a.account_url);
    const code = await requestCode(a, token);
    env.clock.advance(10 * MINUTE + 1);
    expectProblem(await session({ token, code }), 401, 'invalid_code');

    const b = await newAccount(env);
    const tokenB = linkToken(b.account_url);
    const codeB = await requestCode(b, tokenB);
    env.clock.advance(9 * MINUTE + 59 * 1000);
    expect((await session({ token: tokenB, code: codeB })).status).toBe(200);
  });

  it('the owner token expires', async () => {
    const a = await newAccount(env);
    const owner = await ownerToken(env, a);
    env.clock.advance(SESSION_TTL_MS - 1);
    expect((await env.call('GET', '/v1/manage/account', { key: owner })).status).toBe(200);
    env.clock.advance(1);
    expectProblem(await env.call('GET', '/v1/manage/account', { key: owner }), 401, 'unauthorized');
    expectProblem(await env.call('GET', '/v1/manage/keys', { key: owner }), 401, 'unauthorized');
  });

  it('an owner token acts only on its own account', async () => {
    const a = await newAccount(env);
    const b = await newAccount(env);
    const owner = await ownerToken(env, a);
    const r = await env.call('POST', '/v1/manage/top-ups', { key: owner, body: { amount: 1_000_000 } });
    expect(r.status, r.text).toBe(201);
    expect((await env.call('GET', '/v1/account', { key: a.key })).json.balance).toBe(1_000_000);
    expect((await env.call('GET', '/v1/account', { key: b.key })).json.balance).toBe(0);
  });
});

describe('GET /v1/admin/outbox', () => {
  it('needs the admin token', async () => {
    const a = await newAccount(env);
    expectProblem(await env.call('GET', '/v1/admin/outbox'), 401, 'unauthorized');
    expectProblem(await env.call('GET', '/v1/admin/outbox', { key: 'wrong' }), 401, 'unauthorized');
    expectProblem(await env.call('GET', '/v1/admin/outbox', { key: a.key }), 401, 'unauthorized');
    const owner = await ownerToken(env, a);
    expectProblem(await env.call('GET', '/v1/admin/outbox', { key: owner }), 401, 'unauthorized');
    expect((await env.call('GET', '/v1/admin/outbox', { key: ADMIN_TOKEN })).status).toBe(200);
  });

  it('filters by address, case-insensitively', async () => {
    const a = await newAccount(env);
    const b = await newAccount(env);
    await requestCode(a);
    await requestCode(b);
    const mails = await outbox(a.email.toUpperCase());
    expect(mails).toHaveLength(1);
    expect(mails[0]!.to).toBe(a.email);
  });
});

describe('POST /v1/manage/top-ups', () => {
  const ledgerRows = (accountId: string) =>
    env.platform.database.db.select().from(ledger).where(eq(ledger.accountId, accountId));
  const balance = async (accountId: string) =>
    (await env.platform.database.db.select().from(accounts).where(eq(accounts.id, accountId)))[0]!.balance;
  const expectLedgerMatches = async (accountId: string) => {
    const rows = await ledgerRows(accountId);
    expect(rows.reduce((s, r) => s + r.amount, 0)).toBe(await balance(accountId));
  };

  it('201 {id, amount, status, balance}; the balance moves and exactly one ledger row is written', async () => {
    const a = await newAccount(env);
    const owner = await ownerToken(env, a);
    const r = await env.call('POST', '/v1/manage/top-ups', { key: owner, body: { amount: 5_000_000 } });
    expect(r.status, r.text).toBe(201);
    expect(Object.keys(r.json).sort()).toEqual(['amount', 'balance', 'id', 'status']);
    expect(r.json).toMatchObject({ amount: 5_000_000, status: 'succeeded', balance: 5_000_000 });
    expect((await env.call('GET', '/v1/account', { key: a.key })).json.balance).toBe(5_000_000);
    const rows = await ledgerRows(a.id);
    expect(rows).toHaveLength(1);
    expect(rows[0]).toMatchObject({
      kind: 'top_up',
      amount: 5_000_000,
      balanceAfter: 5_000_000,
      reference: r.json.id,
    });
    const second = await env.call('POST', '/v1/manage/top-ups', {
      key: owner,
      body: { amount: 2_500_000, card: TEST_CARDS.success },
    });
    expect(second.status, second.text).toBe(201);
    expect(second.json.balance).toBe(7_500_000);
    expect(await ledgerRows(a.id)).toHaveLength(2);
    await expectLedgerMatches(a.id);
  });

  it.each([
    ['1_000_000 (the minimum)', 1_000_000],
    ['500_000_000 (the maximum)', 500_000_000],
  ])('accepts %s', async (_n, amount) => {
    const a = await newAccount(env);
    const owner = await ownerToken(env, a);
    const r = await env.call('POST', '/v1/manage/top-ups', { key: owner, body: { amount } });
    expect(r.status, r.text).toBe(201);
    expect(r.json.balance).toBe(amount);
    await expectLedgerMatches(a.id);
  });

  it.each([
    ['below 1_000_000', 999_999],
    ['above 500_000_000', 500_000_001],
    ['not an integer', 1_000_000.5],
    ['zero', 0],
    ['negative', -5_000_000],
    ['a string', '5000000'],
    ['missing', undefined],
  ])('amount %s is 422 and changes nothing', async (_n, amount) => {
    const a = await newAccount(env);
    const owner = await ownerToken(env, a);
    const r = await env.call('POST', '/v1/manage/top-ups', {
      key: owner,
      body: amount === undefined ? {} : { amount },
    });
    const p = expectProblem(r, 422, 'validation_failed');
    expect(p.errors.map((e: { pointer: string }) => e.pointer)).toEqual(['/amount']);
    expect(await ledgerRows(a.id)).toHaveLength(0);
    expect(await balance(a.id)).toBe(0);
  });

  it('the declined test card 4000000000000002 is 402 payment_failed and writes no ledger row', async () => {
    expect(TEST_CARDS.declined).toBe('4000000000000002');
    const a = await newAccount(env);
    const owner = await ownerToken(env, a);
    await env.call('POST', '/v1/manage/top-ups', { key: owner, body: { amount: 3_000_000 } });
    const r = await env.call('POST', '/v1/manage/top-ups', {
      key: owner,
      body: { amount: 5_000_000, card: '4000000000000002' },
    });
    const p = expectProblem(r, 402, 'payment_failed');
    expect(p.detail).toMatch(/declined/);
    expect(await ledgerRows(a.id)).toHaveLength(1);
    expect(await balance(a.id)).toBe(3_000_000);
    const attempts = await env.platform.database.db.select().from(topUps).where(eq(topUps.accountId, a.id));
    expect(attempts.map((t) => t.status).sort()).toEqual(['failed', 'succeeded']);
    await expectLedgerMatches(a.id);
  });

  it('concurrent top-ups all land: the sum of the ledger equals the balance', async () => {
    const a = await newAccount(env);
    const owner = await ownerToken(env, a);
    const replies = await Promise.all(
      Array.from({ length: 8 }, () =>
        env.call('POST', '/v1/manage/top-ups', { key: owner, body: { amount: 1_000_000 } }),
      ),
    );
    expect(replies.map((r) => r.status)).toEqual(Array(8).fill(201));
    expect(await balance(a.id)).toBe(8_000_000);
    expect(await ledgerRows(a.id)).toHaveLength(8);
    expect(new Set(replies.map((r) => r.json.balance)).size).toBe(8);
    await expectLedgerMatches(a.id);
  });
});
