/**
 * Server mode for tests and local trials: a private PostgreSQL instance (initdb into a temporary
 * directory, its own port, restartable for real), and real `serve` / `work` processes spawned as
 * `node dist/main.js <role>` (compiled, as in production) so a kill reaches the process itself, not a wrapper.
 */
import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { chownSync, existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import pg from 'pg';

export const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..', '..');

let built = false;
/**
 * The command that runs agentpress as production does: plain node on the compiled dist/main.js
 * (scripts/build.mjs compiles it first when src/ is newer), no TypeScript loader.
 */
export function mainCommand(): string[] {
  if (!built) {
    execFileSync(process.execPath, [join(ROOT, 'scripts', 'build.mjs')], { cwd: ROOT, stdio: 'inherit' });
    built = true;
  }
  return [join(ROOT, 'dist', 'main.js')];
}

export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const { port } = s.address() as { port: number };
      s.close(() => resolve(port));
    });
  });
}

export const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

/** Polls `check` every `everyMs` until it returns a value other than undefined/false, or throws at `timeoutMs`. */
export async function waitFor<T>(
  what: string,
  check: () => Promise<T | undefined | false> | T | undefined | false,
  timeoutMs: number,
  everyMs = 200,
): Promise<T> {
  const until = Date.now() + timeoutMs;
  let last: unknown;
  for (;;) {
    try {
      const v = await check();
      if (v !== undefined && v !== false) return v as T;
    } catch (err) {
      last = err;
    }
    if (Date.now() > until)
      throw new Error(
        `timed out after ${timeoutMs} ms waiting for ${what}${last ? `: ${String(last)}` : ''}`,
      );
    await sleep(everyMs);
  }
}

function pgBin(): string | undefined {
  const base = '/usr/lib/postgresql';
  if (!existsSync(base)) return undefined;
  const versions = readdirSync(base).sort((a, b) => Number(b) - Number(a));
  for (const v of versions) if (existsSync(join(base, v, 'bin', 'initdb'))) return join(base, v, 'bin');
  return undefined;
}

/** How the PostgreSQL server of a run is provided. */
export interface PostgresServer {
  /** `private`: our own instance, restarted with pg_ctl; `shared`: an existing server (restart = terminate backends). */
  kind: 'private' | 'shared';
  url(database: string): string;
  createDatabase(name: string): Promise<string>;
  /** Takes the server away for `downMs` and brings it back; resolves when it accepts connections again. */
  restart(downMs: number, database: string): Promise<{ downAt: number; upAt: number }>;
  stop(): Promise<void>;
}

/**
 * A private instance when we can run initdb (as the `postgres` user when we are root), so a
 * restart never disturbs anyone else; otherwise `fallbackUrl`'s server, where a "restart" is
 * pg_terminate_backend on every connection to the test database.
 */
export async function startPostgres(fallbackUrl?: string): Promise<PostgresServer> {
  const bin = pgBin();
  const isRoot = process.getuid?.() === 0;
  if (bin) {
    try {
      return await startPrivate(bin, isRoot);
    } catch (err) {
      if (!fallbackUrl) throw err;
      console.error(`private PostgreSQL failed (${String(err)}); using ${redactUrl(fallbackUrl)}`);
    }
  }
  if (!fallbackUrl) throw new Error('no initdb found and no DATABASE_URL to fall back to');
  return sharedServer(fallbackUrl);
}

function redactUrl(url: string): string {
  return url.replace(/\/\/[^@/]*@/, '//***@');
}

async function startPrivate(bin: string, asPostgres: boolean): Promise<PostgresServer> {
  const dir = mkdtempSync(join(tmpdir(), 'agentpress-pg-'));
  const data = join(dir, 'data');
  const port = await freePort();
  const run = (cmd: string, args: string[]) => {
    const full = join(bin, cmd);
    return asPostgres
      ? execFileSync('runuser', ['-u', 'postgres', '--', full, ...args], { stdio: 'pipe' })
      : execFileSync(full, args, { stdio: 'pipe' });
  };
  if (asPostgres) chownSync(dir, Number(execFileSync('id', ['-u', 'postgres']).toString().trim()), -1);
  run('initdb', ['-D', data, '-A', 'trust', '-U', 'postgres', '--no-sync', '-E', 'UTF8']);
  const opts = `-p ${port} -k ${dir} -c listen_addresses=127.0.0.1 -c fsync=off -c synchronous_commit=off -c full_page_writes=off -c max_connections=200`;
  const ctl = (...args: string[]) =>
    run('pg_ctl', ['-D', data, '-o', opts, '-l', join(dir, 'log'), '-w', ...args]);
  ctl('start');
  const url = (database: string) => `postgres://postgres@127.0.0.1:${port}/${database}`;
  return {
    kind: 'private',
    url,
    createDatabase: (name) => createDatabase(url('postgres'), name),
    async restart(downMs) {
      const downAt = Date.now();
      ctl('-m', 'fast', 'stop');
      await sleep(downMs);
      ctl('start');
      const upAt = Date.now();
      return { downAt, upAt };
    },
    async stop() {
      try {
        ctl('-m', 'immediate', 'stop');
      } catch {}
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

function sharedServer(base: string): PostgresServer {
  const url = (database: string) => {
    const u = new URL(base);
    u.pathname = `/${database}`;
    return u.toString();
  };
  const created: string[] = [];
  return {
    kind: 'shared',
    url,
    async createDatabase(name) {
      created.push(name);
      return createDatabase(base, name);
    },
    async restart(downMs, database) {
      const admin = new pg.Client({ connectionString: base });
      await admin.connect();
      const downAt = Date.now();
      const until = downAt + downMs;
      // Refuse new connections for downMs and cut every existing one, as a restart would.
      await admin.query(`ALTER DATABASE ${database} WITH ALLOW_CONNECTIONS false`);
      while (Date.now() < until) {
        await admin.query('SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = $1', [
          database,
        ]);
        await sleep(100);
      }
      await admin.query(`ALTER DATABASE ${database} WITH ALLOW_CONNECTIONS true`);
      await admin.end();
      return { downAt, upAt: Date.now() };
    },
    async stop() {
      const admin = new pg.Client({ connectionString: base });
      await admin.connect();
      for (const name of created) await admin.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      await admin.end();
    },
  };
}

async function createDatabase(adminUrl: string, name: string): Promise<string> {
  if (!/^[a-z0-9_]+$/.test(name)) throw new Error(`bad database name ${name}`);
  const admin = new pg.Client({ connectionString: adminUrl });
  await admin.connect();
  try {
    await admin.query(`DROP DATABASE IF EXISTS ${name}`);
    await admin.query(`CREATE DATABASE ${name}`);
  } finally {
    await admin.end();
  }
  const u = new URL(adminUrl);
  u.pathname = `/${name}`;
  return u.toString();
}

// ---------------------------------------------------------------------------------------------
// Processes.

export interface RoleProcess {
  role: 'serve' | 'work';
  pid: number;
  /** http://127.0.0.1:port for `serve`. */
  url: string | undefined;
  output: string[];
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null; at: number }>;
  child: ChildProcess;
}

/** The settings every process of one cluster shares (one database, one secret key, one admin token). */
export function clusterEnv(databaseUrl: string, extra: Record<string, string> = {}): Record<string, string> {
  return {
    DATABASE_URL: databaseUrl,
    ADMIN_TOKEN: 'cluster-admin-token-0123456789abcdef',
    SECRET_KEY: `cluster-secret-${randomBytes(16).toString('hex')}`,
    WEBHOOK_ALLOW_TARGETS: '127.0.0.1',
    MODERATOR_START_SECONDS: '0',
    LOG_LEVEL: 'warn',
    ...extra,
  };
}

/** Spawns one role and waits until it is ready (`serve`: /readyz 200; `work`: its start line). */
export async function spawnRole(
  role: 'serve' | 'work',
  env: Record<string, string>,
  opts: { port?: number; timeoutMs?: number } = {},
): Promise<RoleProcess> {
  const port = role === 'serve' ? (opts.port ?? (await freePort())) : 0;
  const url = role === 'serve' ? `http://127.0.0.1:${port}` : undefined;
  const child = spawn(process.execPath, [...mainCommand(), role], {
    cwd: ROOT,
    env: {
      PATH: process.env.PATH ?? '',
      HOME: process.env.HOME ?? '/tmp',
      DATA_DIR: mkdtempSync(join(tmpdir(), `agentpress-${role}-`)),
      ...(url ? { PORT: String(port), HOST: '127.0.0.1', BASE_URL: env.BASE_URL ?? url } : {}),
      ...env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const output: string[] = [];
  let ready = false;
  const onData = (c: Buffer) => {
    const s = c.toString('utf8');
    output.push(s);
    if (output.length > 2000) output.splice(0, output.length - 2000);
    if (role === 'work' && s.includes('agentpress worker running')) ready = true;
  };
  child.stdout?.on('data', onData);
  child.stderr?.on('data', onData);
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null; at: number }>((resolve) =>
    child.once('exit', (code, signal) => resolve({ code, signal, at: Date.now() })),
  );
  let gone = false;
  void exited.then(() => {
    gone = true;
  });
  const proc: RoleProcess = { role, pid: child.pid!, url, output, exited, child };
  await waitFor(
    `${role} process ${child.pid} to be ready`,
    async () => {
      if (gone) throw new Error(`${role} exited during start:\n${output.join('').slice(-3000)}`);
      if (role === 'work') return ready;
      const r = await fetch(`${url}/readyz`, { signal: AbortSignal.timeout(1000) });
      return r.status === 200;
    },
    opts.timeoutMs ?? 60_000,
    150,
  );
  return proc;
}

/** Stops a process: SIGTERM (graceful) or SIGKILL; resolves when it has exited. */
export async function stopRole(p: RoleProcess, signal: 'SIGTERM' | 'SIGKILL' = 'SIGTERM') {
  if (p.child.exitCode === null && p.child.signalCode === null) process.kill(p.pid, signal);
  return p.exited;
}
