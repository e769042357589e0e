import { sql } from 'drizzle-orm';
import { queryRows } from '../../src/db/client.js';
import type { TestEnv } from './harness.js';

export interface PendingRebuild {
  id: string;
  singleton_key: string;
  start_after: Date;
  data: { site: string; paths: string[] };
}

/** Site rebuild jobs waiting to run (debounced ones and those scheduled for an expiry). */
export async function pendingRebuilds(env: TestEnv): Promise<PendingRebuild[]> {
  const rows = await queryRows<PendingRebuild>(
    env.platform.database.db,
    sql`select id, singleton_key, start_after, data from pgboss.job
         where name = 'site-rebuild' and state in ('created', 'retry') order by created_on`,
  );
  return rows.map((r) => ({ ...r, start_after: new Date(r.start_after) }));
}

/**
 * Runs the waiting debounced rebuilds now (what the worker does DELAY seconds later), without
 * sleeping: their start time is moved to now, then the queue is drained in this process.
 * `expiry: true` also runs the rebuilds scheduled for an ad's expiry or an event's end.
 */
export async function runRebuilds(env: TestEnv, opts: { expiry?: boolean } = {}): Promise<number> {
  await makeDue(env, opts);
  return env.platform.workers.drain('site-rebuild');
}

/** Moves the waiting rebuilds' start time to now (the delay has passed), without running them. */
export async function makeDue(env: TestEnv, opts: { expiry?: boolean } = {}): Promise<void> {
  await queryRows(
    env.platform.database.db,
    sql`update pgboss.job set start_after = now() - interval '1 second'
         where name = 'site-rebuild' and state in ('created', 'retry')
           and (singleton_key like 'site:%' or ${opts.expiry === true})
         returning id`,
  );
}
