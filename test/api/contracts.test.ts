import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import SwaggerParser from '@apidevtools/swagger-parser';
import { Parser } from '@asyncapi/parser';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { undeclaredApiRoutes } from '../../src/contracts/openapi.js';
import { CATALOG } from '../../src/core/problems.js';
import { WebhookContract } from '../helpers/asyncapi.js';
import { ContractMismatch, contractStats, enforceContract } from '../helpers/contract.js';
import { expectProblem, fundedAccount } from '../helpers/flows.js';
import { BASE_URL, startTestEnv, type TestEnv } from '../helpers/harness.js';
import { story } from '../helpers/stories.js';

let env: TestEnv;
beforeAll(async () => {
  env = await startTestEnv();
});
afterAll(async () => env?.close());

/** The webhook event kinds both contracts must describe, sorted. */
const EVENT_NAMES = [
  'post.appeal_decided',
  'post.published',
  'post.rejected',
  'post.removed',
  'post.review',
  'webhook.test',
];

describe('machine-readable contracts, generated from the code', () => {
  it('/openapi.json is a valid OpenAPI 3.1 document with every operation and the problem responses', async () => {
    const r = await env.call('GET', '/openapi.json');
    expect(r.status).toBe(200);
    const doc = r.json;
    expect(doc.openapi).toBe('3.1.0');
    await SwaggerParser.validate(structuredClone(doc));
    const ops = Object.entries(doc.paths as Record<string, Record<string, unknown>>).flatMap(([p, o]) =>
      Object.keys(o).map((m) => `${m.toUpperCase()} ${p}`),
    );
    for (const op of [
      'POST /v1/accounts',
      'GET /v1/account',
      'PATCH /v1/account',
      'DELETE /v1/account',
      'POST /v1/posts',
      'GET /v1/posts',
      'GET /v1/posts/{id}',
      'DELETE /v1/posts/{id}',
      'GET /v1/search',
      'GET /v1/status',
      'GET /v1/pricing',
      'GET /v1/policy',
      'POST /v1/reports',
      'GET /v1/webhooks',
      'POST /v1/webhooks',
      'DELETE /v1/webhooks/{id}',
      'POST /v1/webhooks/{id}/test',
      'POST /v1/manage/keys',
      'POST /v1/manage/session',
    ]) {
      expect(ops).toContain(op);
    }
    const post = doc.paths['/v1/posts'].post;
    expect(post.requestBody.content['application/json'].schema.oneOf).toHaveLength(4);
    expect(post.responses['402'].content['application/problem+json']).toBeDefined();
    expect(doc.components.schemas.Problem.properties.code.enum.sort()).toEqual(Object.keys(CATALOG).sort());
    expect(doc.components.securitySchemes.apiKey.scheme).toBe('bearer');
  });

  it('/errors.json lists every code of the catalog; each `type` URL serves its entry', async () => {
    const r = await env.call('GET', '/errors.json');
    expect(r.json.errors.map((e: { code: string }) => e.code).sort()).toEqual(Object.keys(CATALOG).sort());
    for (const e of r.json.errors) {
      expect(e.status).toBeGreaterThanOrEqual(400);
      expect(e.title.length && e.description.length && e.action.length).toBeTruthy();
    }
    const p = expectProblem(await env.call('GET', '/v1/account'), 401, 'unauthorized');
    const entry = await env.call('GET', new URL(p.type).pathname);
    expect(entry.status).toBe(200);
    expect(entry.json).toMatchObject({
      code: 'unauthorized',
      status: 401,
      type: `${BASE_URL}/errors/unauthorized`,
    });
    expectProblem(await env.call('GET', '/errors/nope'), 404, 'not_found');
  });

  it('/rate-limits.json carries the numbers the code enforces', async () => {
    const r = await env.call('GET', '/rate-limits.json');
    const by = (op: string) => r.json.limits.find((l: { operation: string }) => l.operation === op);
    expect(by('GET /v1/search (with a key)').limit).toBe(100);
    expect(by('GET /v1/search (without a key)').limit).toBe(20);
    expect(by('POST /v1/reports').limit).toBe(20);
    expect(by('POST /v1/webhooks').limit).toBe(5);
    expect(by('POST /v1/manage/keys').limit).toBe(20);
    expect(r.json.constants.story_words).toEqual({ min: 150, max: 2500 });
  });

  it('/asyncapi.json describes each event kind with the Standard Webhooks headers', async () => {
    const r = await env.call('GET', '/asyncapi.json');
    expect(r.json.asyncapi).toBe('3.0.0');
    const names = Object.values(
      r.json.components.messages as Record<string, { name: string; headers: { required: string[] } }>,
    );
    expect(names.map((m) => m.name).sort()).toEqual(EVENT_NAMES);
    for (const m of names)
      expect(m.headers.required).toEqual(['webhook-id', 'webhook-timestamp', 'webhook-signature']);
  });

  it('/apis.json and /llms.txt link every contract', async () => {
    const apis = await env.call('GET', '/apis.json');
    const urls = apis.json.apis[0].properties.map((p: { url: string }) => p.url);
    for (const path of [
      '/openapi.json',
      '/asyncapi.json',
      '/errors.json',
      '/rate-limits.json',
      '/llms.txt',
    ]) {
      expect(urls).toContain(`${BASE_URL}${path}`);
    }
    const llms = await env.call('GET', '/llms.txt');
    expect(llms.text.startsWith('# agentpress\n\n> ')).toBe(true);
    for (const path of ['/openapi.json', '/errors.json', '/v1/policy'])
      expect(llms.text).toContain(`${BASE_URL}${path}`);
  });

  it('/index.json is a JSON Feed 1.1 with the required members and labelled items', async () => {
    const a = await fundedAccount(env, 1_000_000);
    const id = (await env.call('POST', '/v1/posts', { key: a.key, body: { title: 'Fed', body: story() } }))
      .json.id;
    await env.platform.workers.drain('moderate');
    const r = await env.call('GET', '/index.json');
    expect(String(r.headers['content-type'])).toMatch(/^application\/feed\+json/);
    expect(r.json.version).toBe('https://jsonfeed.org/version/1.1');
    expect(typeof r.json.title).toBe('string');
    const item = r.json.items.find((i: { id: string }) => i.id === id);
    expect(item).toMatchObject({ title: 'Fed', url: `${BASE_URL}/p/${id}` });
    expect(item.content_text.length).toBeGreaterThan(100);
    expect(item._agentpress.content_trust).toBe('untrusted-user-content');
    const one = await env.call('GET', `/p/${id}.json`);
    expect(one.json.id).toBe(id);
  });
});

describe('the contract checks themselves', () => {
  it('every operation declares a success and its problems; problem responses list their codes', async () => {
    const doc = (await env.call('GET', '/openapi.json')).json;
    let operations = 0;
    // biome-ignore lint/suspicious/noExplicitAny: the document is inspected freely
    for (const [path, item] of Object.entries(doc.paths as Record<string, Record<string, any>>)) {
      for (const [method, op] of Object.entries(item)) {
        operations++;
        const statuses = Object.keys(op.responses);
        expect(
          statuses.some((s) => s.startsWith('2')),
          `${method} ${path} has a success`,
        ).toBe(true);
        expect(statuses, `${method} ${path}`).toContain('500');
        for (const s of statuses.filter((x) => Number(x) >= 400)) {
          const media = op.responses[s].content['application/problem+json'];
          const codes: string[] = media.schema.allOf[1].properties.code.enum;
          expect(codes.length).toBeGreaterThan(0);
          for (const c of codes) {
            expect(CATALOG[c as keyof typeof CATALOG].status, `${c} under ${s}`).toBe(Number(s));
            expect(media.examples[c].value.code).toBe(c);
          }
        }
        if (Object.keys(op.security?.[0] ?? {}).length > 0 || Object.keys(op.security?.[1] ?? {}).length > 0)
          expect(op.responses['401'].headers['WWW-Authenticate'].required, `${method} ${path}`).toBe(true);
      }
    }
    expect(operations).toBeGreaterThan(30);
    const post = doc.paths['/v1/posts'].post;
    expect(post.responses['202'].headers['Retry-After'].required).toBe(true);
    expect(
      post.responses['402'].content['application/problem+json'].schema.allOf[1].properties.code.enum,
    ).toEqual(['insufficient_balance']);
    expect(doc.paths['/v1/search'].get.responses['200'].headers.RateLimit.required).toBe(true);
    expect(doc.paths['/v1/search'].get.responses['429'].headers['Retry-After'].required).toBe(true);
    // Reports past the allowance: the interface says no Retry-After, so it cannot be required there.
    expect(doc.paths['/v1/reports'].post.responses['429'].headers['Retry-After'].required).toBe(false);
    expect(doc.paths['/index.json'].get.responses['200'].headers.ETag.required).toBe(true);
    expect(doc.paths['/mcp'].post.security).toEqual([{}, { apiKey: [] }]);
  });

  it('every /v1 route is declared with operation(), so it is in /openapi.json', () => {
    const { seen, undeclared } = undeclaredApiRoutes(env.app);
    expect(seen).toBeGreaterThan(25);
    expect(undeclared).toEqual([]);
  });

  it('every example in /openapi.json validates against its own schema', () => {
    const examples = env.contract().examples();
    expect(examples.length).toBeGreaterThan(100);
    for (const where of ['POST /v1/posts 202', 'POST /v1/accounts 201', 'GET /v1/status 200'])
      expect(
        examples.some((e) => e.where.startsWith(where)),
        where,
      ).toBe(true);
    expect(examples.filter((e) => e.errors.length > 0)).toEqual([]);
  });

  it('the response checker refuses what the contract does not say', async () => {
    const validator = env.contract();
    const good = await env.call('GET', '/v1/status');
    const base = { method: 'GET', url: '/v1/status', status: 200, headers: good.headers, body: good.text };
    expect(validator.check(base)).toEqual([]);
    const mismatch = (r: Partial<typeof base>) => validator.check({ ...base, ...r });
    expect(mismatch({ body: JSON.stringify({ ...good.json, api: 'down' }) }).join()).toMatch(/body\/api/);
    expect(mismatch({ status: 418 }).join()).toMatch(/does not declare/);
    expect(mismatch({ headers: { ...good.headers, 'content-type': 'text/html' } }).join()).toMatch(
      /content-type text\/html/,
    );
    expect(mismatch({ url: '/v1/nowhere' }).join()).toMatch(/not an operation/);

    const unauthorized = await env.call('GET', '/v1/account');
    const u = {
      ...base,
      url: '/v1/account',
      status: 401,
      headers: unauthorized.headers,
      body: unauthorized.text,
    };
    expect(validator.check(u)).toEqual([]);
    const { 'www-authenticate': _, ...noChallenge } = unauthorized.headers;
    expect(validator.check({ ...u, headers: noChallenge }).join()).toMatch(/WWW-Authenticate is required/);
    const wrongCode = JSON.stringify({ ...unauthorized.json, code: 'too_many_keys' });
    expect(validator.check({ ...u, body: wrongCode }).join()).toMatch(/body\/code/);

    // The harness throws on a mismatch and counts it.
    const before = { ...contractStats };
    expect(() => enforceContract(validator, { ...base, status: 418 })).toThrow(ContractMismatch);
    expect(contractStats.checked).toBe(before.checked + 1);
    expect(contractStats.mismatches).toBe(before.mismatches + 1);
    // The deliberate one above is not a finding of the suite: keep it out of the run's summary.
    contractStats.checked--;
    contractStats.mismatches--;
  });

  it('/asyncapi.json parses with @asyncapi/parser without errors', async () => {
    const doc = (await env.call('GET', '/asyncapi.json')).json;
    const { document, diagnostics } = await new Parser().parse(JSON.stringify(doc));
    const errors = diagnostics.filter((d) => d.severity === 0);
    expect(errors.map((d) => `${d.path.join('.')}: ${d.message}`)).toEqual([]);
    expect(document).toBeDefined();
    expect(
      document!
        .allMessages()
        .all()
        .map((m) => m.name())
        .sort(),
    ).toEqual(EVENT_NAMES);
  });

  it('the webhook checker refuses a body or headers that break /asyncapi.json', async () => {
    const doc = (await env.call('GET', '/asyncapi.json')).json;
    const check = new WebhookContract(doc);
    const headers = {
      'webhook-id': 'msg_1',
      'webhook-timestamp': '1700000000',
      'webhook-signature': 'v1,abc=',
    };
    const body = {
      type: 'webhook.test',
      timestamp: '2026-11-22T08:00:00.000Z',
      data: { endpoint_id: 'wh_1', message: 'hi' },
    };
    expect(check.check(headers, JSON.stringify(body))).toEqual([]);
    // The examples of /asyncapi.json keep it too.
    type Example = { headers: Record<string, string>; payload: unknown };
    for (const m of Object.values(
      doc.components.messages as Record<string, { name: string; examples: Example[] }>,
    )) {
      expect(m.examples).toHaveLength(1);
      const [ex] = m.examples;
      expect(check.check(ex!.headers, JSON.stringify(ex!.payload)), m.name).toEqual([]);
    }
    const { 'webhook-signature': _, ...unsigned } = headers;
    expect(check.check(unsigned, JSON.stringify(body)).join()).toMatch(/webhook-signature/);
    expect(check.check(headers, JSON.stringify({ ...body, data: {} })).join()).toMatch(/payload/);
    expect(check.check(headers, JSON.stringify({ ...body, type: 'post.exploded' })).join()).toMatch(
      /no message/,
    );
  });

  it('every code the source raises is in /errors.json (read from the catalog the code uses)', async () => {
    const served = new Set(
      (await env.call('GET', '/errors.json')).json.errors.map((e: { code: string }) => e.code),
    );
    const raised = new Set<string>();
    const walk = (dir: string) => {
      for (const e of readdirSync(dir, { withFileTypes: true })) {
        const p = join(dir, e.name);
        if (e.isDirectory()) walk(p);
        else if (/\.tsx?$/.test(e.name)) {
          const text = readFileSync(p, 'utf8');
          for (const m of text.matchAll(/(?:new Problem|ownerProblem)\(\s*(?:[\w.]+,\s*)?'([a-z_]+)'/g))
            raised.add(m[1]!);
        }
      }
    };
    walk(join(import.meta.dirname, '../../src'));
    expect(raised.size).toBeGreaterThan(20);
    expect([...raised].filter((c) => !served.has(c))).toEqual([]);
  });

  it('the JSON Feed has the members JSON Feed 1.1 requires', async () => {
    const a = await fundedAccount(env, 1_000_000);
    await env.call('POST', '/v1/posts', { key: a.key, body: { title: 'Required members', body: story() } });
    await env.platform.workers.drain('moderate');
    const feed = (await env.call('GET', '/index.json')).json;
    expect(feed.version).toBe('https://jsonfeed.org/version/1.1');
    expect(typeof feed.title).toBe('string');
    expect(Array.isArray(feed.items)).toBe(true);
    expect(feed.items.length).toBeGreaterThan(0);
    for (const item of feed.items) {
      expect(typeof item.id).toBe('string');
      expect(typeof (item.content_text ?? item.content_html)).toBe('string');
    }
  });
});
