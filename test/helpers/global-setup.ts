import { writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import type { TestProject } from 'vitest/node';
import { migrate, openDatabase } from '../../src/db/client.js';
import { JobQueue } from '../../src/jobs/queue.js';

/**
 * Builds one migrated template database per run (schema + pg-boss), so each test file starts from
 * a clean copy in about a second: a PGlite snapshot, or a PostgreSQL `CREATE DATABASE … TEMPLATE`.
 */
export default async function setup(project: TestProject) {
  const url = process.env.DATABASE_URL;
  if (url) {
    const name = `agentpress_tpl_${process.pid}`;
    const admin = new pg.Client({ connectionString: url });
    await admin.connect();
    await admin.query(`DROP DATABASE IF EXISTS ${name}`);
    await admin.query(`CREATE DATABASE ${name}`);
    const tplUrl = withDatabase(url, name);
    const db = await openDatabase({ databaseUrl: tplUrl, poolSize: 2 });
    await migrate(db);
    const jobs = new JobQueue(db, { supervise: false });
    await jobs.start(() => {});
    await jobs.stop();
    await db.close();
    project.provide('templateDatabase', name);
    return async () => {
      const rows = await admin.query(
        `SELECT datname FROM pg_database WHERE datname LIKE $1 OR datname = $2`,
        [`${cloneDatabasePrefix(name).replaceAll('_', '\\_')}%`, name],
      );
      for (const r of rows.rows) await admin.query(`DROP DATABASE IF EXISTS ${r.datname} WITH (FORCE)`);
      await admin.end();
    };
  }
  const db = await openDatabase({});
  await migrate(db);
  const jobs = new JobQueue(db, { supervise: false });
  await jobs.start(() => {});
  await jobs.stop();
  const file = join(tmpdir(), `agentpress-template-${process.pid}.tar`);
  writeFileSync(file, Buffer.from(await (await db.dump!()).arrayBuffer()));
  await db.close();
  project.provide('templateSnapshot', file);
}

/** Clones of one run's template share its prefix, so a run drops only its own databases. */
export function cloneDatabasePrefix(template: string): string {
  return `agentpress_t_${template.replace('agentpress_tpl_', '')}_`;
}

export function withDatabase(url: string, name: string): string {
  const u = new URL(url);
  u.pathname = `/${name}`;
  return u.toString();
}

declare module 'vitest' {
  export interface ProvidedContext {
    templateDatabase: string;
    templateSnapshot: string;
  }
}
