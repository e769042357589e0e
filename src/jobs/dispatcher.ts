import type { JobName, JobPayloads } from '../core/jobs.js';
import type { FetchedJob, JobQueue } from './queue.js';

export interface DispatchOptions<N extends JobName> {
  /** Jobs of this kind running at once in this process. */
  concurrency: number;
  /** Jobs taken from the database in one query, at most. */
  fetchMax?: number;
  /** Jobs held in this process (running and waiting for their key), at most. */
  maxHeld?: number;
  /** The safety net: look at the queue this often even when no announcement came. */
  pollMs: number;
  /** Jobs with the same key share `perKey` running slots (e.g. one webhook endpoint). */
  keyOf?: (data: JobPayloads[N]) => string | undefined;
  perKey?: number;
  /** Jobs waiting for one key beyond its `perKey` running ones, at most; past it a job is put back for `deferMs` (its key is slow). */
  perKeyWaiting?: number;
  deferMs?: number;
  /** The send options a deferred job is put back with (as it was first sent). */
  deferRetryLimit?: number;
}

type Handler<N extends JobName> = (data: JobPayloads[N]) => Promise<unknown>;
interface Log {
  error(obj: object, msg: string): void;
}

const NO_KEY = '';

/**
 * Runs one job kind as soon as a job is committed: woken by the queue's announcement (LISTEN/
 * NOTIFY), it fetches until the queue is empty, keeps up to `concurrency` jobs running, completes
 * them in batches, and waits for the next announcement, the next due time of a delayed job, or
 * the slow safety-net poll. Jobs with a key (a webhook endpoint) get at most `perKey` running
 * slots and are started round-robin across keys, so one slow receiver holds up no one else.
 */
export class Dispatcher<N extends JobName> {
  readonly #fetchMax: number;
  readonly #maxHeld: number;
  readonly #perKey: number;
  readonly #perKeyWaiting: number;
  /** Waiting jobs by key, in fetch order; `#turn` is the round-robin order of keys that wait. */
  readonly #waiting = new Map<string, FetchedJob<N>[]>();
  readonly #runningByKey = new Map<string, number>();
  #turn: string[] = [];
  #running = 0;
  #held = 0;
  /** There may be due jobs in the database that this process has not fetched. */
  #dirty = true;
  #stopping = false;
  #sleeper: (() => void) | null = null;
  #loop: Promise<void> | undefined;
  #poll: NodeJS.Timeout | undefined;
  #dueTimer: NodeJS.Timeout | undefined;
  #completed: string[] = [];
  #flushing: Promise<void> = Promise.resolve();
  #idle: (() => void) | null = null;

  constructor(
    private readonly queue: Pick<JobQueue, 'fetch' | 'complete' | 'fail' | 'nextDue' | 'send' | 'database'>,
    readonly name: N,
    private readonly handler: Handler<N>,
    private readonly log: Log,
    private readonly opts: DispatchOptions<N>,
  ) {
    this.#fetchMax = opts.fetchMax ?? 100;
    this.#maxHeld = opts.maxHeld ?? Math.max(opts.concurrency * 4, this.#fetchMax);
    this.#perKey = opts.perKey ?? Number.POSITIVE_INFINITY;
    this.#perKeyWaiting = opts.perKeyWaiting ?? Number.POSITIVE_INFINITY;
  }

  /** Jobs running now and held waiting (for metrics and tests). */
  get load(): { running: number; held: number } {
    return { running: this.#running, held: this.#held };
  }

  start(): void {
    this.#poll = setInterval(() => this.wake(), this.opts.pollMs);
    this.#poll.unref();
    this.#loop = this.#run();
  }

  /** A job of this kind was committed (or may have been): look at the queue now. */
  wake(): void {
    this.#dirty = true;
    this.#signal();
  }

  /** Stops fetching, puts back what has not started, and waits for running jobs (at most `ms`). */
  async stop(ms = 10_000): Promise<void> {
    this.#stopping = true;
    clearInterval(this.#poll);
    clearTimeout(this.#dueTimer);
    this.#signal();
    await this.#loop;
    const unstarted = [...this.#waiting.values()].flat();
    this.#waiting.clear();
    this.#turn = [];
    this.#held -= unstarted.length;
    await Promise.all(unstarted.map((job) => this.#putBack(job, 0)));
    if (this.#running > 0) {
      await new Promise<void>((resolve) => {
        const t = setTimeout(resolve, ms);
        this.#idle = () => {
          clearTimeout(t);
          resolve();
        };
      });
    }
    await this.#flush();
  }

  #signal(): void {
    const wake = this.#sleeper;
    this.#sleeper = null;
    wake?.();
  }

  async #run(): Promise<void> {
    while (!this.#stopping) {
      const room = Math.min(this.#fetchMax, this.#maxHeld - this.#held);
      if (!this.#dirty || room <= 0 || this.#running >= this.opts.concurrency) {
        await new Promise<void>((resolve) => {
          this.#sleeper = resolve;
        });
        continue;
      }
      this.#dirty = false;
      let jobs: FetchedJob<N>[];
      try {
        jobs = await this.queue.fetch(this.name, room);
      } catch (err) {
        this.log.error({ err, job: this.name }, 'fetching jobs failed; the poll tries again');
        continue;
      }
      if (jobs.length >= room) this.#dirty = true;
      for (const job of jobs) this.#admit(job);
      this.#pump();
      if (!this.#dirty) await this.#armForNextDue();
    }
  }

  /** The queue looked empty: wake when its earliest delayed job becomes due (if before the poll). */
  async #armForNextDue(): Promise<void> {
    let at: Date | null;
    try {
      at = await this.queue.nextDue(this.name);
    } catch {
      return;
    }
    clearTimeout(this.#dueTimer);
    if (!at || this.#stopping) return;
    const ms = at.getTime() - Date.now();
    if (ms >= this.opts.pollMs) return;
    // pg-boss takes a job when start_after < now(): a few ms after, not on the dot. A job that
    // is due but was not fetched (another worker holds it) is looked at again in 50 ms, not in a spin.
    this.#dueTimer = setTimeout(() => this.wake(), Math.max(ms + 5, 50));
    this.#dueTimer.unref();
  }

  #admit(job: FetchedJob<N>): void {
    const key = this.opts.keyOf?.(job.data) ?? NO_KEY;
    const waiting = this.#waiting.get(key);
    const heldForKey = (this.#runningByKey.get(key) ?? 0) + (waiting?.length ?? 0);
    if (
      key !== NO_KEY &&
      heldForKey >= Math.min(this.#perKey, Number.MAX_SAFE_INTEGER) + this.#perKeyWaiting
    ) {
      void this.#putBack(job, this.opts.deferMs ?? 1_000);
      return;
    }
    this.#held++;
    if (waiting) waiting.push(job);
    else {
      this.#waiting.set(key, [job]);
      this.#turn.push(key);
    }
  }

  /** Starts waiting jobs while slots are free, one key at a time in turn. */
  #pump(): void {
    let blocked = 0;
    while (this.#running < this.opts.concurrency && this.#turn.length > 0 && blocked < this.#turn.length) {
      const key = this.#turn.shift()!;
      const waiting = this.#waiting.get(key)!;
      if (key !== NO_KEY && (this.#runningByKey.get(key) ?? 0) >= this.#perKey) {
        this.#turn.push(key);
        blocked++;
        continue;
      }
      blocked = 0;
      const job = waiting.shift()!;
      if (waiting.length > 0) this.#turn.push(key);
      else this.#waiting.delete(key);
      void this.#start(key, job);
    }
  }

  async #start(key: string, job: FetchedJob<N>): Promise<void> {
    this.#running++;
    this.#runningByKey.set(key, (this.#runningByKey.get(key) ?? 0) + 1);
    try {
      await this.handler(job.data);
      this.#complete(job.id);
    } catch (err) {
      this.log.error({ err, job: this.name }, 'job failed; it will be retried');
      await this.queue
        .fail(this.name, job.id, err)
        .catch((e: unknown) => this.log.error({ err: e, job: this.name }, 'marking a job failed failed'));
    } finally {
      this.#running--;
      this.#held--;
      const n = (this.#runningByKey.get(key) ?? 1) - 1;
      if (n === 0) this.#runningByKey.delete(key);
      else this.#runningByKey.set(key, n);
      if (this.#running === 0) this.#idle?.();
      if (!this.#stopping) {
        this.#pump();
        this.#signal();
      }
    }
  }

  /** Completions are written in batches: one query for every job that finished in this turn. */
  #complete(id: string): void {
    this.#completed.push(id);
    if (this.#completed.length === 1) setImmediate(() => void this.#flush());
  }

  #flush(): Promise<void> {
    const ids = this.#completed;
    if (ids.length === 0) return this.#flushing;
    this.#completed = [];
    this.#flushing = this.#flushing
      .then(() => this.queue.complete(this.name, ids))
      .catch((err: unknown) =>
        // The jobs stay active; pg-boss expires them and the sweep finds their work done.
        this.log.error({ err, job: this.name }, 'completing jobs failed'),
      );
    return this.#flushing;
  }

  /** Hands a job back: the same payload as a new job due in `ms`, then the old one completed. */
  async #putBack(job: FetchedJob<N>, ms: number): Promise<void> {
    try {
      await this.queue.send(this.queue.database.db, this.name, job.data, {
        startAfter: new Date(Date.now() + ms),
        ...(this.opts.deferRetryLimit !== undefined ? { retryLimit: this.opts.deferRetryLimit } : {}),
      });
      this.#complete(job.id);
    } catch (err) {
      // Left active: pg-boss expires it, and the sweep picks up what it was for.
      this.log.error({ err, job: this.name }, 'putting a job back failed');
    }
  }
}
