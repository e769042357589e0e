/**
 * POST /v1/posts over HTTP against the same charge-and-queue transaction done directly on the
 * database, in the same run and on the same database: PGlite always, PostgreSQL when DATABASE_URL
 * is set (a fresh `agentpress_bench_*` database, dropped afterwards).
 *
 *   npm run bench:post                   BENCH_SECONDS=10 by default, 10 connections
 *   DATABASE_URL=postgres://… npm run bench:post
 *
 * Workers are not started: moderation is asynchronous, this measures the posting path only.
 * autocannon runs in a worker thread so the load generator does not share the server's event loop.
 */
import { randomBytes } from 'node:crypto';
import type { AddressInfo } from 'node:net';
import { performance } from 'node:perf_hooks';
import { isMainThread, parentPort, type Worker } from 'node:worker_threads';
import autocannon from 'autocannon';
import { count, eq } from 'drizzle-orm';
import { loadConfig } from '../src/config.js';
import { post as ledgerPost } from '../src/core/billing/ledger.js';
import { normalizeBody } from '../src/core/posts/bodies.js';
import { newId } from '../src/core/secrets.js';
import { type Database, migrate } from '../src/db/client.js';
import { posts } from '../src/db/schema.js';
import { type App, buildApp } from '../src/http/app.js';
import { createPlatform, type Platform } from '../src/platform.js';
import {
  type Bench,
  closedLoops,
  fundedAccounts,
  type Measured,
  onFreshPostgres,
  onPglite,
  problem,
  quietLog,
  STORY,
  summarise,
  tsxWorker,
} from './lib.js';

const SECONDS = Number(process.env.BENCH_SECONDS ?? 10);
const WARMUP_SECONDS = Number(process.env.BENCH_WARMUP_SECONDS ?? Math.min(2, SECONDS));
const CONNECTIONS = 10;
const ADMIN_TOKEN = `bench-admin-${randomBytes(12).toString('hex')}`;

const STORY_JSON = JSON.stringify(STORY);

interface LoadSpec {
  url: string;
  keys: string[];
  body: string;
  seconds: number;
  connections: number;
}

interface LoadResult {
  completed: number;
  non2xx: number;
  statuses: Record<string, number>;
  sampleError: string | undefined;
  errors: number;
  timeouts: number;
  elapsedSeconds: number;
  latencies: Float64Array;
}

interface Row extends Measured {
  database: string;
  path: string;
  ratio: number;
}

// ---------------------------------------------------------------------------------------------
// Load generator (worker thread): autocannon with one API key per connection.

async function generateLoad(spec: LoadSpec): Promise<LoadResult> {
  const latencies: number[] = [];
  const statuses: Record<string, number> = {};
  let non2xx = 0;
  let sampleError: string | undefined;
  let nextKey = 0;
  const started = performance.now();
  const result = await new Promise<autocannon.Result>((resolve, reject) => {
    autocannon(
      {
        url: spec.url,
        method: 'POST',
        connections: spec.connections,
        duration: spec.seconds,
        body: spec.body,
        setupClient(client) {
          const key = spec.keys[nextKey++ % spec.keys.length];
          client.setHeaders({
            'content-type': 'application/json',
            accept: 'application/json',
            authorization: `Bearer ${key}`,
          });
          let lastBody: Buffer | undefined;
          client.on('body', (b) => {
            lastBody = b;
          });
          client.on('response', (status, _bytes, ms) => {
            latencies.push(ms);
            statuses[status] = (statuses[status] ?? 0) + 1;
            if (status < 200 || status > 299) {
              non2xx++;
              sampleError ??= `${status} ${lastBody?.toString('utf8').slice(0, 300) ?? ''}`;
            }
          });
        },
      },
      (err, res) => (err ? reject(err) : resolve(res)),
    );
  });
  return {
    completed: latencies.length,
    non2xx,
    statuses,
    sampleError,
    errors: result.errors,
    timeouts: result.timeouts,
    elapsedSeconds: (performance.now() - started) / 1000,
    latencies: Float64Array.from(latencies),
  };
}

interface Pending {
  resolve: (r: LoadResult) => void;
  reject: (e: unknown) => void;
}

/** One worker thread for the whole run: it takes a LoadSpec per message and answers a LoadResult. */
class LoadWorker {
  readonly #worker: Worker;
  #pending: Pending | undefined;

  constructor() {
    this.#worker = tsxWorker(import.meta.url);
    this.#worker.on('message', (r: LoadResult) => this.#settle((p) => p.resolve(r)));
    this.#worker.on('error', (e) => this.#settle((p) => p.reject(e)));
    this.#worker.on('exit', (code) =>
      this.#settle((p) => p.reject(new Error(`the load worker exited with ${code}`))),
    );
  }

  #settle(f: (p: Pending) => void) {
    const p = this.#pending;
    this.#pending = undefined;
    if (p) f(p);
  }

  run(spec: LoadSpec): Promise<LoadResult> {
    return new Promise((resolve, reject) => {
      this.#pending = { resolve, reject };
      this.#worker.postMessage(spec);
    });
  }

  async close(): Promise<void> {
    await this.#worker.terminate();
  }
}

// ---------------------------------------------------------------------------------------------
// Measurements.

// ---------------------------------------------------------------------------------------------
// One database: platform, funded accounts, then HTTP and the direct baseline.

/** The posting transaction without HTTP, validation or estimates: debit, insert, queue. */
function directPost({ platform, principals }: Bench) {
  const post = normalizeBody('stories', STORY, new Date());
  return async (loop: number) => {
    const principal = principals[loop % principals.length]!;
    const { db, clock } = platform.deps;
    await db.transaction(async (tx) => {
      const now = clock.now();
      const id = newId('post');
      const balance = await ledgerPost(tx, {
        accountId: principal.accountId,
        kind: 'post_fee',
        amount: -post.price,
        reference: id,
        at: now,
      });
      if (balance === null) throw new Error('a bench account ran out of balance');
      await tx.insert(posts).values({
        id,
        site: 'stories',
        accountId: principal.accountId,
        keyId: principal.keyId,
        status: 'queued',
        title: post.title,
        body: post.body,
        topics: post.topics,
        fields: post.fields,
        country: post.country,
        state: post.state,
        city: post.city,
        authorName: principal.name,
        charged: post.price,
        visibleUntil: post.visibleUntil,
        startsAt: post.startsAt,
        createdAt: now,
      });
      await platform.jobs.send(tx, 'moderate', { post_id: id });
    });
  };
}

async function benchDatabase(
  name: string,
  database: Database,
  dataDir: string,
  load: LoadWorker,
  errors: string[],
): Promise<Row[]> {
  const t0 = performance.now();
  const progress = (m: string) =>
    console.error(`[bench/post] ${name} +${((performance.now() - t0) / 1000).toFixed(1)} s: ${m}`);
  const config = loadConfig({
    DATA_DIR: dataDir,
    ADMIN_TOKEN,
    LOG_LEVEL: 'silent',
    MODERATOR_START_SECONDS: '0',
    // Not enforced yet; set high so a future rate limit does not turn this into a 429 benchmark.
    PLATFORM_RATE: '1000000',
    PLATFORM_BURST: '1000000',
  });
  let platform: Platform;
  try {
    await migrate(database);
    platform = await createPlatform(config, { database, supervise: false, log: quietLog });
  } catch (e) {
    await database.close();
    throw e;
  }
  let app: App | undefined;
  try {
    app = await buildApp(platform, { logger: false });
    await app.listen({ host: '127.0.0.1', port: 0 });
    const { port } = app.server.address() as AddressInfo;
    const bench = await fundedAccounts(platform, CONNECTIONS);
    const spec = (seconds: number): LoadSpec => ({
      url: `http://127.0.0.1:${port}/v1/posts`,
      keys: bench.keys,
      body: STORY_JSON,
      seconds,
      connections: CONNECTIONS,
    });
    const direct = directPost(bench);
    const service = async (loop: number) => {
      await platform.services.posts.create(bench.principals[loop]!, 'stories', STORY);
    };

    const http = async (seconds: number, path: string): Promise<Measured> => {
      const r = await load.run(spec(seconds));
      if (r.non2xx > 0) {
        const codes = Object.entries(r.statuses)
          .filter(([s]) => !s.startsWith('2'))
          .map(([s, n]) => `${s}×${n}`)
          .join(', ');
        problem(errors, name, path, `${r.non2xx} non-2xx responses (${codes}); first: ${r.sampleError}`);
      }
      if (r.errors > 0) problem(errors, name, path, `${r.errors} connection errors (${r.timeouts} timeouts)`);
      return summarise(r.latencies, r.completed - r.non2xx, r.elapsedSeconds);
    };
    const loops = async (seconds: number, path: string, op: (loop: number) => Promise<void>) => {
      const r = await closedLoops(seconds, CONNECTIONS, op);
      if (r.failures > 0)
        problem(errors, name, path, `${r.failures} failed; first: ${String(r.firstFailure)}`);
      return r.measured;
    };

    if (WARMUP_SECONDS > 0) {
      progress(`warm-up, ${WARMUP_SECONDS} s per path`);
      await http(WARMUP_SECONDS, 'warm-up http');
      await loops(WARMUP_SECONDS, 'warm-up service', service);
      await loops(WARMUP_SECONDS, 'warm-up direct', direct);
    }
    progress(`HTTP POST /v1/posts, ${SECONDS} s at ${CONNECTIONS} connections`);
    const viaHttp = await http(SECONDS, 'http');
    progress(`posts.create without HTTP, ${SECONDS} s in ${CONNECTIONS} loops`);
    const viaService = await loops(SECONDS, 'service', service);
    progress(`direct transaction, ${SECONDS} s in ${CONNECTIONS} loops`);
    const baseline = await loops(SECONDS, 'direct', direct);

    const [queued] = await platform.deps.db
      .select({ n: count() })
      .from(posts)
      .where(eq(posts.status, 'queued'));
    progress(`done; ${queued?.n ?? 0} posts queued (workers are not run)`);
    const ratio = (m: Measured) => m.opsPerSecond / baseline.opsPerSecond;
    return [
      { database: name, path: 'direct transaction (baseline)', ...baseline, ratio: 1 },
      { database: name, path: 'posts.create, no HTTP', ...viaService, ratio: ratio(viaService) },
      { database: name, path: 'HTTP POST /v1/posts', ...viaHttp, ratio: ratio(viaHttp) },
    ];
  } finally {
    await app?.close();
    await platform.close();
  }
}

function withPglite(load: LoadWorker, errors: string[]): Promise<Row[]> {
  return onPglite((database, dataDir) => benchDatabase('pglite', database, dataDir, load, errors));
}

function withPostgres(url: string, load: LoadWorker, errors: string[]): Promise<Row[]> {
  return onFreshPostgres(url, (database, dataDir) =>
    benchDatabase('postgres', database, dataDir, load, errors),
  );
}

function table(rows: Row[]): string {
  const f = (n: number, digits: number) => (Number.isFinite(n) ? n.toFixed(digits) : 'n/a');
  return [
    '| database | path | ops/s | p50 ms | p99 ms | ratio to baseline |',
    '| --- | --- | ---: | ---: | ---: | ---: |',
    ...rows.map(
      (r) =>
        `| ${r.database} | ${r.path} | ${f(r.opsPerSecond, 0)} | ${f(r.p50, 2)} | ${f(r.p99, 2)} | ${f(r.ratio, 2)} |`,
    ),
  ].join('\n');
}

async function main() {
  const errors: string[] = [];
  const rows: Row[] = [];
  const load = new LoadWorker();
  try {
    rows.push(...(await withPglite(load, errors)));
    const url = process.env.DATABASE_URL;
    if (url) rows.push(...(await withPostgres(url, load, errors)));
  } finally {
    await load.close();
  }
  console.log(
    `### bench/post: POST /v1/posts against the same transaction without HTTP ` +
      `(${CONNECTIONS} connections or loops, ${SECONDS} s each, node ${process.version})\n`,
  );
  console.log(table(rows));
  for (const e of errors) console.log(`\n${e}`);
}

if (isMainThread) {
  await main();
} else {
  parentPort!.on('message', async (spec: LoadSpec) => parentPort!.postMessage(await generateLoad(spec)));
}
