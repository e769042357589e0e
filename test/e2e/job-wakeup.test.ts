/**
 * Jobs without polling delays (src/jobs/dispatcher.ts, src/jobs/queue.ts): workers are woken by
 * the announcement a job's transaction makes when it commits (LISTEN/NOTIFY, on PGlite and on
 * PostgreSQL). The safety-net poll and the sweep are set to an hour here, so only an announcement, or the
 * dispatcher's own timer for the next delayed job, can make anything in these tests happen.
 */
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { eq, sql } from 'drizzle-orm';
import pg from 'pg';
import { Webhook } from 'standardwebhooks';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { type Database, openDatabase } from '../../src/db/client.js';
import { webhookDeliveries } from '../../src/db/schema.js';
import { creditedAccount, newAccount } from '../helpers/flows.js';
import { startTestEnv, type TestEnv } from '../helpers/harness.js';
import { story } from '../helpers/stories.js';

const HOUR_MS = 3_600_000;

interface Receipt {
  id: string;
  type: string;
  postId: string | undefined;
  at: number;
}

/** Verifies each delivery with standardwebhooks (at the platform's clock) and answers as told. */
class Receiver {
  readonly receipts: Receipt[] = [];
  secret = '';
  inFlight = 0;
  maxInFlight = 0;
  hold: Promise<void> | undefined;
  failFirst = 0;
  #server: Server;
  url = '';

  constructor(private readonly now: () => Date) {
    this.#server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', async () => {
        this.inFlight++;
        this.maxInFlight = Math.max(this.maxInFlight, this.inFlight);
        try {
          if (this.hold) await this.hold;
          if (this.failFirst > 0) {
            this.failFirst--;
            res.writeHead(500).end();
            return;
          }
          const event = this.#verify(Buffer.concat(chunks).toString('utf8'), req.headers) as {
            type: string;
            data: { post?: { id: string } };
          };
          this.receipts.push({
            id: String(req.headers['webhook-id']),
            type: event.type,
            postId: event.data.post?.id,
            at: Date.now(),
          });
          res.writeHead(204).end();
        } catch {
          res.writeHead(400).end();
        } finally {
          this.inFlight--;
        }
      });
    });
  }

  #verify(body: string, headers: IncomingHttpHeaders): unknown {
    const flat: Record<string, string> = {};
    for (const [k, v] of Object.entries(headers)) if (v !== undefined) flat[k] = String(v);
    // The signature is dated by the platform's (injected) clock: verify at that time.
    const spy = vi.spyOn(Date, 'now').mockReturnValue(this.now().getTime());
    try {
      return new Webhook(this.secret).verify(body, flat);
    } finally {
      spy.mockRestore();
    }
  }

  async listen(): Promise<this> {
    await new Promise<void>((resolve) => this.#server.listen(0, '127.0.0.1', resolve));
    this.url = `http://127.0.0.1:${(this.#server.address() as AddressInfo).port}/hook`;
    return this;
  }

  async close(): Promise<void> {
    this.#server.closeAllConnections();
    await new Promise<void>((resolve) => this.#server.close(() => resolve()));
  }
}

async function until(what: string, done: () => boolean, ms = 30_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!done()) {
    if (Date.now() > deadline) throw new Error(`timed out after ${ms} ms waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 5));
  }
}

let env: TestEnv;
const receivers: Receiver[] = [];

beforeAll(async () => {
  env = await startTestEnv({
    env: {
      WEBHOOK_ALLOW_TARGETS: '127.0.0.1',
      UNSAFE_TEST_HOOKS: '1',
      TEST_JOB_POLL_MS: String(HOUR_MS),
      // The sweep would deliver a pending delivery by itself: out of the way too.
      TEST_SWEEP_INTERVAL_MS: String(HOUR_MS),
    },
    // Longer than any hold below: a held delivery must not time out and turn into a retry.
    webhookTimeoutMs: 90_000,
  });
  await env.platform.startWorkers();
});
afterEach(async () => {
  for (const r of receivers.splice(0)) {
    r.hold = undefined;
    await r.close();
  }
});
afterAll(async () => {
  await env?.close();
});

async function subscribed(key: string): Promise<{ rx: Receiver; endpointId: string }> {
  const rx = await new Receiver(() => env.clock.now()).listen();
  receivers.push(rx);
  const r = await env.call('POST', '/v1/webhooks', { key, body: { url: rx.url } });
  expect(r.status, r.text).toBe(201);
  rx.secret = r.json.secret;
  return { rx, endpointId: r.json.id };
}

async function askTest(key: string, endpointId: string): Promise<{ id: string; at: number }> {
  const at = Date.now();
  const r = await env.call('POST', `/v1/webhooks/${endpointId}/test`, { key });
  expect(r.status, r.text).toBe(202);
  return { id: r.json.delivery_id, at };
}

describe('workers are woken when a job commits, not by a poll (poll: one hour)', () => {
  it('POST /v1/webhooks/{id}/test reaches the receiver, signed, within seconds, 20 times in a row', async () => {
    const a = await newAccount(env);
    const { rx, endpointId } = await subscribed(a.key);
    const latencies: number[] = [];
    for (let i = 0; i < 20; i++) {
      const asked = await askTest(a.key, endpointId);
      await until('the test delivery', () => rx.receipts.some((r) => r.id === asked.id), 30_000);
      latencies.push(rx.receipts.find((r) => r.id === asked.id)!.at - asked.at);
    }
    expect(rx.receipts.map((r) => r.type)).toEqual(Array(20).fill('webhook.test'));
    // An hour's poll could not have done it; the figures themselves are bench/webhooks' business.
    expect(Math.max(...latencies)).toBeLessThan(30_000);
  });

  it('a post is moderated and its post.published event delivered with no poll (two wake-ups)', async () => {
    const a = await creditedAccount(env, 5_000_000);
    const { rx } = await subscribed(a.key);
    const r = await env.call('POST', '/v1/posts', {
      key: a.key,
      body: { title: 'A morning', body: story() },
    });
    expect(r.status, r.text).toBe(202);
    await until('the post.published event', () => rx.receipts.some((x) => x.postId === r.json.id));
    expect(rx.receipts.find((x) => x.postId === r.json.id)?.type).toBe('post.published');
    const view = await env.call('GET', `/v1/posts/${r.json.id}`, { key: a.key });
    expect(view.json.status).toBe('published');
  });

  it('"one slow receiver holds up no one": 40 deliveries stuck at one endpoint, another endpoint still gets its 5 at once', async () => {
    const slow = await newAccount(env);
    const fast = await newAccount(env);
    const s = await subscribed(slow.key);
    const f = await subscribed(fast.key);
    let release!: () => void;
    s.rx.hold = new Promise<void>((r) => {
      release = r;
    });
    for (let i = 0; i < 40; i++) await askTest(slow.key, s.endpointId);
    await until('the slow endpoint to be saturated', () => s.rx.inFlight === 8, 30_000);
    const asked: string[] = [];
    for (let i = 0; i < 5; i++) asked.push((await askTest(fast.key, f.endpointId)).id);
    await until(
      'the fast endpoint',
      () => asked.every((id) => f.rx.receipts.some((r) => r.id === id)),
      30_000,
    );
    // The slow receiver never had more than the per-endpoint bound open at once.
    expect(s.rx.receipts).toHaveLength(0);
    expect(s.rx.maxInFlight).toBe(8);
    release();
    await until('the slow endpoint to catch up', () => s.rx.receipts.length === 40, 60_000);
    expect(new Set(s.rx.receipts.map((r) => r.id)).size).toBe(40);
    expect(s.rx.maxInFlight).toBe(8);
  });

  it('a retry is run when it falls due (the dispatcher sets a timer for the next delayed job)', async () => {
    const a = await newAccount(env);
    const { rx, endpointId } = await subscribed(a.key);
    rx.failFirst = 1;
    const asked = await askTest(a.key, endpointId);
    const row = async () =>
      (
        await env.platform.database.db
          .select()
          .from(webhookDeliveries)
          .where(eq(webhookDeliveries.id, asked.id))
      )[0]!;
    const deadline = Date.now() + 30_000;
    while ((await row()).attempts < 1) {
      if (Date.now() > deadline) throw new Error('no first attempt');
      await new Promise((r) => setTimeout(r, 10));
    }
    // The retry is due 5 s (±10 %) after the failure by the delivery's schedule: the platform
    // clock moves past it; the queue's job falls due at the same real time and wakes a worker.
    env.clock.advance(6_000);
    await until('the retry', () => rx.receipts.some((r) => r.id === asked.id), 30_000);
    for (let i = 0; i < 200 && (await row()).status === 'pending'; i++)
      await new Promise((r) => setTimeout(r, 10));
    expect(await row()).toMatchObject({ status: 'succeeded', attempts: 2 });
  });

  it('a job committed without an announcement is not taken until a wake-up (what the poll does)', async () => {
    const a = await newAccount(env);
    const { rx, endpointId } = await subscribed(a.key);
    // A delivery queued the way a process from before announcements would have: row + job, no NOTIFY.
    const id = `msg_silent_${Date.now()}`;
    await env.platform.database.db.insert(webhookDeliveries).values({
      id,
      endpointId,
      eventType: 'webhook.test',
      payload: JSON.stringify({
        type: 'webhook.test',
        timestamp: env.clock.now().toISOString(),
        data: { endpoint_id: endpointId, message: 'queued without an announcement' },
      }),
      status: 'pending',
      createdAt: env.clock.now(),
    });
    expect(
      await env.platform.jobs.boss.send(
        'deliver-webhook',
        { delivery_id: id, endpoint_id: endpointId },
        { retryLimit: 0 },
      ),
    ).not.toBeNull();
    await new Promise((r) => setTimeout(r, 500));
    expect(rx.receipts).toHaveLength(0);
    env.platform.workers.dispatcher('deliver-webhook')!.wake();
    await until('the silent job', () => rx.receipts.some((r) => r.id === id), 30_000);
  });
});

// PostgreSQL only: PGlite has one in-process session and no connection to lose.
if (process.env.DATABASE_URL)
  describe('PostgreSQL: the listening connection is lost', () => {
    it('after pg_terminate_backend of the LISTEN session it reconnects, looks at every queue, and hears new jobs', async () => {
      const a = await newAccount(env);
      const { rx, endpointId } = await subscribed(a.key);
      const url = (env.platform.database as unknown as { connectionString: string }).connectionString;
      const admin = new pg.Client({ connectionString: url });
      await admin.connect();
      try {
        const killed = await admin.query(
          "SELECT pg_terminate_backend(pid) AS ok FROM pg_stat_activity WHERE datname = current_database() AND query ILIKE 'LISTEN %' AND pid <> pg_backend_pid()",
        );
        expect(killed.rowCount).toBeGreaterThanOrEqual(1);
        const deadline = Date.now() + 30_000;
        for (;;) {
          const back = await admin.query(
            "SELECT count(*)::int AS n FROM pg_stat_activity WHERE datname = current_database() AND query ILIKE 'LISTEN %'",
          );
          if (back.rows[0].n >= 1) break;
          if (Date.now() > deadline) throw new Error('the LISTEN session did not come back');
          await new Promise((r) => setTimeout(r, 50));
        }
      } finally {
        await admin.end();
      }
      const asked = await askTest(a.key, endpointId);
      await until('a delivery after the reconnect', () => rx.receipts.some((r) => r.id === asked.id), 30_000);
    });
  });

if (process.env.DATABASE_URL)
  describe('PostgreSQL: a connection the server ends between two statements of a transaction', () => {
    const opened: Database[] = [];
    afterAll(async () => {
      for (const d of opened) await d.close();
    });

    it('fails that transaction, is not thrown out of the process, and the pool serves the next query', async () => {
      const database = await openDatabase({ databaseUrl: process.env.DATABASE_URL, poolSize: 2 });
      opened.push(database);
      const uncaught: unknown[] = [];
      const onUncaught = (err: unknown) => uncaught.push(err);
      process.on('uncaughtException', onUncaught);
      const killer = new pg.Client({ connectionString: process.env.DATABASE_URL });
      await killer.connect();
      try {
        const tx = database.db.transaction(async (t) => {
          const r = (await t.execute(sql`SELECT pg_backend_pid() AS pid`)) as unknown as {
            rows: { pid: number }[];
          };
          // The server ends this session (as a restart does) while no statement of ours runs.
          await killer.query('SELECT pg_terminate_backend($1)', [r.rows[0]!.pid]);
          await new Promise((res) => setTimeout(res, 300));
          await t.execute(sql`SELECT 1`);
        });
        await expect(tx).rejects.toThrow();
        expect(uncaught).toEqual([]);
        // Both pool slots are usable: the broken client was destroyed, not handed out again.
        const pids = await Promise.all(
          [0, 1].map(async () => {
            const r = (await database.db.execute(
              sql`SELECT pg_backend_pid() AS pid, pg_sleep(0.05)`,
            )) as unknown as {
              rows: { pid: number }[];
            };
            return r.rows[0]!.pid;
          }),
        );
        expect(pids).toHaveLength(2);
      } finally {
        process.off('uncaughtException', onUncaught);
        await killer.end();
      }
    });
  });
