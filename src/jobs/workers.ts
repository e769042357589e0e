import type { Logger } from '../core/context.js';
import type { ModerationService } from '../core/moderation/moderation.js';
import type { JobName, JobPayloads, JobQueue } from './queue.js';

type Handlers = { [N in JobName]?: (data: JobPayloads[N]) => Promise<unknown> };

/** The `work` role: one handler per job kind, all calling core. */
export class Workers {
  readonly handlers: Handlers;

  constructor(
    private readonly jobs: JobQueue,
    private readonly log: Logger,
    moderation: ModerationService,
  ) {
    this.handlers = {
      moderate: (d) => moderation.handle(d.post_id),
    };
  }

  async start(): Promise<void> {
    for (const name of Object.keys(this.handlers) as JobName[]) {
      const handler = this.handlers[name] as (d: unknown) => Promise<unknown>;
      await this.jobs.work(
        name,
        async (data) => {
          try {
            await handler(data);
          } catch (err) {
            this.log.error({ err, job: name }, 'job failed; pg-boss will retry it');
            throw err;
          }
        },
        { batchSize: name === 'moderate' ? 4 : 1 },
      );
    }
  }

  /** Runs every job that is due now, in this process, until none is left (tests and `work --once`). */
  async drain(name: JobName, max = 1000): Promise<number> {
    const handler = this.handlers[name] as ((d: unknown) => Promise<unknown>) | undefined;
    if (!handler) return 0;
    let n = 0;
    while (n < max) {
      const jobs = await this.jobs.boss.fetch<unknown>(name, { batchSize: 10 });
      if (!jobs || jobs.length === 0) break;
      for (const job of jobs) {
        try {
          await handler(job.data);
          await this.jobs.boss.complete(name, job.id);
        } catch (err) {
          await this.jobs.boss.fail(name, job.id, { message: String(err) });
          throw err;
        }
        n++;
      }
    }
    return n;
  }
}
