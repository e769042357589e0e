/**
 * Webhook deliveries through the service (outbox row → pg-boss job → worker → signed POST) against
 * the same number of signed POSTs sent straight to the same receiver, in the same run: PGlite
 * always, PostgreSQL when DATABASE_URL is set (a fresh `agentpress_bench_*` database, dropped
 * afterwards).
 *
 *   npm run bench:webhooks      BENCH_SECONDS=10 per phase, BENCH_WEBHOOKS=3000, BENCH_RATE=200,
 *                               BENCH_POSTS=100, BENCH_POST_RATE=20
 *   DATABASE_URL=postgres://… npm run bench:webhooks   (BENCH_SKIP_PGLITE=1: PostgreSQL only)
 *
 * Per database (the platform's workers as the `work` role runs them, in this one process):
 *  - baseline: BENCH_WEBHOOKS Standard Webhooks-signed POSTs sent with undici straight to the
 *    receiver at the workers' delivery concurrency, no database;
 *  - throughput: BENCH_WEBHOOKS `webhooks.test` deliveries queued before the workers start, then
 *    deliveries/s from the workers' start to the last receipt;
 *  - latency at moderate load: `webhooks.test` asked BENCH_RATE times a second, for each the time
 *    from asking to its receipt;
 *  - verdict to receipt: BENCH_POSTS stories posted BENCH_POST_RATE a second and moderated by the
 *    workers (local moderator, decision time 0): from posting to the verdict (`posts.decided_at`,
 *    how soon a queued post is picked up), and from the verdict to its `post.*` receipt.
 * Each phase stops at BENCH_SECONDS whether or not it finished; the whole run has a hard cap.
 *
 * The receiver (node:http on 127.0.0.1) runs in a worker thread, so neither PGlite's WASM nor the
 * load on the main thread delays receipts, and verifies every delivery with `standardwebhooks`.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { performance } from 'node:perf_hooks';
import { setImmediate as nextTurn } from 'node:timers/promises';
import { isMainThread, parentPort } from 'node:worker_threads';
import { eq, inArray } from 'drizzle-orm';
import { Webhook } from 'standardwebhooks';
import { Agent, request } from 'undici';
import type { Principal } from '../src/core/accounts/keys.js';
import { newId } from '../src/core/secrets.js';
import type { Database } from '../src/db/client.js';
import { posts, webhookDeliveries } from '../src/db/schema.js';
import { DELIVERY_CONCURRENCY, SWEEP_INTERVAL_MS } from '../src/jobs/workers.js';
import type { Platform } from '../src/platform.js';
import {
  benchPlatform,
  fixed,
  fundedAccounts,
  type Measured,
  onFreshPostgres,
  onPglite,
  problem,
  progressLog,
  STORY,
  summarise,
  tsxWorker,
} from './lib.js';

const SECONDS = Number(process.env.BENCH_SECONDS ?? 10);
const DELIVERIES = Number(process.env.BENCH_WEBHOOKS ?? 3000);
const RATE = Number(process.env.BENCH_RATE ?? 200);
const POSTS = Number(process.env.BENCH_POSTS ?? 100);
const POST_RATE = Number(process.env.BENCH_POST_RATE ?? 20);
/** Everything, both databases included; past it the run stops with an error. */
const HARD_CAP_SECONDS = Number(process.env.BENCH_HARD_CAP_SECONDS ?? 8 * SECONDS + 120);
/** Accounts, each with one endpoint on the receiver. */
const ACCOUNTS = 20;
/** Callers queueing test deliveries or posting stories at once. */
const CALLERS = 10;
const TEST_MESSAGE = 'This is a test delivery from agentpress.';

/** Wall-clock milliseconds with sub-millisecond resolution, comparable across threads. */
const now = () => performance.timeOrigin + performance.now();
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

// ---------------------------------------------------------------------------------------------
// Receiver (worker thread): verifies each delivery and reports when it arrived.

type ToReceiver = { kind: 'secrets'; secrets: Record<string, string> };
type FromReceiver =
  | { kind: 'listening'; port: number }
  | { kind: 'secrets-set' }
  | {
      kind: 'receipt';
      id: string;
      at: number;
      type: string | null;
      postId: string | null;
      error: string | null;
    };

function runReceiver() {
  const port = parentPort!;
  let verifiers = new Map<string, Webhook>();
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const at = now();
      const id = String(req.headers['webhook-id'] ?? '');
      let type: string | null = null;
      let postId: string | null = null;
      let error: string | null = null;
      try {
        const wh = verifiers.get(req.url ?? '');
        if (!wh) throw new Error(`no endpoint at ${req.url}`);
        const event = wh.verify(Buffer.concat(chunks), req.headers as Record<string, string>) as {
          type?: string;
          data?: { post?: { id?: string } };
        };
        type = event.type ?? null;
        postId = event.data?.post?.id ?? null;
      } catch (e) {
        error = e instanceof Error ? `${e.name}: ${e.message}` : String(e);
      }
      res.writeHead(error ? 400 : 204).end();
      port.postMessage({ kind: 'receipt', id, at, type, postId, error } satisfies FromReceiver);
    });
  });
  server.keepAliveTimeout = 60_000;
  port.on('message', (m: ToReceiver) => {
    verifiers = new Map(Object.entries(m.secrets).map(([path, secret]) => [path, new Webhook(secret)]));
    port.postMessage({ kind: 'secrets-set' } satisfies FromReceiver);
  });
  server.listen(0, '127.0.0.1', () => {
    port.postMessage({
      kind: 'listening',
      port: (server.address() as AddressInfo).port,
    } satisfies FromReceiver);
  });
}

interface Receipt {
  at: number;
  type: string | null;
  postId: string | null;
}

class Receiver {
  readonly #worker = tsxWorker(import.meta.url);
  readonly port: Promise<number>;
  #secretsSet: (() => void) | undefined;
  /** First receipt of each webhook-id that verified. */
  receipts = new Map<string, Receipt>();
  /** First receipt of a post.* event, by post id. */
  byPost = new Map<string, Receipt>();
  duplicates = 0;
  failures = 0;
  firstFailure: string | undefined;

  constructor() {
    this.port = new Promise((resolve, reject) => {
      this.#worker.on('message', (m: FromReceiver) => {
        if (m.kind === 'listening') resolve(m.port);
        else if (m.kind === 'secrets-set') this.#secretsSet?.();
        else this.#receipt(m);
      });
      this.#worker.once('error', reject);
    });
    this.#worker.on('error', (e) => console.error('[bench/webhooks] receiver failed:', e));
  }

  #receipt(m: Extract<FromReceiver, { kind: 'receipt' }>) {
    if (m.error) {
      this.failures++;
      this.firstFailure ??= `${m.id}: ${m.error}`;
      return;
    }
    if (this.receipts.has(m.id)) {
      this.duplicates++;
      return;
    }
    const r = { at: m.at, type: m.type, postId: m.postId };
    this.receipts.set(m.id, r);
    if (m.postId && !this.byPost.has(m.postId)) this.byPost.set(m.postId, r);
  }

  /** Endpoint path → whsec_ secret; forgets what was received so far. */
  async expect(secrets: Record<string, string>): Promise<void> {
    this.receipts = new Map();
    this.byPost = new Map();
    this.duplicates = 0;
    this.failures = 0;
    this.firstFailure = undefined;
    await new Promise<void>((resolve) => {
      this.#secretsSet = resolve;
      this.#worker.postMessage({ kind: 'secrets', secrets } satisfies ToReceiver);
    });
  }

  /** Waits until `done()` or the deadline (epoch ms); true if done. */
  async until(done: () => boolean, deadline: number): Promise<boolean> {
    for (;;) {
      if (done()) return true;
      if (now() >= deadline) return false;
      await sleep(Math.min(10, Math.max(1, deadline - now())));
    }
  }

  async close(): Promise<void> {
    await this.#worker.terminate();
  }
}

// ---------------------------------------------------------------------------------------------
// Measurements.

interface Phase extends Measured {
  sent: number;
  /** Seconds spent queueing or posting, from the phase's start. */
  sendSeconds: number;
  received: number;
  /** Epoch ms, for telling whether the periodic sweep ran inside the phase. */
  started: number;
  ended: number;
  complete: boolean;
}

interface Row extends Phase {
  database: string;
  path: string;
  rateRatio: number;
  p50Ratio: number;
}

interface Endpoint {
  id: string;
  path: string;
  url: string;
  secret: string;
  principal: Principal;
}

/**
 * `callers` loops taking items 0..count-1 in turn until they run out or the deadline passes. Each
 * call starts on a fresh turn of the event loop, as a call made for an HTTP request would: PGlite
 * answers without I/O, so back-to-back awaits would never let a timer run, and the pg-boss pollers
 * (timers) would sit idle until the last call returned.
 */
async function inLoops(
  callers: number,
  count: number,
  deadline: number,
  op: (i: number, loop: number) => Promise<void>,
): Promise<{ failures: number; firstFailure: unknown }> {
  let next = 0;
  let failures = 0;
  let firstFailure: unknown;
  await Promise.all(
    Array.from({ length: callers }, async (_, loop) => {
      while (now() < deadline) {
        const i = next++;
        if (i >= count) return;
        await nextTurn();
        try {
          await op(i, loop);
        } catch (e) {
          failures++;
          firstFailure ??= e;
        }
      }
    }),
  );
  return { failures, firstFailure };
}

function phase(
  latencies: number[],
  sent: number,
  sentAt: number,
  started: number,
  ended: number,
  complete: boolean,
): Phase {
  const m = summarise(Float64Array.from(latencies), latencies.length, (ended - started) / 1000);
  return {
    ...m,
    sent,
    sendSeconds: (sentAt - started) / 1000,
    received: latencies.length,
    started,
    ended,
    complete,
  };
}

/** Ends at the last receipt when everything arrived, else when the wait gave up. */
function lastOf(ats: number[], complete: boolean): number {
  return complete && ats.length > 0 ? Math.max(...ats) : now();
}

/** Calls `op(i)` for i = 0..count-1 at `rate` a second (each on schedule, not after the last returned). */
async function paced(
  count: number,
  rate: number,
  deadline: number,
  op: (i: number) => Promise<void>,
): Promise<{ sent: number; failures: number; firstFailure: unknown }> {
  const started = now();
  let failures = 0;
  let firstFailure: unknown;
  const calls: Promise<void>[] = [];
  for (let i = 0; i < count; i++) {
    const at = started + (i * 1000) / rate;
    if (at >= deadline) break;
    if (at > now()) await sleep(at - now());
    calls.push(
      op(i).catch((e: unknown) => {
        failures++;
        firstFailure ??= e;
      }),
    );
  }
  await Promise.all(calls);
  return { sent: calls.length, failures, firstFailure };
}

/** Asks for `count` test deliveries (10 callers); answers delivery id → when it was asked. */
async function askTests(
  platform: Platform,
  endpoints: Endpoint[],
  count: number,
  deadline: number,
  fail: (detail: string) => void,
): Promise<Map<string, number>> {
  const askedAt = new Map<string, number>();
  const r = await inLoops(CALLERS, count, deadline, async (i) => {
    const ep = endpoints[i % endpoints.length]!;
    const t0 = now();
    const { delivery_id } = await platform.services.webhooks.test(ep.principal, ep.id);
    askedAt.set(delivery_id, t0);
  });
  if (r.failures > 0) fail(`${r.failures} webhooks.test calls failed; first: ${String(r.firstFailure)}`);
  return askedAt;
}

/** Receipts of these deliveries: latencies from `since(id)`, and when the last one arrived. */
async function receiptsOf(
  receiver: Receiver,
  ids: string[],
  since: (id: string) => number,
  deadline: number,
): Promise<{ latencies: number[]; complete: boolean; last: number }> {
  const arrived = await receiver.until(() => ids.every((id) => receiver.receipts.has(id)), deadline);
  const latencies: number[] = [];
  const ats: number[] = [];
  for (const id of ids) {
    const got = receiver.receipts.get(id);
    if (got) {
      latencies.push(got.at - since(id));
      ats.push(got.at);
    }
  }
  return { latencies, complete: arrived, last: lastOf(ats, arrived) };
}

/**
 * (a) Throughput: `count` test deliveries queued while no worker runs, then the workers start;
 * deliveries/s from their start to the last receipt (latencies: from the start to each receipt).
 */
async function backlogDrain(
  platform: Platform,
  receiver: Receiver,
  endpoints: Endpoint[],
  count: number,
  seconds: number,
  fail: (detail: string) => void,
): Promise<Phase & { queueSeconds: number }> {
  const queueStarted = now();
  const askedAt = await askTests(platform, endpoints, count, queueStarted + 4 * seconds * 1000, fail);
  const queueSeconds = (now() - queueStarted) / 1000;
  const started = now();
  await platform.startWorkers();
  const ids = [...askedAt.keys()];
  const r = await receiptsOf(receiver, ids, () => started, started + seconds * 1000);
  return {
    ...phase(r.latencies, ids.length, started, started, r.last, r.complete && ids.length === count),
    queueSeconds,
  };
}

/** (b) Latency at moderate load: `rate` test deliveries a second, each from asking to receipt. */
async function pacedDeliveries(
  platform: Platform,
  receiver: Receiver,
  endpoints: Endpoint[],
  count: number,
  rate: number,
  seconds: number,
  fail: (detail: string) => void,
): Promise<Phase> {
  const askedAt = new Map<string, number>();
  const started = now();
  const deadline = started + seconds * 1000;
  const r = await paced(count, rate, deadline, async (i) => {
    const ep = endpoints[i % endpoints.length]!;
    const t0 = now();
    const { delivery_id } = await platform.services.webhooks.test(ep.principal, ep.id);
    askedAt.set(delivery_id, t0);
  });
  const sentAt = now();
  if (r.failures > 0) fail(`${r.failures} webhooks.test calls failed; first: ${String(r.firstFailure)}`);
  const ids = [...askedAt.keys()];
  const got = await receiptsOf(receiver, ids, (id) => askedAt.get(id)!, Math.max(deadline, now() + 2_000));
  return phase(got.latencies, ids.length, sentAt, started, got.last, got.complete && ids.length === count);
}

/** The baseline: the same signed POSTs straight to the receiver, at the workers' concurrency. */
async function directDeliveries(
  receiver: Receiver,
  endpoints: Endpoint[],
  count: number,
  seconds: number,
  fail: (detail: string) => void,
): Promise<Phase> {
  const agent = new Agent();
  try {
    const latencies: number[] = [];
    const ids: string[] = [];
    let last = 0;
    const started = now();
    const deadline = started + seconds * 1000;
    const r = await inLoops(DELIVERY_CONCURRENCY, count, deadline, async (i) => {
      const ep = endpoints[i % endpoints.length]!;
      const id = newId('msg');
      const payload = JSON.stringify({
        type: 'webhook.test',
        timestamp: new Date().toISOString(),
        data: { endpoint_id: ep.id, message: TEST_MESSAGE },
      });
      const t0 = now();
      const sentAt = new Date();
      const res = await request(ep.url, {
        method: 'POST',
        dispatcher: agent,
        body: payload,
        headers: {
          'content-type': 'application/json',
          'user-agent': 'agentpress-webhooks/1',
          'webhook-id': id,
          'webhook-timestamp': String(Math.floor(sentAt.getTime() / 1000)),
          'webhook-signature': new Webhook(ep.secret).sign(id, sentAt, payload),
        },
      });
      await res.body.dump();
      if (res.statusCode < 200 || res.statusCode > 299)
        throw new Error(`the receiver answered ${res.statusCode}`);
      last = now();
      latencies.push(last - t0);
      ids.push(id);
    });
    const sentAt = now();
    if (r.failures > 0) fail(`${r.failures} direct POSTs failed; first: ${String(r.firstFailure)}`);
    const received = await receiver.until(() => ids.every((id) => receiver.receipts.has(id)), deadline);
    if (!received) fail('a direct POST was answered but its receipt was not recorded');
    const complete = ids.length === count;
    return phase(latencies, count, sentAt, started, complete ? last : now(), complete);
  } finally {
    await agent.close();
  }
}

/**
 * (c) Stories posted `rate` a second and moderated by the workers: for each, from posting to its
 * verdict (`posts.decided_at`: how soon a queued post is picked up) and from the verdict to the
 * receiver getting its `post.*` event.
 */
async function verdictToReceipt(
  platform: Platform,
  receiver: Receiver,
  principals: Principal[],
  count: number,
  rate: number,
  seconds: number,
  fail: (detail: string) => void,
): Promise<Phase & { verdicts: number; pickup: Measured }> {
  const postedAt = new Map<string, number>();
  const started = now();
  const deadline = started + seconds * 1000;
  const r = await paced(count, rate, deadline, async (i) => {
    const t0 = now();
    const res = await platform.services.posts.create(principals[i % principals.length]!, 'stories', STORY);
    if (res.kind !== 'accepted') throw new Error(`posts.create answered ${res.kind}`);
    postedAt.set(res.view.id, t0);
  });
  const sentAt = now();
  if (r.failures > 0) fail(`${r.failures} posts.create calls failed; first: ${String(r.firstFailure)}`);
  const ids = [...postedAt.keys()];
  const complete = await receiver.until(
    () => ids.every((id) => receiver.byPost.has(id)),
    Math.max(deadline, now() + 2_000),
  );
  const ended = now();
  const decided =
    ids.length === 0
      ? []
      : await platform.deps.db
          .select({ id: posts.id, decidedAt: posts.decidedAt })
          .from(posts)
          .where(inArray(posts.id, ids));
  const latencies: number[] = [];
  const pickups: number[] = [];
  const ats: number[] = [];
  let verdicts = 0;
  for (const { id, decidedAt } of decided) {
    if (!decidedAt) continue;
    verdicts++;
    pickups.push(decidedAt.getTime() - postedAt.get(id)!);
    const got = receiver.byPost.get(id);
    if (got) {
      latencies.push(got.at - decidedAt.getTime());
      ats.push(got.at);
    }
  }
  const all = complete && ids.length === count;
  return {
    ...phase(latencies, ids.length, sentAt, started, all ? lastOf(ats, all) : ended, all),
    verdicts,
    pickup: summarise(Float64Array.from(pickups), pickups.length, (ended - started) / 1000),
  };
}

// ---------------------------------------------------------------------------------------------
// One database.

async function benchDatabase(
  name: string,
  database: Database,
  dataDir: string,
  receiver: Receiver,
  errors: string[],
  notes: string[],
): Promise<Row[]> {
  const progress = progressLog('webhooks', name);
  const receiverPort = await receiver.port;
  const platform = await benchPlatform(database, dataDir, { WEBHOOK_ALLOW_TARGETS: '127.0.0.1' });
  try {
    const { principals } = await fundedAccounts(platform, ACCOUNTS);
    const endpoints: Endpoint[] = [];
    for (const [i, principal] of principals.entries()) {
      const path = `/hooks/${i}`;
      const url = `http://127.0.0.1:${receiverPort}${path}`;
      const created = await platform.services.webhooks.create(principal, { url });
      endpoints.push({ id: created.id, path, url, secret: created.secret, principal });
    }
    await receiver.expect(Object.fromEntries(endpoints.map((e) => [e.path, e.secret])));

    const fail = (path: string) => (detail: string) => problem(errors, name, path, detail);
    const cancelQueued = async () => {
      await platform.jobs.boss.purgeQueue('deliver-webhook');
      const dropped = await platform.deps.db
        .update(webhookDeliveries)
        .set({ status: 'cancelled', completedAt: new Date(), nextAttemptAt: null })
        .where(eq(webhookDeliveries.status, 'pending'))
        .returning({ id: webhookDeliveries.id });
      // One received but not yet marked succeeded was not abandoned (its worker still records it).
      return dropped.filter(({ id }) => !receiver.receipts.has(id)).length;
    };

    progress(`warm-up: ${DELIVERIES} signed POSTs straight to the receiver`);
    await directDeliveries(receiver, endpoints, DELIVERIES, SECONDS, fail('warm-up'));
    progress(
      `baseline: ${DELIVERIES} signed POSTs straight to the receiver, ${DELIVERY_CONCURRENCY} at a time`,
    );
    const direct = await directDeliveries(receiver, endpoints, DELIVERIES, SECONDS, fail('direct'));

    progress(
      `(a) ${DELIVERIES} webhooks.test deliveries queued, then the workers start (at most ${SECONDS} s)`,
    );
    const backlog = await backlogDrain(platform, receiver, endpoints, DELIVERIES, SECONDS, fail('backlog'));
    const workersAt = backlog.started;
    const abandoned = await cancelQueued();
    progress(
      `    queued in ${backlog.queueSeconds.toFixed(1)} s; ${backlog.received} of ${backlog.sent} received in ` +
        `${((backlog.ended - backlog.started) / 1000).toFixed(2)} s` +
        (abandoned > 0 ? `; ${abandoned} not received were cancelled` : ''),
    );
    const latencyCount = Math.round(RATE * SECONDS * 0.6);
    progress(`(b) ${latencyCount} webhooks.test deliveries asked ${RATE} a second`);
    const moderate = await pacedDeliveries(
      platform,
      receiver,
      endpoints,
      latencyCount,
      RATE,
      SECONDS,
      fail('webhooks.test paced'),
    );
    await cancelQueued();
    progress(`(c) ${POSTS} stories posted ${POST_RATE} a second and moderated by the workers`);
    const verdict = await verdictToReceipt(
      platform,
      receiver,
      principals,
      POSTS,
      POST_RATE,
      SECONDS,
      fail('verdict to receipt'),
    );
    progress(`    ${verdict.verdicts} verdicts, ${verdict.received} post events received`);

    if (receiver.failures > 0)
      problem(
        errors,
        name,
        'receiver',
        `${receiver.failures} deliveries failed verification; first: ${receiver.firstFailure}`,
      );
    const sweptDuring = (p: Phase) => {
      for (let at = workersAt + SWEEP_INTERVAL_MS; at <= p.ended; at += SWEEP_INTERVAL_MS)
        if (at >= p.started) return true;
      return false;
    };
    const note = (label: string, p: Phase, extra: string[] = []) => {
      const parts = [...extra];
      if (!p.complete) parts.push(`time bound reached: ${p.received} of ${p.sent} received`);
      if (sweptDuring(p)) parts.push(`the ${SWEEP_INTERVAL_MS / 1000} s sweep ran during it`);
      if (parts.length > 0) notes.push(`${name}, ${label}: ${parts.join('; ')}`);
    };
    note('direct', direct);
    note('backlog', backlog, [
      `${backlog.sent} of ${DELIVERIES} queued in ${backlog.queueSeconds.toFixed(1)} s before the workers started`,
      ...(abandoned > 0 ? [`${abandoned} not received by the bound were cancelled`] : []),
    ]);
    note('moderate load', moderate, [`${moderate.sent} asked in ${moderate.sendSeconds.toFixed(1)} s`]);
    note('verdict to receipt', verdict, [
      `${verdict.sent} of ${POSTS} posted in ${verdict.sendSeconds.toFixed(1)} s`,
      `${verdict.verdicts} of ${verdict.sent} had a verdict by the bound`,
    ]);
    notes.push(`${name}: signature failures ${receiver.failures}, duplicate receipts ${receiver.duplicates}`);

    const row = (path: string, p: Measured & Omit<Phase, keyof Measured>): Row => ({
      database: name,
      path,
      ...p,
      rateRatio: p.opsPerSecond / direct.opsPerSecond,
      p50Ratio: p.p50 / direct.p50,
    });
    return [
      row('direct signed POST, no database (baseline)', direct),
      row('backlog through the workers (workers start to receipt)', backlog),
      row(`webhooks.test at ${RATE}/s (ask to receipt)`, moderate),
      row(`post at ${POST_RATE}/s → verdict (pick-up)`, { ...verdict, ...verdict.pickup }),
      row(`verdict → post.* receipt`, verdict),
    ];
  } finally {
    progress('closing the platform');
    await platform.close();
    progress('closed');
  }
}

function table(rows: Row[]): string {
  return [
    '| database | path | sent | received | deliveries/s | p50 ms | p99 ms | deliveries/s ÷ baseline | p50 ÷ baseline |',
    '| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |',
    ...rows.map(
      (r) =>
        `| ${r.database} | ${r.path} | ${r.sent} | ${r.received} | ${fixed(r.opsPerSecond, 1)} | ${fixed(r.p50, 2)} | ` +
        `${fixed(r.p99, 2)} | ${fixed(r.rateRatio, 3)} | ${fixed(r.p50Ratio, 1)} |`,
    ),
  ].join('\n');
}

async function main() {
  const cap = setTimeout(() => {
    console.error(
      `ERROR: bench/webhooks passed its hard cap of ${HARD_CAP_SECONDS} s (BENCH_HARD_CAP_SECONDS); ` +
        'stopping. An agentpress_bench_* database may be left behind.',
    );
    process.exit(2);
  }, HARD_CAP_SECONDS * 1000);
  cap.unref();
  const errors: string[] = [];
  const notes: string[] = [];
  const rows: Row[] = [];
  const receiver = new Receiver();
  try {
    if (process.env.BENCH_SKIP_PGLITE !== '1')
      rows.push(...(await onPglite((db, dir) => benchDatabase('pglite', db, dir, receiver, errors, notes))));
    const url = process.env.DATABASE_URL;
    if (url)
      rows.push(
        ...(await onFreshPostgres(url, (db, dir) =>
          benchDatabase('postgres', db, dir, receiver, errors, notes),
        )),
      );
  } finally {
    await receiver.close();
    clearTimeout(cap);
  }
  console.log(
    `### bench/webhooks: deliveries through the workers against signed POSTs sent straight to the ` +
      `receiver (${ACCOUNTS} endpoints, ${DELIVERY_CONCURRENCY} at a time, at most ${SECONDS} s per phase, ` +
      `node ${process.version})\n`,
  );
  console.log(table(rows));
  console.log('');
  for (const n of notes) console.log(`- ${n}`);
  for (const e of errors) console.log(`\n${e}`);
}

if (isMainThread) {
  await main();
} else {
  runReceiver();
}
