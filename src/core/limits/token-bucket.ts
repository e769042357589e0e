import type { Redis } from 'ioredis';
import type { Clock } from '../clock.js';

/**
 * A token bucket: it holds at most `capacity` tokens and refills continuously at `rate` tokens per
 * second, computed from the time elapsed since the last refill. A request takes one token or is
 * refused. A full bucket admits a burst of `capacity` at once; after that, `rate` per second.
 */
export interface BucketSpec {
  capacity: number;
  /** Tokens per second. */
  rate: number;
}

export interface TakeResult {
  allowed: boolean;
  /** Whole tokens left after this take. */
  remaining: number;
}

export interface TokenBucket {
  /** Takes one token from the bucket named `key`. */
  take(key: string): Promise<TakeResult>;
}

/** How long until an empty bucket is full again: after that an absent bucket equals a full one. */
export function fullRefillMs(spec: BucketSpec): number {
  return Math.ceil((spec.capacity * 1000) / spec.rate);
}

/**
 * One refill-and-take step on plain numbers (the in-memory store; the Redis script is the same
 * arithmetic in Lua). A clock that goes back never mints tokens and never moves `last` back.
 */
export function refillAndTake(
  spec: BucketSpec,
  state: { tokens: number; last: number } | undefined,
  nowMs: number,
): { tokens: number; last: number; allowed: boolean } {
  let tokens = spec.capacity;
  let last = nowMs;
  if (state) {
    tokens = state.tokens;
    last = state.last;
    if (nowMs > last) {
      tokens += ((nowMs - last) * spec.rate) / 1000;
      last = nowMs;
    }
  }
  tokens = Math.min(spec.capacity, tokens);
  const allowed = tokens >= 1;
  if (allowed) tokens -= 1;
  return { tokens, last, allowed };
}

/** In one process. The clock is injected, so refill is tested exactly by moving time by hand. */
export class MemoryTokenBucket implements TokenBucket {
  readonly #buckets = new Map<string, { tokens: number; last: number }>();

  constructor(
    readonly spec: BucketSpec,
    readonly clock: Clock,
  ) {}

  async take(key: string): Promise<TakeResult> {
    return this.takeNow(key);
  }

  /** Synchronous take: no await between reading and writing the bucket. */
  takeNow(key: string): TakeResult {
    const now = this.clock.now().getTime();
    const next = refillAndTake(this.spec, this.#buckets.get(key), now);
    this.#buckets.set(key, { tokens: next.tokens, last: next.last });
    if (this.#buckets.size > 10_000) this.#forgetFull(now);
    return { allowed: next.allowed, remaining: Math.floor(next.tokens) };
  }

  /** Idle buckets that have refilled completely are the same as absent ones. */
  #forgetFull(now: number): void {
    const idle = fullRefillMs(this.spec);
    for (const [key, b] of this.#buckets) if (now - b.last >= idle) this.#buckets.delete(key);
  }
}

/**
 * KEYS[1]: the bucket (a hash: t = tokens, ts = last refill in ms).
 * ARGV: capacity, rate (tokens/s), now in ms (empty: the Redis server's TIME), TTL in ms.
 * Returns {allowed 0|1, whole tokens left}. Numbers are stored with 17 significant digits.
 */
export const TOKEN_BUCKET_LUA = `
local capacity = tonumber(ARGV[1])
local rate = tonumber(ARGV[2])
local now = tonumber(ARGV[3])
if not now then
  local t = redis.call('TIME')
  now = tonumber(t[1]) * 1000 + tonumber(t[2]) / 1000
end
local state = redis.call('HMGET', KEYS[1], 't', 'ts')
local tokens = tonumber(state[1])
local last = tonumber(state[2])
if not tokens or not last then
  tokens = capacity
  last = now
elseif now > last then
  tokens = tokens + (now - last) * rate / 1000
  last = now
end
if tokens > capacity then tokens = capacity end
local allowed = 0
if tokens >= 1 then
  tokens = tokens - 1
  allowed = 1
end
redis.call('HSET', KEYS[1], 't', string.format('%.17g', tokens), 'ts', string.format('%.17g', last))
redis.call('PEXPIRE', KEYS[1], ARGV[4])
return {allowed, math.floor(tokens)}
`;

type BucketRedis = Redis & {
  tokenBucketTake(
    key: string,
    capacity: number,
    rate: number,
    now: string,
    ttlMs: number,
  ): Promise<[number, number]>;
};

export interface RedisBucketOptions {
  /** Prefix of every bucket key (`<prefix>:<key>`). */
  prefix: string;
  /**
   * Whose time refills the bucket. Default: the Redis server's TIME, the one clock every process
   * shares. A clock here (tests) passes its time instead, so refill can be stepped by hand.
   */
  clock?: Clock | undefined;
  /** How long an idle bucket is kept beyond its full refill (default one minute). */
  idleGraceMs?: number;
}

/**
 * Shared by every process through Redis: one Lua script (EVALSHA, loaded by ioredis
 * defineCommand) reads, refills, takes and writes atomically, and sets a TTL so idle buckets expire.
 */
export class RedisTokenBucket implements TokenBucket {
  readonly #redis: BucketRedis;
  readonly #ttlMs: number;

  constructor(
    redis: Redis,
    readonly spec: BucketSpec,
    readonly opts: RedisBucketOptions,
  ) {
    if (!('tokenBucketTake' in redis)) {
      redis.defineCommand('tokenBucketTake', { numberOfKeys: 1, lua: TOKEN_BUCKET_LUA });
    }
    this.#redis = redis as BucketRedis;
    this.#ttlMs = fullRefillMs(spec) + (opts.idleGraceMs ?? 60_000);
  }

  /** Throws when Redis cannot answer; the caller decides what a store failure means. */
  async take(key: string): Promise<TakeResult> {
    const now = this.opts.clock ? String(this.opts.clock.now().getTime()) : '';
    const [allowed, remaining] = await this.#redis.tokenBucketTake(
      `${this.opts.prefix}:${key}`,
      this.spec.capacity,
      this.spec.rate,
      now,
      this.#ttlMs,
    );
    return { allowed: allowed === 1, remaining };
  }
}
