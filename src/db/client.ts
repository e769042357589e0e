import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { PGlite } from '@electric-sql/pglite';
import { type SQL, sql } from 'drizzle-orm';
import { drizzle as drizzlePg } from 'drizzle-orm/node-postgres';
import { migrate as migratePg } from 'drizzle-orm/node-postgres/migrator';
import type { PgDatabase, PgQueryResultHKT } from 'drizzle-orm/pg-core';
import { drizzle as drizzleLite } from 'drizzle-orm/pglite';
import { migrate as migrateLite } from 'drizzle-orm/pglite/migrator';
import pg from 'pg';
import * as schema from './schema.js';

export type Schema = typeof schema;
export type Db = PgDatabase<PgQueryResultHKT, Schema>;
export type Tx = Parameters<Parameters<Db['transaction']>[0]>[0];
/** Anything that runs queries: the database or an open transaction. */
export type Executor = Db | Tx;

/** The `db` option pg-boss takes: SQL text with $n parameters. */
export interface SqlExecutor {
  executeSql(text: string, values?: unknown[]): Promise<{ rows: unknown[] }>;
}

export interface Database {
  kind: 'pglite' | 'postgres';
  db: Db;
  /** For pg-boss on PGlite; on PostgreSQL pg-boss opens its own pool from `connectionString`. */
  sqlExecutor: SqlExecutor;
  connectionString: string | undefined;
  /** PGlite only: snapshot the data directory (tests clone a migrated template this way). */
  dump?: () => Promise<Blob>;
  /**
   * LISTEN on a channel: `onPayload` gets each NOTIFY payload (sent at the notifier's commit);
   * `onReconnect` runs after a lost listening connection is back, when notifications may have
   * been missed. Answers the function that stops listening.
   */
  listen(
    channel: string,
    onPayload: (payload: string) => void,
    onReconnect?: () => void,
  ): Promise<() => Promise<void>>;
  close(): Promise<void>;
}

const migrationsFolder = fileURLToPath(new URL('./migrations', import.meta.url));

export interface OpenOptions {
  databaseUrl?: string | undefined;
  /** PGlite data directory; undefined means in memory. */
  pgliteDir?: string | undefined;
  /** PGlite: start from this snapshot instead of an empty cluster. */
  pgliteSnapshot?: Blob | undefined;
  poolSize?: number;
}

export async function openDatabase(opts: OpenOptions): Promise<Database> {
  if (opts.databaseUrl) return openPostgres(opts.databaseUrl, opts.poolSize ?? 10);
  return openPglite(opts.pgliteDir, opts.pgliteSnapshot);
}

async function openPostgres(url: string, max: number): Promise<Database> {
  const pool = new ResilientPool({
    connectionString: url,
    max,
    // During an outage a request fails fast (503 + Retry-After) instead of waiting for a slot.
    connectionTimeoutMillis: 5_000,
    idleTimeoutMillis: 30_000,
  });
  // A pool error on an idle client (server restart) must not crash the process: the client is
  // dropped and the next query opens a new connection, so the pool reconnects by itself.
  pool.on('error', () => {});
  const db = drizzlePg(pool, { schema }) as unknown as Db;
  return {
    kind: 'postgres',
    db,
    connectionString: url,
    sqlExecutor: {
      async executeSql(text, values) {
        const r = await pool.query(text, values as unknown[] | undefined);
        return { rows: r.rows };
      },
    },
    listen: (channel, onPayload, onReconnect) => listenPostgres(url, channel, onPayload, onReconnect),
    close: () => pool.end(),
  };
}

/**
 * A dedicated connection (LISTEN holds its session) outside the pool. A lost connection is
 * reopened with a growing pause (0.1 s to 5 s); `onReconnect` then tells the listener that
 * notifications may have been missed while it was away.
 */
async function listenPostgres(
  url: string,
  channel: string,
  onPayload: (payload: string) => void,
  onReconnect?: () => void,
): Promise<() => Promise<void>> {
  if (!/^[a-z_][a-z0-9_]*$/.test(channel)) throw new Error(`not a plain channel name: ${channel}`);
  let stopped = false;
  let client: pg.Client | undefined;
  let pause = 100;
  const open = async (): Promise<void> => {
    const c = new pg.Client({ connectionString: url });
    c.on('notification', (n) => {
      if (n.channel === channel) onPayload(n.payload ?? '');
    });
    c.on('error', () => {});
    c.on('end', () => {
      if (client !== c || stopped) return;
      client = undefined;
      setTimeout(reopen, pause).unref();
    });
    await c.connect();
    await c.query(`LISTEN ${channel}`);
    client = c;
    pause = 100;
  };
  const reopen = () => {
    if (stopped) return;
    open().then(
      () => onReconnect?.(),
      () => {
        pause = Math.min(pause * 2, 5_000);
        setTimeout(reopen, pause).unref();
      },
    );
  };
  await open();
  return async () => {
    stopped = true;
    const c = client;
    client = undefined;
    await c?.end().catch(() => {});
  };
}

interface CheckoutState {
  released: boolean;
  broken: Error | undefined;
}
const checkouts = new WeakMap<pg.PoolClient, CheckoutState>();

function queryText(arg: unknown): string {
  if (typeof arg === 'string') return arg;
  const text = (arg as { text?: unknown } | null)?.text;
  return typeof text === 'string' ? text : '';
}

/**
 * A pool whose checked-out clients are never lost to a dropped connection. drizzle's
 * `transaction` releases its client only after BEGIN succeeded, so a BEGIN that fails because
 * the server went away (a restart) would leak the client, and after `max` such failures every
 * query waits forever. Here a client that meets a connection error is released with that
 * error (the pool destroys it and opens a fresh one), at most once per checkout; an error the
 * server sends while no query runs (between two statements) marks the checkout broken too.
 */
class ResilientPool extends pg.Pool {
  override connect(): Promise<pg.PoolClient>;
  override connect(
    callback: (
      err: Error | undefined,
      client: pg.PoolClient | undefined,
      done: (release?: unknown) => void,
    ) => void,
  ): void;
  override connect(
    callback?: (
      err: Error | undefined,
      client: pg.PoolClient | undefined,
      done: (release?: unknown) => void,
    ) => void,
  ): Promise<pg.PoolClient> | undefined {
    // pool.query() checks out with a callback and releases on error itself.
    if (callback) {
      super.connect((err, client, done) => {
        // A client guarded in an earlier checkout starts this one unreleased.
        if (client && checkouts.has(client)) checkouts.set(client, { released: false, broken: undefined });
        callback(err, client, done);
      });
      return undefined;
    }
    return super.connect().then((client) => guard(client));
  }
}

function guard(client: pg.PoolClient): pg.PoolClient {
  const known = checkouts.has(client);
  const state: CheckoutState = { released: false, broken: undefined };
  checkouts.set(client, state);
  if (known) return client;
  // pg-pool takes its error listener off a client while it is checked out, and a client with no
  // listener throws the server's "terminating connection" (a restart) out of the process when it
  // arrives between two statements of a transaction. Here it marks the checkout broken instead:
  // the next query fails, and the client is destroyed when it is released.
  client.on('error', (err: Error) => {
    const s = checkouts.get(client);
    if (s && !s.released) s.broken = err;
  });
  const release = client.release.bind(client);
  const query = client.query.bind(client) as (...args: unknown[]) => unknown;
  const releaseOnce = (err?: Error | boolean) => {
    const s = checkouts.get(client);
    if (!s || s.released) return;
    s.released = true;
    release(err ?? s.broken);
  };
  client.release = releaseOnce;
  (client as unknown as { query: (...args: unknown[]) => unknown }).query = (...args: unknown[]) => {
    const result = query(...args);
    if (!(result instanceof Promise)) return result;
    return result.catch((err: unknown) => {
      const s = checkouts.get(client);
      if (s && isConnectionError(err)) {
        s.broken = err instanceof Error ? err : new Error(String(err));
        // drizzle does not release after a failed BEGIN: do it here, destroying the client.
        if (/^\s*begin\b/i.test(queryText(args[0]))) releaseOnce(s.broken);
      }
      throw err;
    });
  };
  return client;
}

/**
 * PGlite's settings: PostgreSQL's default 128 MB of shared buffers is a server's; one embedded
 * process serving a small site does as well with 16 MB, and its resident memory is ~110 MB less.
 */
const PGLITE_CONF = ['shared_buffers=16MB'];
const pgliteInit = fileURLToPath(new URL('../../scripts/pglite-init.mjs', import.meta.url));

async function openPglite(dir: string | undefined, snapshot: Blob | undefined): Promise<Database> {
  if (dir) mkdirSync(dir, { recursive: true });
  // A new cluster is created in a child process: initdb's memory would otherwise stay with this one.
  if (dir && !snapshot && !existsSync(join(dir, 'PG_VERSION'))) await initPglite(dir);
  const lite = new PGlite({
    ...(dir ? { dataDir: dir } : {}),
    ...(snapshot ? { loadDataDir: snapshot } : {}),
    postgresqlconf: PGLITE_CONF,
  });
  await lite.waitReady;
  const db = drizzleLite(lite, { schema }) as unknown as Db;
  return {
    kind: 'pglite',
    db,
    connectionString: undefined,
    sqlExecutor: {
      async executeSql(text, values) {
        if (values && values.length > 0) return { rows: (await lite.query(text, values)).rows };
        // pg-boss sends multi-statement scripts without parameters.
        const results = await lite.exec(text);
        return { rows: results.at(-1)?.rows ?? [] };
      },
    },
    dump: () => lite.dumpDataDir('none'),
    // One session: a NOTIFY from any query on it reaches its own listeners at commit.
    listen: async (channel, onPayload) => {
      const unlisten = await lite.listen(channel, onPayload);
      return () => unlisten().catch(() => {});
    },
    close: () => lite.close(),
  };
}

function initPglite(dir: string): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [pgliteInit, dir], { stdio: ['ignore', 'ignore', 'pipe'] });
    let stderr = '';
    child.stderr.on('data', (c: Buffer) => {
      stderr += c.toString();
    });
    child.on('error', reject);
    child.on('exit', (code) =>
      code === 0
        ? resolve()
        : reject(new Error(`creating the PGlite cluster failed (${code}): ${stderr.trim()}`)),
    );
  });
}

/** Applies pending migrations; on PostgreSQL under an advisory lock so many processes may start at once. */
export async function migrate(database: Database): Promise<void> {
  if (database.kind === 'pglite') {
    await migrateLite(database.db as unknown as Parameters<typeof migrateLite>[0], { migrationsFolder });
    return;
  }
  const client = new pg.Client({ connectionString: database.connectionString });
  await client.connect();
  try {
    await client.query('SELECT pg_advisory_lock(7411001)');
    await migratePg(drizzlePg(client), { migrationsFolder });
  } finally {
    await client.query('SELECT pg_advisory_unlock(7411001)').catch(() => {});
    await client.end();
  }
}

/** The newest migration this code ships (drizzle's journal). */
export function latestMigrationMillis(): number {
  const journal = JSON.parse(readFileSync(join(migrationsFolder, 'meta', '_journal.json'), 'utf8')) as {
    entries: { when: number }[];
  };
  return Math.max(...journal.entries.map((e) => e.when));
}

/** Readiness: the database answers and every migration this code ships has been applied. */
export async function databaseReadiness(database: Database): Promise<{ ok: boolean; detail: string }> {
  try {
    const rows = await queryRows<{ latest: string | null }>(
      database.db,
      sql`SELECT max(created_at)::text AS latest FROM drizzle.__drizzle_migrations`,
    );
    const applied = Number(rows[0]?.latest ?? 0);
    if (applied < latestMigrationMillis()) return { ok: false, detail: 'migrations are behind' };
    return { ok: true, detail: 'database reachable, migrations current' };
  } catch (err) {
    return {
      ok: false,
      detail: isConnectionError(err) ? 'database unreachable' : 'database check failed',
    };
  }
}

/** SQLSTATE classes and node errors that mean "the database is not reachable right now". */
const CONNECTION_SQLSTATE = /^(08...|57P0[1-3]|53300)$/;
const CONNECTION_ERRNO = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ETIMEDOUT',
  'EPIPE',
  'ENOTFOUND',
  'EAI_AGAIN',
]);
const CONNECTION_MESSAGE =
  /Connection terminated|connection timeout|timeout exceeded when trying to connect|Client has encountered a connection error|not queryable|the database system is (starting up|shutting down)|terminating connection/i;

/** True for an error (or any error in its cause chain) caused by losing the database. */
export function isConnectionError(err: unknown): boolean {
  for (let e = err, depth = 0; e && typeof e === 'object' && depth < 6; depth++) {
    const { code, message, cause } = e as { code?: unknown; message?: unknown; cause?: unknown };
    if (typeof code === 'string' && (CONNECTION_SQLSTATE.test(code) || CONNECTION_ERRNO.has(code)))
      return true;
    if (typeof message === 'string' && CONNECTION_MESSAGE.test(message)) return true;
    e = cause;
  }
  return false;
}

/** Rows of a raw query on either driver. */
export async function queryRows<T>(exec: Executor, query: SQL): Promise<T[]> {
  const result = (await exec.execute(query)) as unknown as { rows: T[] };
  return result.rows;
}

/** Turns `$1`-style SQL (as pg-boss writes it) into a drizzle query bound to `exec`, so jobs
 *  can be sent inside the transaction that causes them (the outbox rule). */
export function executorFor(exec: Executor): SqlExecutor {
  return {
    async executeSql(text, values = []) {
      const parts = text.split(/\$(\d+)/);
      const chunks: SQL[] = [];
      parts.forEach((part, i) => {
        if (i % 2 === 0) chunks.push(sql.raw(part));
        else chunks.push(sql`${toParam(values[Number(part) - 1])}`);
      });
      return { rows: await queryRows<unknown>(exec, sql.join(chunks)) };
    },
  };
}

/** drizzle drops `undefined` from a template and does not serialise objects: do what pg would. */
function toParam(v: unknown): unknown {
  if (v === undefined) return null;
  if (
    v !== null &&
    typeof v === 'object' &&
    !(v instanceof Date) &&
    !Array.isArray(v) &&
    !Buffer.isBuffer(v)
  ) {
    return JSON.stringify(v);
  }
  return v;
}

export function pgliteDirFor(dataDir: string): string {
  return join(dataDir, 'pglite');
}
