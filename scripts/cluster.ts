/**
 * `npm run cluster`: server mode on one machine, for trying it out and for the conformance suite.
 * Starts a private PostgreSQL (or uses DATABASE_URL's server with a fresh database), SERVE (2)
 * `serve` processes and WORK (2) `work` processes on it, and a small round-robin load balancer
 * on PORT (8080), so a client sees one base URL. Ctrl-C stops everything (gracefully).
 *
 *   npm run cluster
 *   BASE_URL=http://localhost:8080 ADMIN_TOKEN=cluster-admin-token-0123456789abcdef \
 *     node --test --test-concurrency=1 ../shared/conformance/
 *
 * REDIS_URL (default redis://127.0.0.1:6379/8 when a Redis answers there) shares the platform ceiling.
 */
import { randomBytes } from 'node:crypto';
import { createServer, request } from 'node:http';
import { connect } from 'node:net';
import { clusterEnv, type RoleProcess, spawnRole, startPostgres, stopRole } from './lib/cluster.js';

const SERVE = Number(process.env.SERVE ?? 2);
const WORK = Number(process.env.WORK ?? 2);
const PORT = Number(process.env.PORT ?? 8080);
const BASE_URL = process.env.BASE_URL ?? `http://localhost:${PORT}`;

async function redisAnswers(url: string): Promise<boolean> {
  const u = new URL(url);
  return new Promise((resolve) => {
    const s = connect(Number(u.port || 6379), u.hostname, () => {
      s.end();
      resolve(true);
    });
    s.once('error', () => resolve(false));
    s.setTimeout(500, () => {
      s.destroy();
      resolve(false);
    });
  });
}

const pgServer = await startPostgres(process.env.DATABASE_URL);
const db = await pgServer.createDatabase(`agentpress_cluster_${randomBytes(4).toString('hex')}`);
const redis = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379/8';
const env = clusterEnv(db, {
  BASE_URL,
  LOG_LEVEL: process.env.LOG_LEVEL ?? 'warn',
  ...((await redisAnswers(redis)) ? { REDIS_URL: redis } : {}),
  ...(process.env.ADMIN_TOKEN ? { ADMIN_TOKEN: process.env.ADMIN_TOKEN } : {}),
  ...(process.env.MODERATOR_START_SECONDS
    ? { MODERATOR_START_SECONDS: process.env.MODERATOR_START_SECONDS }
    : {}),
  // The local moderator's emulated start and decision times, as in the embedded default.
  MODERATOR_DECISION_SECONDS: process.env.MODERATOR_DECISION_SECONDS ?? '1',
});
const serves: RoleProcess[] = await Promise.all(Array.from({ length: SERVE }, () => spawnRole('serve', env)));
const workers: RoleProcess[] = await Promise.all(Array.from({ length: WORK }, () => spawnRole('work', env)));

// A minimal round-robin balancer that skips a process that refuses the connection.
let next = 0;
const balancer = createServer((req, res) => {
  const tryAt = (left: number) => {
    const target = new URL(serves[next++ % serves.length]!.url!);
    const up = request(
      {
        host: target.hostname,
        port: target.port,
        method: req.method,
        path: req.url,
        headers: { ...req.headers, 'x-forwarded-for': req.socket.remoteAddress ?? '' },
      },
      (r) => {
        res.writeHead(r.statusCode ?? 502, r.headers);
        r.pipe(res);
      },
    );
    up.once('error', () => {
      if (left > 0 && !res.headersSent) tryAt(left - 1);
      else if (!res.headersSent) res.writeHead(502).end();
    });
    req.pipe(up);
  };
  tryAt(serves.length - 1);
});
await new Promise<void>((resolve) => balancer.listen(PORT, '127.0.0.1', resolve));
console.log(
  [
    `agentpress cluster: ${SERVE} serve + ${WORK} work processes on PostgreSQL (${pgServer.kind}), balancer on ${BASE_URL}`,
    `  serve: ${serves.map((s) => `${s.url} (pid ${s.pid})`).join(', ')}`,
    `  work:  ${workers.map((w) => `pid ${w.pid}`).join(', ')}`,
    `  admin token: ${env.ADMIN_TOKEN}`,
  ].join('\n'),
);

let stopping = false;
const stop = async () => {
  if (stopping) return;
  stopping = true;
  balancer.close();
  await Promise.all([...serves, ...workers].map((p) => stopRole(p, 'SIGTERM')));
  await pgServer.stop();
  process.exit(0);
};
process.on('SIGINT', () => void stop());
process.on('SIGTERM', () => void stop());
