import { mkdirSync } from 'node:fs';
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
  const pool = new pg.Pool({ connectionString: url, max });
  // A pool error on an idle client (server restart) must not crash the process.
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
    close: () => pool.end(),
  };
}

async function openPglite(dir: string | undefined, snapshot: Blob | undefined): Promise<Database> {
  if (dir) mkdirSync(dir, { recursive: true });
  const lite = new PGlite({
    ...(dir ? { dataDir: dir } : {}),
    ...(snapshot ? { loadDataDir: snapshot } : {}),
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
    close: () => lite.close(),
  };
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
