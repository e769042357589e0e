import { mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
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
  const statsDir = mkdtempSync(join(tmpdir(), 'agentpress-contract-'));
  project.provide('contractStatsDir', statsDir);
  const teardown = await setupDatabase(project);
  return async () => {
    await teardown?.();
    reportContractStats(statsDir);
  };
}

/** Sums what every test process checked against /openapi.json (test/helpers/contract.ts) and prints it. */
function reportContractStats(dir: string) {
  const ops = new Set<string>();
  const responses = new Set<string>();
  let checked = 0;
  let mismatches = 0;
  let unchecked = 0;
  let documentOperations = 0;
  let documentResponses = 0;
  for (const f of readdirSync(dir)) {
    const s = JSON.parse(readFileSync(join(dir, f), 'utf8'));
    for (const o of s.operationsSeen) ops.add(o);
    for (const r of s.responsesSeen) responses.add(r);
    checked += s.checked;
    mismatches += s.mismatches;
    unchecked += s.unchecked;
    documentOperations = Math.max(documentOperations, s.documentOperations);
    documentResponses = Math.max(documentResponses, s.documentResponses);
  }
  if (checked + unchecked === 0) return;
  console.log(
    `contract: ${checked} responses checked against /openapi.json (${mismatches} mismatches, ${unchecked} unchecked); ` +
      `${ops.size}/${documentOperations} operations and ${responses.size}/${documentResponses} declared responses exercised`,
  );
}

async function setupDatabase(project: TestProject) {
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
    contractStatsDir: string;
  }
}
