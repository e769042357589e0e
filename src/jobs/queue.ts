import PgBoss from 'pg-boss';
import type { JobName, JobPayloads, JobSender, SendOptions } from '../core/jobs.js';
import { type Database, type Executor, executorFor } from '../db/client.js';

export const JOB_NAMES: JobName[] = ['moderate', 'deliver-webhook', 'sweep', 'site-rebuild'];

/** Queue options by kind. `short`: at most one waiting job per singleton key (site rebuilds merge into it). */
const QUEUE_POLICIES: Partial<Record<JobName, 'short'>> = { 'site-rebuild': 'short' };

/**
 * Jobs are rows in the same database (pg-boss). `send` takes the transaction that causes the
 * job, so the state change and its job commit together or not at all.
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
    return this.boss.send(name, data, { ...options, db: executorFor(exec) });
  }

  /** Polls for jobs; each fetched batch runs concurrently (one slow job does not hold up the rest). */
  async work<N extends JobName>(
    name: N,
    handler: (data: JobPayloads[N], job: { id: string }) => Promise<void>,
    opts: { batchSize?: number; pollingIntervalSeconds?: number } = {},
  ): Promise<string> {
    return this.boss.work<JobPayloads[N]>(
      name,
      { batchSize: opts.batchSize ?? 1, pollingIntervalSeconds: opts.pollingIntervalSeconds ?? 0.5 },
      async (jobs) => {
        const results = await Promise.allSettled(jobs.map((job) => handler(job.data, { id: job.id })));
        const failed = results.find((r) => r.status === 'rejected');
        if (failed) throw (failed as PromiseRejectedResult).reason;
      },
    );
  }

  async stop(): Promise<void> {
    if (!this.#started) return;
    this.#started = false;
    await this.boss.stop({ graceful: true, wait: true, timeout: 10_000 });
  }
}
