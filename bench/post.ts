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
import { count, eq } from 'drizzle-orm';
import { post as ledgerPost } from '../src/core/billing/ledger.js';
import { normalizeBody } from '../src/core/posts/bodies.js';
import { newId } from '../src/core/secrets.js';
import { posts } from '../src/db/schema.js';
import {
  type Bench,
  fundedAccounts,
  type LoadResult,
  listenLocal,
  measuredLoad,
  measureLoad,
  measureRatioPaths,
  onBenchApp,
  progressLog,
  type RatioBench,
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

const benchDatabase: RatioBench<LoadSpec, LoadResult> = (name, database, dataDir, load, errors) => {
  const progress = progressLog('post', name);
  return onBenchApp(database, dataDir, { ADMIN_TOKEN }, async (platform, app) => {
    const base = await listenLocal(app);
    const bench = await fundedAccounts(platform, CONNECTIONS);
    const spec = (seconds: number): LoadSpec => ({
      url: `${base}/v1/posts`,
      keys: bench.keys,
      body: STORY_JSON,
      seconds,
      connections: CONNECTIONS,
    });
    const rows = await measureRatioPaths({
      database: name,
      errors,
      progress,
      seconds: SECONDS,
      warmupSeconds: WARMUP_SECONDS,
      connections: CONNECTIONS,
      http: {
        row: 'HTTP POST /v1/posts',
        says: 'HTTP POST /v1/posts',
        run: async (seconds, path) => measuredLoad(await load.run(spec(seconds)), errors, name, path),
      },
      service: {
        row: 'posts.create, no HTTP',
        says: 'posts.create without HTTP',
        op: async (loop) => {
          await platform.services.posts.create(bench.principals[loop]!, 'stories', STORY);
        },
      },
      baseline: { row: 'direct transaction (baseline)', says: 'direct transaction', op: directPost(bench) },
    });

    const [queued] = await platform.deps.db
      .select({ n: count() })
      .from(posts)
      .where(eq(posts.status, 'queued'));
    progress(`done; ${queued?.n ?? 0} posts queued (workers are not run)`);
    return rows;
  });
};

await runRatioBench({
  moduleUrl: import.meta.url,
  generate: generateLoad,
  bench: benchDatabase,
  title: () =>
    `### bench/post: POST /v1/posts against the same transaction without HTTP ` +
    `(${CONNECTIONS} connections or loops, ${SECONDS} s each, node ${process.version})\n`,
});
