import pg from 'pg';
import type { Receiver } from './receiver.js';

export interface InvariantReport {
  accounts: number;
  /** Accounts whose balance differs from the sum of their ledger. */
  ledgerMismatches: string[];
  posts: number;
  /** Posts with more than one post_fee ledger row. */
  chargedTwice: string[];
  /** Posts with no post_fee row at all (a post that was not paid for). */
  notCharged: string[];
  /** Posts still queued (no verdict). */
  queued: string[];
  decided: number;
  deliveries: number;
  /** Deliveries not succeeded, or never seen by the receiver. */
  undelivered: string[];
  /** Decided posts for which no post.* delivery was recorded (an event that was never announced). */
  unannounced: string[];
  /** Receipts that arrived more than once (allowed: at least once). */
  duplicateReceipts: number;
  /** The first receipts whose signature did not verify (diagnostics). */
  rejectedReceipts: string[];
}

/** Reads the invariants of the issue from the database (and the receiver). */
export async function checkInvariants(databaseUrl: string, receiver?: Receiver): Promise<InvariantReport> {
  const c = new pg.Client({ connectionString: databaseUrl });
  await c.connect();
  try {
    const accounts = await c.query<{ id: string; balance: string; sum: string }>(
      `SELECT a.id, a.balance::text, coalesce((SELECT sum(amount) FROM ledger l WHERE l.account_id = a.id), 0)::text AS sum
         FROM accounts a`,
    );
    const posts = await c.query<{ id: string; status: string; fees: string; hooked: boolean }>(
      `SELECT p.id, p.status,
              (SELECT count(*) FROM ledger l WHERE l.kind = 'post_fee' AND l.reference = p.id)::text AS fees,
              EXISTS (SELECT 1 FROM webhook_endpoints e WHERE e.account_id = p.account_id AND e.deleted_at IS NULL) AS hooked
         FROM posts p`,
    );
    const deliveries = await c.query<{
      id: string;
      status: string;
      payload: string;
      attempts: number;
      last_error: string | null;
      last_status: number | null;
    }>('SELECT id, status, payload, attempts, last_error, last_status FROM webhook_deliveries');
    const announced = new Set<string>();
    for (const d of deliveries.rows) {
      const event = JSON.parse(d.payload) as { type: string; data?: { post?: { id?: string } } };
      if (event.type.startsWith('post.') && event.data?.post?.id) announced.add(event.data.post.id);
    }
    const received = receiver?.ids;
    const decided = posts.rows.filter((p) => p.status !== 'queued');
    const seen = new Map<string, number>();
    for (const r of receiver?.receipts ?? []) seen.set(r.id, (seen.get(r.id) ?? 0) + 1);
    return {
      accounts: accounts.rowCount ?? 0,
      ledgerMismatches: accounts.rows
        .filter((a) => a.balance !== a.sum)
        .map((a) => `${a.id}: ${a.balance} != ${a.sum}`),
      posts: posts.rowCount ?? 0,
      chargedTwice: posts.rows.filter((p) => Number(p.fees) > 1).map((p) => p.id),
      notCharged: posts.rows.filter((p) => Number(p.fees) === 0).map((p) => p.id),
      queued: posts.rows.filter((p) => p.status === 'queued').map((p) => p.id),
      decided: decided.length,
      deliveries: deliveries.rowCount ?? 0,
      undelivered: receiver
        ? deliveries.rows
            .filter((d) => d.status !== 'succeeded' || !received?.has(d.id))
            .map(
              (d) =>
                `${d.id} ${d.status} attempts=${d.attempts} last=${d.last_status ?? ''} ${d.last_error ?? ''}`,
            )
        : [],
      // Posts of accounts with a webhook endpoint: each verdict was put in the outbox.
      unannounced: receiver ? decided.filter((p) => p.hooked && !announced.has(p.id)).map((p) => p.id) : [],
      duplicateReceipts: [...seen.values()].filter((n) => n > 1).length,
      rejectedReceipts: receiver?.rejected.slice(0, 3) ?? [],
    };
  } finally {
    await c.end();
  }
}

/** A count query against the cluster's database. */
export async function scalar(databaseUrl: string, text: string, values: unknown[] = []): Promise<number> {
  const c = new pg.Client({ connectionString: databaseUrl });
  await c.connect();
  try {
    const r = await c.query<{ n: string }>(text, values);
    return Number(r.rows[0]?.n ?? 0);
  } finally {
    await c.end();
  }
}
