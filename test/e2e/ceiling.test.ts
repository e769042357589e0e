import { afterAll, describe, expect, it } from 'vitest';
import { expectProblem } from '../helpers/flows.js';
import { startTestEnv, type TestEnv } from '../helpers/harness.js';

const REDIS_URL = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
const opened: TestEnv[] = [];
afterAll(async () => {
  for (const e of opened) await e.close();
});
async function env(extra: Record<string, string>) {
  const e = await startTestEnv({ env: { PLATFORM_RATE: '100', PLATFORM_BURST: '200', ...extra } });
  opened.push(e);
  return e;
}

describe('"all /v1/* including /mcp: 100 requests per second, bursts of 200, the whole platform together"', () => {
  it('a burst of 250 gets 200 through and 50 answered 429 platform_rate_limited with Retry-After; feeds are never limited', async () => {
    const e = await env({});
    const rs = await Promise.all(Array.from({ length: 250 }, () => e.call('GET', '/v1/status')));
    expect(rs.filter((r) => r.status === 200)).toHaveLength(200);
    const limited = rs.filter((r) => r.status === 429);
    expect(limited).toHaveLength(50);
    expectProblem(limited[0]!, 429, 'platform_rate_limited');
    expect(limited[0]!.headers['retry-after']).toBe('1');
    expect((await e.call('GET', '/index.json')).status).toBe(200);
    expect((await e.call('GET', '/assets/site.css')).status).toBe(200);
  });

  it('with Redis, two processes share one budget', async () => {
    const redis = { REDIS_URL };
    const a = await env(redis);
    const b = await env(redis);
    const rs = await Promise.all(
      Array.from({ length: 300 }, (_, i) => (i % 2 ? a : b).call('GET', '/v1/status')),
    );
    const ok = rs.filter((r) => r.status === 200).length;
    // One shared budget of 200 (a second boundary may add up to one more second's 100).
    expect(ok).toBeGreaterThanOrEqual(190);
    expect(ok).toBeLessThanOrEqual(300 - 50);
    expect(rs.filter((r) => r.status === 429).length).toBe(300 - ok);
  });
});
