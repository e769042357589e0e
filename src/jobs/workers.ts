import type { Logger } from '../core/context.js';
import type { JobName, JobPayloads } from '../core/jobs.js';
import type { ModelLifecycle } from '../core/moderation/lifecycle.js';
import type { ModerationService } from '../core/moderation/moderation.js';
import type { Idempotency } from '../core/posts/idempotency.js';
import type { WebhookDelivery } from '../core/webhooks/delivery.js';
import type { SiteBuilder } from '../web/site-build.js';
import { Dispatcher, type DispatchOptions } from './dispatcher.js';
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
/** Workers are woken by announcements; this poll is only the safety net for a missed one. */
export const POLL_INTERVAL_MS = 5_000;

/**
 * How each kind runs in one `work` process. Deliveries: 64 at once, at most 8 per endpoint (a
 * receiver that takes the full 15 s timeout slows only its own deliveries), and at most 200
 * waiting per endpoint before the rest are put back for a second.
 */
export const DELIVERY_CONCURRENCY = 64;
const DISPATCH: { [N in JobName]: Omit<DispatchOptions<N>, 'pollMs'> } = {
  moderate: { concurrency: 4 },
  'deliver-webhook': {
    concurrency: DELIVERY_CONCURRENCY,
    maxHeld: 2_000,
    keyOf: (d) => d.endpoint_id,
    perKey: 8,
    perKeyWaiting: 200,
    deferMs: 1_000,
    deferRetryLimit: 0,
  },
  sweep: { concurrency: 1 },
  'site-rebuild': { concurrency: 1 },
};

/** The `work` role: one handler per job kind, all calling core, plus a periodic sweep. */
export class Workers {
  readonly handlers: Handlers;
  #sweepTimer: NodeJS.Timeout | undefined;
  readonly #sweepIntervalMs: number;
  readonly #pollMs: number;
  readonly #dispatchers = new Map<JobName, Dispatcher<JobName>>();
  #unlisten: (() => Promise<void>) | undefined;

  constructor(
    private readonly jobs: JobQueue,
    private readonly log: Logger,
    private readonly services: WorkerServices,
    opts: { sweepIntervalMs?: number; pollMs?: number } = {},
  ) {
    this.#sweepIntervalMs = opts.sweepIntervalMs ?? SWEEP_INTERVAL_MS;
    this.#pollMs = opts.pollMs ?? POLL_INTERVAL_MS;
    this.handlers = {
      moderate: (d) => services.moderation.handle(d.post_id),
      'deliver-webhook': (d) => services.delivery.deliver(d.delivery_id),
      sweep: () => this.sweep(),
      'site-rebuild': (d) => services.siteBuilder.build(d.site, d.paths),
    };
  }

  async start(): Promise<void> {
    for (const name of Object.keys(this.handlers) as JobName[]) {
      const handler = this.handlers[name] as (d: unknown) => Promise<unknown>;
      const options = { ...DISPATCH[name], pollMs: this.#pollMs } as DispatchOptions<JobName>;
      this.#dispatchers.set(name, new Dispatcher(this.jobs, name, handler, this.log, options));
    }
    // Listen before the first look, so nothing committed in between goes unheard.
    this.#unlisten = await this.jobs.listen(
      (name) => this.#dispatchers.get(name)?.wake(),
      () => {
        for (const d of this.#dispatchers.values()) d.wake();
      },
    );
    for (const d of this.#dispatchers.values()) d.start();
    this.#sweepTimer = setInterval(() => {
      this.sweep().catch((err) => this.log.error({ err }, 'sweep failed'));
    }, this.#sweepIntervalMs);
    this.#sweepTimer.unref();
    // A real model server (MODERATOR=openai) is started, probed and stopped by one worker at a time.
    this.services.lifecycle.startControl();
  }

  /** The dispatcher of one kind (tests and metrics). */
  dispatcher(name: JobName): Dispatcher<JobName> | undefined {
    return this.#dispatchers.get(name);
  }

  /** Stops taking jobs and waits for the running ones (at most 10 s). */
  async stop(): Promise<void> {
    if (this.#sweepTimer) clearInterval(this.#sweepTimer);
    await this.#unlisten?.();
    this.#unlisten = undefined;
    await Promise.all([...this.#dispatchers.values()].map((d) => d.stop()));
    this.#dispatchers.clear();
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
      const jobs = await this.jobs.fetch(name, 10);
      if (jobs.length === 0) break;
      for (const job of jobs) {
        try {
          await handler(job.data);
          await this.jobs.complete(name, [job.id]);
        } catch (err) {
          await this.jobs.fail(name, job.id, err);
          throw err;
        }
        n++;
      }
    }
    return n;
  }
}
