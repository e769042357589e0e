import { Agent, request } from 'node:http';
import type { AddressInfo } from 'node:net';
import Fastify from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { safeEqual } from '../../src/core/secrets.js';
import { STAFF_SESSION_TTL_MS, STAFF_SIGN_IN_FAILURES_PER_IP } from '../../src/core/staff/sessions.js';
import { Auth } from '../../src/http/auth.js';
import { nonCanonicalReason } from '../../src/http/canonical-path.js';
import { accessOf, installGuard } from '../../src/http/guard.js';
import { expectProblem, newAccount, ownerToken } from '../helpers/flows.js';
import { ADMIN_TOKEN, BASE_URL, startTestEnv, type TestEnv } from '../helpers/harness.js';

let env: TestEnv;
beforeAll(async () => {
  env = await startTestEnv();
});
afterAll(async () => {
  agent.destroy();
  await env.close();
});

const ORIGIN = new URL(BASE_URL).origin;

/**
 * A request over a real socket with the path exactly as written: fastify's inject (like fetch)
 * resolves dot segments before sending, a raw HTTP client does not.
 */
async function raw(method: string, path: string): Promise<{ status: number; code?: string }> {
  if (!env.app.server.listening) await env.app.listen({ port: 0, host: '127.0.0.1' });
  const { port } = env.app.server.address() as AddressInfo;
  return new Promise((resolve, reject) => {
    const req = request(
      { host: '127.0.0.1', port, method, path, agent, headers: { 'content-type': 'application/json' } },
      (res) => {
        let body = '';
        res.on('data', (c: Buffer) => {
          body += c.toString();
        });
        res.on('end', () => {
          let code: string | undefined;
          try {
            code = (JSON.parse(body) as { code?: string }).code;
          } catch {}
          resolve({ status: res.statusCode ?? 0, ...(code ? { code } : {}) });
        });
      },
    );
    req.on('error', reject);
    req.end(method === 'GET' ? undefined : '{}');
  });
}
const agent = new Agent({ keepAlive: true, maxSockets: 8 });
const EVIL = 'https://evil.example';

/** Every spelling of a path that names the same route once decoded or normalised, but is not it. */
function spellings(path: string): string[] {
  const out = new Set<string>();
  for (let i = 1; i < path.length; i++) {
    const c = path[i]!;
    if (/[A-Za-z0-9\-._~]/.test(c)) {
      const hex = c.charCodeAt(0).toString(16);
      out.add(`${path.slice(0, i)}%${hex.toUpperCase()}${path.slice(i + 1)}`);
      out.add(`${path.slice(0, i)}%${hex.toLowerCase()}${path.slice(i + 1)}`);
    }
    if (c === '/') {
      out.add(`${path.slice(0, i)}/${path.slice(i)}`); // //
      out.add(`${path.slice(0, i)}/.${path.slice(i)}`); // /./
      out.add(`${path.slice(0, i)}/x/..${path.slice(i)}`); // /x/../
      out.add(`${path.slice(0, i)};x${path.slice(i)}`); // ;param
      out.add(`${path.slice(0, i)}%2F${path.slice(i + 1)}`); // encoded slash
    }
  }
  out.add(`${path}/.`);
  out.add(`${path};x`);
  return [...out].filter((s) => s !== path);
}

/** The protected routes, by the prefixes the issue names, with a concrete id in each parameter. */
function protectedPaths(): { method: string; path: string }[] {
  const doc = env.app.swagger() as { paths: Record<string, Record<string, { security?: unknown[] }>> };
  const out: { method: string; path: string }[] = [];
  for (const [p, ops] of Object.entries(doc.paths)) {
    for (const [method, op] of Object.entries(ops)) {
      const keyed = Array.isArray(op.security) && op.security.length > 0;
      if (keyed || p.startsWith('/v1/admin') || p.startsWith('/v1/manage') || p === '/mcp')
        out.push({ method: method.toUpperCase(), path: p.replace(/\{[^}]+\}/g, 'post_abc') });
    }
  }
  out.push({ method: 'GET', path: '/admin' }, { method: 'POST', path: '/account/keys' });
  return out;
}

describe('"Paths not in canonical form are refused with 400" (finding 1)', () => {
  it('the finding: /v1/%61dmin/outbox and /%761/status', async () => {
    for (const path of ['/v1/%61dmin/outbox?to=a@b.test', '/%761/status', '/v1/admin/%6Futbox']) {
      const r = await env.call('GET', path, { unchecked: true });
      expectProblem(r, 400, 'non_canonical_path');
    }
  });

  it('every spelling of every protected route answers 400 non_canonical_path, never 2xx', async () => {
    const routes = protectedPaths();
    expect(routes.length).toBeGreaterThan(30);
    let n = 0;
    const wrong: string[] = [];
    for (const { method, path } of routes) {
      for (const s of spellings(path)) {
        const r = await raw(method, s);
        n++;
        if (r.status !== 400 || r.code !== 'non_canonical_path') wrong.push(`${method} ${s} -> ${r.status}`);
      }
    }
    expect(wrong).toEqual([]);
    expect(n).toBeGreaterThan(1000);
  });

  it('the canonical spelling without credentials is 401 (keyed, owner and staff routes)', async () => {
    for (const path of ['/v1/admin/outbox', '/v1/manage/keys', '/v1/account', '/v1/admin/review']) {
      expectProblem(await env.call('GET', path), 401, 'unauthorized');
    }
  });

  it('canonical paths pass: ids with - and _, query strings with %-escapes, a trailing slash', () => {
    expect(nonCanonicalReason('/v1/posts/post_a-b')).toBeNull();
    expect(nonCanonicalReason('/v1/search?q=%61%00%2F..')).toBeNull();
    expect(nonCanonicalReason('/v1/posts/')).toBeNull();
    expect(nonCanonicalReason('/p/post_x.json')).toBeNull();
    expect(nonCanonicalReason('/v1/posts/%C3%A9')).toBeNull();
    expect(nonCanonicalReason('/v1/posts/.hidden')).toBeNull();
    expect(nonCanonicalReason('/v1/posts/..')).not.toBeNull();
    expect(nonCanonicalReason('/v1\\admin')).not.toBeNull();
  });
});

describe('"Authorization is declared on the route and enforced by the framework"', () => {
  it('a route under /v1, /mcp, /admin or /account that declares no access cannot be registered', async () => {
    const app = Fastify();
    installGuard(app, new Auth(env.platform.services), BASE_URL);
    expect(() => app.get('/v1/forgot', async () => 'x')).toThrow(/declares no access/);
    expect(() => app.post('/admin/forgot', async () => 'x')).toThrow(/declares no access/);
    expect(() => app.get('/account/forgot', async () => 'x')).toThrow(/declares no access/);
    expect(() => app.get('/about-us', async () => 'x')).not.toThrow();
    await app.close();
  });

  it('reads the OpenAPI security requirement into an access', () => {
    expect(accessOf([])).toBe('public');
    expect(accessOf([{}, { apiKey: [] }])).toBe('agent?');
    expect(accessOf([{ apiKey: [] }])).toBe('agent');
    expect(accessOf([{ ownerSession: [] }])).toBe('owner');
    expect(accessOf([{ adminToken: [] }])).toBe('staff');
    expect(() => accessOf([{ cookie: [] }])).toThrow();
    expect(accessOf(undefined)).toBeUndefined();
  });
});

describe('"CSRF: cookie-authenticated writes require a same-origin Origin" (finding 7)', () => {
  it('/v1/manage/* with the owner cookie: cross-origin 403, same-origin 201; Bearer needs no Origin', async () => {
    const acct = await newAccount(env);
    const token = await ownerToken(env, acct);
    const cookie = `ap_owner=${token}`;
    const create = (headers: Record<string, string>) =>
      env.call('POST', '/v1/manage/keys', { headers: { cookie, ...headers }, body: {} });
    expectProblem(await create({ origin: EVIL }), 403, 'forbidden');
    expectProblem(await create({ origin: 'null' }), 403, 'forbidden');
    expectProblem(await create({ 'sec-fetch-site': 'cross-site' }), 403, 'forbidden');
    expectProblem(await create({}), 403, 'forbidden');
    expect((await create({ origin: ORIGIN })).status).toBe(201);
    expect((await create({ 'sec-fetch-site': 'same-origin' })).status).toBe(201);
    // Reading with the cookie is not a write.
    expect((await env.call('GET', '/v1/manage/keys', { headers: { cookie } })).status).toBe(200);
    // The Bearer form cannot be forged by a browser, so it needs no Origin.
    expect((await env.call('POST', '/v1/manage/keys', { key: token, body: {} })).status).toBe(201);
  });

  it('account page forms: a cross-origin post changes nothing', async () => {
    const acct = await newAccount(env);
    const token = await ownerToken(env, acct);
    const before = (await env.call('GET', '/v1/manage/keys', { key: token })).json as { data: unknown[] };
    const post = (origin: string) =>
      env.app.inject({
        method: 'POST',
        url: '/account/keys',
        headers: { cookie: `ap_owner=${token}`, origin, 'content-type': 'application/x-www-form-urlencoded' },
        payload: '',
      });
    const refused = await post(EVIL);
    expect(refused.statusCode).toBe(403);
    let after = (await env.call('GET', '/v1/manage/keys', { key: token })).json as { data: unknown[] };
    expect(after.data.length).toBe(before.data.length);
    expect((await post(ORIGIN)).statusCode).toBe(200);
    after = (await env.call('GET', '/v1/manage/keys', { key: token })).json as { data: unknown[] };
    expect(after.data.length).toBe(before.data.length + 1);
  });
});

describe('"The admin console signs in to a session, never the token itself" (finding 6)', () => {
  const form = (url: string, payload: string, headers: Record<string, string> = {}, ip = '203.0.113.7') =>
    env.app.inject({
      method: 'POST',
      url,
      headers: { origin: ORIGIN, 'content-type': 'application/x-www-form-urlencoded', ...headers },
      payload,
      remoteAddress: ip,
    });
  const signIn = async (ip?: string) => {
    const r = await form('/admin/sign-in', `token=${encodeURIComponent(ADMIN_TOKEN)}`, {}, ip);
    expect(r.statusCode).toBe(303);
    return r;
  };
  const consoleWith = (cookie: string) =>
    env.app.inject({ method: 'GET', url: '/admin', headers: { cookie } });

  it('the cookie is a random session (HttpOnly, SameSite=Strict, Max-Age, Path=/admin), not the token', async () => {
    const r = await signIn();
    const set = String(r.headers['set-cookie']);
    expect(set).toMatch(/^ap_admin=ap_staff_[A-Za-z0-9_-]{43};/);
    expect(set).not.toContain(ADMIN_TOKEN);
    expect(set).toMatch(/HttpOnly/);
    expect(set).toMatch(/SameSite=Strict/);
    expect(set).toMatch(/Path=\/admin/);
    expect(set).toContain(`Max-Age=${STAFF_SESSION_TTL_MS / 1000}`);
    const cookie = set.split(';')[0]!;
    expect((await consoleWith(cookie)).body).toContain('Review queue');
    // The old form (the raw admin token as the cookie) opens nothing.
    expect((await consoleWith(`ap_admin=${ADMIN_TOKEN}`)).body).toContain('Staff sign-in');
    // The console's cookie is not a credential for /v1/admin/* (Bearer only).
    expectProblem(await env.call('GET', '/v1/admin/review', { headers: { cookie } }), 401, 'unauthorized');
  });

  it('the session expires (at the TTL, not a millisecond before) and sign-out ends it', async () => {
    const cookie = String((await signIn()).headers['set-cookie']).split(';')[0]!;
    env.clock.advance(STAFF_SESSION_TTL_MS - 1);
    expect((await consoleWith(cookie)).body).toContain('Review queue');
    env.clock.advance(1);
    expect((await consoleWith(cookie)).body).toContain('Staff sign-in');
    const again = String((await signIn()).headers['set-cookie']).split(';')[0]!;
    const out = await form('/admin/sign-out', '', { cookie: again });
    expect(out.statusCode).toBe(303);
    expect(String(out.headers['set-cookie'])).toMatch(/ap_admin=;/);
    expect((await consoleWith(again)).body).toContain('Staff sign-in');
  });

  it(`sign-in attempts are limited per IP: ${STAFF_SIGN_IN_FAILURES_PER_IP} wrong tokens (N) answer 401, then 429 even for the right one`, async () => {
    const ip = '198.51.100.23';
    for (let i = 0; i < STAFF_SIGN_IN_FAILURES_PER_IP; i++) {
      expect((await form('/admin/sign-in', `token=wrong-${i}`, {}, ip)).statusCode).toBe(401);
    }
    const limited = await form('/admin/sign-in', `token=${encodeURIComponent(ADMIN_TOKEN)}`, {}, ip);
    expect(limited.statusCode).toBe(429);
    expect(Number(limited.headers['retry-after'])).toBeGreaterThan(0);
    // Another address is not affected.
    await signIn('198.51.100.24');
  });

  it('a cross-origin sign-in or decision form is refused', async () => {
    const r = await form('/admin/sign-in', `token=${encodeURIComponent(ADMIN_TOKEN)}`, { origin: EVIL });
    expect(r.statusCode).toBe(403);
    const cookie = String((await signIn()).headers['set-cookie']).split(';')[0]!;
    const d = await form('/admin/posts/post_x/remove', 'reason=x', { cookie, origin: EVIL });
    expect(d.statusCode).toBe(403);
  });
});

describe('"comparisons are constant-time over digests"', () => {
  it('safeEqual compares secrets of any lengths', () => {
    expect(safeEqual('abc', 'abc')).toBe(true);
    expect(safeEqual('abc', 'abd')).toBe(false);
    expect(safeEqual('abc', 'abcd')).toBe(false);
    expect(safeEqual('', '')).toBe(true);
    expect(safeEqual('é', 'e')).toBe(false);
  });
});
