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
import { count, eq } from 'drizzle-orm';
import { post as ledgerPost } from '../src/core/billing/ledger.js';
import { normalizeBody } from '../src/core/posts/bodies.js';
import { newId } from '../src/core/secrets.js';
import type { Database } from '../src/db/client.js';
import { posts } from '../src/db/schema.js';
import { type App, buildApp } from '../src/http/app.js';
import {
  type Bench,
  benchPlatform,
  closedLoops,
  fundedAccounts,
  type LoadResult,
  type LoadWorker,
  type Measured,
  measuredLoad,
  measureLoad,
  problem,
  progressLog,
  type RatioRow,
  runRatioBench,
  STORY,
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

// ---------------------------------------------------------------------------------------------
// Load generator (worker thread): autocannon with one API key per connection.

type Load = LoadWorker<LoadSpec, LoadResult>;

function generateLoad(spec: LoadSpec): Promise<LoadResult> {
  const options = {
    url: spec.url,
    method: 'POST',
    connections: spec.connections,
    duration: spec.seconds,
    body: spec.body,
  } as const;
  return measureLoad(options, (client, n) => {
    client.setHeaders({
      'content-type': 'application/json',
      accept: 'application/json',
      authorization: `Bearer ${spec.keys[n % spec.keys.length]}`,
    });
  });
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
  load: Load,
  errors: string[],
): Promise<RatioRow[]> {
  const progress = progressLog('post', name);
  const platform = await benchPlatform(database, dataDir, { ADMIN_TOKEN });
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
      return measuredLoad(r, errors, name, path);
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

await runRatioBench({
  moduleUrl: import.meta.url,
  generate: generateLoad,
  bench: benchDatabase,
  title: () =>
    `### bench/post: POST /v1/posts against the same transaction without HTTP ` +
    `(${CONNECTIONS} connections or loops, ${SECONDS} s each, node ${process.version})\n`,
});
