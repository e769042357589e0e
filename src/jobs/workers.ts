import type { Logger } from '../core/context.js';
import type { JobName, JobPayloads } from '../core/jobs.js';
import type { ModelLifecycle } from '../core/moderation/lifecycle.js';
import type { ModerationService } from '../core/moderation/moderation.js';
import type { Idempotency } from '../core/posts/idempotency.js';
import type { WebhookDelivery } from '../core/webhooks/delivery.js';
import type { SiteBuilder } from '../web/site-build.js';
import type { JobQueue } from './queue.js';

/** What the workers call (the composition root passes its services; names as there). */
export interface WorkerServices {
  moderation: Pick<ModerationService, 'handle' | 'runDue'>;
  delivery: Pick<WebhookDelivery, 'deliver' | 'runDue'>;
  lifecycle: Pick<ModelLifecycle, 'startControl' | 'stopControl' | 'sweep'>;
  posts: { idempotency: Pick<Idempotency, 'sweep'> };
  /** The site builder (src/web/site-build.ts). */
  siteBuilder: Pick<SiteBuilder, 'build'>;
}

type Handlers = { [N in JobName]?: (data: JobPayloads[N]) => Promise<unknown> };

export const SWEEP_INTERVAL_MS = 15_000;

/** The `work` role: one handler per job kind, all calling core, plus a periodic sweep. */
export class Workers {
  readonly handlers: Handlers;
  #sweepTimer: NodeJS.Timeout | undefined;
  readonly #sweepIntervalMs: number;

  constructor(
    private readonly jobs: JobQueue,
    private readonly log: Logger,
    private readonly services: WorkerServices,
    opts: { sweepIntervalMs?: number } = {},
  ) {
    this.#sweepIntervalMs = opts.sweepIntervalMs ?? SWEEP_INTERVAL_MS;
    this.handlers = {
      moderate: (d) => services.moderation.handle(d.post_id),
      'deliver-webhook': (d) => services.delivery.deliver(d.delivery_id),
      sweep: () => this.sweep(),
      'site-rebuild': (d) => services.siteBuilder.build(d.site, d.paths),
    };
  }

  async start(): Promise<void> {
    // pg-boss waits a polling interval between fetches, so throughput is pollers x batch / 0.5 s.
    const pollers: Partial<Record<JobName, number>> = { moderate: 2, 'deliver-webhook': 4 };
    const batch: Partial<Record<JobName, number>> = { moderate: 4, 'deliver-webhook': 16 };
    for (const name of Object.keys(this.handlers) as JobName[]) {
      const handler = this.handlers[name] as (d: unknown) => Promise<unknown>;
      // Several pollers per kind: a slow webhook receiver never holds up the others.
      for (let i = 0; i < (pollers[name] ?? 1); i++) {
        await this.jobs.work(
          name,
          async (data) => {
            try {
              await handler(data);
            } catch (err) {
              this.log.error({ err, job: name }, 'job failed; it will be retried');
              throw err;
            }
          },
          { batchSize: batch[name] ?? 1 },
        );
      }
    }
    this.#sweepTimer = setInterval(() => {
      this.sweep().catch((err) => this.log.error({ err }, 'sweep failed'));
    }, this.#sweepIntervalMs);
    this.#sweepTimer.unref();
    // A real model server (MODERATOR=openai) is started, probed and stopped by one worker at a time.
    this.services.lifecycle.startControl();
  }

  stop(): void {
    if (this.#sweepTimer) clearInterval(this.#sweepTimer);
    this.services.lifecycle
      .stopControl()
      .catch((err) => this.log.error({ err }, 'stopping the model server controller failed'));
  }

  /** Housekeeping that needs no trigger: due webhook retries, model scale-to-zero, expired idempotency keys. */
  async sweep(): Promise<void> {
    const idempotency = this.services.posts.idempotency;
    await this.services.delivery.runDue();
    await this.services.moderation.runDue();
    await this.services.lifecycle.sweep(this.jobs.database.db);
    await idempotency.sweep();
  }

  /** Runs every job that is due now, in this process, until none is left (tests). */
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
