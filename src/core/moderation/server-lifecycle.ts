import { randomBytes } from 'node:crypto';
import { hostname } from 'node:os';
import { eq, sql } from 'drizzle-orm';
import { type Executor, queryRows } from '../../db/client.js';
import { postRevisions, posts, serviceState } from '../../db/schema.js';
import type { Clock } from '../clock.js';
import type { Logger } from '../context.js';
import type { Estimate as ServerEstimate, ModelState as ServerState } from './lifecycle.js';
import type { ModelServerControl, ServerRef, StartedServer } from './model-server.js';

/** The row `moderation_server` of service_state: what the probe saw, and the measured pace. */
export interface ServerStored {
  /** idle: stopped (or never started). starting: a start is wanted or issued and the probe has
   *  not answered. running: the probe answered (and has not failed since). */
  state: ServerState;
  /** Running, and being stopped for idleness: a post now needs a new start (wake sets starting). */
  stopping: boolean;
  /** When the model is expected to answer the probe (an estimate while starting). */
  ready_at: string | null;
  last_used_at: string | null;
  /** Measured seconds per decision (moving average; the first sample replaces the seed). */
  seconds_per_post: number;
  /** Measured seconds from issuing a start to the first answer of the probe (same averaging). */
  start_seconds: number;
  /** Samples behind each average (0: still the configured seed). */
  decisions: number;
  starts: number;
  /** The attempt in flight or last made since the start was wanted (1, 2, ...). */
  attempt: number;
  /** When the attempt in flight was issued; null when none is. */
  started_at: string | null;
  /** A failed attempt is retried at this time. */
  next_attempt_at: string | null;
  last_error: string | null;
  /** Process group and host of a command start, so a stop can end it from any process there. */
  pid: number | null;
  host: string | null;
}

export interface ServerLifecycleOptions {
  /** Expected cold start until one is measured (MODERATOR_START_SECONDS). */
  startSeconds: number;
  /** Stop after this long without a decision or a post (and nothing queued). */
  idleSeconds: number;
  /** An attempt whose probe has not answered after this long is ended and retried. */
  startTimeoutSeconds: number;
  /** Delay before the first retry of a failed start; it doubles up to max(this, 300 s). */
  retrySeconds: number;
  /** How often the controller probes and acts (its loop). */
  probeSeconds: number;
  /** Lease of the controller role; default max(15 s, 5 probes). */
  leaseSeconds?: number;
  /** Consecutive failed probes of a running server before it counts as gone (default 3). */
  probeFailures?: number;
  /** Identifies this process in the lease (default host:pid:random). */
  owner?: string;
  log?: Logger;
}

const ROW = 'moderation_server';
const LEASE = 'moderation_server_lease';
/** A job waiting for a start comes back at least this often, so it follows a start that is faster than estimated. */
const MAX_DEFER_SECONDS = 30;
const noop = () => {};
const quiet: Logger = { info: noop, warn: noop, error: noop };

/**
 * The lifecycle of a real model server. Every process reads and writes one row; exactly one
 * process at a time (the holder of a lease row, taken by a conditional upsert with an expiry)
 * acts on the server: issues starts, probes it, retries failed starts, stops it when idle.
 *
 * - A post (wake) turns idle into starting; it never runs anything itself (it is inside the
 *   post's transaction, maybe in an API-only process).
 * - The controller (tick) issues the start, then probes: only an answer turns starting into
 *   running. A command that exits non-zero, a start URL that fails, or no answer within the
 *   start timeout is a failed attempt: what it left is ended and it is retried with backoff,
 *   the state staying starting. Posts wait queued meanwhile; their jobs are deferred.
 * - A running server that stops answering is restarted if there is work, else it is idle.
 * - After `idleSeconds` without use and with nothing queued, the controller marks it idle and
 *   stops it (a post in between wins: the mark is conditional on the last use it read).
 */
export class ServerLifecycle {
  readonly #owner: string;
  readonly #leaseMs: number;
  #leaseUntil = 0;
  /** The start this process issued (its exit is only observable here). */
  #local: { at: string; started: StartedServer } | undefined;
  #failedProbes = 0;
  #ticking: Promise<void> | undefined;
  #timer: NodeJS.Timeout | undefined;
  #running = false;
  readonly #log: Logger;

  constructor(
    private readonly db: Executor,
    private readonly clock: Clock,
    private readonly control: ModelServerControl,
    private readonly opts: ServerLifecycleOptions,
  ) {
    this.#owner = opts.owner ?? `${hostname()}:${process.pid}:${randomBytes(4).toString('hex')}`;
    this.#leaseMs = (opts.leaseSeconds ?? Math.max(15, opts.probeSeconds * 5)) * 1000;
    this.#log = opts.log ?? quiet;
  }

  // ---- read side (any process) --------------------------------------------------------------

  private seed(): ServerStored {
    return {
      state: 'idle',
      stopping: false,
      ready_at: null,
      last_used_at: null,
      seconds_per_post: 2,
      start_seconds: this.opts.startSeconds,
      decisions: 0,
      starts: 0,
      attempt: 0,
      started_at: null,
      next_attempt_at: null,
      last_error: null,
      pid: null,
      host: null,
    };
  }

  async read(exec: Executor, opts: { lock?: boolean } = {}): Promise<ServerStored> {
    const q = exec.select().from(serviceState).where(eq(serviceState.name, ROW));
    const [row] = opts.lock ? await q.for('update') : await q;
    return { ...this.seed(), ...((row?.value as Partial<ServerStored> | undefined) ?? {}) };
  }

  async state(exec: Executor): Promise<ServerState> {
    return (await this.read(exec)).state;
  }

  /** In the transaction that queues a post: an idle server is wanted; says when to expect a decision. */
  async wake(tx: Executor, queuedAhead: number): Promise<ServerEstimate> {
    let s = await this.read(tx);
    const now = this.clock.now();
    if (s.state === 'idle' || s.stopping) {
      const wanted: Partial<ServerStored> = {
        state: 'starting',
        stopping: false,
        attempt: 0,
        started_at: null,
        next_attempt_at: null,
        last_error: null,
        ready_at: iso(now.getTime() + s.start_seconds * 1000),
        last_used_at: now.toISOString(),
      };
      await this.#patch(tx, wanted, sql`value->>'state' = 'idle' or value->>'stopping' = 'true'`);
      s = await this.read(tx);
    } else {
      // Every post passes here: write the last use only now and then, so posts do not queue on the row.
      const lastUsed = s.last_used_at ? Date.parse(s.last_used_at) : 0;
      if (now.getTime() - lastUsed > Math.min(5000, this.opts.idleSeconds * 250)) {
        await this.#patch(tx, { last_used_at: now.toISOString() });
      }
    }
    return this.estimateFrom(s, queuedAhead);
  }

  async estimate(exec: Executor, queuedAhead: number): Promise<ServerEstimate> {
    return this.estimateFrom(await this.read(exec), queuedAhead);
  }

  estimateFrom(s: ServerStored, queuedAhead: number): ServerEstimate {
    const now = this.clock.now().getTime();
    const running = s.state === 'running' && !s.stopping;
    const startWait = running ? 0 : this.#untilReady(s, now);
    const seconds = Math.max(1, Math.ceil(startWait + (queuedAhead + 1) * s.seconds_per_post));
    return {
      state: running ? 'running' : 'starting',
      estimated_decision_at: iso(now + seconds * 1000),
      retry_after_seconds: seconds,
    };
  }

  /** Seconds until the server answers, as far as one can tell; past the estimate, at least 1. */
  #untilReady(s: ServerStored, now: number): number {
    if (s.state !== 'starting' || !s.ready_at) return s.start_seconds;
    return Math.max(1, (Date.parse(s.ready_at) - now) / 1000);
  }

  /** 0 when the probe answers; otherwise how long a job should wait (an idle server is wanted). */
  async readyIn(exec: Executor): Promise<number> {
    let s = await this.read(exec);
    if (s.state === 'running' && !s.stopping) return 0;
    if (s.state !== 'starting') {
      await this.wake(exec, 0);
      s = await this.read(exec);
      if (s.state === 'running' && !s.stopping) return 0;
    }
    this.poke();
    return Math.min(MAX_DEFER_SECONDS, Math.max(1, this.#untilReady(s, this.clock.now().getTime())));
  }

  /** After a decision: the measured pace updates the estimate. Only the probe changes the state. */
  async recordDecision(exec: Executor, seconds: number): Promise<void> {
    const s = await this.read(exec, { lock: true });
    const n = s.decisions ?? 0;
    await this.#patch(exec, {
      last_used_at: this.clock.now().toISOString(),
      seconds_per_post: Math.max(0.05, n === 0 ? seconds : s.seconds_per_post * 0.8 + seconds * 0.2),
      decisions: n + 1,
    });
  }

  // ---- the controller (the lease holder) ----------------------------------------------------

  /** Runs the controller loop in this process (the `work` role). */
  startLoop(): void {
    if (this.#running) return;
    this.#running = true;
    this.#schedule();
  }

  /** Stops the loop and gives up the lease. The model server is left as it is (another process takes over). */
  async stopLoop(): Promise<void> {
    this.#running = false;
    if (this.#timer) clearTimeout(this.#timer);
    this.#timer = undefined;
    await this.#ticking?.catch(noop);
    if (this.#leaseUntil > 0) {
      this.#leaseUntil = 0;
      await queryRows(
        this.db,
        sql`update ${serviceState} set value = jsonb_build_object('owner', '', 'until', ${iso(0)}::text)
            where name = ${LEASE} and value->>'owner' = ${this.#owner}`,
      ).catch(noop);
    }
  }

  #schedule(): void {
    if (!this.#running) return;
    this.#timer = setTimeout(() => {
      this.tick()
        .catch((err) => this.#log.error({ err }, 'model server controller failed; it will try again'))
        .finally(() => this.#schedule());
    }, this.opts.probeSeconds * 1000);
    this.#timer.unref();
  }

  /** Acts soon (a job found the server not running), when the loop runs in this process. */
  poke(): void {
    if (!this.#running || this.#ticking) return;
    this.tick().catch((err) => this.#log.error({ err }, 'model server controller failed'));
  }

  /** One step of the controller; concurrent calls share one run. */
  tick(): Promise<void> {
    this.#ticking ??= this.#reconcile().finally(() => {
      this.#ticking = undefined;
    });
    return this.#ticking;
  }

  async #reconcile(): Promise<void> {
    const first = await this.read(this.db);
    if (first.state === 'idle') return;
    if (!(await this.#lease())) return;
    // Read again under the lease: another holder may have acted since.
    const s = await this.read(this.db);
    const now = this.clock.now().getTime();
    if (s.state === 'starting') await this.#advanceStart(s, now);
    else if (s.state === 'running') await this.#watchRunning(s, now);
  }

  async #advanceStart(s: ServerStored, now: number): Promise<void> {
    if (s.started_at) {
      const local = this.#local?.at === s.started_at ? this.#local.started : undefined;
      const failed = local?.failure();
      if (failed) return this.#fail(s, now, failed);
      if (await this.control.probe()) return this.#ready(s, now);
      if (now - Date.parse(s.started_at) >= this.opts.startTimeoutSeconds * 1000) {
        return this.#fail(
          s,
          now,
          `the model server did not answer within ${this.opts.startTimeoutSeconds} s`,
        );
      }
      return;
    }
    if (s.next_attempt_at && now < Date.parse(s.next_attempt_at)) return;
    if (s.attempt > 0 && !(await this.#wanted(s, now))) {
      // Failed starts and nothing waits any more: stop trying.
      await this.#patch(
        this.db,
        { state: 'idle', ready_at: null, next_attempt_at: null, attempt: 0 },
        sql`value->>'state' = 'starting' and value->>'started_at' is null`,
      );
      return;
    }
    // Already up (started elsewhere, or it outlived a restart): nothing to start, nothing measured.
    if (await this.control.probe()) return this.#ready(s, now, false);
    await this.#issueStart(s, now);
  }

  async #issueStart(s: ServerStored, now: number): Promise<void> {
    const at = iso(now);
    const attempt = s.attempt + 1;
    const issued = await this.#patch(
      this.db,
      {
        started_at: at,
        attempt,
        next_attempt_at: null,
        ready_at: iso(now + s.start_seconds * 1000),
        pid: null,
        host: null,
      },
      sql`value->>'state' = 'starting' and value->>'started_at' is null`,
    );
    if (!issued) return;
    this.#log.info({ attempt }, 'starting the moderation model server');
    let started: StartedServer;
    try {
      started = await this.#holdingLease(this.control.start());
    } catch (err) {
      return this.#fail({ ...s, started_at: at, attempt }, this.clock.now().getTime(), message(err));
    }
    this.#local = { at, started };
    if (started.pid !== undefined) {
      await this.#patch(
        this.db,
        { pid: started.pid, host: started.host ?? null },
        sql`value->>'started_at' = ${at}`,
      );
    }
  }

  /** A failed attempt: end what it left, keep `starting`, retry after a backoff. */
  async #fail(s: ServerStored, now: number, reason: string): Promise<void> {
    const fresh = await this.read(this.db);
    await this.#holdingLease(this.control.abort(ref(fresh))).catch((err) =>
      this.#log.warn({ err }, 'could not end what the failed start left'),
    );
    const attempt = Math.max(1, s.attempt);
    const delay = Math.min(
      Math.max(this.opts.retrySeconds, 300),
      this.opts.retrySeconds * 2 ** (attempt - 1),
    );
    const next = now + delay * 1000;
    this.#local = undefined;
    this.#log.warn({ attempt, reason, retry_in_seconds: delay }, 'the moderation model server did not start');
    await this.#patch(
      this.db,
      {
        started_at: null,
        next_attempt_at: iso(next),
        ready_at: iso(next + s.start_seconds * 1000),
        last_error: reason,
        pid: null,
        host: null,
      },
      sql`value->>'state' = 'starting' and value->>'started_at' = ${s.started_at ?? ''}`,
    );
  }

  async #ready(s: ServerStored, now: number, measured = true): Promise<void> {
    const patch: Partial<ServerStored> = {
      state: 'running',
      started_at: null,
      ready_at: null,
      attempt: 0,
      next_attempt_at: null,
      last_error: null,
      // A model that just became ready is in use: the idle timer starts now.
      last_used_at: iso(now),
    };
    if (measured && s.started_at) {
      const took = Math.max(0, (now - Date.parse(s.started_at)) / 1000);
      const n = s.starts ?? 0;
      patch.start_seconds = n === 0 ? took : s.start_seconds * 0.7 + took * 0.3;
      patch.starts = n + 1;
      this.#log.info({ seconds: took }, 'the moderation model server is ready');
    }
    this.#failedProbes = 0;
    await this.#patch(this.db, patch, sql`value->>'state' = 'starting'`);
  }

  async #watchRunning(s: ServerStored, now: number): Promise<void> {
    if (await this.control.probe()) {
      this.#failedProbes = 0;
      const lastUsed = s.last_used_at ? Date.parse(s.last_used_at) : 0;
      if (now - lastUsed > this.opts.idleSeconds * 1000 && !(await this.#queued())) {
        await this.#scaleToZero(s);
      }
      return;
    }
    if (++this.#failedProbes < (this.opts.probeFailures ?? 3)) return;
    this.#failedProbes = 0;
    this.#log.warn({}, 'the moderation model server stopped answering');
    await this.#holdingLease(this.control.abort(ref(s))).catch((err) =>
      this.#log.warn({ err }, 'could not end the model server that stopped answering'),
    );
    this.#local = undefined;
    const wanted = await this.#wanted(s, now);
    await this.#patch(
      this.db,
      wanted
        ? {
            state: 'starting',
            stopping: false,
            attempt: 0,
            started_at: null,
            next_attempt_at: null,
            ready_at: iso(now + s.start_seconds * 1000),
            last_error: 'the model server stopped answering',
            pid: null,
            host: null,
          }
        : { state: 'idle', stopping: false, ready_at: null, pid: null, host: null },
      sql`value->>'state' = 'running'`,
    );
  }

  async #scaleToZero(s: ServerStored): Promise<void> {
    // Nothing can stop it (started by URL without a stop, or always on): it stays running, as the probe says.
    if (!this.control.canStop(ref(s))) return;
    // Conditional on the last use read: a post that came in since keeps it running. While it is
    // being stopped it still reports running (it is), but a post turns it to starting (wake).
    const marked = await this.#patch(
      this.db,
      { stopping: true },
      sql`value->>'state' = 'running' and coalesce(value->>'last_used_at', '') = ${s.last_used_at ?? ''}`,
    );
    if (!marked) return;
    this.#log.info({}, 'stopping the idle moderation model server');
    try {
      await this.#holdingLease(this.control.stop(ref(s)));
    } catch (err) {
      // Still up as far as anyone knows: say so, and try again on a later tick.
      this.#log.error({ err }, 'could not stop the moderation model server');
      await this.#patch(this.db, { stopping: false, last_error: message(err) });
      return;
    }
    this.#local = undefined;
    // Idle only now that it is stopped; unless a post came in meanwhile (then it is starting).
    await this.#patch(
      this.db,
      { state: 'idle', stopping: false, ready_at: null, pid: null, host: null },
      sql`value->>'stopping' = 'true'`,
    );
    await this.#patch(this.db, { pid: null, host: null }, sql`value->>'started_at' is null`);
  }

  /** Someone still wants the model: posts are queued, or it was used within the idle time. */
  async #wanted(s: ServerStored, now: number): Promise<boolean> {
    if (await this.#queued()) return true;
    const lastUsed = s.last_used_at ? Date.parse(s.last_used_at) : 0;
    return now - lastUsed <= this.opts.idleSeconds * 1000;
  }

  async #queued(): Promise<boolean> {
    const rows = await this.db
      .select({ id: posts.id })
      .from(posts)
      .where(eq(posts.status, 'queued'))
      .limit(1);
    if (rows.length > 0) return true;
    const edits = await this.db
      .select({ id: postRevisions.id })
      .from(postRevisions)
      .where(eq(postRevisions.status, 'queued'))
      .limit(1);
    return edits.length > 0;
  }

  /** Takes or renews the lease: a conditional upsert that wins only if it is ours or expired. */
  async #lease(): Promise<boolean> {
    const now = this.clock.now().getTime();
    if (this.#leaseUntil - now > this.#leaseMs / 2) return true;
    const until = now + this.#leaseMs;
    const value = JSON.stringify({ owner: this.#owner, until: iso(until) });
    const rows = await queryRows<{ name: string }>(
      this.db,
      sql`insert into ${serviceState} (name, value, updated_at)
          values (${LEASE}, ${value}::jsonb, ${iso(now)}::timestamptz)
          on conflict (name) do update set value = excluded.value, updated_at = excluded.updated_at
          where ${serviceState}.value->>'owner' = ${this.#owner}
             or (${serviceState}.value->>'until')::timestamptz <= ${iso(now)}::timestamptz
          returning name`,
    );
    this.#leaseUntil = rows.length > 0 ? until : 0;
    return rows.length > 0;
  }

  /** Keeps the lease fresh while a slow action (a start or stop call) runs. */
  async #holdingLease<T>(action: Promise<T>): Promise<T> {
    const timer = setInterval(
      () => {
        this.#leaseUntil = 0;
        this.#lease().catch(noop);
      },
      Math.max(100, this.#leaseMs / 3),
    );
    timer.unref();
    try {
      return await action;
    } finally {
      clearInterval(timer);
    }
  }

  /** Merges `patch` into the row (creating it from the seed first); false when `where` did not hold. */
  async #patch(
    exec: Executor,
    patch: Partial<ServerStored>,
    where?: ReturnType<typeof sql>,
  ): Promise<boolean> {
    const now = iso(this.clock.now().getTime());
    await queryRows(
      exec,
      sql`insert into ${serviceState} (name, value, updated_at)
          values (${ROW}, ${JSON.stringify(this.seed())}::jsonb, ${now}::timestamptz)
          on conflict (name) do nothing`,
    );
    const rows = await queryRows<{ name: string }>(
      exec,
      sql`update ${serviceState} set value = value || ${JSON.stringify(patch)}::jsonb, updated_at = ${now}::timestamptz
          where name = ${ROW} ${where ? sql`and (${where})` : sql``}
          returning name`,
    );
    return rows.length > 0;
  }
}

function ref(s: ServerStored): ServerRef {
  return { pid: s.pid ?? null, host: s.host ?? null };
}

function iso(ms: number): string {
  return new Date(ms).toISOString();
}

function message(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}
