import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { accounts } from '../../src/db/schema.js';
import { BODY_LIMIT } from '../../src/http/app.js';
import { expectProblem, linkToken, newAccount, uniq } from '../helpers/flows.js';
import { BASE_URL, startTestEnv, type TestEnv } from '../helpers/harness.js';

let env: TestEnv;
beforeAll(async () => {
  env = await startTestEnv();
});
afterAll(async () => env?.close());

const HOUR_MS = 60 * 60 * 1000;
const validBody = () => ({
  name: `agent ${uniq()}`,
  email: `owner-${uniq()}@example.com`,
  accept_terms: true,
});

/** Asserts a 422 validation_failed whose errors[] names exactly this pointer (and maybe others). */
async function expectInvalid(body: unknown, pointer: string) {
  const r = await env.call('POST', '/v1/accounts', { body });
  const p = expectProblem(r, 422, 'validation_failed');
  expect(Array.isArray(p.errors), r.text).toBe(true);
  for (const e of p.errors) {
    expect(typeof e.pointer).toBe('string');
    expect(typeof e.detail).toBe('string');
    expect(e.detail.length).toBeGreaterThan(0);
  }
  expect(
    p.errors.map((e: { pointer: string }) => e.pointer),
    r.text,
  ).toContain(pointer);
  return p;
}

describe('POST /v1/accounts', () => {
  it('201 with api_key, account_url, account_url_expires_at and for_human: true', async () => {
    const body = validBody();
    const r = await env.call('POST', '/v1/accounts', { body });
    expect(r.status, r.text).toBe(201);
    expect(r.json.id).toEqual(expect.any(String));
    expect(r.json.api_key).toMatch(/^ap_key_[A-Za-z0-9_-]{20,}$/);
    expect(r.json.for_human).toBe(true);
    const url = new URL(r.json.account_url);
    expect(`${url.origin}${url.pathname}`).toBe(`${BASE_URL}/account`);
    expect(url.searchParams.get('token')).toMatch(/.{20,}/);
    // "An account_url expires after 1 hour."
    expect(r.json.account_url_expires_at).toBe(new Date(env.clock.now().getTime() + HOUR_MS).toISOString());
  });

  it('account_url_expires_at follows the clock, not the wall time', async () => {
    env.clock.advance(3 * 24 * HOUR_MS + 1234);
    const r = await env.call('POST', '/v1/accounts', { body: validBody() });
    expect(r.status, r.text).toBe(201);
    expect(Date.parse(r.json.account_url_expires_at) - env.clock.now().getTime()).toBe(HOUR_MS);
  });

  it('"api_key: string, returned once at creation": never in GET /v1/account', async () => {
    const r = await env.call('POST', '/v1/accounts', { body: validBody() });
    const key: string = r.json.api_key;
    const me = await env.call('GET', '/v1/account', { key });
    expect(me.status, me.text).toBe(200);
    expect(me.json).not.toHaveProperty('api_key');
    expect(me.text).not.toContain(key);
  });

  it('each sign-up gets its own key and id', async () => {
    const a = await env.call('POST', '/v1/accounts', { body: validBody() });
    const b = await env.call('POST', '/v1/accounts', { body: validBody() });
    expect(a.json.id).not.toBe(b.json.id);
    expect(a.json.api_key).not.toBe(b.json.api_key);
    expect(linkToken(a.json.account_url)).not.toBe(linkToken(b.json.account_url));
  });

  describe('validation: 422 validation_failed with errors[].pointer', () => {
    it('name missing', async () => {
      const { name: _, ...body } = validBody();
      await expectInvalid(body, '/name');
    });
    it('name empty', async () => {
      await expectInvalid({ ...validBody(), name: '' }, '/name');
    });
    it('name only spaces', async () => {
      await expectInvalid({ ...validBody(), name: '   ' }, '/name');
    });
    it('name of 101 characters is refused', async () => {
      await expectInvalid({ ...validBody(), name: 'n'.repeat(101) }, '/name');
    });
    it('name of exactly 100 characters is accepted', async () => {
      const r = await env.call('POST', '/v1/accounts', { body: { ...validBody(), name: 'n'.repeat(100) } });
      expect(r.status, r.text).toBe(201);
      const me = await env.call('GET', '/v1/account', { key: r.json.api_key });
      expect(me.json.name).toBe('n'.repeat(100));
    });
    it('name not a string', async () => {
      await expectInvalid({ ...validBody(), name: 42 }, '/name');
    });
    it('email malformed', async () => {
      await expectInvalid({ ...validBody(), email: 'not-an-address' }, '/email');
    });
    it('email missing', async () => {
      const { email: _, ...body } = validBody();
      await expectInvalid(body, '/email');
    });
    it('"accept_terms: boolean, must be true": false is refused', async () => {
      await expectInvalid({ ...validBody(), accept_terms: false }, '/accept_terms');
    });
    it('accept_terms missing', async () => {
      const { accept_terms: _, ...body } = validBody();
      await expectInvalid(body, '/accept_terms');
    });
    it('accept_terms "true" as a string is refused', async () => {
      await expectInvalid({ ...validBody(), accept_terms: 'true' }, '/accept_terms');
    });
    it('an unknown extra field is named by its pointer', async () => {
      await expectInvalid({ ...validBody(), referral: 'x' }, '/referral');
    });
    it('several problems are all listed', async () => {
      const p = await expectInvalid({ name: '', email: 'nope', accept_terms: false }, '/name');
      const pointers = p.errors.map((e: { pointer: string }) => e.pointer).sort();
      expect(pointers).toEqual(['/accept_terms', '/email', '/name']);
    });
    it('a JSON array body is refused at the root', async () => {
      const r = await env.call('POST', '/v1/accounts', { body: [validBody()] });
      expectProblem(r, 422, 'validation_failed');
    });
    it('a refused sign-up creates no account', async () => {
      const email = `owner-${uniq()}@example.com`;
      const r = await env.call('POST', '/v1/accounts', {
        body: { name: 'x', email, accept_terms: false },
      });
      expectProblem(r, 422, 'validation_failed');
      const rows = await env.platform.database.db.select().from(accounts).where(eq(accounts.email, email));
      expect(rows).toHaveLength(0);
    });
  });

  it('malformed JSON is 400 invalid_json', async () => {
    const r = await env.call('POST', '/v1/accounts', {
      raw: '{"name": "a", "email":',
      headers: { 'content-type': 'application/json' },
    });
    expectProblem(r, 400, 'invalid_json');
  });

  it('an empty JSON body is 400 invalid_json', async () => {
    const r = await env.call('POST', '/v1/accounts', {
      raw: '',
      headers: { 'content-type': 'application/json' },
    });
    expectProblem(r, 400, 'invalid_json');
  });

  it('text/plain is 415 unsupported_media_type', async () => {
    const r = await env.call('POST', '/v1/accounts', {
      raw: JSON.stringify(validBody()),
      headers: { 'content-type': 'text/plain' },
    });
    expectProblem(r, 415, 'unsupported_media_type');
  });

  it('a form body is 415 unsupported_media_type on the API', async () => {
    const r = await env.call('POST', '/v1/accounts', {
      raw: 'name=a&email=a%40example.com&accept_terms=true',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
    });
    expectProblem(r, 415, 'unsupported_media_type');
  });

  /** A JSON body of exactly `bytes` bytes (the name is too long, so a body that gets through is a 422). */
  const bodyOfSize = (bytes: number) => {
    const shell = JSON.stringify({ ...validBody(), name: '' });
    const raw = JSON.stringify({ ...JSON.parse(shell), name: 'x'.repeat(bytes - shell.length) });
    expect(Buffer.byteLength(raw)).toBe(bytes);
    return raw;
  };

  it('a body over 256 KiB is 413 payload_too_large', async () => {
    expect(BODY_LIMIT).toBe(256 * 1024);
    const r = await env.call('POST', '/v1/accounts', {
      raw: bodyOfSize(256 * 1024 + 1),
      headers: { 'content-type': 'application/json' },
    });
    expectProblem(r, 413, 'payload_too_large');
  });

  it('a body of exactly 256 KiB is read (and then validated, not 413)', async () => {
    const r = await env.call('POST', '/v1/accounts', {
      raw: bodyOfSize(256 * 1024),
      headers: { 'content-type': 'application/json' },
    });
    const p = expectProblem(r, 422, 'validation_failed');
    expect(p.errors.map((e: { pointer: string }) => e.pointer)).toEqual(['/name']);
  });

  it('the e-mail is stored in lower case', async () => {
    const email = `Owner-${uniq()}@Example.COM`;
    const r = await env.call('POST', '/v1/accounts', { body: { name: 'x', email, accept_terms: true } });
    expect(r.status, r.text).toBe(201);
    const me = await env.call('GET', '/v1/account', { key: r.json.api_key });
    expect(me.json.email).toBe(email.toLowerCase());
  });
});

describe('GET /v1/account', () => {
  it('has exactly the fields DESIGN.md lists', async () => {
    const a = await newAccount(env, 'reader bot');
    const r = await env.call('GET', '/v1/account', { key: a.key });
    expect(r.status, r.text).toBe(200);
    expect(Object.keys(r.json).sort()).toEqual(
      [
        'id',
        'name',
        'email',
        'email_verified',
        'status',
        'balance',
        'strikes',
        'card_on_file',
        'auto_recharge',
        'account_url',
        'account_url_expires_at',
        'for_human',
      ].sort(),
    );
    expect(r.json).toMatchObject({
      id: a.id,
      name: 'reader bot',
      email: a.email,
      email_verified: false,
      status: 'active',
      balance: 0,
      strikes: 0,
      card_on_file: false,
      for_human: true,
    });
    expect(Object.keys(r.json.auto_recharge).sort()).toEqual(['amount', 'enabled', 'threshold']);
    expect(r.json.auto_recharge.enabled).toBe(false);
    expect(Number.isInteger(r.json.auto_recharge.threshold)).toBe(true);
    expect(Number.isInteger(r.json.auto_recharge.amount)).toBe(true);
    expect(r.json.account_url).toMatch(new RegExp(`^${BASE_URL}/account\\?token=`));
    expect(r.json.account_url_expires_at).toBe(new Date(env.clock.now().getTime() + HOUR_MS).toISOString());
  });

  it('hands out a fresh account_url each time (a different token)', async () => {
    const a = await newAccount(env);
    const one = await env.call('GET', '/v1/account', { key: a.key });
    env.clock.advance(1000);
    const two = await env.call('GET', '/v1/account', { key: a.key });
    const tokens = [
      linkToken(a.account_url),
      linkToken(one.json.account_url),
      linkToken(two.json.account_url),
    ];
    expect(new Set(tokens).size).toBe(3);
    expect(Date.parse(two.json.account_url_expires_at) - Date.parse(one.json.account_url_expires_at)).toBe(
      1000,
    );
  });

  it('every account_url handed out works for the owner proof', async () => {
    const a = await newAccount(env);
    const me = await env.call('GET', '/v1/account', { key: a.key });
    const r = await env.call('POST', '/v1/manage/session', {
      body: { token: linkToken(me.json.account_url) },
    });
    expect(r.status, r.text).toBe(202);
  });

  it('shows only the calling key’s account', async () => {
    const a = await newAccount(env);
    const b = await newAccount(env);
    expect((await env.call('GET', '/v1/account', { key: a.key })).json.id).toBe(a.id);
    expect((await env.call('GET', '/v1/account', { key: b.key })).json.id).toBe(b.id);
  });
});

describe('PATCH /v1/account', () => {
  it('auto_recharge enabled:false is 200 and turns it off', async () => {
    const a = await newAccount(env);
    await env.platform.database.db
      .update(accounts)
      .set({ autoRechargeEnabled: true })
      .where(eq(accounts.id, a.id));
    expect((await env.call('GET', '/v1/account', { key: a.key })).json.auto_recharge.enabled).toBe(true);
    const r = await env.call('PATCH', '/v1/account', {
      key: a.key,
      body: { auto_recharge: { enabled: false } },
    });
    expect(r.status, r.text).toBe(200);
    expect(r.json.auto_recharge.enabled).toBe(false);
    expect(r.json.for_human).toBe(true);
    expect((await env.call('GET', '/v1/account', { key: a.key })).json.auto_recharge.enabled).toBe(false);
  });

  it('"turning it on answers 403 with account_url": owner_action_required, for_human, error.for_human', async () => {
    const a = await newAccount(env);
    const r = await env.call('PATCH', '/v1/account', {
      key: a.key,
      body: { auto_recharge: { enabled: true } },
    });
    const p = expectProblem(r, 403, 'owner_action_required');
    expect(p.account_url).toMatch(new RegExp(`^${BASE_URL}/account\\?token=`));
    expect(p.for_human).toBe(true);
    expect(p.error.for_human).toBe(true);
    expect(p.error.account_url).toBe(p.account_url);
    // The link in the problem is a live one.
    const s = await env.call('POST', '/v1/manage/session', { body: { token: linkToken(p.account_url) } });
    expect(s.status, s.text).toBe(202);
    // Nothing changed.
    expect((await env.call('GET', '/v1/account', { key: a.key })).json.auto_recharge.enabled).toBe(false);
  });

  it('an unknown member is 422', async () => {
    const a = await newAccount(env);
    const r = await env.call('PATCH', '/v1/account', { key: a.key, body: { balance: 100_000_000 } });
    const p = expectProblem(r, 422, 'validation_failed');
    expect(p.errors.map((e: { pointer: string }) => e.pointer)).toContain('/balance');
    expect((await env.call('GET', '/v1/account', { key: a.key })).json.balance).toBe(0);
  });

  it('needs a key', async () => {
    const r = await env.call('PATCH', '/v1/account', { body: { auto_recharge: { enabled: false } } });
    expectProblem(r, 401, 'unauthorized');
  });
});

describe('DELETE /v1/account', () => {
  it('"only returns an account_url": 202 pending_deletion, and the account is still usable', async () => {
    const a = await newAccount(env);
    const r = await env.call('DELETE', '/v1/account', { key: a.key });
    expect(r.status, r.text).toBe(202);
    expect(r.json.status).toBe('pending_deletion');
    expect(r.json.account_url).toMatch(new RegExp(`^${BASE_URL}/account\\?token=`));
    expect(r.json.for_human).toBe(true);
    expect(r.json.account_url_expires_at).toBe(new Date(env.clock.now().getTime() + HOUR_MS).toISOString());
    const me = await env.call('GET', '/v1/account', { key: a.key });
    expect(me.status, me.text).toBe(200);
    // Reversible until the owner confirms: the key still works and the state says what is pending.
    expect(me.json.status).toBe('pending_deletion');
    const s = await env.call('POST', '/v1/manage/session', {
      body: { token: linkToken(r.json.account_url) },
    });
    expect(s.status, s.text).toBe(202);
  });

  it('needs a key', async () => {
    expectProblem(await env.call('DELETE', '/v1/account'), 401, 'unauthorized');
  });
});
