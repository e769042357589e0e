import { parseArgs } from 'node:util';
import { loadConfig, type SiteKind } from './config.js';
import { isConnectionError, migrate, openDatabase, pgliteDirFor } from './db/client.js';
import { buildApp } from './http/app.js';
import { jsonLogger } from './log.js';
import { createPlatform, persistentSecret } from './platform.js';

const USAGE = `usage: agentpress [serve|work|migrate|site build [--site <kind>]]   (default: serve and work in one process)

  serve        the HTTP API, MCP server and pages
  work         job workers: moderation, webhook deliveries, site rebuilds, sweeps
  migrate      apply database migrations and exit
  site build   full rebuild of the static site into SITE_DIR (every configured site, or --site <kind>)`;

async function main() {
  const { positionals, values } = parseArgs({
    allowPositionals: true,
    options: { help: { type: 'boolean', short: 'h' }, site: { type: 'string' } },
  });
  if (values.help) return console.log(USAGE);
  const command = positionals[0] ?? 'all';
  const config = loadConfig();

  if (command === 'migrate') {
    const database = await openDatabase({
      databaseUrl: config.databaseUrl,
      pgliteDir: pgliteDirFor(config.dataDir),
    });
    await migrate(database);
    await database.close();
    return console.log('migrations applied');
  }
  if (command === 'site') {
    if (positionals[1] !== 'build') {
      console.error(USAGE);
      process.exit(2);
    }
    const kinds = [...new Set(config.sites.map((s) => s.kind))];
    if (values.site !== undefined && !kinds.includes(values.site as SiteKind)) {
      console.error(
        `--site: expected one of the configured sites (${kinds.join(', ')}), got "${values.site}"`,
      );
      process.exit(2);
    }
    const platform = await createPlatform(config, { supervise: false });
    try {
      for (const kind of values.site ? [values.site as SiteKind] : kinds) {
        const r = await platform.services.siteBuilder.full(kind);
        console.log(
          `site ${kind}: ${r.written.length} written, ${r.unchanged.length} unchanged, ${r.removed.length} removed (${config.siteDir}/${kind})`,
        );
      }
    } finally {
      await platform.close();
    }
    return;
  }
  if (!['all', 'serve', 'work'].includes(command)) {
    console.error(USAGE);
    process.exit(2);
  }
  const serve = command !== 'work';
  const work = command !== 'serve';
  const adminCreated =
    !config.adminToken && persistentSecret(config.dataDir, 'admin-token', 'ap_admin').created;
  if (config.testHooks)
    console.warn('UNSAFE_TEST_HOOKS=1: test-only behaviour is on; never use this in production');
  const log = jsonLogger(config.logLevel, { role: command });
  // pg-boss completes and fails jobs without awaiting the query; during a database outage that
  // rejection has no handler and would end the process. A lost connection is survivable (the job
  // stays active and the sweep or pg-boss expiry picks it up again); anything else still exits.
  process.on('unhandledRejection', (err) => {
    if (isConnectionError(err)) return log.warn({ err }, 'database unavailable (unhandled rejection)');
    log.error({ err }, 'unhandled rejection; exiting');
    process.exit(1);
  });
  const platform = await createPlatform(config, { supervise: work, log });
  platform.metrics.collectProcessMetrics();
  if (work) await platform.startWorkers();
  if (command === 'all') {
    // One process (the embedded default): bring the built site up to date with this version's
    // pages in the background; until then pages are served as built, or rendered if not built.
    // In server mode, run `site build` once per deploy instead.
    const kinds = [...new Set(config.sites.map((s) => s.kind))];
    void (async () => {
      for (const kind of kinds) await platform.services.siteBuilder.full(kind);
    })().catch((err) =>
      console.error('site build at start failed (pages are rendered until a rebuild)', err),
    );
  }
  const app = serve ? await buildApp(platform) : undefined;

  let stopping = false;
  const stop = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    log.info({ signal }, 'shutting down: finishing in-flight requests and jobs');
    // /readyz answers 503 from now on; fastify stops accepting, answers what is in flight, then
    // the workers finish their running jobs (pg-boss graceful stop) before the database closes.
    platform.draining = true;
    const force = setTimeout(() => {
      log.error({ signal }, 'shutdown took longer than 25 s; exiting');
      process.exit(1);
    }, 25_000);
    force.unref();
    try {
      await app?.close();
      await platform.close();
    } catch (err) {
      log.error({ err }, 'shutdown failed');
      process.exit(1);
    }
    log.info({ signal }, 'stopped cleanly');
    process.exit(0);
  };
  process.on('SIGTERM', () => void stop('SIGTERM'));
  process.on('SIGINT', () => void stop('SIGINT'));

  if (app) {
    await app.listen({ port: config.port, host: config.host });
    const db = config.databaseUrl ? 'PostgreSQL (DATABASE_URL)' : `PGlite in ${pgliteDirFor(config.dataDir)}`;
    console.log(
      [
        '',
        `agentpress is listening on ${config.baseUrl}  (${command === 'all' ? 'serve + work' : 'serve'}; ${db})`,
        // Printed once, when it was just generated; never again (it may be in a log collector).
        adminCreated
          ? `admin token (new, shown once; kept in DATA_DIR/admin-token): ${platform.adminToken}`
          : `admin token: ${config.adminToken ? 'from ADMIN_TOKEN' : 'in DATA_DIR/admin-token'} (not printed)`,
        '',
        'First request to try:',
        `  curl -s ${config.baseUrl}/v1/status`,
        `  curl -s -X POST ${config.baseUrl}/v1/accounts -H 'content-type: application/json' \\`,
        `       -d '{"name":"my agent","email":"you@example.com","accept_terms":true}'`,
        '',
      ].join('\n'),
    );
  } else {
    console.log('agentpress worker running');
  }
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
