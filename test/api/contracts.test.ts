import SwaggerParser from '@apidevtools/swagger-parser';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CATALOG } from '../../src/core/problems.js';
import { expectProblem, fundedAccount } from '../helpers/flows.js';
import { BASE_URL, startTestEnv, type TestEnv } from '../helpers/harness.js';
import { story } from '../helpers/stories.js';

let env: TestEnv;
beforeAll(async () => {
  env = await startTestEnv();
});
afterAll(async () => env?.close());

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
    expect(names.map((m) => m.name).sort()).toEqual([
      'post.published',
      'post.rejected',
      'post.removed',
      'post.review',
      'webhook.test',
    ]);
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
