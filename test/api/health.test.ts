import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.js';
import { databaseUnavailable, toProblem } from '../../src/http/errors.js';
import { isTrustedProxy, jsonLogger, REDACTED, redact, redactUrl } from '../../src/log.js';
import { fundedAccount } from '../helpers/flows.js';
import { startTestEnv, type TestEnv } from '../helpers/harness.js';

let env: TestEnv;
beforeAll(async () => {
  env = await startTestEnv({ env: { METRICS_TOKEN: 'metrics-token-0123456789' } });
});
afterAll(() => env.close());

describe('health, readiness and metrics', () => {
  it('/healthz says the process is alive', async () => {
    const r = await env.call('GET', '/healthz');
    expect(r.status).toBe(200);
    expect(r.json).toEqual({ status: 'ok' });
  });

  it('/readyz is 200 when the database answers and migrations are current, 503 while draining', async () => {
    const ok = await env.call('GET', '/readyz');
    expect(ok.status).toBe(200);
    expect(ok.json.status).toBe('ready');
    env.platform.draining = true;
    try {
      const draining = await env.call('GET', '/readyz');
      expect(draining.status).toBe(503);
      expect(draining.headers['retry-after']).toBe('2');
      expect(draining.headers['content-type']).toMatch(/^application\/problem\+json/);
      expect(draining.json.code).toBe('service_unavailable');
    } finally {
      env.platform.draining = false;
    }
  });

  it('/readyz is 503 when migrations are behind the code', async () => {
    const { sql } = await import('drizzle-orm');
    const db = env.platform.database.db;
    await db.execute(sql`UPDATE drizzle.__drizzle_migrations SET created_at = created_at - 1000000000000`);
    try {
      const r = await env.call('GET', '/readyz');
      expect(r.status).toBe(503);
      expect(r.json.detail).toMatch(/migrations are behind/);
    } finally {
      await db.execute(sql`UPDATE drizzle.__drizzle_migrations SET created_at = created_at + 1000000000000`);
    }
  });

  it('/metrics: loopback or the bearer token; request, queue, post, delivery, charge and moderation figures', async () => {
    await fundedAccount(env, 5_000_000);
    await env.call('GET', '/v1/status');
    const outside = await env.call('GET', '/metrics', { ip: '203.0.113.9' });
    expect(outside.status).toBe(403);
    const wrong = await env.call('GET', '/metrics', { ip: '203.0.113.9', key: 'metrics-token-0123456789x' });
    expect(wrong.status).toBe(403);
    const forwarded = await env.call('GET', '/metrics', { headers: { 'x-forwarded-for': '203.0.113.9' } });
    expect(forwarded.status).toBe(403);
    const withToken = await env.call('GET', '/metrics', {
      ip: '203.0.113.9',
      key: 'metrics-token-0123456789',
    });
    expect(withToken.status).toBe(200);
    const r = await env.call('GET', '/metrics');
    expect(r.status).toBe(200);
    expect(r.headers['content-type']).toMatch(/^text\/plain/);
    expect(r.text).toMatch(
      /agentpress_http_requests_total\{method="GET",route="\/v1\/status",status="200"\} 1/,
    );
    expect(r.text).toMatch(
      /agentpress_http_request_duration_seconds_bucket\{le="0.005",method="GET",route="\/v1\/status"\}/,
    );
    expect(r.text).toMatch(/agentpress_ledger_entries\{kind="top_up"\} 1/);
    expect(r.text).toMatch(/agentpress_ledger_amount_micros\{kind="top_up"\} 5000000/);
    expect(r.text).toMatch(/agentpress_queue_jobs/);
    expect(r.text).toMatch(/agentpress_moderation_latency_seconds\{quantile="0.5"\}/);
    expect(r.text).toMatch(/agentpress_webhook_deliveries/);
  });

  it('a request id comes from the platform, or from a trusted proxy (the load balancer), never from a client', async () => {
    // No TRUST_PROXY: a client's X-Request-Id is replaced.
    const direct = await env.call('GET', '/v1/status', { headers: { 'x-request-id': 'lb-7f3a9c21-0001' } });
    expect(direct.headers['x-request-id']).toMatch(/^req_[A-Za-z0-9_-]{12}$/);
    const proxied = await startTestEnv({ env: { TRUST_PROXY: '10.0.0.0/8,loopback' } });
    try {
      const viaLb = await proxied.call('GET', '/v1/status', {
        ip: '10.1.2.3',
        headers: { 'x-request-id': 'lb-7f3a9c21-0001' },
      });
      expect(viaLb.headers['x-request-id']).toBe('lb-7f3a9c21-0001');
      const malformed = await proxied.call('GET', '/nope', {
        ip: '10.1.2.3',
        unchecked: true,
        headers: { 'x-request-id': 'evil id with spaces' },
      });
      expect(malformed.headers['x-request-id']).toMatch(/^req_/);
      expect(malformed.json.request_id).toBe(malformed.headers['x-request-id']);
      const outsider = await proxied.call('GET', '/v1/status', {
        ip: '203.0.113.7',
        headers: { 'x-request-id': 'lb-7f3a9c21-0002' },
      });
      expect(outsider.headers['x-request-id']).toMatch(/^req_/);
    } finally {
      await proxied.close();
    }
    expect(isTrustedProxy('::ffff:10.9.9.9', '10.0.0.0/8')).toBe(true);
    expect(isTrustedProxy('127.0.0.1', 'loopback')).toBe(true);
    expect(isTrustedProxy('192.168.1.1', 'loopback,10.0.0.1')).toBe(false);
    expect(isTrustedProxy('10.0.0.1', undefined)).toBe(false);
  });
});

describe('database outages become 503 + Retry-After', () => {
  it('maps connection errors (also wrapped as a cause) to service_unavailable, others to internal_error', () => {
    const refused = Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:5432'), { code: 'ECONNREFUSED' });
    const wrapped = new Error('Failed query: select 1', { cause: refused });
    const shutdown = Object.assign(new Error('terminating connection due to administrator command'), {
      code: '57P01',
    });
    for (const err of [refused, wrapped, shutdown, new Error('Connection terminated unexpectedly')]) {
      const p = toProblem(err);
      expect(p.status).toBe(503);
      expect(p.code).toBe('service_unavailable');
      expect(p.headers['retry-after']).toBe('2');
    }
    expect(toProblem(Object.assign(new Error('duplicate key'), { code: '23505' })).status).toBe(500);
    expect(databaseUnavailable().detail).not.toMatch(/ECONN|5432/);
  });
});

describe('logs', () => {
  it('redacts authorization, cookies, keys, tokens and webhook secrets', () => {
    const lines: string[] = [];
    const log = jsonLogger('info', { role: 'test' }, (l) => lines.push(l));
    log.info(
      {
        headers: { authorization: 'Bearer ap_key_abc', cookie: 'ap_owner=x', 'x-api-key': 'k' },
        secret: 'whsec_Zm9v',
        owner_token: 'ap_owner_abc',
        note: 'sent key ap_key_SECRETVALUE and whsec_c2VjcmV0 to Bearer abc.def',
        err: new Error('failed with ap_admin_TOPSECRET'),
      },
      'request with ap_link_abc',
    );
    log.warn('debug is off');
    const text = lines.join('');
    for (const secret of [
      'ap_key_abc',
      'ap_owner=x',
      'whsec_Zm9v',
      'ap_owner_abc',
      'SECRETVALUE',
      'c2VjcmV0',
      'TOPSECRET',
      'ap_link_abc',
      'abc.def',
    ]) {
      expect(text).not.toContain(secret);
    }
    const first = JSON.parse(lines[0]!);
    expect(first.role).toBe('test');
    expect(first.headers.authorization).toBe(REDACTED);
    expect(first.level).toBe(30);
    expect(JSON.parse(lines[1]!).msg).toBe('debug is off');
    expect(redact({ nested: [{ webhook_secret: 'x' }] })).toEqual({ nested: [{ webhook_secret: REDACTED }] });
    expect(redactUrl('/account?token=ap_link_123&x=1')).toBe(`/account?token=${REDACTED}&x=1`);
  });
});

describe('test hooks are never on by default', () => {
  it('refuses TEST_* settings without UNSAFE_TEST_HOOKS=1', () => {
    expect(loadConfig({}).testHooks).toBeUndefined();
    expect(() => loadConfig({ TEST_CLOCK_OFFSET_MS: '1000' })).toThrow(/UNSAFE_TEST_HOOKS=1/);
    const hooks = loadConfig({
      UNSAFE_TEST_HOOKS: '1',
      TEST_CLOCK_OFFSET_MS: '-5000',
      TEST_WEBHOOK_RETRY_SCHEDULE_S: '1,1,2',
    }).testHooks;
    expect(hooks).toEqual({
      clockOffsetMs: -5000,
      webhookRetryScheduleS: [1, 1, 2],
      sweepIntervalMs: undefined,
    });
  });
});

describe('requests the router or a page form cannot read (found by the fuzz pass)', () => {
  it('a path segment over 100 characters or a bad %-escape is a 404 problem, not fastify’s own 414/400', async () => {
    for (const path of [`/v1/posts/${'a'.repeat(101)}`, '/v1/posts/%E0%A4%A']) {
      const r = await env.call('GET', path);
      expect(r.status, path).toBe(404);
      expect(String(r.headers['content-type'])).toMatch(/^application\/problem\+json/);
      expect(r.json.code).toBe('not_found');
    }
  });

  it('page forms posted with no body, JSON or an array answer the page, not a 500', async () => {
    for (const [path, raw, type] of [
      ['/admin/sign-in', undefined, undefined],
      ['/admin/sign-in', '[1,2]', 'application/json'],
      ['/account/code', 'null', 'application/json'],
      ['/account/verify', '{"token":5,"code":[1]}', 'application/json'],
    ] as const) {
      const r = await env.call('POST', path, {
        ...(raw !== undefined ? { raw } : {}),
        headers: { accept: 'text/html', ...(type ? { 'content-type': type } : {}) },
      });
      expect(r.status, `${path} ${raw}`).toBeLessThan(500);
      expect(r.status, `${path} ${raw}`).toBeGreaterThanOrEqual(400);
    }
  });
});
