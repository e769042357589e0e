/**
 * Pieces the benchmarks share: the story they post, percentiles, funded accounts, the database
 * each run uses (PGlite in a temporary DATA_DIR, or a fresh `agentpress_bench_*` PostgreSQL
 * database dropped afterwards) and worker threads that run TypeScript under tsx.
 */
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { isMainThread, parentPort, Worker } from 'node:worker_threads';
import autocannon from 'autocannon';
import type { FastifyInstance } from 'fastify';
import pg from 'pg';
import { loadConfig } from '../src/config.js';
import type { Principal } from '../src/core/accounts/keys.js';
import { post as ledgerPost } from '../src/core/billing/ledger.js';
import { PRICES } from '../src/core/pricing.js';
import { type Database, migrate, openDatabase, pgliteDirFor } from '../src/db/client.js';
import { type App, buildApp } from '../src/http/app.js';
import { createPlatform, type Platform } from '../src/platform.js';

/** About 200 words of ordinary prose in three paragraphs: a valid story that passes the prefilter. */
export const STORY = {
  title: 'The keeper of the northern light',
  topics: ['sea', 'short-fiction'],
  body: [
    'Marta took the lighthouse job the winter her brother left for the city, mostly because nobody else ' +
      'applied. The island had one road, two goats and a radio that caught the weather station on clear ' +
      'nights. She learned to trim the wick, polish the great lens with a soft cloth, and write the ' +
      'passing ships into a ledger whose first pages were older than her grandmother.',
    'In February a fishing boat limped into the cove with a cracked rudder and three tired men aboard. ' +
      'Marta made soup from what she had, which was onions, barley and a stubborn piece of smoked ham, ' +
      'and the men ate it in silence while the storm leaned on the windows. The youngest asked whether ' +
      'she was lonely. She said the light kept her company, and that every ship in the ledger was a ' +
      'conversation she had simply not finished yet.',
    'When spring came the boat left with a new rudder carved from driftwood. Months later a parcel ' +
      'arrived on the supply ferry: a jar of honey, a pair of wool socks, and a note that said only that ' +
      'they had seen her light from far out, every night, and steered home by it.',
  ].join('\n\n'),
};

// ---------------------------------------------------------------------------------------------
// Measurements.

export interface Measured {
  opsPerSecond: number;
  p50: number;
  p99: number;
}

export function percentile(sorted: Float64Array, p: number): number {
  if (sorted.length === 0) return Number.NaN;
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))]!;
}

export function summarise(latencies: Float64Array, ok: number, seconds: number): Measured {
  const sorted = Float64Array.from(latencies).sort();
  return { opsPerSecond: ok / seconds, p50: percentile(sorted, 50), p99: percentile(sorted, 99) };
}

/** `n` with `digits` decimals, or `n/a` where there is no figure (NaN, infinite). */
export const fixed = (n: number, digits = 0) => (Number.isFinite(n) ? n.toFixed(digits) : 'n/a');

/** Records an error line for the summary, prints it now, and makes the run exit non-zero. */
export function problem(errors: string[], database: string, path: string, detail: string) {
  const line = `ERROR: ${database} ${path}: ${detail}`;
  errors.push(line);
  console.error(line);
  process.exitCode = 1;
}

// ---------------------------------------------------------------------------------------------
// Platform and accounts.

export const quietLog = {
  info() {},
  warn() {},
  error: (o: unknown, m?: string) => console.error(m ?? o),
};

export interface Bench {
  platform: Platform;
  keys: string[];
  principals: Principal[];
}

export async function fundedAccounts(platform: Platform, n: number): Promise<Bench> {
  const { accounts, topUps, keys } = platform.services;
  const apiKeys: string[] = [];
  const principals: Principal[] = [];
  for (let i = 0; i < n; i++) {
    const acct = await accounts.create({
      name: `bench agent ${i}`,
      email: `bench-${i}@example.com`,
      accept_terms: true,
    });
    await topUps.create(acct.id, { amount: 500_000_000 });
    // A top-up pays for 2,000 posts; a fast database posts more than that in a run.
    await platform.deps.db.transaction((tx) =>
      ledgerPost(tx, {
        accountId: acct.id,
        kind: 'top_up',
        amount: PRICES.post * 1_000_000,
        memo: 'bench credit',
        at: platform.deps.clock.now(),
      }),
    );
    const principal = await keys.authenticate(acct.api_key);
    if (!principal) throw new Error('a fresh API key did not authenticate');
    apiKeys.push(acct.api_key);
    principals.push(principal);
  }
  return { platform, keys: apiKeys, principals };
}

// ---------------------------------------------------------------------------------------------
// Databases.

/** The embedded default: PGlite in DATA_DIR/pglite (a temporary DATA_DIR), as `npm start` runs it. */
export async function onPglite<T>(run: (database: Database, dataDir: string) => Promise<T>): Promise<T> {
  const dataDir = mkdtempSync(join(tmpdir(), 'agentpress-bench-'));
  try {
    const database = await openDatabase({ pgliteDir: pgliteDirFor(dataDir) });
    return await run(database, dataDir);
  } finally {
    rmSync(dataDir, { recursive: true, force: true });
  }
}

export function withDatabaseName(url: string, name: string): string {
  const u = new URL(url);
  u.pathname = `/${name}`;
  return u.toString();
}

/** A fresh `agentpress_bench_<random>` database on the server at `url`, dropped afterwards. */
export async function onFreshPostgres<T>(
  url: string,
  run: (database: Database, dataDir: string) => Promise<T>,
): Promise<T> {
  const name = `agentpress_bench_${randomBytes(6).toString('hex')}`;
  const dataDir = mkdtempSync(join(tmpdir(), 'agentpress-bench-'));
  const admin = new pg.Client({ connectionString: url });
  await admin.connect();
  try {
    await admin.query(`CREATE DATABASE ${name}`);
    try {
      const database = await openDatabase({ databaseUrl: withDatabaseName(url, name) });
      return await run(database, dataDir);
    } finally {
      await admin.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
    }
  } finally {
    await admin.end();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

// ---------------------------------------------------------------------------------------------
// Worker threads.

/**
 * A worker thread running the module at `moduleUrl` (pass `import.meta.url` to run the calling
 * file again; it tells the two apart with `isMainThread`).
 */
export function tsxWorker(moduleUrl: string): Worker {
  // tsx's loader does not reach worker threads on Node 20: register it there, then load the file.
  const tsx = JSON.stringify(import.meta.resolve('tsx/esm/api'));
  const self = JSON.stringify(moduleUrl);
  const code = `import(${tsx}).then((api) => { api.register(); return import(${self}); })`;
  return new Worker(code, { eval: true, execArgv: [] });
}

/** `concurrency` closed loops, each running `op(loop, call)` back to back until the time is up
 *  (`call` counts that loop's calls, starting at `loop`, so loops start on different inputs). */
export async function closedLoops(
  seconds: number,
  concurrency: number,
  op: (loop: number, call: number) => Promise<unknown>,
): Promise<{ measured: Measured; failures: number; firstFailure: unknown }> {
  const latencies: number[] = [];
  let failures = 0;
  let firstFailure: unknown;
  const start = performance.now();
  const deadline = start + seconds * 1000;
  await Promise.all(
    Array.from({ length: concurrency }, async (_, loop) => {
      for (let call = loop; performance.now() < deadline; call++) {
        const t0 = performance.now();
        try {
          await op(loop, call);
          latencies.push(performance.now() - t0);
        } catch (e) {
          failures++;
          firstFailure ??= e;
        }
      }
    }),
  );
  const elapsed = (performance.now() - start) / 1000;
  return {
    measured: summarise(Float64Array.from(latencies), latencies.length, elapsed),
    failures,
    firstFailure,
  };
}

// ---------------------------------------------------------------------------------------------
// Load generator (worker thread): autocannon, measured response by response.

/** What one autocannon run measured. */
export interface LoadResult {
  completed: number;
  non2xx: number;
  statuses: Record<string, number>;
  sampleError: string | undefined;
  errors: number;
  timeouts: number;
  elapsedSeconds: number;
  latencies: Float64Array;
}

/**
 * Runs autocannon with `options` and records every response: its latency, its status and the body
 * of the first one outside 2xx (inside a worker thread autocannon reports raw histograms, so the
 * latencies are collected here). `setup` prepares connection number `n` (headers, requests).
 */
export async function measureLoad(
  options: Omit<autocannon.Options, 'setupClient'>,
  setup: (client: autocannon.Client, n: number) => void = () => {},
): Promise<LoadResult> {
  const latencies: number[] = [];
  const statuses: Record<string, number> = {};
  let non2xx = 0;
  let sampleError: string | undefined;
  let nextClient = 0;
  const started = performance.now();
  const result = await new Promise<autocannon.Result>((resolve, reject) => {
    autocannon(
      {
        ...options,
        setupClient(client) {
          setup(client, nextClient++);
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

interface Pending<R> {
  resolve: (r: R) => void;
  reject: (e: unknown) => void;
}

/**
 * One worker thread for the whole run, running the module at `moduleUrl` (see tsxWorker): it takes
 * a Spec per message and answers a Result, one at a time.
 */
export class LoadWorker<Spec, Result> {
  readonly #worker: Worker;
  #pending: Pending<Result> | undefined;

  constructor(moduleUrl: string) {
    this.#worker = tsxWorker(moduleUrl);
    this.#worker.on('message', (r: Result) => this.#settle((p) => p.resolve(r)));
    this.#worker.on('error', (e) => this.#settle((p) => p.reject(e)));
    this.#worker.on('exit', (code) =>
      this.#settle((p) => p.reject(new Error(`the load worker exited with ${code}`))),
    );
  }

  #settle(f: (p: Pending<Result>) => void) {
    const p = this.#pending;
    this.#pending = undefined;
    if (p) f(p);
  }

  run(spec: Spec): Promise<Result> {
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
// A bench against its baseline, on PGlite and (with DATABASE_URL) a fresh PostgreSQL database.

/** One path on one database, as a ratio to that database's baseline. */
export interface RatioRow extends Measured {
  database: string;
  path: string;
  ratio: number;
}

export function ratioTable(rows: RatioRow[]): string {
  return [
    '| database | path | ops/s | p50 ms | p99 ms | ratio to baseline |',
    '| --- | --- | ---: | ---: | ---: | ---: |',
    ...rows.map(
      (r) =>
        `| ${r.database} | ${r.path} | ${fixed(r.opsPerSecond, 0)} | ${fixed(r.p50, 2)} | ${fixed(r.p99, 2)} | ${fixed(r.ratio, 2)} |`,
    ),
  ].join('\n');
}

/** A ratio bench on one database (`name`): its rows, with problems added to `errors`. */
export type RatioBench<Spec, Result> = (
  name: string,
  database: Database,
  dataDir: string,
  load: LoadWorker<Spec, Result>,
  errors: string[],
) => Promise<RatioRow[]>;

/**
 * The whole run of a bench whose HTTP load comes from a worker thread running the same module
 * (`moduleUrl`). In the main thread: `bench` on PGlite and, with DATABASE_URL, on a fresh
 * PostgreSQL database, then `title()`, the table and any problems. In the worker: `generate`
 * answers each Spec.
 */
export async function runRatioBench<Spec, Result>(opts: {
  moduleUrl: string;
  generate: (spec: Spec) => Promise<Result>;
  bench: RatioBench<Spec, Result>;
  title: () => string;
}): Promise<void> {
  if (!isMainThread) {
    parentPort!.on('message', async (spec: Spec) => parentPort!.postMessage(await opts.generate(spec)));
    return;
  }
  const errors: string[] = [];
  const rows: RatioRow[] = [];
  const load = new LoadWorker<Spec, Result>(opts.moduleUrl);
  try {
    rows.push(
      ...(await onPglite((database, dataDir) => opts.bench('pglite', database, dataDir, load, errors))),
    );
    const url = process.env.DATABASE_URL;
    if (url) {
      rows.push(
        ...(await onFreshPostgres(url, (database, dataDir) =>
          opts.bench('postgres', database, dataDir, load, errors),
        )),
      );
    }
  } finally {
    await load.close();
  }
  console.log(opts.title());
  console.log(ratioTable(rows));
  for (const e of errors) console.log(`\n${e}`);
}

/** `[bench/<bench>] <database> +<seconds since this call> s: <message>` on stderr. */
export function progressLog(bench: string, database: string): (message: string) => void {
  const t0 = performance.now();
  return (m) =>
    console.error(`[bench/${bench}] ${database} +${((performance.now() - t0) / 1000).toFixed(1)} s: ${m}`);
}

/**
 * Migrates `database` and starts a platform on it with data under `dataDir`, quiet, the emulated
 * model warm and the platform rate limit out of reach, plus `env`; workers are not supervised.
 * The database is closed if that fails.
 */
export async function benchPlatform(
  database: Database,
  dataDir: string,
  env: Record<string, string> = {},
): Promise<Platform> {
  const config = loadConfig({
    DATA_DIR: dataDir,
    LOG_LEVEL: 'silent',
    MODERATOR_START_SECONDS: '0',
    // Set high so the platform rate limit does not turn a bench into a 429 benchmark.
    PLATFORM_RATE: '1000000',
    PLATFORM_BURST: '1000000',
    ...env,
  });
  try {
    await migrate(database);
    return await createPlatform(config, { database, supervise: false, log: quietLog });
  } catch (e) {
    await database.close();
    throw e;
  }
}

/** `run` with a benchPlatform (see there) and its app, not listening yet; both closed afterwards. */
export async function onBenchApp<T>(
  database: Database,
  dataDir: string,
  env: Record<string, string>,
  run: (platform: Platform, app: App) => Promise<T>,
): Promise<T> {
  const platform = await benchPlatform(database, dataDir, env);
  let app: App | undefined;
  try {
    app = await buildApp(platform, { logger: false });
    return await run(platform, app);
  } finally {
    await app?.close();
    await platform.close();
  }
}

/** A load run's successes as a Measured; non-2xx answers and connection errors are reported as problems. */
export function measuredLoad(r: LoadResult, errors: string[], database: string, path: string): Measured {
  if (r.non2xx > 0) {
    const codes = Object.entries(r.statuses)
      .filter(([s]) => !s.startsWith('2'))
      .map(([s, n]) => `${s}×${n}`)
      .join(', ');
    problem(errors, database, path, `${r.non2xx} non-2xx responses (${codes}); first: ${r.sampleError}`);
  }
  if (r.errors > 0) problem(errors, database, path, `${r.errors} connection errors (${r.timeouts} timeouts)`);
  return summarise(r.latencies, r.completed - r.non2xx, r.elapsedSeconds);
}

/** Starts `app` on a free loopback port and answers its base URL, `http://127.0.0.1:PORT`. */
export async function listenLocal(app: FastifyInstance): Promise<string> {
  await app.listen({ host: '127.0.0.1', port: 0 });
  return `http://127.0.0.1:${(app.server.address() as AddressInfo).port}`;
}

/** A path measured in closed loops: `op(loop, call)` as closedLoops runs it. */
export type LoopOp = (loop: number, call: number) => Promise<unknown>;

/**
 * The three paths of a ratio bench on one database: HTTP (`http.run` runs the load worker), the
 * service called in process, and the baseline, in that order, each after a warm-up of all three;
 * the loops run `connections` at a time, and a loop's failures are reported as problems. Each path
 * has its table row's label (`row`) and its progress line (`says`). Answers the rows: the baseline
 * first (ratio 1), then the service and HTTP as a ratio to it.
 */
export async function measureRatioPaths(o: {
  database: string;
  errors: string[];
  progress: (message: string) => void;
  seconds: number;
  warmupSeconds: number;
  connections: number;
  http: { row: string; says: string; run: (seconds: number, path: string) => Promise<Measured> };
  service: { row: string; says: string; op: LoopOp };
  baseline: { row: string; says: string; op: LoopOp };
}): Promise<RatioRow[]> {
  const { database, errors, progress, seconds, warmupSeconds, connections, http, service } = o;
  const loops = async (s: number, path: string, op: LoopOp) => {
    const r = await closedLoops(s, connections, op);
    if (r.failures > 0)
      problem(errors, database, path, `${r.failures} failed; first: ${String(r.firstFailure)}`);
    return r.measured;
  };
  if (warmupSeconds > 0) {
    progress(`warm-up, ${warmupSeconds} s per path`);
    await http.run(warmupSeconds, 'warm-up http');
    await loops(warmupSeconds, 'warm-up service', service.op);
    await loops(warmupSeconds, 'warm-up direct', o.baseline.op);
  }
  progress(`${http.says}, ${seconds} s at ${connections} connections`);
  const viaHttp = await http.run(seconds, 'http');
  progress(`${service.says}, ${seconds} s in ${connections} loops`);
  const viaService = await loops(seconds, 'service', service.op);
  progress(`${o.baseline.says}, ${seconds} s in ${connections} loops`);
  const baseline = await loops(seconds, 'direct', o.baseline.op);
  const ratio = (m: Measured) => m.opsPerSecond / baseline.opsPerSecond;
  return [
    { database, path: o.baseline.row, ...baseline, ratio: 1 },
    { database, path: service.row, ...viaService, ratio: ratio(viaService) },
    { database, path: http.row, ...viaHttp, ratio: ratio(viaHttp) },
  ];
}
