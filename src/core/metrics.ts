/**
 * Operational figures read from the database, so that any `serve` process reports the truth of
 * the whole cluster (jobs run in `work` processes that have no HTTP face): queue depths, posts
 * by status, webhook deliveries by outcome, charges by kind, and moderation latency (queued to
 * verdict) over the last hour. src/metrics.ts exposes them to Prometheus.
 */
import { sql } from 'drizzle-orm';
import { type Db, queryRows } from '../db/client.js';

export interface OperationalFigures {
  /** pg-boss jobs by queue and state (created, retry, active; finished jobs are not counted). */
  queues: { queue: string; state: string; n: number }[];
  posts: { status: string; n: number }[];
  deliveries: { status: string; n: number }[];
  /** Ledger rows by kind: how many and their signed sum in micro-dollars. */
  ledger: { kind: string; n: number; amount: number }[];
  /** Seconds from queued to verdict for posts decided in the last hour. */
  moderation: { decided: number; p50: number; p90: number; p99: number };
}

export async function readOperationalFigures(db: Db, now: Date): Promise<OperationalFigures> {
  const hourAgo = new Date(now.getTime() - 3_600_000).toISOString();
  const [queues, postRows, deliveries, ledger, moderation] = await Promise.all([
    queryRows<{ queue: string; state: string; n: string }>(
      db,
      sql`SELECT name AS queue, state::text AS state, count(*) AS n FROM pgboss.job
          WHERE state IN ('created', 'retry', 'active') GROUP BY name, state`,
    ),
    queryRows<{ status: string; n: string }>(
      db,
      sql`SELECT status, count(*) AS n FROM posts GROUP BY status`,
    ),
    queryRows<{ status: string; n: string }>(
      db,
      sql`SELECT status, count(*) AS n FROM webhook_deliveries GROUP BY status`,
    ),
    queryRows<{ kind: string; n: string; amount: string }>(
      db,
      sql`SELECT kind, count(*) AS n, coalesce(sum(amount), 0) AS amount FROM ledger GROUP BY kind`,
    ),
    queryRows<{ decided: string; p50: number | null; p90: number | null; p99: number | null }>(
      db,
      sql`SELECT count(*) AS decided,
            percentile_cont(0.5) WITHIN GROUP (ORDER BY extract(epoch FROM decided_at - created_at)) AS p50,
            percentile_cont(0.9) WITHIN GROUP (ORDER BY extract(epoch FROM decided_at - created_at)) AS p90,
            percentile_cont(0.99) WITHIN GROUP (ORDER BY extract(epoch FROM decided_at - created_at)) AS p99
          FROM posts WHERE decided_at IS NOT NULL AND decided_at >= ${hourAgo}::timestamptz`,
    ),
  ]);
  const m = moderation[0];
  return {
    queues: queues.map((r) => ({ queue: r.queue, state: r.state, n: Number(r.n) })),
    posts: postRows.map((r) => ({ status: r.status, n: Number(r.n) })),
    deliveries: deliveries.map((r) => ({ status: r.status, n: Number(r.n) })),
    ledger: ledger.map((r) => ({ kind: r.kind, n: Number(r.n), amount: Number(r.amount) })),
    moderation: {
      decided: Number(m?.decided ?? 0),
      p50: Number(m?.p50 ?? 0),
      p90: Number(m?.p90 ?? 0),
      p99: Number(m?.p99 ?? 0),
    },
  };
}
