import { randomBytes } from 'node:crypto';
import { afterAll, describe, expect, it } from 'vitest';
import { TestClock } from '../helpers/clock.js';
import { expectProblem } from '../helpers/flows.js';
import { startTestEnv, type TestEnv } from '../helpers/harness.js';

const REDIS_URL = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
const opened: TestEnv[] = [];
afterAll(async () => {
  for (const e of opened) await e.close();
});
async function env(
  extra: Record<string, string>,
  more: { clock?: TestClock; ceilingKeyPrefix?: string } = {},
) {
  const e = await startTestEnv({ env: { PLATFORM_RATE: '100', PLATFORM_BURST: '200', ...extra }, ...more });
  opened.push(e);
  return e;
}
/** Two apps on one Redis with one hand-moved clock and a key prefix of their own (parallel runs never collide). */
async function twoOnRedis() {
  const clock = new TestClock();
  const shared = { clock, ceilingKeyPrefix: `test_ceiling_${randomBytes(6).toString('hex')}` };
  return { clock, a: await env({ REDIS_URL }, shared), b: await env({ REDIS_URL }, shared) };
}
/** `n` concurrent GET /v1/status, alternating between the apps given. */
const statuses = (apps: TestEnv[], n: number) =>
  Promise.all(Array.from({ length: n }, (_, i) => apps[i % apps.length]!.call('GET', '/v1/status')));
const ok = (rs: { status: number }[]) => rs.filter((r) => r.status === 200).length;

describe('"all /v1/* including /mcp: 100 requests per second, bursts of 200, the whole platform together"', () => {
  it('a burst of 250 gets 200 through and 50 answered 429 platform_rate_limited with Retry-After; feeds are never limited', async () => {
    const e = await env({});
    const rs = await statuses([e], 250);
    expect(ok(rs)).toBe(200);
    const limited = rs.filter((r) => r.status === 429);
    expect(limited).toHaveLength(50);
    expectProblem(limited[0]!, 429, 'platform_rate_limited');
    expect(limited[0]!.headers['retry-after']).toBe('1');
    expect((await e.call('GET', '/index.json')).status).toBe(200);
    expect((await e.call('GET', '/assets/site.css')).status).toBe(200);
  });

  it('a token bucket: 0.5 s after the burst emptied it, 50 more pass (N) and the 51st is refused (N+1); /mcp counts too', async () => {
    const e = await env({});
    expect(ok(await statuses([e], 201))).toBe(200);
    e.clock.advance(500);
    expect(ok(await statuses([e], 50))).toBe(50);
    expectProblem(await e.call('POST', '/mcp', { body: {} }), 429, 'platform_rate_limited');
    // However long it idles, the bucket holds no more than the burst.
    e.clock.advance(3_600_000);
    expect(ok(await statuses([e], 201))).toBe(200);
  });

  it('with Redis, two processes share one budget: a burst of 300 split between them lets exactly 200 through', async () => {
    const { a, b } = await twoOnRedis();
    const rs = await statuses([a, b], 300);
    expect(ok(rs)).toBe(200);
    expect(rs.filter((r) => r.status === 429)).toHaveLength(100);
    expectProblem(rs.find((r) => r.status === 429)!, 429, 'platform_rate_limited');
  });

  it('with Redis, the exact counts hold across two apps: 250 -> 200 + 50 x 429, then 0.5 s -> 50 (N) and not 51 (N+1)', async () => {
    const { clock, a, b } = await twoOnRedis();
    const rs = await statuses([a, b], 250);
    expect(ok(rs)).toBe(200);
    expect(rs.filter((r) => r.status === 429)).toHaveLength(50);
    clock.advance(500);
    expect(ok(await statuses([a, b], 50))).toBe(50);
    expectProblem(await b.call('GET', '/v1/status'), 429, 'platform_rate_limited');
  });

  it('with Redis unreachable, each process keeps the ceiling on its own (insurance bucket): 250 -> 200 through', async () => {
    const e = await env({ REDIS_URL: 'redis://127.0.0.1:1' });
    const rs = await statuses([e], 250);
    expect(ok(rs)).toBe(200);
    expectProblem(rs.find((r) => r.status === 429)!, 429, 'platform_rate_limited');
    e.clock.advance(500);
    expect(ok(await statuses([e], 51))).toBe(50);
  });
});
