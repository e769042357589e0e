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

/** The label columns of each set of rows in the figures (the other columns are values). */
const ROW_LABELS = {
  queues: ['queue', 'state'],
  posts: ['status'],
  deliveries: ['status'],
  ledger: ['kind'],
};
type RowSet = keyof typeof ROW_LABELS;

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
    /** A gauge with one series per row of `set`: labelled by its label columns, valued by `value`. */
    const perRow = <K extends RowSet>(
      name: string,
      help: string,
      set: K,
      value: (row: OperationalFigures[K][number]) => number = (row) => row.n,
    ) => {
      const labels = ROW_LABELS[set];
      figure(name, help, labels, (g, f) => {
        for (const row of f[set]) {
          const columns: Record<string, unknown> = row;
          g.set(Object.fromEntries(labels.map((l) => [l, String(columns[l])])), value(row));
        }
      });
    };
    perRow('agentpress_queue_jobs', 'Jobs waiting or running, by queue and state.', 'queues');
    perRow('agentpress_posts', 'Posts by status.', 'posts');
    perRow('agentpress_webhook_deliveries', 'Webhook deliveries by status.', 'deliveries');
    perRow('agentpress_ledger_entries', 'Ledger entries (charges, refunds, top-ups) by kind.', 'ledger');
    perRow(
      'agentpress_ledger_amount_micros',
      'Signed sum of ledger entries by kind, in micro-dollars.',
      'ledger',
      (row) => row.amount,
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
