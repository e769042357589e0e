import type { FastifyInstance } from 'fastify';
import { Redis } from 'ioredis';
import {
  BurstyRateLimiter,
  type RateLimiterAbstract,
  RateLimiterMemory,
  RateLimiterRedis,
} from 'rate-limiter-flexible';
import { Problem } from '../core/problems.js';

export interface CeilingOptions {
  rate: number;
  burst: number;
  redisUrl?: string | undefined;
}

/** Paths under the platform ceiling: the API and MCP. Pages, feeds and JSON files never are. */
export const isMetered = (url: string) =>
  url.startsWith('/v1/') || url === '/mcp' || url.startsWith('/mcp?') || url.startsWith('/mcp/');

/**
 * The platform ceiling: all /v1/* and /mcp requests together at `rate` per second with bursts of
 * `burst`, as rate-limiter-flexible documents it (a per-second limiter plus a burst limiter).
 * In process by default; shared by every process through Redis when REDIS_URL is set.
 */
export class PlatformCeiling {
  readonly #limiter: BurstyRateLimiter;
  readonly #redis: Redis | undefined;

  constructor(opts: CeilingOptions) {
    const extra = Math.max(0, opts.burst - opts.rate);
    let perSecond: RateLimiterAbstract;
    let burst: RateLimiterAbstract;
    if (opts.redisUrl) {
      this.#redis = new Redis(opts.redisUrl, { enableOfflineQueue: false, maxRetriesPerRequest: 1 });
      this.#redis.on('error', () => {});
      perSecond = new RateLimiterRedis({
        storeClient: this.#redis,
        keyPrefix: 'ap_ceiling',
        points: opts.rate,
        duration: 1,
      });
      burst = new RateLimiterRedis({
        storeClient: this.#redis,
        keyPrefix: 'ap_burst',
        points: Math.max(1, extra),
        duration: 10,
      });
    } else {
      perSecond = new RateLimiterMemory({ keyPrefix: 'ap_ceiling', points: opts.rate, duration: 1 });
      burst = new RateLimiterMemory({ keyPrefix: 'ap_burst', points: Math.max(1, extra), duration: 10 });
    }
    this.#limiter = new BurstyRateLimiter(perSecond, burst);
  }

  /** Takes one request from the budget, or throws platform_rate_limited. A store failure lets the request through. */
  async take(): Promise<void> {
    try {
      await this.#limiter.consume('platform', 1);
    } catch (e) {
      if (e instanceof Error) return; // Redis down: availability over the ceiling.
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
    app.addHook('onRequest', async (req) => {
      if (isMetered(req.url)) await this.take();
    });
  }

  async close(): Promise<void> {
    this.#redis?.disconnect();
  }
}
