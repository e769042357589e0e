/**
 * Prometheus metrics (prom-client), one registry per platform. Requests are counted and timed in
 * this process; queue depths, posts, deliveries, charges and moderation latency are read from the
 * database at scrape time (src/core/metrics.ts), so every `serve` process reports the cluster.
 */
import { Counter, collectDefaultMetrics, Gauge, Histogram, Registry } from 'prom-client';
import type { Clock } from './core/clock.js';
import { type OperationalFigures, readOperationalFigures } from './core/metrics.js';
import type { Db } from './db/client.js';

/** A scrape reads the database at most this often (several scrapers, one query set). */
const FIGURES_TTL_MS = 2_000;

export class Metrics {
  readonly registry = new Registry();
  readonly #requests: Counter<'method' | 'route' | 'status'>;
  readonly #duration: Histogram<'method' | 'route'>;
  #figures: { at: number; value: Promise<OperationalFigures> } | undefined;
  #processMetrics = false;

  constructor(
    private readonly db: Db,
    private readonly clock: Clock,
  ) {
    const registers = [this.registry];
    this.#requests = new Counter({
      name: 'agentpress_http_requests_total',
      help: 'HTTP requests answered by this process, by route template and status code.',
      labelNames: ['method', 'route', 'status'],
      registers,
    });
    this.#duration = new Histogram({
      name: 'agentpress_http_request_duration_seconds',
      help: 'Time to answer an HTTP request in this process, by route template.',
      labelNames: ['method', 'route'],
      buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
      registers,
    });
    const figure = <L extends string>(
      name: string,
      help: string,
      labelNames: L[],
      fill: (g: Gauge<L>, f: OperationalFigures) => void,
    ) =>
      new Gauge<L>({
        name,
        help,
        labelNames,
        registers,
        collect: async function (this: Gauge<L>) {
          this.reset();
          fill(this, await self.figures());
        },
      });
    const self = this;
    figure(
      'agentpress_queue_jobs',
      'Jobs waiting or running, by queue and state.',
      ['queue', 'state'],
      (g, f) => {
        for (const r of f.queues) g.set({ queue: r.queue, state: r.state }, r.n);
      },
    );
    figure('agentpress_posts', 'Posts by status.', ['status'], (g, f) => {
      for (const r of f.posts) g.set({ status: r.status }, r.n);
    });
    figure('agentpress_webhook_deliveries', 'Webhook deliveries by status.', ['status'], (g, f) => {
      for (const r of f.deliveries) g.set({ status: r.status }, r.n);
    });
    figure(
      'agentpress_ledger_entries',
      'Ledger entries (charges, refunds, top-ups) by kind.',
      ['kind'],
      (g, f) => {
        for (const r of f.ledger) g.set({ kind: r.kind }, r.n);
      },
    );
    figure(
      'agentpress_ledger_amount_micros',
      'Signed sum of ledger entries by kind, in micro-dollars.',
      ['kind'],
      (g, f) => {
        for (const r of f.ledger) g.set({ kind: r.kind }, r.amount);
      },
    );
    figure(
      'agentpress_moderation_latency_seconds',
      'Queued-to-verdict time of posts decided in the last hour (quantile), and how many.',
      ['quantile'],
      (g, f) => {
        g.set({ quantile: '0.5' }, f.moderation.p50);
        g.set({ quantile: '0.9' }, f.moderation.p90);
        g.set({ quantile: '0.99' }, f.moderation.p99);
      },
    );
    figure('agentpress_moderation_decided_last_hour', 'Posts decided in the last hour.', [], (g, f) => {
      g.set(f.moderation.decided);
    });
  }

  /** Node.js process metrics (memory, event loop, GC): once per process, by the CLI. */
  collectProcessMetrics(): void {
    if (this.#processMetrics) return;
    this.#processMetrics = true;
    collectDefaultMetrics({ register: this.registry, prefix: 'agentpress_' });
  }

  /** Per-request: the labelled series are looked up once per method, route and status (prom-client
   *  hashes the labels on every unlabelled call), so a request pays two increments. */
  observeRequest(method: string, route: string, status: number, seconds: number): void {
    const key = `${method} ${status} ${route}`;
    let series = this.#series.get(key);
    if (!series) {
      series = {
        count: this.#requests.labels(method, route, String(status)),
        duration: this.#duration.labels(method, route),
      };
      this.#series.set(key, series);
    }
    series.count.inc();
    series.duration.observe(seconds);
  }
  readonly #series = new Map<
    string,
    { count: { inc(): void }; duration: { observe(value: number): void } }
  >();

  private figures(): Promise<OperationalFigures> {
    const now = performance.now();
    if (this.#figures && now - this.#figures.at < FIGURES_TTL_MS) return this.#figures.value;
    const value = readOperationalFigures(this.db, this.clock.now());
    this.#figures = { at: now, value };
    value.catch(() => {
      this.#figures = undefined;
    });
    return value;
  }

  async render(): Promise<{ contentType: string; body: string }> {
    return { contentType: this.registry.contentType, body: await this.registry.metrics() };
  }
}
