/**
 * GET /v1/search over HTTP (keyed, metered) and Search.query() in process against the raw SQL the
 * service runs, sent straight to the driver, in the same run and on the same database: PGlite
 * always, PostgreSQL when DATABASE_URL is set (a fresh `agentpress_bench_*` database, dropped
 * afterwards).
 *
 *   npm run bench:search                 BENCH_SECONDS=10 by default, 10 connections
 *   DATABASE_URL=postgres://… npm run bench:search
 *
 * BENCH_STORIES (10,000 by default) published stories are inserted straight into `posts` in batches
 * of 500, then ANALYZEd. Their bodies are 150–300 words drawn from a vocabulary with Zipf-like
 * frequencies, with a few words planted at known rates so the queries have realistic selectivity:
 * 'lighthouse' in about 1% of stories, 'orchard' in about 10%, the phrase "copper kettle" in about
 * 3% (both words also occur apart, so the phrase query has to check positions). Every path rotates
 * over the same queries.
 *
 * The HTTP path is the real metered one: each connection has its own API key, whose free searches
 * of the day are used up before the run (as `consume` would leave them after 100 searches), and
 * each account has a large balance, so every search is charged rather than refused; the run
 * checks that the ledger holds one search fee per successful HTTP search.
 * Workers are not started. autocannon runs in a worker thread so the load generator does not share
 * the server's event loop.
 */
import { randomBytes } from 'node:crypto';
import { performance } from 'node:perf_hooks';
import { and, count, eq, sql } from 'drizzle-orm';
import { dayKey } from '../src/core/limits/daily.js';
import { PRICES } from '../src/core/pricing.js';
import { type SearchQuery, searchQuery } from '../src/core/search/search.js';
import { newId } from '../src/core/secrets.js';
import { type Database, queryRows } from '../src/db/client.js';
import { dailyCounters, ledger, posts } from '../src/db/schema.js';
import type { Platform } from '../src/platform.js';
import {
  fundedAccounts,
  type LoadResult,
  listenLocal,
  type Measured,
  measuredLoad,
  measureLoad,
  measureRatioPaths,
  onBenchApp,
  problem,
  progressLog,
  type RatioBench,
  runRatioBench,
} from './lib.js';

const SECONDS = Number(process.env.BENCH_SECONDS ?? 10);
const WARMUP_SECONDS = Number(process.env.BENCH_WARMUP_SECONDS ?? Math.min(2, SECONDS));
const STORIES = Number(process.env.BENCH_STORIES ?? 10_000);
const BATCH = 500;
const CONNECTIONS = 10;
const ADMIN_TOKEN = `bench-admin-${randomBytes(12).toString('hex')}`;
/** The search page size the HTTP path asks for by default; the service fetches one more. */
const LIMIT = 20;

/** A rare word, a common word and a two-word phrase (websearch syntax), in this order on every path. */
const QUERIES = ['lighthouse', 'orchard', '"copper kettle"'] as const;

// ---------------------------------------------------------------------------------------------
// Stories: varied English text from a vocabulary, with planted words at known rates.

/** mulberry32: the same stories in every run. */
function rng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** Roughly by frequency, most common first; sampled with weight 1/(rank + 1). */
const VOCABULARY = (
  'the and a of to in she he it was her his that they with on for at as but had from by ' +
  'said one would all there were when what out into up then could so them their no about ' +
  'time day night over old little back down man woman long sea house before after again ' +
  'water light road town door window boat hand eyes morning through under still never ' +
  'away home came went took made knew thought looked found left told asked heard saw ' +
  'small great last first other good every same young quiet cold warm dark bright soft ' +
  'winter spring summer autumn storm rain wind snow river hill field garden harbour village ' +
  'city street market station bridge kitchen table bread soup letter ledger radio window ' +
  'brother sister mother father friend neighbour stranger children teacher doctor fisherman ' +
  'baker farmer sailor keeper driver walked waited listened carried opened closed turned ' +
  'smiled laughed remembered forgot kept brought sent wrote read sang slept woke ran ' +
  'stone wood glass iron copper silver paper cloth rope salt honey apples onions barley ' +
  'kettle lamp clock bell map coat boots socks basket bucket ladder fence gate roof wall ' +
  'island cove shore cliff beach forest meadow valley mountain path lane square chapel ' +
  'school shop office factory mill well yard barn stable cellar attic stair corridor ' +
  'slowly quietly carefully suddenly always almost nearly perhaps once twice often ' +
  'year month week hour minute evening afternoon dawn dusk season holiday birthday ' +
  'voice song story name word question answer promise secret silence noise music ' +
  'red blue green grey white black golden pale narrow wide heavy empty full broken new ' +
  'ship ferry train bus bicycle cart horse dog cat goat bird gull fox crow sheep ' +
  'fire smoke ash dust mud ice frost fog cloud sun moon star tide wave current ' +
  'work job money rent price wage debt gift parcel note photograph journal diary ' +
  'tired hungry lonely happy afraid proud angry patient stubborn careful curious kind ' +
  'remember wonder believe hope wish decide begin finish return leave arrive stay ' +
  'north south east west far near behind beside between across along around beyond ' +
  'grandmother grandfather uncle aunt cousin husband wife daughter son baby ' +
  'coffee tea milk cheese butter eggs fish meat potatoes carrots pears plums cherries ' +
  'chair bed blanket pillow curtain mirror drawer shelf cupboard stove oven sink ' +
  'engine wheel rudder mast sail anchor net hook oar deck cabin hull compass'
).split(' ');

const CUMULATIVE = (() => {
  const c = new Float64Array(VOCABULARY.length);
  let sum = 0;
  for (let i = 0; i < VOCABULARY.length; i++) {
    sum += 1 / (i + 1);
    c[i] = sum;
  }
  return c.map((v) => v / sum);
})();

function word(r: () => number): string {
  const x = r();
  let lo = 0;
  let hi = CUMULATIVE.length - 1;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (CUMULATIVE[mid]! < x) lo = mid + 1;
    else hi = mid;
  }
  return VOCABULARY[lo]!;
}

const TOPICS = ['sea', 'short-fiction', 'family', 'winter', 'city', 'memory', 'work', 'travel'];
const capital = (w: string) => w[0]!.toUpperCase() + w.slice(1);

function story(r: () => number): { title: string; body: string; topics: string[] } {
  const words = Array.from({ length: 150 + Math.floor(r() * 151) }, () => word(r));
  const plant = (...planted: string[]) =>
    words.splice(Math.floor(r() * (words.length - planted.length)), planted.length, ...planted);
  if (r() < 0.01) plant('lighthouse');
  if (r() < 0.1) plant('orchard');
  if (r() < 0.03) plant('copper', 'kettle');
  // Sentences of 6–18 words, paragraphs of 3–7 sentences.
  const paragraphs: string[] = [];
  let sentences: string[] = [];
  let target = 3 + Math.floor(r() * 5);
  for (let i = 0; i < words.length; ) {
    const n = 6 + Math.floor(r() * 13);
    const s = words.slice(i, i + n);
    i += n;
    sentences.push(`${capital(s.join(' '))}.`);
    if (sentences.length === target || i >= words.length) {
      paragraphs.push(sentences.join(' '));
      sentences = [];
      target = 3 + Math.floor(r() * 5);
    }
  }
  const title = capital(Array.from({ length: 3 + Math.floor(r() * 3) }, () => word(r)).join(' '));
  const topics = [TOPICS[Math.floor(r() * TOPICS.length)]!];
  if (r() < 0.5) topics.push(TOPICS[Math.floor(r() * TOPICS.length)]!);
  return { title, body: paragraphs.join('\n\n'), topics: [...new Set(topics)] };
}

/** STORIES published stories in batches of BATCH, published over the last 30 days. */
async function insertStories(platform: Platform, accountId: string): Promise<void> {
  const { db, clock } = platform.deps;
  const r = rng(20_240_611);
  const now = clock.now().getTime();
  for (let start = 0; start < STORIES; start += BATCH) {
    const rows = Array.from({ length: Math.min(BATCH, STORIES - start) }, () => {
      const s = story(r);
      const at = new Date(now - Math.floor(r() * 30 * 86_400_000));
      return {
        id: newId('post'),
        site: 'stories',
        accountId,
        status: 'published' as const,
        title: s.title,
        body: s.body,
        topics: s.topics,
        authorName: 'bench author',
        charged: 250_000,
        createdAt: at,
        decidedAt: at,
        publishedAt: at,
      };
    });
    await db.insert(posts).values(rows);
  }
  // PostgreSQL's autovacuum would do this soon; PGlite has none. Plan both on real statistics.
  await db.execute(sql`analyze posts`);
}

// ---------------------------------------------------------------------------------------------
// The baseline: the statement Search.query() has drizzle send (unfiltered, first page), as text.

const RAW_SQL =
  `select "id", "site", "account_id", "key_id", "status", "title", "body", "topics", "fields", ` +
  `"country", "state", "city", "author_name", "charged", "prefilter", "moderation", ` +
  `"rejection_category", "rejection_reason", "refunded", "visible_until", "starts_at", ` +
  `"created_at", "decided_at", "published_at", "deleted_at", ` +
  `ts_rank_cd(posts.search, websearch_to_tsquery('english', $1)) from "posts" ` +
  `where ("posts"."site" = $2 and "posts"."status" = $3 ` +
  `and posts.search @@ websearch_to_tsquery('english', $4) ` +
  `and ("posts"."visible_until" is null or "posts"."visible_until" > $5)) ` +
  `order by ts_rank_cd(posts.search, websearch_to_tsquery('english', $6)) desc, ` +
  `"posts"."published_at" desc, "posts"."id" limit $7`;

function rawSearch(database: Database, platform: Platform) {
  return (q: string) =>
    database.sqlExecutor.executeSql(RAW_SQL, [
      q,
      'stories',
      'published',
      q,
      platform.deps.clock.now().toISOString(),
      q,
      LIMIT + 1,
    ]);
}

// ---------------------------------------------------------------------------------------------
// Load generator (worker thread): autocannon, one API key per connection, rotating the queries.

interface LoadSpec {
  url: string;
  keys: string[];
  paths: string[];
  seconds: number;
  connections: number;
}

function generateLoad(spec: LoadSpec): Promise<LoadResult> {
  return measureLoad(
    { url: spec.url, connections: spec.connections, duration: spec.seconds },
    (client, n) => {
      const headers = {
        accept: 'application/json',
        authorization: `Bearer ${spec.keys[n % spec.keys.length]}`,
      };
      // Each connection starts at a different query so all of them are in flight at once.
      const paths = spec.paths.map((_, i) => spec.paths[(i + n) % spec.paths.length]!);
      client.setRequests(paths.map((path) => ({ method: 'GET', path, headers })));
    },
  );
}

// ---------------------------------------------------------------------------------------------
// One database: platform, stories, a funded key per connection, then the three paths.

const benchDatabase: RatioBench<LoadSpec, LoadResult> = (name, database, dataDir, load, errors) => {
  const progress = progressLog('search', name);
  return onBenchApp(database, dataDir, { ADMIN_TOKEN }, async (platform, app) => {
    // autocannon stops at its deadline with requests still in flight: each HTTP phase waits for
    // the server to finish them, so they neither overlap the next phase nor escape the fee check.
    let inFlight = 0;
    let answered = 0;
    app.addHook('onRequest', async () => {
      inFlight++;
    });
    // onSend, not onResponse: a request whose client has gone still runs it, but not onResponse.
    app.addHook('onSend', async (_req, reply) => {
      inFlight--;
      if (reply.statusCode === 200) answered++;
    });
    const base = await listenLocal(app);
    // Each account holds hundreds of dollars: at 1,000 micro-dollars a search it never runs out.
    const bench = await fundedAccounts(platform, CONNECTIONS);

    progress(`inserting ${STORIES} published stories in batches of ${BATCH}`);
    const insertStarted = performance.now();
    await insertStories(platform, bench.principals[0]!.accountId);
    const insertSeconds = (performance.now() - insertStarted) / 1000;
    const raw = rawSearch(database, platform);
    const matches: string[] = [];
    for (const q of QUERIES) {
      const [row] = await queryRows<{ n: number }>(
        platform.deps.db,
        sql`select count(*)::int as n from ${posts} where posts.search @@ websearch_to_tsquery('english', ${q})`,
      );
      matches.push(`${q} ${row?.n ?? 0}`);
    }
    const [total] = await platform.deps.db.select({ n: count() }).from(posts);
    progress(
      `${total?.n ?? 0} stories in ${insertSeconds.toFixed(1)} s; matches per query: ${matches.join(', ')}`,
    );

    const parsed: SearchQuery[] = QUERIES.map((q) => searchQuery.parse({ q }));
    const spec = (seconds: number): LoadSpec => ({
      url: base,
      keys: bench.keys,
      paths: QUERIES.map((q) => `/v1/search?q=${encodeURIComponent(q)}`),
      seconds,
      connections: CONNECTIONS,
    });

    // Today's free searches used up on every key: each HTTP search below debits the balance.
    await platform.deps.db.insert(dailyCounters).values(
      bench.principals.map((p) => ({
        scope: 'search_key',
        subject: p.keyId,
        day: dayKey(platform.deps.clock.now()),
        count: PRICES.free_searches_per_day,
      })),
    );
    let httpOk = 0;
    const http = async (seconds: number, path: string): Promise<Measured> => {
      const r = await load.run(spec(seconds));
      httpOk += r.completed - r.non2xx;
      const drainBy = performance.now() + 30_000;
      while (inFlight > 0 && performance.now() < drainBy) await new Promise((f) => setTimeout(f, 5));
      if (inFlight > 0) problem(errors, name, path, `${inFlight} requests still running 30 s after the run`);
      return measuredLoad(r, errors, name, path);
    };
    const rows = await measureRatioPaths({
      database: name,
      errors,
      progress,
      seconds: SECONDS,
      warmupSeconds: WARMUP_SECONDS,
      connections: CONNECTIONS,
      http: { row: 'HTTP GET /v1/search (charged)', says: 'HTTP GET /v1/search', run: http },
      service: {
        row: 'Search.query, no HTTP',
        says: 'Search.query without HTTP or metering',
        op: (_loop, i) => platform.services.search.query('stories', parsed[i % parsed.length]!),
      },
      baseline: {
        row: 'raw SQL via driver (baseline)',
        says: 'raw SQL through the driver',
        op: (_loop, i) => raw(QUERIES[i % QUERIES.length]!),
      },
    });

    const [fees] = await platform.deps.db
      .select({ n: count() })
      .from(ledger)
      .where(and(eq(ledger.kind, 'search_fee'), eq(ledger.amount, -PRICES.search)));
    progress(
      `done; ${answered} HTTP searches answered (${httpOk} before autocannon's deadline), ` +
        `${fees?.n ?? 0} search fees in the ledger`,
    );
    if (Number(fees?.n ?? 0) !== answered)
      problem(errors, name, 'http', `${answered} searches answered but ${fees?.n ?? 0} charged`);
    return rows;
  });
};

await runRatioBench({
  moduleUrl: import.meta.url,
  generate: generateLoad,
  bench: benchDatabase,
  title: () =>
    `### bench/search: GET /v1/search and Search.query against the raw SQL through the driver ` +
    `(${STORIES} stories; queries ${QUERIES.join(', ')}; ${CONNECTIONS} connections or loops, ` +
    `${SECONDS} s each, node ${process.version})\n`,
});
