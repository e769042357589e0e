import { eq, sql } from 'drizzle-orm';
import type { Executor } from '../../db/client.js';
import { serviceState } from '../../db/schema.js';
import type { Clock } from '../clock.js';
import type { Logger } from '../context.js';
import { ProcessModelServer } from './model-server.js';
import { ServerLifecycle } from './server-lifecycle.js';

export type ModelState = 'idle' | 'starting' | 'running';

interface Stored {
  state: ModelState;
  ready_at: string | null;
  last_used_at: string | null;
  /** Measured seconds per decision (moving average); seeds the estimates. */
  seconds_per_post: number;
  /** Measured seconds the last cold start took. */
  start_seconds: number;
}

export interface LifecycleOptions {
  /** Emulated (local) or expected (openai) cold-start time. */
  startSeconds: number;
  /** Scale to zero after this long without work. */
  idleSeconds: number;
}

export interface Estimate {
  state: 'running' | 'starting';
  estimated_decision_at: string;
  retry_after_seconds: number;
}

const ROW = 'moderation_model';

/**
 * The moderation model scales to zero: idle until a post arrives, then starting (cold start),
 * then running until it has been idle for `idleSeconds`. The state lives in the database so
 * every process reports the same thing.
 *
 * Two ways to know the state. Emulated (MODERATOR=local, the embedded default): the times are
 * counted (a start takes `startSeconds`). Observed (MODERATOR=openai, `server` given): a real
 * server is started, probed and stopped, and the state is what the probe saw
 * (server-lifecycle.ts); every method below then defers to it.
 */
export class ModelLifecycle {
  constructor(
    private readonly clock: Clock,
    private readonly opts: LifecycleOptions,
    /** The real model server's lifecycle; absent: emulated. */
    readonly server?: ServerLifecycle,
  ) {}

  /** Runs the controller that starts, probes and stops a real server (the `work` role). */
  startControl(): void {
    this.server?.startLoop();
  }

  /** Stops the controller of this process; the server itself is left to the next controller. */
  async stopControl(): Promise<void> {
    await this.server?.stopLoop();
  }

  private seed(): Stored {
    return {
      state: 'idle',
      ready_at: null,
      last_used_at: null,
      seconds_per_post: 2,
      start_seconds: this.opts.startSeconds,
    };
  }

  async read(exec: Executor): Promise<Stored> {
    const [row] = await exec.select().from(serviceState).where(eq(serviceState.name, ROW));
    return { ...this.seed(), ...((row?.value as Partial<Stored> | undefined) ?? {}) };
  }

  private async write(exec: Executor, value: Stored): Promise<void> {
    await exec
      .insert(serviceState)
      .values({ name: ROW, value: value as unknown as Record<string, unknown>, updatedAt: this.clock.now() })
      .onConflictDoUpdate({
        target: serviceState.name,
        set: { value: sql`excluded.value`, updatedAt: sql`excluded.updated_at` },
      });
  }

  /** The state as of now: a start whose time has come is running; a long-unused model is idle. */
  current(s: Stored): ModelState {
    const now = this.clock.now().getTime();
    if (s.state === 'starting' && s.ready_at && Date.parse(s.ready_at) <= now) return 'running';
    if (
      s.state === 'running' &&
      s.last_used_at &&
      now - Date.parse(s.last_used_at) > this.opts.idleSeconds * 1000
    ) {
      return 'idle';
    }
    return s.state;
  }

  async state(exec: Executor): Promise<ModelState> {
    if (this.server) return this.server.state(exec);
    return this.current(await this.read(exec));
  }

  /** Called in the transaction that queues a post: wakes the model and says when to expect a decision. */
  async wake(tx: Executor, queuedAhead: number): Promise<Estimate> {
    if (this.server) return this.server.wake(tx, queuedAhead);
    const s = await this.read(tx);
    const now = this.clock.now();
    let state = this.current(s);
    const before = s.state;
    if (state === 'idle') {
      s.state = 'starting';
      s.ready_at = new Date(now.getTime() + s.start_seconds * 1000).toISOString();
      state = 'starting';
    } else if (state === 'running' && s.state !== 'running') {
      s.state = 'running';
    }
    // Every post passes here: write only when something changed, so posts do not queue on this row.
    const lastUsed = s.last_used_at ? Date.parse(s.last_used_at) : 0;
    if (s.state !== before || now.getTime() - lastUsed > 5000) {
      s.last_used_at = now.toISOString();
      await this.write(tx, s);
    }
    return this.estimateFrom(s, state, queuedAhead);
  }

  /** When a post with `queuedAhead` posts before it can expect its decision (read only). */
  async estimate(exec: Executor, queuedAhead: number): Promise<Estimate> {
    if (this.server) return this.server.estimate(exec, queuedAhead);
    const s = await this.read(exec);
    const state = this.current(s);
    return this.estimateFrom(s, state === 'idle' ? 'starting' : state, queuedAhead);
  }

  private estimateFrom(s: Stored, state: ModelState, queuedAhead: number): Estimate {
    const now = this.clock.now().getTime();
    const startWait =
      state === 'starting'
        ? s.ready_at
          ? Math.max(0, (Date.parse(s.ready_at) - now) / 1000)
          : s.start_seconds
        : 0;
    const seconds = Math.max(1, Math.ceil(startWait + (queuedAhead + 1) * s.seconds_per_post));
    return {
      state: state === 'running' ? 'running' : 'starting',
      estimated_decision_at: new Date(now + seconds * 1000).toISOString(),
      retry_after_seconds: seconds,
    };
  }

  /** Seconds until the model can take work (0 when running); wakes an idle model. */
  async readyIn(exec: Executor): Promise<number> {
    if (this.server) return this.server.readyIn(exec);
    const s = await this.read(exec);
    const state = this.current(s);
    if (state === 'running') return 0;
    if (state === 'idle') return secondsFromEstimate(await this.wake(exec, 0), s.seconds_per_post);
    return Math.max(0, (Date.parse(s.ready_at ?? '') - this.clock.now().getTime()) / 1000);
  }

  /** After a decision: the model is running, and its measured pace updates the estimates. */
  async recordDecision(exec: Executor, seconds: number): Promise<void> {
    if (this.server) return this.server.recordDecision(exec, seconds);
    const s = await this.read(exec);
    s.state = 'running';
    s.last_used_at = this.clock.now().toISOString();
    s.seconds_per_post = Math.max(0.05, s.seconds_per_post * 0.8 + seconds * 0.2);
    await this.write(exec, s);
  }

  /** The sweep scales an unused model to zero (a real server: one step of its controller). */
  async sweep(exec: Executor): Promise<ModelState> {
    if (this.server) {
      await this.server.tick();
      return this.server.state(exec);
    }
    const s = await this.read(exec);
    const state = this.current(s);
    if (state !== s.state) {
      s.state = state;
      if (state === 'idle') s.ready_at = null;
      await this.write(exec, s);
    }
    return state;
  }
}

function secondsFromEstimate(e: Estimate, perPost: number): number {
  return e.state === 'running' ? 0 : Math.max(0, e.retry_after_seconds - perPost);
}

/** The settings the model lifecycle reads; src/config.ts's Config extends this interface. */
export interface LifecycleConfig {
  moderator: 'local' | 'openai';
  moderatorUrl: string | undefined;
  moderatorApiKey: string | undefined;
  moderatorStartSeconds: number;
  moderatorIdleSeconds: number;
  /** MODERATOR=openai: start (a shell command run detached, or a URL POSTed), stop (likewise), probe. */
  moderatorStartCommand: string | undefined;
  moderatorStartUrl: string | undefined;
  moderatorStopCommand: string | undefined;
  moderatorStopUrl: string | undefined;
  /** GET, 2xx = ready; default MODERATOR_URL + /models. */
  moderatorHealthUrl: string | undefined;
  moderatorStartTimeoutSeconds: number;
  moderatorStartRetrySeconds: number;
  moderatorProbeSeconds: number;
}

/** Emulated with MODERATOR=local; with MODERATOR=openai, a real server started, probed and stopped. */
export function modelLifecycle(
  config: LifecycleConfig,
  clock: Clock,
  db: Executor,
  log: Logger,
): ModelLifecycle {
  const opts = { startSeconds: config.moderatorStartSeconds, idleSeconds: config.moderatorIdleSeconds };
  if (config.moderator !== 'openai' || !config.moderatorUrl) return new ModelLifecycle(clock, opts);
  const control = new ProcessModelServer({
    healthUrl: config.moderatorHealthUrl ?? `${config.moderatorUrl.replace(/\/+$/, '')}/models`,
    ...(config.moderatorApiKey ? { apiKey: config.moderatorApiKey } : {}),
    ...(config.moderatorStartCommand ? { startCommand: config.moderatorStartCommand } : {}),
    ...(config.moderatorStartUrl ? { startUrl: config.moderatorStartUrl } : {}),
    ...(config.moderatorStopCommand ? { stopCommand: config.moderatorStopCommand } : {}),
    ...(config.moderatorStopUrl ? { stopUrl: config.moderatorStopUrl } : {}),
  });
  const server = new ServerLifecycle(db, clock, control, {
    ...opts,
    startTimeoutSeconds: config.moderatorStartTimeoutSeconds,
    retrySeconds: config.moderatorStartRetrySeconds,
    probeSeconds: config.moderatorProbeSeconds,
    log,
  });
  return new ModelLifecycle(clock, opts, server);
}
