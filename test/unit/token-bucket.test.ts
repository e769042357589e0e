import { randomBytes } from 'node:crypto';
import { Redis } from 'ioredis';
import { afterAll, describe, expect, it } from 'vitest';
import {
  type BucketSpec,
  fullRefillMs,
  MemoryTokenBucket,
  RedisTokenBucket,
  type TokenBucket,
} from '../../src/core/limits/token-bucket.js';
import { TestClock } from '../helpers/clock.js';

const REDIS_URL = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
const SPEC: BucketSpec = { capacity: 200, rate: 100 };

const connections: Redis[] = [];
afterAll(() => {
  for (const r of connections) r.disconnect();
});
function redis(): Redis {
  const r = new Redis(REDIS_URL, { maxRetriesPerRequest: 1 });
  connections.push(r);
  return r;
}
/** A fresh key prefix per bucket group, so parallel runs on one Redis never share a bucket. */
const uniquePrefix = () => `test_bucket_${randomBytes(6).toString('hex')}`;

interface Backend {
  name: string;
  /** `n` handles on one shared bucket (for Redis: separate connections, as separate processes have). */
  open(spec: BucketSpec, clock: TestClock, n: number): TokenBucket[];
}

const backends: Backend[] = [
  {
    name: 'in memory',
    open(spec, clock, n) {
      const b = new MemoryTokenBucket(spec, clock);
      return Array.from({ length: n }, () => b);
    },
  },
  {
    name: 'Redis (two connections, one budget)',
    open(spec, clock, n) {
      const prefix = uniquePrefix();
      return Array.from({ length: n }, () => new RedisTokenBucket(redis(), spec, { prefix, clock }));
    },
  },
];

/** Fires `n` takes at once, spread round-robin over the handles; counts the admitted ones. */
async function burst(handles: TokenBucket[], n: number, key = 'platform'): Promise<number> {
  const rs = await Promise.all(Array.from({ length: n }, (_, i) => handles[i % handles.length]!.take(key)));
  return rs.filter((r) => r.allowed).length;
}

describe.each(backends)('token bucket: $name', ({ open }) => {
  it('capacity 200, rate 100: a concurrent burst of 250 lets exactly 200 through', async () => {
    const clock = new TestClock();
    expect(await burst(open(SPEC, clock, 2), 250)).toBe(200);
  });

  it('empty, then 0.5 s later: exactly 50 more pass (N) and the 51st is refused (N+1)', async () => {
    const clock = new TestClock();
    const hs = open(SPEC, clock, 2);
    expect(await burst(hs, 200)).toBe(200);
    expect((await hs[0]!.take('platform')).allowed).toBe(false);
    clock.advance(500);
    expect(await burst(hs, 50)).toBe(50);
    expect((await hs[1]!.take('platform')).allowed).toBe(false);
  });

  it('refill is continuous: 5 ms is half a token (refused), 10 ms is one', async () => {
    const clock = new TestClock();
    const [h] = open(SPEC, clock, 1);
    expect(await burst([h!], 201)).toBe(200);
    clock.advance(5);
    expect((await h!.take('platform')).allowed).toBe(false);
    clock.advance(5);
    expect((await h!.take('platform')).allowed).toBe(true);
    expect((await h!.take('platform')).allowed).toBe(false);
  });

  it('never holds more than its capacity, however long it idles', async () => {
    const clock = new TestClock();
    const hs = open(SPEC, clock, 2);
    expect(await burst(hs, 10)).toBe(10);
    clock.advance(3_600_000);
    const first = await hs[0]!.take('platform');
    expect(first).toEqual({ allowed: true, remaining: 199 });
    expect(await burst(hs, 200)).toBe(199);
  });

  it('a clock that steps back mints no tokens', async () => {
    const clock = new TestClock();
    const [h] = open(SPEC, clock, 1);
    expect(await burst([h!], 200)).toBe(200);
    clock.advance(-60_000);
    expect((await h!.take('platform')).allowed).toBe(false);
    clock.advance(60_000 + 10);
    expect(await burst([h!], 5)).toBe(1);
  });

  it('keys are separate buckets', async () => {
    const clock = new TestClock();
    const hs = open({ capacity: 3, rate: 1 }, clock, 2);
    expect(await burst(hs, 4, 'a')).toBe(3);
    expect(await burst(hs, 4, 'b')).toBe(3);
  });
});

describe('Redis token bucket', () => {
  it('keeps tokens and last refill in one hash with a TTL of the full refill plus the idle grace', async () => {
    const r = redis();
    const prefix = uniquePrefix();
    const b = new RedisTokenBucket(r, SPEC, { prefix, clock: new TestClock(), idleGraceMs: 5_000 });
    await b.take('platform');
    expect(await r.hgetall(`${prefix}:platform`)).toEqual({
      t: '199',
      ts: String(new TestClock().now().getTime()),
    });
    const ttl = await r.pttl(`${prefix}:platform`);
    expect(fullRefillMs(SPEC)).toBe(2_000);
    expect(ttl).toBeGreaterThan(6_000);
    expect(ttl).toBeLessThanOrEqual(7_000);
  });

  it("without a clock it refills by the Redis server's TIME", async () => {
    // 1 token per 1000 s: no refill can happen while the test runs, so the count is exact.
    const spec = { capacity: 5, rate: 0.001 };
    const prefix = uniquePrefix();
    const a = new RedisTokenBucket(redis(), spec, { prefix });
    const b = new RedisTokenBucket(redis(), spec, { prefix });
    expect(await burst([a, b], 8)).toBe(5);
    const [, ts] = (await connections.at(-1)!.hmget(`${prefix}:platform`, 't', 'ts')) as [string, string];
    const [sec] = await connections.at(-1)!.time();
    expect(Math.abs(Number(ts) - Number(sec) * 1000)).toBeLessThan(60_000);
  });

  it('a Redis that cannot be reached is an error the caller sees (the ceiling then lets requests through)', async () => {
    const down = new Redis('redis://127.0.0.1:1', {
      enableOfflineQueue: false,
      maxRetriesPerRequest: 0,
      lazyConnect: true,
    });
    down.on('error', () => {});
    connections.push(down);
    const b = new RedisTokenBucket(down, SPEC, { prefix: uniquePrefix() });
    await expect(b.take('platform')).rejects.toThrow();
  });
});
