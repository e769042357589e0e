import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CATALOG, Problem, type ProblemCode, problemBody } from '../../src/core/problems.js';
import { toProblem } from '../../src/http/errors.js';
import {
  expectProblem,
  linkToken,
  newAccount,
  otherCode,
  ownerToken,
  requestOwnerCode,
  type TestAccount,
} from '../helpers/flows.js';
import { ADMIN_TOKEN, BASE_URL, type Reply, startTestEnv, type TestEnv } from '../helpers/harness.js';

let env: TestEnv;
let acct: TestAccount;
let owner: string;
beforeAll(async () => {
  env = await startTestEnv();
  acct = await newAccount(env);
  owner = await ownerToken(env, acct);
});
afterAll(async () => env?.close());

interface Case {
  name: string;
  status: number;
  code: ProblemCode;
  /** The owner is needed: account_url and for_human at the top and in `error`. */
  owner?: boolean;
  run: () => Promise<Reply>;
}

const json = { 'content-type': 'application/json' };
const withCode = async (wrongTimes: number) => {
  const a = await newAccount(env);
  const token = linkToken(a.account_url);
  const code = await requestOwnerCode(env, a, token);
  const wrong = otherCode(code);
  for (let i = 0; i < wrongTimes; i++)
    await env.call('POST', '/v1/manage/session', { body: { token, code: wrong } });
  return { token, code, wrong };
};

const CASES: Case[] = [
  {
    name: 'sign-up without accept_terms',
    status: 422,
    code: 'validation_failed',
    run: () => env.call('POST', '/v1/accounts', { body: { name: 'x', email: 'x@example.com' } }),
  },
  {
    name: 'malformed JSON',
    status: 400,
    code: 'invalid_json',
    run: () => env.call('POST', '/v1/accounts', { raw: '{', headers: json }),
  },
  {
    name: 'text/plain body',
    status: 415,
    code: 'unsupported_media_type',
    run: () => env.call('POST', '/v1/accounts', { raw: 'hello', headers: { 'content-type': 'text/plain' } }),
  },
  {
    name: 'body over 256 KiB',
    status: 413,
    code: 'payload_too_large',
    run: () =>
      env.call('POST', '/v1/accounts', { raw: JSON.stringify({ name: 'x'.repeat(300_000) }), headers: json }),
  },
  { name: 'no key', status: 401, code: 'unauthorized', run: () => env.call('GET', '/v1/account') },
  {
    name: 'wrong key',
    status: 401,
    code: 'unauthorized',
    run: () => env.call('GET', '/v1/account', { key: 'ap_key_wrong' }),
  },
  {
    name: 'malformed Authorization header',
    status: 401,
    code: 'unauthorized',
    run: () => env.call('GET', '/v1/account', { headers: { authorization: 'Token abc' } }),
  },
  {
    name: 'outbox without the admin token',
    status: 401,
    code: 'unauthorized',
    run: () => env.call('GET', '/v1/admin/outbox'),
  },
  {
    name: 'agent turns auto-recharge on',
    status: 403,
    code: 'owner_action_required',
    owner: true,
    run: () =>
      env.call('PATCH', '/v1/account', { key: acct.key, body: { auto_recharge: { enabled: true } } }),
  },
  {
    name: 'API key on /v1/manage/keys',
    status: 403,
    code: 'owner_action_required',
    owner: true,
    run: () => env.call('POST', '/v1/manage/keys', { key: acct.key }),
  },
  {
    name: 'expired account link',
    status: 401,
    code: 'link_expired',
    run: () => env.call('POST', '/v1/manage/session', { body: { token: 'ap_link_unknown' } }),
  },
  {
    name: 'wrong code',
    status: 401,
    code: 'invalid_code',
    run: async () => {
      const { token, wrong } = await withCode(0);
      return env.call('POST', '/v1/manage/session', { body: { token, code: wrong } });
    },
  },
  {
    name: 'too many wrong codes',
    status: 429,
    code: 'too_many_attempts',
    run: async () => {
      const { token, code } = await withCode(5);
      return env.call('POST', '/v1/manage/session', { body: { token, code } });
    },
  },
  {
    name: 'top-up below the minimum',
    status: 422,
    code: 'validation_failed',
    run: () => env.call('POST', '/v1/manage/top-ups', { key: owner, body: { amount: 1 } }),
  },
  {
    name: 'declined card',
    status: 402,
    code: 'payment_failed',
    run: () =>
      env.call('POST', '/v1/manage/top-ups', {
        key: owner,
        body: { amount: 1_000_000, card: '4000000000000002' },
      }),
  },
  {
    name: 'the 21st key',
    status: 409,
    code: 'too_many_keys',
    run: async () => {
      const a = await newAccount(env);
      const o = await ownerToken(env, a);
      for (let i = 0; i < 19; i++)
        expect((await env.call('POST', '/v1/manage/keys', { key: o })).status).toBe(201);
      return env.call('POST', '/v1/manage/keys', { key: o });
    },
  },
  {
    name: 'revoking an unknown key',
    status: 404,
    code: 'not_found',
    run: () => env.call('DELETE', '/v1/manage/keys/key_nope', { key: owner }),
  },
  {
    name: 'unknown path',
    status: 404,
    code: 'not_found',
    // No operation of the contract describes a path that does not exist.
    run: () => env.call('GET', '/v1/nothing-here', { unchecked: true }),
  },
];

describe('every error path is an RFC 9457 problem', () => {
  it.each(CASES)('$name -> $status $code', async (c) => {
    const r = await c.run();
    const p = expectProblem(r, c.status, c.code);
    expect(String(r.headers['content-type'])).toMatch(/^application\/problem\+json\b/);
    // "type is {base_url}/errors/{code}"
    expect(p.type).toBe(`${BASE_URL}/errors/${c.code}`);
    expect(p.title).toBe(CATALOG[c.code].title);
    expect(typeof p.detail).toBe('string');
    expect(p.detail.length).toBeGreaterThan(0);
    // The legacy error object mirrors the problem.
    expect(p.error.code).toBe(c.code);
    expect(p.error.message).toBe(p.detail);
    // A request id on every error, in the header and the body.
    expect(r.headers['x-request-id']).toMatch(/^req_[A-Za-z0-9_-]+$/);
    expect(p.request_id).toBe(r.headers['x-request-id']);
    if (c.owner) {
      expect(p.account_url).toMatch(new RegExp(`^${BASE_URL}/account\\?token=`));
      expect(p.for_human).toBe(true);
      expect(p.error.account_url).toBe(p.account_url);
      expect(p.error.for_human).toBe(true);
    } else {
      expect(p).not.toHaveProperty('account_url');
      expect(p).not.toHaveProperty('for_human');
      expect(p.error).not.toHaveProperty('account_url');
    }
    if (c.status === 401) expect(String(r.headers['www-authenticate'])).toMatch(/^Bearer\b/);
    else expect(r.headers['www-authenticate']).toBeUndefined();
    if (c.code === 'validation_failed') {
      expect(p.errors.length).toBeGreaterThan(0);
      for (const e of p.errors) expect(e.pointer).toMatch(/^(\/[^/]*)+$/);
    }
  });

  it('request ids differ between requests', async () => {
    const a = await env.call('GET', '/v1/posts/post_nothing_here');
    const b = await env.call('GET', '/v1/posts/post_nothing_here');
    expect(a.headers['x-request-id']).not.toBe(b.headers['x-request-id']);
  });

  it('a client cannot choose the request id', async () => {
    const r = await env.call('GET', '/v1/posts/post_nothing_here', {
      headers: { 'x-request-id': 'req_forged' },
    });
    expect(r.headers['x-request-id']).not.toBe('req_forged');
  });

  it('successful answers carry a request id too', async () => {
    const r = await env.call('GET', '/v1/status');
    expect(r.headers['x-request-id']).toMatch(/^req_/);
  });

  it('"A 5xx never leaks internals and carries a request id"', async () => {
    const secret = 'password authentication failed for user "postgres" at 10.0.0.5';
    const p = toProblem(new Error(secret));
    expect(p.code).toBe('internal_error');
    expect(p.status).toBe(500);
    const body = problemBody(p, BASE_URL, 'req_abc');
    expect(JSON.stringify(body)).not.toContain('password');
    expect(JSON.stringify(body)).not.toContain('10.0.0.5');
    expect(body.request_id).toBe('req_abc');
    expect(body.type).toBe(`${BASE_URL}/errors/internal_error`);
  });

  it('a Problem thrown by core is rendered as itself, with its headers and extra members', () => {
    const p = new Problem('owner_action_required', {
      detail: 'ask the owner',
      accountUrl: `${BASE_URL}/account?token=t`,
      extra: { account_url_expires_at: '2026-11-22T11:00:00.000Z' },
      headers: { 'retry-after': '5' },
    });
    expect(toProblem(p)).toBe(p);
    expect(problemBody(p, BASE_URL)).toEqual({
      type: `${BASE_URL}/errors/owner_action_required`,
      title: 'Owner action required',
      status: 403,
      detail: 'ask the owner',
      code: 'owner_action_required',
      account_url: `${BASE_URL}/account?token=t`,
      for_human: true,
      account_url_expires_at: '2026-11-22T11:00:00.000Z',
      error: {
        code: 'owner_action_required',
        message: 'ask the owner',
        account_url: `${BASE_URL}/account?token=t`,
        for_human: true,
      },
    });
  });

  it('a Problem keeps its cause for the logs but never renders it', () => {
    const cause = new Error('ECONNREFUSED 10.1.2.3:25');
    const p = new Problem('service_unavailable', { cause });
    expect(p.cause).toBe(cause);
    expect(JSON.stringify(problemBody(p, BASE_URL))).not.toContain('ECONNREFUSED');
  });
});

describe('the error catalog', () => {
  const codes = Object.keys(CATALOG) as ProblemCode[];

  it.each(codes)('%s has a status and a non-empty title, description and action', (code) => {
    const e = CATALOG[code];
    expect(Number.isInteger(e.status)).toBe(true);
    expect(e.status).toBeGreaterThanOrEqual(400);
    expect(e.status).toBeLessThan(600);
    for (const field of [e.title, e.description, e.action]) {
      expect(typeof field).toBe('string');
      expect(field.trim().length).toBeGreaterThan(0);
    }
    expect(code).toMatch(/^[a-z]+(_[a-z]+)*$/);
    const p = new Problem(code);
    expect(p.status).toBe(e.status);
    expect(p.title).toBe(e.title);
    expect(p.detail).toBe(e.description);
  });

  it('titles are distinct', () => {
    const titles = codes.map((c) => CATALOG[c].title);
    expect(new Set(titles).size).toBe(titles.length);
  });

  // The statuses the interface and DESIGN.md pin.
  it.each([
    ['validation_failed', 422],
    ['invalid_json', 400],
    ['unauthorized', 401],
    ['account_banned', 403],
    ['owner_action_required', 403],
    ['not_found', 404],
    ['payload_too_large', 413],
    ['unsupported_media_type', 415],
    ['invalid_idempotency_key', 400],
    ['idempotency_key_reused', 422],
    ['idempotency_key_in_use', 409],
    ['search_allowance_exhausted', 429],
    ['insufficient_balance', 402],
    ['platform_rate_limited', 429],
    ['invalid_webhook_url', 422],
    ['too_many_webhooks', 409],
    ['too_many_keys', 409],
    ['rate_limited', 429],
    ['payment_failed', 402],
    ['internal_error', 500],
  ] as const)('%s is %i', (code, status) => {
    expect(CATALOG[code].status).toBe(status);
  });
});

describe('GET /v1/pricing', () => {
  it('"The post fee is $0.25. The abuse multiplier is 10." Search is 1000 micro-dollars', async () => {
    const r = await env.call('GET', '/v1/pricing');
    expect(r.status, r.text).toBe(200);
    expect(r.json.post).toBe(250_000);
    expect(r.json.abuse_multiplier).toBe(10);
    expect(r.json.search.price).toBe(1000);
    expect(r.json.search.free_per_day_with_key).toBe(100);
    expect(r.json.search.free_per_day_without_key).toBe(20);
    expect(r.json.abusive_post_total).toBe(2_500_000);
    expect(r.json.strikes_to_ban).toBe(3);
    expect(r.json.top_up).toMatchObject({ min: 1_000_000, max: 500_000_000 });
    for (const key of ['link_surcharge', 'edit']) expect(Number.isInteger(r.json[key])).toBe(true);
  });

  it('needs no key', async () => {
    expect((await env.call('GET', '/v1/pricing', { key: acct.key })).json).toEqual(
      (await env.call('GET', '/v1/pricing')).json,
    );
  });
});

describe('GET /v1/policy', () => {
  it('has a version and nine abuse categories, each with violating and non_violating examples', async () => {
    const r = await env.call('GET', '/v1/policy');
    expect(r.status, r.text).toBe(200);
    expect(r.json.version).toMatch(/^\d{4}-\d{2}-\d{2}\.\d+$/);
    expect(r.json.abuse).toHaveLength(9);
    expect(r.json.abuse.map((c: { id: string }) => c.id).sort()).toEqual(
      [
        'spam',
        'harassment',
        'hate',
        'sexual_minors',
        'violence_instructions',
        'self_harm',
        'privacy',
        'agent_injection',
        'illegal',
      ].sort(),
    );
    for (const c of r.json.abuse) {
      expect(c.title.length, c.id).toBeGreaterThan(0);
      expect(c.description.length, c.id).toBeGreaterThan(0);
      expect(c.rules.length, c.id).toBeGreaterThan(0);
      expect(c.violating.length, c.id).toBeGreaterThan(0);
      expect(c.non_violating.length, c.id).toBeGreaterThan(0);
      for (const ex of [...c.violating, ...c.non_violating]) {
        expect(typeof ex).toBe('string');
        expect(ex.trim().length, c.id).toBeGreaterThan(0);
      }
    }
    expect(r.json.quality_bar.rules.length).toBeGreaterThan(0);
  });

  it('rule ids are unique', async () => {
    const r = await env.call('GET', '/v1/policy');
    const ids = [
      ...r.json.quality_bar.rules.map((x: { id: string }) => x.id),
      ...r.json.abuse.flatMap((c: { rules: { id: string }[] }) => c.rules.map((x) => x.id)),
    ];
    expect(new Set(ids).size).toBe(ids.length);
  });
});

describe('GET /v1/status', () => {
  it('is {api: "up", moderation: {model, queued}, time}', async () => {
    const r = await env.call('GET', '/v1/status');
    expect(r.status, r.text).toBe(200);
    expect(Object.keys(r.json).sort()).toEqual(['api', 'moderation', 'time']);
    expect(r.json.api).toBe('up');
    expect(Object.keys(r.json.moderation).sort()).toEqual(['model', 'queued']);
    expect(['idle', 'starting', 'running']).toContain(r.json.moderation.model);
    expect(Number.isInteger(r.json.moderation.queued)).toBe(true);
    expect(r.json.moderation.queued).toBeGreaterThanOrEqual(0);
    expect(r.json.time).toBe(env.clock.now().toISOString());
  });

  it('needs no key and ignores the admin token', async () => {
    const r = await env.call('GET', '/v1/status', { key: ADMIN_TOKEN });
    expect(r.status).toBe(200);
  });
});
