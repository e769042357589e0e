import { describe, expect, it } from 'vitest';
import type { JobPayloads } from '../../src/core/jobs.js';
import { Dispatcher, type DispatchOptions } from '../../src/jobs/dispatcher.js';
import type { FetchedJob } from '../../src/jobs/queue.js';

type Data = JobPayloads['deliver-webhook'];

/** An in-memory stand-in for JobQueue: due jobs in order, what was completed, failed and put back. */
class FakeQueue {
  due: FetchedJob<'deliver-webhook'>[] = [];
  completed: string[] = [];
  completeCalls = 0;
  failed: string[] = [];
  putBack: { data: Data; startAfter: Date | undefined }[] = [];
  fetches: number[] = [];
  nextDueAt: Date | null = null;
  readonly database = { db: {} } as never;
  #n = 0;

  add(endpoint: string, n: number): string[] {
    const ids: string[] = [];
    for (let i = 0; i < n; i++) {
      const id = `job${++this.#n}`;
      this.due.push({ id, data: { delivery_id: `d-${id}`, endpoint_id: endpoint } });
      ids.push(id);
    }
    return ids;
  }
  async fetch(_name: string, max: number) {
    this.fetches.push(max);
    return this.due.splice(0, max);
  }
  async complete(_name: string, ids: string[]) {
    this.completeCalls++;
    this.completed.push(...ids);
  }
  async fail(_name: string, id: string) {
    this.failed.push(id);
  }
  async nextDue() {
    return this.nextDueAt;
  }
  async send(_exec: unknown, _name: string, data: Data, options: { startAfter?: Date } = {}) {
    this.putBack.push({ data, startAfter: options.startAfter });
    return 'new';
  }
}

/** A handler whose calls wait until released, per endpoint. */
class Gate {
  running = new Map<string, number>();
  maxRunning = new Map<string, number>();
  started: string[] = [];
  #waiters: { endpoint: string; release: () => void }[] = [];
  handler = async (d: Data) => {
    const ep = d.endpoint_id ?? '';
    this.started.push(d.delivery_id);
    const n = (this.running.get(ep) ?? 0) + 1;
    this.running.set(ep, n);
    this.maxRunning.set(ep, Math.max(n, this.maxRunning.get(ep) ?? 0));
    await new Promise<void>((release) => this.#waiters.push({ endpoint: ep, release }));
    this.running.set(ep, (this.running.get(ep) ?? 1) - 1);
  };
  release(endpoint?: string) {
    const go = this.#waiters.filter((w) => endpoint === undefined || w.endpoint === endpoint);
    this.#waiters = this.#waiters.filter((w) => !go.includes(w));
    for (const w of go) w.release();
  }
  waiting(endpoint: string) {
    return this.#waiters.filter((w) => w.endpoint === endpoint).length;
  }
}

const log = { error() {} };
const settle = async (times = 5) => {
  for (let i = 0; i < times; i++) await new Promise((r) => setImmediate(r));
};

function dispatcher(
  queue: FakeQueue,
  handler: (d: Data) => Promise<unknown>,
  opts: Partial<DispatchOptions<'deliver-webhook'>> = {},
) {
  return new Dispatcher(queue as never, 'deliver-webhook', handler, log, {
    concurrency: 8,
    pollMs: 3_600_000,
    keyOf: (d) => d.endpoint_id,
    perKey: 2,
    ...opts,
  });
}

describe('Dispatcher (src/jobs/dispatcher.ts), against an in-memory queue', () => {
  it('a wake-up fetches at once, and fetches again while a fetch came back full', async () => {
    const q = new FakeQueue();
    const d = dispatcher(q, async () => {}, { fetchMax: 3, perKey: 100 });
    d.start();
    await settle();
    expect(q.fetches).toEqual([3]); // the first look at start, found nothing
    q.add('a', 7);
    d.wake();
    await settle(20);
    // 3 (full) -> 3 (full) -> 1 (not full: the queue is empty, stop until the next wake-up)
    expect(q.fetches).toEqual([3, 3, 3, 3]);
    expect(q.completed).toHaveLength(7);
    await d.stop();
  });

  it('"bound concurrency per endpoint": a slow endpoint gets perKey slots, the others the rest', async () => {
    const q = new FakeQueue();
    const gate = new Gate();
    const d = dispatcher(q, gate.handler, { concurrency: 8, perKey: 2 });
    q.add('slow', 10);
    q.add('fast', 4);
    d.start();
    await settle(10);
    expect(gate.maxRunning.get('slow')).toBe(2);
    expect(gate.running.get('fast')).toBe(2);
    // Only the fast endpoint's calls finish; its four deliveries all run while slow's stay at 2.
    gate.release('fast');
    await settle(10);
    gate.release('fast');
    await settle(10);
    expect(gate.started.filter((id) => id.startsWith('d-')).length).toBe(6);
    expect(q.completed).toHaveLength(4);
    expect(gate.maxRunning.get('slow')).toBe(2);
    // Release the slow endpoint until everything ran; never more than 2 of its calls at once.
    for (let i = 0; i < 10 && q.completed.length < 14; i++) {
      gate.release('slow');
      await settle(10);
    }
    expect(q.completed).toHaveLength(14);
    expect(gate.maxRunning.get('slow')).toBe(2);
    await d.stop();
  });

  it('never runs more than `concurrency` jobs at once, taking endpoints in turn', async () => {
    const q = new FakeQueue();
    const gate = new Gate();
    const d = dispatcher(q, gate.handler, { concurrency: 3, perKey: 3 });
    q.add('a', 6);
    q.add('b', 1);
    q.add('c', 1);
    d.start();
    await settle(10);
    // In turn: a, b, c (not a, a, a although a's six came first).
    expect(gate.started).toEqual(['d-job1', 'd-job7', 'd-job8']);
    gate.release();
    await settle(10);
    expect([...gate.running.values()].reduce((x, y) => x + y, 0)).toBe(3);
    for (let i = 0; i < 5; i++) {
      gate.release();
      await settle(10);
    }
    expect(q.completed).toHaveLength(8);
    await d.stop();
  });

  it('puts back what is past perKeyWaiting for one endpoint, for deferMs, as the same payload', async () => {
    const q = new FakeQueue();
    const gate = new Gate();
    const d = dispatcher(q, gate.handler, { perKey: 1, perKeyWaiting: 2, deferMs: 1_000, fetchMax: 10 });
    q.add('slow', 6);
    const before = Date.now();
    d.start();
    await settle(10);
    // 1 running + 2 waiting held; the other 3 handed back with a start one second on.
    expect(gate.running.get('slow')).toBe(1);
    expect(q.putBack.map((p) => p.data.delivery_id)).toEqual(['d-job4', 'd-job5', 'd-job6']);
    for (const p of q.putBack) {
      expect(p.data.endpoint_id).toBe('slow');
      expect(p.startAfter!.getTime()).toBeGreaterThanOrEqual(before + 1_000);
    }
    // The originals are completed (the copies carry on), so none is run twice.
    await settle(5);
    expect(q.completed.sort()).toEqual(['job4', 'job5', 'job6']);
    gate.release();
    await settle(10);
    gate.release();
    await settle(10);
    gate.release();
    await settle(10);
    expect(q.completed).toHaveLength(6);
    await d.stop();
  });

  it('completes in batches: one query for the jobs that finished in the same turn', async () => {
    const q = new FakeQueue();
    const d = dispatcher(q, async () => {}, { concurrency: 50, perKey: 50 });
    q.add('a', 40);
    d.start();
    await settle(20);
    expect(q.completed).toHaveLength(40);
    expect(q.completeCalls).toBeLessThanOrEqual(2);
    await d.stop();
  });

  it('a failing job is failed (pg-boss retries it), the others complete', async () => {
    const q = new FakeQueue();
    const d = dispatcher(
      q,
      async (data) => {
        if (data.delivery_id === 'd-job2') throw new Error('boom');
      },
      { perKey: 10 },
    );
    q.add('a', 3);
    d.start();
    await settle(20);
    expect(q.failed).toEqual(['job2']);
    expect(q.completed.sort()).toEqual(['job1', 'job3']);
    await d.stop();
  });

  it('wakes itself when the next delayed job becomes due (before the poll)', async () => {
    const q = new FakeQueue();
    q.nextDueAt = new Date(Date.now() + 150);
    const d = dispatcher(q, async () => {});
    d.start();
    await settle();
    expect(q.fetches).toHaveLength(1);
    q.add('a', 1);
    await new Promise((r) => setTimeout(r, 400));
    expect(q.fetches.length).toBeGreaterThanOrEqual(2);
    expect(q.completed).toEqual(['job1']);
    await d.stop();
  });

  it('the safety-net poll takes a job nobody announced', async () => {
    const q = new FakeQueue();
    const d = dispatcher(q, async () => {}, { pollMs: 100 });
    d.start();
    await settle();
    q.add('a', 2);
    await new Promise((r) => setTimeout(r, 350));
    expect(q.completed.sort()).toEqual(['job1', 'job2']);
    await d.stop();
  });

  it('stop: puts back what has not started, waits for what runs', async () => {
    const q = new FakeQueue();
    const gate = new Gate();
    const d = dispatcher(q, gate.handler, { perKey: 1 });
    q.add('a', 3);
    d.start();
    await settle(10);
    expect(gate.running.get('a')).toBe(1);
    const stopping = d.stop(5_000);
    await settle(10);
    expect(q.putBack.map((p) => p.data.delivery_id)).toEqual(['d-job2', 'd-job3']);
    gate.release();
    await stopping;
    expect(q.completed.sort()).toEqual(['job1', 'job2', 'job3']);
  });
});
