import { sql } from 'drizzle-orm';
import PgBoss from 'pg-boss';
import type { JobName, JobPayloads, JobSender, SendOptions } from '../core/jobs.js';
import { type Database, type Executor, executorFor, queryRows } from '../db/client.js';

export const JOB_NAMES: JobName[] = ['moderate', 'deliver-webhook', 'sweep', 'site-rebuild'];

/** Queue options by kind. `short`: at most one waiting job per singleton key (site rebuilds merge into it). */
const QUEUE_POLICIES: Partial<Record<JobName, 'short'>> = { 'site-rebuild': 'short' };

/** The channel on which `send` announces a job (NOTIFY is delivered when the sender commits). */
export const JOBS_CHANNEL = 'agentpress_jobs';

/** A fetched job: its id and payload. */
export interface FetchedJob<N extends JobName> {
  id: string;
  data: JobPayloads[N];
}

/**
 * Jobs are rows in the same database (pg-boss). `send` takes the transaction that causes the
 * job, so the state change and its job commit together or not at all, and announces it on
 * JOBS_CHANNEL in the same transaction, so workers hear of it the moment it commits (no poll).
 */
export class JobQueue implements JobSender {
  readonly boss: PgBoss;
  #started = false;

  constructor(
    readonly database: Database,
    opts: { supervise: boolean },
  ) {
    const common = { schema: 'pgboss', supervise: opts.supervise, schedule: false, migrate: true } as const;
    this.boss =
      database.kind === 'postgres'
        ? new PgBoss({ ...common, connectionString: database.connectionString, max: 4 })
        : new PgBoss({ ...common, db: database.sqlExecutor });
  }

  async start(onError: (err: Error) => void): Promise<void> {
    this.boss.on('error', onError);
    await this.boss.start();
    for (const name of JOB_NAMES) await this.#ensureQueue(name);
    this.#started = true;
  }

  /**
   * Several processes starting at once on a new database all create the queues; PostgreSQL may
   * pick one of them as a deadlock victim (40P01) or report the row another just inserted (23505).
   * Either way the queue exists or will in a moment: look again and retry.
   */
  async #ensureQueue(name: JobName, attempt = 1): Promise<void> {
    if (await this.boss.getQueue(name)) return;
    const policy = QUEUE_POLICIES[name];
    try {
      await this.boss.createQueue(name, policy ? { name, policy } : undefined);
    } catch (err) {
      const code = (err as { code?: string }).code;
      if (attempt >= 8 || (code !== '40P01' && code !== '23505' && code !== '40001')) throw err;
      await new Promise((r) => setTimeout(r, 50 + Math.random() * 200 * attempt));
      await this.#ensureQueue(name, attempt + 1);
    }
  }

  async send<N extends JobName>(
    exec: Executor,
    name: N,
    data: JobPayloads[N],
    options: SendOptions = {},
  ): Promise<string | null> {
    const db = executorFor(exec);
    const id = await this.boss.send(name, data, { ...options, db });
    // Sent even for a later start: a worker that hears it learns the queue's next due time.
    if (id !== null) await db.executeSql('SELECT pg_notify($1, $2)', [JOBS_CHANNEL, name]);
    return id;
  }

  /**
   * Calls `onJob(name)` whenever a job of that kind is committed, and `onMissed()` when the
   * listening connection was lost and is back (announcements may have been missed meanwhile).
   */
  listen(onJob: (name: JobName) => void, onMissed: () => void): Promise<() => Promise<void>> {
    return this.database.listen(
      JOBS_CHANNEL,
      (payload) => {
        if ((JOB_NAMES as string[]).includes(payload)) onJob(payload as JobName);
      },
      onMissed,
    );
  }

  /** Takes up to `max` due jobs of one kind (they become active: no one else gets them). */
  async fetch<N extends JobName>(name: N, max: number): Promise<FetchedJob<N>[]> {
    const jobs = await this.boss.fetch<JobPayloads[N]>(name, { batchSize: max });
    return jobs.map((j) => ({ id: j.id, data: j.data }));
  }

  complete(name: JobName, ids: string[]): Promise<void> {
    return this.boss.complete(name, ids);
  }

  fail(name: JobName, id: string, err: unknown): Promise<void> {
    return this.boss.fail(name, id, { message: err instanceof Error ? err.message : String(err) });
  }

  /** When the earliest waiting job of this kind becomes due (null: none waits). */
  async nextDue(name: JobName): Promise<Date | null> {
    const rows = await queryRows<{ at: Date | string | null }>(
      this.database.db,
      sql`SELECT min(start_after) AS at FROM pgboss.job WHERE name = ${name} AND state < 'active'`,
    );
    const at = rows[0]?.at;
    return at ? new Date(at) : null;
  }

  async stop(): Promise<void> {
    if (!this.#started) return;
    this.#started = false;
    await this.boss.stop({ graceful: true, wait: true, timeout: 10_000 });
  }
}
