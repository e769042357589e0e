import { createHash } from 'node:crypto';
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MAX_KEYS } from '../../src/core/accounts/keys.js';
import { expectProblem, linkToken, newAccount, ownerToken, type TestAccount } from '../helpers/flows.js';
import { ADMIN_TOKEN, BASE_URL, type Reply, startTestEnv, type TestEnv } from '../helpers/harness.js';

let env: TestEnv;
beforeAll(async () => {
  env = await startTestEnv();
});
afterAll(async () => env?.close());

function expectUnauthorized(r: Reply) {
  const p = expectProblem(r, 401, 'unauthorized');
  expect(String(r.headers['www-authenticate'])).toMatch(/^Bearer\b/);
  expect(p.detail.length).toBeGreaterThan(0);
  return p;
}

async function rows(query: ReturnType<typeof sql>): Promise<Record<string, unknown>[]> {
  const res = (await env.platform.database.db.execute(query)) as unknown as {
    rows: Record<string, unknown>[];
  };
  return res.rows;
}

const createKey = (owner: string) => env.call('POST', '/v1/manage/keys', { key: owner });
const listKeys = async (owner: string) => {
  const r = await env.call('GET', '/v1/manage/keys', { key: owner });
  expect(r.status, r.text).toBe(200);
  return r.json.data as { id: string; prefix: string }[];
};

describe('401 unauthorized with WWW-Authenticate: Bearer', () => {
  let a: TestAccount;
  beforeAll(async () => {
    a = await newAccount(env);
  });

  it('no key', async () => {
    expectUnauthorized(await env.call('GET', '/v1/account'));
  });

  it.each([
    ['Basic scheme', `Basic ${Buffer.from('user:pass').toString('base64')}`],
    ['Bearer without a token', 'Bearer'],
    ['Bearer with two tokens', 'Bearer a b'],
    ['the key without a scheme', 'KEY'],
    ['empty header', ''],
  ])('malformed header: %s', async (_name, header) => {
    const value = header.replace('KEY', a.key);
    expectUnauthorized(await env.call('GET', '/v1/account', { headers: { authorization: value } }));
  });

  it('the valid key with a lower-case scheme is accepted', async () => {
    const r = await env.call('GET', '/v1/account', { headers: { authorization: `bearer ${a.key}` } });
    expect(r.status, r.text).toBe(200);
  });

  it('wrong key (right prefix, unknown secret)', async () => {
    expectUnauthorized(await env.call('GET', '/v1/account', { key: `${a.key.slice(0, -4)}AAAA` }));
  });

  it('wrong key (not a key at all)', async () => {
    expectUnauthorized(await env.call('GET', '/v1/account', { key: 'sk_live_nothing' }));
  });

  it('the admin token is not an API key', async () => {
    expectUnauthorized(await env.call('GET', '/v1/account', { key: ADMIN_TOKEN }));
  });

  it('an owner token is not an API key', async () => {
    const b = await newAccount(env);
    const owner = await ownerToken(env, b);
    expectUnauthorized(await env.call('GET', '/v1/account', { key: owner }));
  });

  it('an account_url token is not an API key', async () => {
    expectUnauthorized(await env.call('GET', '/v1/account', { key: linkToken(a.account_url) }));
  });

  it('revoked key', async () => {
    const b = await newAccount(env);
    const owner = await ownerToken(env, b);
    const keys = await listKeys(owner);
    expect(keys).toHaveLength(1);
    const r = await env.call('DELETE', `/v1/manage/keys/${keys[0]!.id}`, { key: owner });
    expect(r.status, r.text).toBe(204);
    expectUnauthorized(await env.call('GET', '/v1/account', { key: b.key }));
    expectUnauthorized(await env.call('DELETE', '/v1/account', { key: b.key }));
  });
});

describe('"An account holds at most 20 API keys at once"', () => {
  it('the sign-up key counts: 19 more are 201, the 21st is 409 too_many_keys', async () => {
    expect(MAX_KEYS).toBe(20);
    const a = await newAccount(env);
    const owner = await ownerToken(env, a);
    const made: string[] = [];
    for (let i = 0; i < 19; i++) {
      const r = await createKey(owner);
      expect(r.status, `key ${i + 2}: ${r.text}`).toBe(201);
      expect(r.json.api_key).toMatch(/^ap_key_/);
      expect(r.json.api_key.startsWith(r.json.prefix)).toBe(true);
      made.push(r.json.api_key);
    }
    expect(await listKeys(owner)).toHaveLength(20);
    const p = expectProblem(await createKey(owner), 409, 'too_many_keys');
    expect(p.detail).toMatch(/20/);
    expect(await listKeys(owner)).toHaveLength(20);
    // Every key made works, and the list shows prefixes only.
    for (const key of [a.key, ...made]) {
      expect((await env.call('GET', '/v1/account', { key })).json.id).toBe(a.id);
    }
    const listed = await env.call('GET', '/v1/manage/keys', { key: owner });
    for (const key of [a.key, ...made]) expect(listed.text).not.toContain(key);
  });

  it('revoking one frees exactly one slot (N and N+1 at the edge)', async () => {
    const a = await newAccount(env);
    const owner = await ownerToken(env, a);
    for (let i = 0; i < 19; i++) expect((await createKey(owner)).status).toBe(201);
    expectProblem(await createKey(owner), 409, 'too_many_keys');
    const [victim] = await listKeys(owner);
    expect((await env.call('DELETE', `/v1/manage/keys/${victim!.id}`, { key: owner })).status).toBe(204);
    expect(await listKeys(owner)).toHaveLength(19);
    const n = await createKey(owner);
    expect(n.status, n.text).toBe(201);
    expectProblem(await createKey(owner), 409, 'too_many_keys');
    expect(await listKeys(owner)).toHaveLength(20);
  });

  it('concurrent creation never passes 20', async () => {
    const a = await newAccount(env);
    const owner = await ownerToken(env, a);
    const replies = await Promise.all(Array.from({ length: 25 }, () => createKey(owner)));
    const statuses = replies.map((r) => r.status).sort();
    expect(statuses.filter((s) => s === 201)).toHaveLength(19);
    expect(statuses.filter((s) => s === 409)).toHaveLength(6);
    expect(await listKeys(owner)).toHaveLength(20);
  });

  it('the limit is per account', async () => {
    const a = await newAccount(env);
    const b = await newAccount(env);
    const ownerA = await ownerToken(env, a);
    const ownerB = await ownerToken(env, b);
    for (let i = 0; i < 19; i++) expect((await createKey(ownerA)).status).toBe(201);
    expectProblem(await createKey(ownerA), 409, 'too_many_keys');
    expect((await createKey(ownerB)).status).toBe(201);
  });

  it('an owner cannot revoke another account’s key (404) and it keeps working', async () => {
    const a = await newAccount(env);
    const b = await newAccount(env);
    const ownerA = await ownerToken(env, a);
    const ownerB = await ownerToken(env, b);
    const [bKey] = await listKeys(ownerB);
    expectProblem(await env.call('DELETE', `/v1/manage/keys/${bKey!.id}`, { key: ownerA }), 404, 'not_found');
    expect((await env.call('GET', '/v1/account', { key: b.key })).status).toBe(200);
  });

  it('POST /v1/manage/keys takes no body, an empty object, and refuses unknown members', async () => {
    const a = await newAccount(env);
    const owner = await ownerToken(env, a);
    expect((await env.call('POST', '/v1/manage/keys', { key: owner })).status).toBe(201);
    expect((await env.call('POST', '/v1/manage/keys', { key: owner, body: {} })).status).toBe(201);
    const p = expectProblem(
      await env.call('POST', '/v1/manage/keys', { key: owner, body: { scope: 'admin' } }),
      422,
      'validation_failed',
    );
    expect(p.errors.map((e: { pointer: string }) => e.pointer)).toEqual(['/scope']);
    expect(await listKeys(owner)).toHaveLength(3);
  });

  it('revoking twice is 404 the second time', async () => {
    const a = await newAccount(env);
    const owner = await ownerToken(env, a);
    const [k] = await listKeys(owner);
    expect((await env.call('DELETE', `/v1/manage/keys/${k!.id}`, { key: owner })).status).toBe(204);
    expectProblem(await env.call('DELETE', `/v1/manage/keys/${k!.id}`, { key: owner }), 404, 'not_found');
  });
});

describe('API keys cannot manage the account', () => {
  it.each([
    ['GET', '/v1/manage/account', undefined],
    ['GET', '/v1/manage/keys', undefined],
    ['POST', '/v1/manage/keys', {}],
    ['DELETE', '/v1/manage/keys/key_whatever', undefined],
    ['POST', '/v1/manage/top-ups', { amount: 5_000_000 }],
  ])('%s %s with an API key is 403 owner_action_required with account_url', async (method, path, body) => {
    const a = await newAccount(env);
    const r = await env.call(method, path, { key: a.key, ...(body ? { body } : {}) });
    const p = expectProblem(r, 403, 'owner_action_required');
    expect(p.account_url).toMatch(new RegExp(`^${BASE_URL}/account\\?token=`));
    expect(p.for_human).toBe(true);
    expect(p.error.account_url).toBe(p.account_url);
    expect(p.error.for_human).toBe(true);
  });

  it('an API key cannot top up: the balance stays 0', async () => {
    const a = await newAccount(env);
    expectProblem(
      await env.call('POST', '/v1/manage/top-ups', { key: a.key, body: { amount: 5_000_000 } }),
      403,
      'owner_action_required',
    );
    expect((await env.call('GET', '/v1/account', { key: a.key })).json.balance).toBe(0);
  });

  it('/v1/manage/* without any credential is 401', async () => {
    expectUnauthorized(await env.call('GET', '/v1/manage/keys'));
    expectUnauthorized(await env.call('GET', '/v1/manage/keys', { key: 'ap_owner_bogus' }));
  });

  it('a revoked key on /v1/manage/* is 401, not an owner link', async () => {
    const a = await newAccount(env);
    const owner = await ownerToken(env, a);
    const [k] = await listKeys(owner);
    await env.call('DELETE', `/v1/manage/keys/${k!.id}`, { key: owner });
    const p = expectUnauthorized(await env.call('GET', '/v1/manage/keys', { key: a.key }));
    expect(p).not.toHaveProperty('account_url');
  });
});

describe('"API keys ... stored as a hash"', () => {
  it('the raw key appears nowhere in its api_keys row', async () => {
    const a = await newAccount(env);
    const owner = await ownerToken(env, a);
    const extra = (await createKey(owner)).json.api_key as string;
    const stored = await rows(sql`select * from api_keys where account_id = ${a.id}`);
    expect(stored).toHaveLength(2);
    const dump = JSON.stringify(stored);
    for (const key of [a.key, extra]) {
      expect(dump).not.toContain(key);
      // Not even the secret part after the visible prefix.
      expect(dump).not.toContain(key.slice(14));
      const hash = createHash('sha256').update(key).digest('hex');
      expect(stored.map((r) => r.hash)).toContain(hash);
    }
    for (const row of stored) expect(String(row.prefix).length).toBeLessThanOrEqual(16);
  });

  it('no table holds the raw API key, the account_url token or the owner token', async () => {
    const a = await newAccount(env);
    const owner = await ownerToken(env, a);
    const link = linkToken(a.account_url);
    for (const table of ['api_keys', 'account_links', 'owner_sessions', 'owner_challenges', 'accounts']) {
      const dump = JSON.stringify(await rows(sql.raw(`select * from ${table}`)));
      expect(dump, table).not.toContain(a.key);
      expect(dump, table).not.toContain(link);
      expect(dump, table).not.toContain(owner);
    }
  });
});
