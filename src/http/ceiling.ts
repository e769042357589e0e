import type { FastifyInstance } from 'fastify';
import { Redis } from 'ioredis';
import { type Clock, systemClock } from '../core/clock.js';
import { MemoryTokenBucket, RedisTokenBucket, type TokenBucket } from '../core/limits/token-bucket.js';
import { Problem } from '../core/problems.js';

export interface CeilingOptions {
  rate: number;
  burst: number;
  redisUrl?: string | undefined;
  /** The platform clock. In memory it always drives refill; with Redis only when it is not the system clock (tests). */
  clock?: Clock | undefined;
  /** Redis key prefix (tests use one per run so parallel runs do not share a bucket). */
  keyPrefix?: string | undefined;
}

/**
 * Routes under the platform ceiling: the API and MCP. Pages, feeds and JSON files never are.
 * Judged on the route the request matched (its declared path), never on the raw URL.
 */
export const isMetered = (route: string | undefined) =>
  route !== undefined && (route.startsWith('/v1/') || route === '/mcp' || route.startsWith('/mcp/'));

/** The one bucket: the ceiling is for the whole platform together, not per client. */
const PLATFORM_KEY = 'platform';

/**
 * The platform ceiling: all /v1/* and /mcp requests together, a token bucket of `burst` tokens
 * refilled continuously at `rate` per second. In process by default; shared by every process
 * through Redis when REDIS_URL is set (refilled by the Redis server's clock), with a per-process
 * insurance bucket while Redis is unreachable.
 */
export class PlatformCeiling {
  readonly #bucket: TokenBucket;
  /** With Redis: this process's own bucket, used while Redis cannot answer (insurance). */
  readonly #insurance: MemoryTokenBucket | undefined;
  readonly #redis: Redis | undefined;

  constructor(opts: CeilingOptions) {
    const spec = { capacity: opts.burst, rate: opts.rate };
    if (opts.redisUrl) {
      this.#redis = new Redis(opts.redisUrl, { enableOfflineQueue: false, maxRetriesPerRequest: 1 });
      this.#redis.on('error', () => {});
      this.#bucket = new RedisTokenBucket(this.#redis, spec, {
        prefix: opts.keyPrefix ?? 'ap_bucket',
        clock: opts.clock && opts.clock !== systemClock ? opts.clock : undefined,
      });
      this.#insurance = new MemoryTokenBucket(spec, opts.clock ?? systemClock);
    } else {
      this.#bucket = new MemoryTokenBucket(spec, opts.clock ?? systemClock);
    }
  }

  /**
   * Takes one request from the budget, or throws platform_rate_limited. While Redis cannot answer,
   * each process keeps the same ceiling on its own (an in-memory insurance bucket).
   */
  async take(): Promise<void> {
    let allowed: boolean;
    try {
      ({ allowed } = await this.#bucket.take(PLATFORM_KEY));
    } catch (e) {
      if (!this.#insurance) throw e;
      ({ allowed } = this.#insurance.takeNow(PLATFORM_KEY));
    }
    if (!allowed) {
      throw new Problem('platform_rate_limited', {
        detail:
          'The platform is at its request ceiling (all /v1 and /mcp requests together). Retry after a second.',
        headers: { 'retry-after': '1' },
      });
    }
  }

  register(app: FastifyInstance): void {
    // Start serving once Redis is connected (or has had two seconds to connect).
    app.addHook('onReady', async () => {
      const redis = this.#redis;
      if (!redis || redis.status === 'ready') return;
      await new Promise<void>((resolve) => {
        const t = setTimeout(resolve, 2000);
        redis.once('ready', () => {
          clearTimeout(t);
          resolve();
        });
      });
    });
    // Callback-style: a request that is not metered (pages, feeds) pays no promise for it.
    app.addHook('onRequest', (req, _reply, done) => {
      if (!isMetered(req.routeOptions.url)) return done();
      this.take().then(
        () => done(),
        (err: Error) => done(err),
      );
    });
  }

  async close(): Promise<void> {
    this.#redis?.disconnect();
  }
}
