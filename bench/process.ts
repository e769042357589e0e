/**
 * `npm run bench:process`: start-up time, memory at idle and memory under load of an agentpress
 * process, each beside a bare fastify process (bench/fixtures/bare-server.mjs, same runtime: plain
 * node) measured in the same run. agentpress runs as `npm start` runs it: compiled dist/main.js.
 *
 *  - start-up: spawn to the first 200 from /readyz (agentpress: migrations checked, pg-boss
 *    started, routes built); median of BENCH_STARTS (3) starts
 *  - memory at idle: resident set size (VmRSS) 2 s after ready
 *  - under load: autocannon on GET /v1/status for BENCH_SECONDS (10) with 10 connections;
 *    peak RSS sampled every 100 ms, and requests per second
 *
 * PGlite: `npm start` (serve + work in one process, fresh DATA_DIR). PostgreSQL (DATABASE_URL): a
 * `serve` process on a fresh `agentpress_bench_*` database.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import autocannon from 'autocannon';
import pg from 'pg';
import { freePort, mainCommand, ROOT, sleep } from '../scripts/lib/cluster.js';
import { fixed, withDatabaseName } from './lib.js';

const SECONDS = Number(process.env.BENCH_SECONDS ?? 10);
const STARTS = Number(process.env.BENCH_STARTS ?? 3);

interface Started {
  child: ChildProcess;
  port: number;
  startMs: number;
}

function rssMiB(pid: number): number {
  const m = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  return m ? Number(m[1]) / 1024 : Number.NaN;
}

async function startProcess(args: string[], env: Record<string, string>): Promise<Started> {
  const port = await freePort();
  const t0 = performance.now();
  const child = spawn(process.execPath, args, {
    cwd: ROOT,
    env: {
      PATH: process.env.PATH ?? '',
      HOME: process.env.HOME ?? '/tmp',
      PORT: String(port),
      LOG_LEVEL: 'warn',
      ...env,
    },
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  for (;;) {
    if (child.exitCode !== null) throw new Error(`${args.join(' ')} exited with ${child.exitCode}`);
    try {
      const r = await fetch(`http://127.0.0.1:${port}/readyz`, { signal: AbortSignal.timeout(1000) });
      if (r.status === 200) break;
    } catch {}
    await sleep(20);
  }
  return { child, port, startMs: performance.now() - t0 };
}

async function stop(s: Started) {
  const exited = new Promise((r) => s.child.once('exit', r));
  s.child.kill('SIGTERM');
  await exited;
}

interface Figures {
  startMs: number;
  idleMiB: number;
  loadMiB: number;
  rps: number;
}

async function measure(
  args: string[],
  envFor: () => Promise<{ env: Record<string, string>; done: () => Promise<void> }>,
): Promise<Figures> {
  const starts: number[] = [];
  for (let i = 0; i < STARTS; i++) {
    const { env, done } = await envFor();
    const s = await startProcess(args, env);
    starts.push(s.startMs);
    if (i < STARTS - 1) {
      await stop(s);
      await done();
      continue;
    }
    await sleep(2000);
    const idleMiB = rssMiB(s.child.pid!);
    let peak = idleMiB;
    const sampler = setInterval(() => {
      peak = Math.max(peak, rssMiB(s.child.pid!));
    }, 100);
    const result = await autocannon({
      url: `http://127.0.0.1:${s.port}/v1/status`,
      connections: 10,
      duration: SECONDS,
    });
    clearInterval(sampler);
    await stop(s);
    await done();
    starts.sort((a, b) => a - b);
    return {
      startMs: starts[Math.floor(starts.length / 2)]!,
      idleMiB,
      loadMiB: peak,
      rps: result.requests.average,
    };
  }
  throw new Error('BENCH_STARTS must be at least 1');
}

const bare = () =>
  measure(['bench/fixtures/bare-server.mjs'], async () => ({ env: {}, done: async () => {} }));

const pglite = () =>
  measure(mainCommand(), async () => {
    const dir = mkdtempSync(join(tmpdir(), 'agentpress-bench-process-'));
    return {
      env: {
        DATA_DIR: dir,
        ADMIN_TOKEN: 'bench-admin-token',
        PLATFORM_RATE: '1000000',
        PLATFORM_BURST: '1000000',
      },
      done: async () => rmSync(dir, { recursive: true, force: true }),
    };
  });

const postgres = (url: string) =>
  measure([...mainCommand(), 'serve'], async () => {
    const name = `agentpress_bench_${randomBytes(4).toString('hex')}`;
    const admin = new pg.Client({ connectionString: url });
    await admin.connect();
    await admin.query(`CREATE DATABASE ${name}`);
    await admin.end();
    const dir = mkdtempSync(join(tmpdir(), 'agentpress-bench-process-'));
    return {
      env: {
        DATA_DIR: dir,
        DATABASE_URL: withDatabaseName(url, name),
        ADMIN_TOKEN: 'bench-admin-token',
        PLATFORM_RATE: '1000000',
        PLATFORM_BURST: '1000000',
      },
      done: async () => {
        rmSync(dir, { recursive: true, force: true });
        const a = new pg.Client({ connectionString: url });
        await a.connect();
        await a.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
        await a.end();
      },
    };
  });

const rows: string[] = [];
const base = await bare();
const add = (label: string, x: Figures) => {
  rows.push(
    `| ${label} | start-up to ready, ms | ${fixed(x.startMs)} | ${fixed(base.startMs)} | ${fixed(x.startMs / base.startMs, 2)} |`,
  );
  rows.push(
    `| ${label} | RSS at idle, MiB | ${fixed(x.idleMiB, 1)} | ${fixed(base.idleMiB, 1)} | ${fixed(x.idleMiB / base.idleMiB, 2)} |`,
  );
  rows.push(
    `| ${label} | peak RSS under load, MiB | ${fixed(x.loadMiB, 1)} | ${fixed(base.loadMiB, 1)} | ${fixed(x.loadMiB / base.loadMiB, 2)} |`,
  );
  rows.push(
    `| ${label} | GET /v1/status under load, req/s | ${fixed(x.rps)} | ${fixed(base.rps)} | ${fixed(x.rps / base.rps, 2)} |`,
  );
};
add('pglite, serve + work (`npm start`)', await pglite());
if (process.env.DATABASE_URL) add('postgres, `serve`', await postgres(process.env.DATABASE_URL));
console.log(
  `### bench/process: start-up and memory beside a bare fastify process (median of ${STARTS} starts; ` +
    `load: 10 connections, ${SECONDS} s; node ${process.version})\n`,
);
console.log('| process | measure | agentpress | bare fastify (baseline) | ratio |');
console.log('| --- | --- | ---: | ---: | ---: |');
console.log(rows.join('\n'));
