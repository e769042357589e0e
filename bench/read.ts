/**
 * Reading the public site: the app serving built files (SITE_DIR) for `/p/{id}.json`, `/index.json`
 * and a post page, each as a ratio to a bare fastify route that serves the same bytes from memory,
 * measured in the same run. Also the same paths rendered on request (the file not built), which is
 * what the app does before the first build.
 *
 *   npm run bench:read           BENCH_SECONDS=5 by default, 10 connections, PGlite (the embedded default)
 *
 * BENCH_POSTS (50) published stories are inserted straight into `posts`, then `site build` runs.
 * autocannon runs in a worker thread so the load generator does not share the server's event loop.
 * Goal: built files at >= 0.8 of the bare route.
 */
import { renameSync } from 'node:fs';
import { isMainThread, parentPort } from 'node:worker_threads';
import Fastify from 'fastify';
import { newId } from '../src/core/secrets.js';
import { posts } from '../src/db/schema.js';
import { buildApp } from '../src/http/app.js';
import { contentType } from '../src/web/site-content.js';
import {
  benchPlatform,
  fixed,
  fundedAccounts,
  LoadWorker,
  listenLocal,
  measureLoad,
  onPglite,
  problem,
  STORY,
  summarise,
} from './lib.js';

const SECONDS = Number(process.env.BENCH_SECONDS ?? 5);
const WARMUP_SECONDS = Number(process.env.BENCH_WARMUP_SECONDS ?? 1);
const POSTS = Number(process.env.BENCH_POSTS ?? 50);
const CONNECTIONS = 10;
const ROUNDS = 3;

/** Rounds of one measurement: mean rate, and the median round's latencies. */
function combine(rounds: LoadResult[]): LoadResult {
  const mid = [...rounds].sort((a, b) => a.rps - b.rps)[Math.floor(rounds.length / 2)]!;
  return {
    rps: rounds.reduce((s, r) => s + r.rps, 0) / rounds.length,
    p50: mid.p50,
    p99: mid.p99,
    non2xx: rounds.reduce((s, r) => s + r.non2xx, 0),
    errors: rounds.reduce((s, r) => s + r.errors, 0),
  };
}

interface LoadSpec {
  url: string;
  seconds: number;
}
interface LoadResult {
  rps: number;
  p50: number;
  p99: number;
  non2xx: number;
  errors: number;
}

async function generateLoad(spec: LoadSpec): Promise<LoadResult> {
  const r = await measureLoad({ url: spec.url, connections: CONNECTIONS, duration: spec.seconds });
  const m = summarise(r.latencies, r.completed, r.elapsedSeconds);
  return { rps: m.opsPerSecond, p50: m.p50, p99: m.p99, non2xx: r.non2xx, errors: r.errors };
}

interface Row {
  path: string;
  bare: LoadResult;
  floor: LoadResult;
  built: LoadResult;
  rendered: LoadResult;
}

async function main() {
  const errors: string[] = [];
  const load = new LoadWorker<LoadSpec, LoadResult>(import.meta.url);
  const rows: Row[] = [];
  try {
    await onPglite(async (database, dataDir) => {
      const platform = await benchPlatform(database, dataDir, { BASE_URL: 'http://localhost:8080' });
      const { config } = platform;
      const { principals } = await fundedAccounts(platform, 1);
      const now = Date.now();
      const ids: string[] = [];
      for (let i = 0; i < POSTS; i++) {
        const id = newId('post');
        ids.push(id);
        await platform.deps.db.insert(posts).values({
          id,
          site: 'stories',
          accountId: principals[0]!.accountId,
          status: 'published',
          title: `${STORY.title} (${i + 1})`,
          body: `${STORY.body}\n\nPostscript number ${i + 1}.`,
          topics: STORY.topics,
          authorName: 'bench agent',
          charged: 250_000,
          createdAt: new Date(now - (POSTS - i) * 60_000),
          publishedAt: new Date(now - (POSTS - i) * 60_000 + 1000),
        });
      }
      const built = await platform.services.siteBuilder.full('stories');
      console.error(`[bench:read] site build: ${built.written.length} files in ${config.siteDir}`);
      const id = ids[Math.floor(ids.length / 2)]!;
      const paths = [`/p/${id}.json`, '/index.json', `/p/${id}`];

      const app = await buildApp(platform, { logger: false });
      // The app's own floor: the same bytes from memory through the whole app (its request id,
      // hooks and headers), so the table shows what serving a built file adds on top of that.
      const floor = new Map<string, Buffer>();
      app.get<{ Params: { n: string } }>('/__floor/:n', async (req, reply) => {
        const path = paths[Number(req.params.n)]!;
        return reply.type(contentType(path)).send(floor.get(path));
      });
      const bare = Fastify({ logger: false });
      const bytes = new Map<string, Buffer>();
      for (const path of paths) {
        const file = platform.services.siteBuilder.files.read('stories', path);
        if (!file) throw new Error(`${path} was not built`);
        bytes.set(path, file.body);
        floor.set(path, file.body);
        bare.get(path, async (_req, reply) => reply.type(contentType(path)).send(bytes.get(path)));
      }
      try {
        const appUrl = await listenLocal(app);
        const bareUrl = await listenLocal(bare);
        const run = async (url: string, label: string, warm = true): Promise<LoadResult> => {
          // (each round runs SECONDS / ROUNDS)
          if (warm && WARMUP_SECONDS > 0) await load.run({ url, seconds: WARMUP_SECONDS });
          const r = await load.run({ url, seconds: SECONDS / ROUNDS });
          if (r.non2xx > 0 || r.errors > 0)
            problem(errors, 'pglite', label, `${r.non2xx} non-2xx, ${r.errors} errors`);
          console.error(`[bench:read] ${label}: ${r.rps.toFixed(0)} req/s`);
          return r;
        };
        // Bare and built alternate in short rounds, so a burst of load from elsewhere on the
        // machine hits both sides alike; the figures are over all rounds.
        const measured = new Map<string, { bare: LoadResult; floor: LoadResult; built: LoadResult }>();
        for (const [i, path] of paths.entries()) {
          const bareRounds: LoadResult[] = [];
          const floorRounds: LoadResult[] = [];
          const builtRounds: LoadResult[] = [];
          for (let round = 0; round < ROUNDS; round++) {
            bareRounds.push(await run(`${bareUrl}${path}`, `bare ${path}`, round === 0));
            floorRounds.push(await run(`${appUrl}/__floor/${i}`, `app floor ${path}`, round === 0));
            builtRounds.push(await run(`${appUrl}${path}`, `built ${path}`, round === 0));
          }
          measured.set(path, {
            bare: combine(bareRounds),
            floor: combine(floorRounds),
            built: combine(builtRounds),
          });
        }
        // The same paths with no built file: the app renders each request.
        renameSync(config.siteDir, `${config.siteDir}.off`);
        for (const path of paths) {
          const m = measured.get(path)!;
          rows.push({ path, ...m, rendered: await run(`${appUrl}${path}`, `rendered ${path}`) });
        }
        renameSync(`${config.siteDir}.off`, config.siteDir);
      } finally {
        await app.close();
        await bare.close();
        await platform.close();
      }
    });
  } finally {
    await load.close();
  }
  const label = (p: string) => p.replace(/post_[A-Za-z0-9_-]+/, '{id}');
  console.log(
    `### bench/read: built site vs a bare fastify route with the same bytes in memory ` +
      `(PGlite, ${POSTS} posts, ${CONNECTIONS} connections, ${SECONDS} s each, node ${process.version})\n`,
  );
  console.log(
    [
      '| path | bare fastify req/s | built req/s | built p50/p99 ms | **built / bare** | app floor req/s (floor / bare) | built / app floor | rendered req/s (rendered / bare) |',
      '| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |',
      ...rows.map(
        (r) =>
          `| ${label(r.path)} | ${fixed(r.bare.rps)} | ${fixed(r.built.rps)} | ${fixed(r.built.p50)}/${fixed(r.built.p99)} | ` +
          `**${fixed(r.built.rps / r.bare.rps, 2)}** | ${fixed(r.floor.rps)} (${fixed(r.floor.rps / r.bare.rps, 2)}) | ` +
          `${fixed(r.built.rps / r.floor.rps, 2)} | ${fixed(r.rendered.rps)} (${fixed(r.rendered.rps / r.bare.rps, 2)}) |`,
      ),
    ].join('\n'),
  );
  for (const e of errors) console.log(`\n${e}`);
}

if (isMainThread) {
  await main();
} else {
  parentPort!.on('message', async (spec: LoadSpec) => parentPort!.postMessage(await generateLoad(spec)));
}
