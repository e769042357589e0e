/**
 * `npm run test:reliability`: real `serve` and `work` processes on a private PostgreSQL (its own
 * databases `agentpress_rel_*`) and Redis (its own db index), load while faults happen, then the
 * invariants of issue #10 after each: sum of ledger = balance for every account, no post charged
 * twice (nor unpaid), every queued post reaches a verdict, every event delivered at least once
 * (verified with standardwebhooks), no 5xx except 503 + Retry-After during the database outage.
 * Each scenario prints one `RELIABILITY {json}` line with what was measured.
 */
import { spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statfsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import {
  clusterEnv,
  type PostgresServer,
  type RoleProcess,
  sleep,
  spawnRole,
  startPostgres,
  stopRole,
  waitFor,
} from '../../scripts/lib/cluster.js';
import { type Answer, call, fundedAccount, newStory, postOnce, registerWebhook } from './client.js';
import { checkInvariants, type InvariantReport, scalar } from './invariants.js';
import { Receiver } from './receiver.js';

const REDIS_URL = process.env.RELIABILITY_REDIS_URL ?? 'redis://127.0.0.1:6379/9';

let pgServer: PostgresServer;
const running: RoleProcess[] = [];
const receivers: Receiver[] = [];

beforeAll(async () => {
  pgServer = await startPostgres(process.env.DATABASE_URL);
  console.log(`RELIABILITY postgres=${pgServer.kind}`);
}, 60_000);

afterEach(async () => {
  await Promise.all(running.splice(0).map((p) => stopRole(p, 'SIGKILL')));
  await Promise.all(receivers.splice(0).map((r) => r.stop()));
});

afterAll(async () => {
  await pgServer?.stop();
});

async function database(scenario: string): Promise<string> {
  return pgServer.createDatabase(`agentpress_rel_${scenario}_${randomBytes(4).toString('hex')}`);
}

async function start(role: 'serve' | 'work', env: Record<string, string>): Promise<RoleProcess> {
  const p = await spawnRole(role, env);
  running.push(p);
  return p;
}

async function receiverFor(offsetMs?: () => number): Promise<Receiver> {
  const r = new Receiver(offsetMs);
  await r.start();
  receivers.push(r);
  return r;
}

/** Waits until every post has a verdict and every delivery arrived, then returns the invariants. */
async function settle(
  db: string,
  receiver: Receiver | undefined,
  timeoutMs: number,
): Promise<InvariantReport> {
  let last: InvariantReport | undefined;
  try {
    return await waitFor(
      'every post decided and every event delivered',
      async () => {
        last = await checkInvariants(db, receiver);
        return last.queued.length === 0 && last.undelivered.length === 0 ? last : undefined;
      },
      timeoutMs,
      500,
    );
  } catch (err) {
    const errors = running.flatMap((p) =>
      p.output
        .join('')
        .split('\n')
        .filter((l) => /"level":(50|60)/.test(l))
        .slice(-4)
        .map((l) => `${p.role} ${p.pid}: ${l.slice(0, 600)}`),
    );
    // A process that died may have said why outside the JSON log (an uncaught exception).
    const died = running
      .filter((p) => p.child.exitCode !== null || p.child.signalCode !== null)
      .map(
        (p) =>
          `${p.role} ${p.pid} exited (${p.child.exitCode ?? p.child.signalCode}): ${p.output.join('').slice(-1500)}`,
      );
    throw new Error(
      `${String(err)}\nlast: ${JSON.stringify(last, null, 1)}\nprocess errors:\n${errors.join('\n')}\nexited:\n${died.join('\n')}`,
    );
  }
}

function expectInvariants(r: InvariantReport, receiver?: Receiver) {
  expect(r.ledgerMismatches, 'sum of ledger = balance').toEqual([]);
  expect(r.chargedTwice, 'no post charged twice').toEqual([]);
  expect(r.notCharged, 'every post paid for').toEqual([]);
  expect(r.queued, 'every queued post reaches a verdict').toEqual([]);
  expect(r.decided).toBe(r.posts);
  if (receiver) {
    expect(r.undelivered, 'every event delivered at least once').toEqual([]);
    expect(r.unannounced, 'every verdict announced').toEqual([]);
    expect(receiver.rejected, 'every receipt verified').toEqual([]);
  }
}

function expectNo5xx(answers: Answer[]) {
  const bad = answers.filter((a) => a.status >= 500);
  expect(bad.map((a) => `${a.method} ${a.path} ${a.status}`)).toEqual([]);
}

/** A reader that keeps GET traffic on the serve processes while a fault happens. */
function readLoad(bases: () => string[], keys: string[], log: Answer[]) {
  let stop = false;
  const loop = (async () => {
    let i = 0;
    while (!stop) {
      const base = bases()[i % bases().length]!;
      const key = keys[i % keys.length]!;
      const paths = ['/v1/status', '/v1/account', '/index.json', '/v1/posts?limit=5'];
      const path = paths[i % paths.length]!;
      log.push(await call(base, 'GET', path, path === '/index.json' ? {} : { key }));
      i++;
      await sleep(50);
    }
  })();
  return async () => {
    stop = true;
    await loop;
  };
}

async function activeModerations(db: string, except: string[]): Promise<string[]> {
  const c = new pg.Client({ connectionString: db });
  await c.connect();
  try {
    const r = await c.query<{ id: string }>(
      "SELECT id::text FROM pgboss.job WHERE name = 'moderate' AND state = 'active' AND NOT (id::text = ANY($1))",
      [except],
    );
    return r.rows.map((x) => x.id);
  } finally {
    await c.end();
  }
}

/** Every built file parses (JSON) or ends as it should (HTML, XML); temporary files are listed apart. */
function wholeFiles(dir: string): { files: number; broken: string[]; temps: string[] } {
  const broken: string[] = [];
  const temps: string[] = [];
  let files = 0;
  for (const entry of readdirSync(dir, { recursive: true, withFileTypes: true })) {
    if (!entry.isFile()) continue;
    const file = join(entry.parentPath, entry.name);
    if (entry.name.endsWith('.tmp')) {
      temps.push(file);
      continue;
    }
    files++;
    const text = readFileSync(file, 'utf8');
    const whole = entry.name.endsWith('.json')
      ? (() => {
          try {
            JSON.parse(text);
            return true;
          } catch {
            return false;
          }
        })()
      : entry.name.endsWith('.html')
        ? text.trimEnd().endsWith('</html>')
        : entry.name.endsWith('.xml')
          ? /<\/(feed|urlset)>\s*$/.test(text)
          : text.length > 0;
    if (!whole) broken.push(file);
  }
  return { files, broken, temps };
}

const shared = (db: string, extra: Record<string, string> = {}) =>
  clusterEnv(db, { REDIS_URL, PLATFORM_RATE: '100000', PLATFORM_BURST: '100000', ...extra });

describe('reliability under faults (real processes, PostgreSQL, Redis)', () => {
  it('kill -9 a worker mid-moderation and mid-delivery; SIGTERM finishes in-flight jobs and requests', async () => {
    const db = await database('kill');
    const env = shared(db, {
      UNSAFE_TEST_HOOKS: '1',
      MODERATOR_DECISION_SECONDS: '3',
      TEST_SWEEP_INTERVAL_MS: '1000',
    });
    const receiver = await receiverFor();
    const serve = await start('serve', env);
    const base = serve.url!;
    const w1 = await start('work', env);
    const acct = await fundedAccount(base);
    const hook = await registerWebhook(base, acct.key, receiver.url);
    receiver.secret = hook.secret;
    receiver.holdMs = 4000;

    const reads: Answer[] = [];
    const stopReads = readLoad(() => [base], [acct.key], reads);
    const posts: Answer[] = [];
    const deadline = Date.now() + 60_000;
    await Promise.all(Array.from({ length: 16 }, () => postOnce(base, acct.key, posts, deadline)));

    // Kill only when the worker holds moderation jobs and deliveries at the same moment.
    const activeAtKill = await waitFor(
      'moderation jobs and deliveries in flight',
      async () => {
        const active = await scalar(
          db,
          "SELECT count(*) AS n FROM pgboss.job WHERE name = 'moderate' AND state = 'active'",
        );
        return active > 0 && receiver.inFlight > 0
          ? { moderations: active, deliveries: receiver.inFlight }
          : undefined;
      },
      45_000,
      100,
    );
    const killedAt = Date.now();
    process.kill(w1.pid, 'SIGKILL');
    expect((await w1.exited).signal).toBe('SIGKILL');
    // The killed worker's jobs stay `active` in pg-boss until they expire; the sweep recovers their posts.
    const orphans = await activeModerations(db, []);
    expect(orphans.length).toBeGreaterThan(0);
    const w2 = await start('work', env);
    const report = await settle(db, receiver, 150_000);
    const recoveredMs = Date.now() - killedAt;
    await stopReads();
    expectInvariants(report, receiver);
    expect(report.posts).toBe(16);
    expectNo5xx([...reads, ...posts]);

    // Graceful: SIGTERM the (only) worker while it moderates; it finishes its jobs before exiting.
    const more: Answer[] = [];
    await Promise.all(Array.from({ length: 4 }, () => postOnce(base, acct.key, more, Date.now() + 30_000)));
    receiver.holdMs = 0;
    const activeAtTerm = await waitFor(
      'moderation in flight on the replacement worker',
      async () => (await activeModerations(db, orphans)).length || undefined,
      30_000,
      50,
    );
    const decidedBefore = await scalar(db, "SELECT count(*) AS n FROM posts WHERE status <> 'queued'");
    process.kill(w2.pid, 'SIGTERM');
    const exit = await w2.exited;
    expect(exit.code, w2.output.join('').slice(-2000)).toBe(0);
    const decidedAfter = await scalar(db, "SELECT count(*) AS n FROM posts WHERE status <> 'queued'");
    expect(decidedAfter - decidedBefore).toBeGreaterThanOrEqual(activeAtTerm);
    expect(await activeModerations(db, orphans), 'no job left running by the stopped worker').toEqual([]);

    // SIGTERM a serve process with requests in flight: each is answered, none is cut.
    const inFlight = Array.from({ length: 8 }, () =>
      call(base, 'POST', '/v1/posts', {
        key: acct.key,
        body: newStory(),
        headers: { 'idempotency-key': `term-${randomBytes(6).toString('hex')}` },
      }),
    );
    await sleep(30);
    process.kill(serve.pid, 'SIGTERM');
    const answered = await Promise.all(inFlight);
    expect((await serve.exited).code, serve.output.join('').slice(-3000)).toBe(0);
    const cut = answered.filter((a) => a.status === 0 && a.error !== 'ECONNREFUSED');
    expect(cut.map((a) => a.error)).toEqual([]);
    // In flight: answered 202. Arrived after the signal: 503 problem + Retry-After (the balancer retries elsewhere).
    expect(answered.filter((a) => a.status === 202).length).toBeGreaterThan(0);
    for (const a of answered.filter((x) => x.status !== 0 && x.status !== 202)) {
      expect(a.status).toBe(503);
      expect(a.retryAfter).not.toBeNull();
      expect(a.json.code).toBe('service_unavailable');
    }

    // Bring the cluster back and check the invariants once more.
    await start('work', env);
    const final = await settle(db, receiver, 120_000);
    expectInvariants(final, receiver);
    console.log(
      `RELIABILITY ${JSON.stringify({
        scenario: 'kill -9 worker mid-moderation and mid-delivery; SIGTERM worker and serve',
        posts: final.posts,
        killedWith: activeAtKill,
        recoveredSeconds: +(recoveredMs / 1000).toFixed(1),
        deliveries: final.deliveries,
        receipts: receiver.receipts.length,
        duplicateReceipts: final.duplicateReceipts,
        requests: reads.length + posts.length + more.length,
        gracefulWorker: { activeAtTerm, decidedDuringShutdown: decidedAfter - decidedBefore },
        gracefulServe: {
          sent: answered.length,
          answered202: answered.filter((a) => a.status === 202).length,
          refused503: answered.filter((a) => a.status === 503).length,
          cut: cut.length,
        },
      })}`,
    );
  }, 300_000);

  it('restart PostgreSQL under load: only 503 + Retry-After during the outage, nothing lost', async () => {
    const db = await database('pgrestart');
    const env = shared(db, {
      MODERATOR_DECISION_SECONDS: '0.2',
      UNSAFE_TEST_HOOKS: '1',
      TEST_SWEEP_INTERVAL_MS: '1000',
    });
    const receiver = await receiverFor();
    const [s1, s2] = await Promise.all([start('serve', env), start('serve', env)]);
    await start('work', env);
    const bases = [s1!.url!, s2!.url!];
    const accounts = await Promise.all([fundedAccount(bases[0]!), fundedAccount(bases[1]!)]);
    const hook = await registerWebhook(bases[0]!, accounts[0]!.key, receiver.url);
    receiver.secret = hook.secret;

    const answers: Answer[] = [];
    const ready: Answer[] = [];
    const stopReads = readLoad(
      () => bases,
      accounts.map((a) => a.key),
      answers,
    );
    let stopReady = false;
    const readyLoop = (async () => {
      while (!stopReady) {
        ready.push(await call(bases[0]!, 'GET', '/readyz', { timeoutMs: 8000 }));
        await sleep(250);
      }
    })();
    // A post whose first attempt was cut mid-request keeps its Idempotency-Key claimed until the
    // serve process can release it (or, if that process died, for the 60 s stale-claim window).
    const deadline = Date.now() + 120_000;
    const writers = (async () => {
      const results: (Answer | undefined)[] = [];
      const until = Date.now() + 12_000;
      let i = 0;
      // At most 117 posts over the two accounts (each top-up pays for 80).
      while (Date.now() < until && results.length < 117) {
        const batch = await Promise.all(
          [0, 1, 2].map((k) =>
            postOnce(() => bases[(i + k) % 2]!, accounts[(i + k) % 2]!.key, answers, deadline),
          ),
        );
        results.push(...batch);
        i++;
        await sleep(150);
      }
      return results;
    })();
    await sleep(3000);
    const outage = await pgServer.restart(2500, db);
    const accepted = await writers;
    await stopReads();
    stopReady = true;
    await readyLoop;

    // A serve process must live through the outage (a refused connection means it exited).
    const died = [s1!, s2!]
      .filter((p) => p.child.exitCode !== null)
      .map((p) => `${p.role} ${p.pid} exited ${p.child.exitCode}: ${p.output.join('').slice(-3000)}`);
    expect(died).toEqual([]);
    const unanswered = accepted.filter((a) => a?.status !== 202).map((a) => a?.trail ?? 'never sent');
    expect(unanswered, `outage ${JSON.stringify(outage)}`).toEqual([]);
    const report = await settle(db, receiver, 90_000);
    expectInvariants(report, receiver);
    expect(report.posts).toBe(accepted.length);

    const fivexx = answers.filter((a) => a.status >= 500);
    for (const a of fivexx) {
      expect(a.status, `${a.method} ${a.path}`).toBe(503);
      expect(a.retryAfter).toBe('2');
      expect(a.contentType).toMatch(/^application\/problem\+json/);
      expect(a.json.code).toBe('service_unavailable');
    }
    // 5xx only around the outage itself: from the stop until the pools have reconnected.
    const graceMs = 8000;
    const outside = fivexx.filter((a) => a.at < outage.downAt || a.at > outage.upAt + graceMs);
    expect(outside.map((a) => `${a.path} ${a.at - outage.upAt}ms after up`)).toEqual([]);
    expect(answers.filter((a) => a.status === 0 && a.at > outage.upAt + graceMs)).toEqual([]);
    expect(ready.some((r) => r.status === 503 || r.status === 0)).toBe(true);
    expect(ready.at(-1)?.status).toBe(200);
    const last5xx = fivexx.reduce((m, a) => Math.max(m, a.at), 0);
    console.log(
      `RELIABILITY ${JSON.stringify({
        scenario: `restart PostgreSQL (${pgServer.kind}) under load`,
        downSeconds: +((outage.upAt - outage.downAt) / 1000).toFixed(1),
        requests: answers.length,
        status503: fivexx.length,
        otherStatus5xx: 0,
        lastErrorAfterUpSeconds: last5xx ? +((last5xx - outage.upAt) / 1000).toFixed(1) : 0,
        posts: report.posts,
        postAttempts: answers.filter((a) => a.method === 'POST').length,
        deliveries: report.deliveries,
        readyz503: ready.filter((r) => r.status === 503).length,
      })}`,
    );
  }, 240_000);

  it('a receiver that is down for a while gets every event once it is back', async () => {
    const db = await database('receiver');
    const env = shared(db, {
      UNSAFE_TEST_HOOKS: '1',
      MODERATOR_DECISION_SECONDS: '0.2',
      TEST_WEBHOOK_RETRY_SCHEDULE_S: '1,1,2,2,3,3,5,5',
      TEST_SWEEP_INTERVAL_MS: '1000',
    });
    const receiver = await receiverFor();
    const serve = await start('serve', env);
    await start('work', env);
    const base = serve.url!;
    const acct = await fundedAccount(base);
    const hook = await registerWebhook(base, acct.key, receiver.url);
    receiver.secret = hook.secret;
    await receiver.stop();
    const downAt = Date.now();

    const answers: Answer[] = [];
    await Promise.all(
      Array.from({ length: 6 }, () => postOnce(base, acct.key, answers, Date.now() + 30_000)),
    );
    for (let i = 0; i < 10; i++)
      answers.push(await call(base, 'POST', `/v1/webhooks/${hook.id}/test`, { key: acct.key }));
    expectNo5xx(answers);
    // Down until every delivery has failed at least twice.
    await waitFor(
      'deliveries failing while the receiver is down',
      async () =>
        (await scalar(
          db,
          "SELECT count(*) AS n FROM webhook_deliveries WHERE status = 'pending' AND attempts < 2",
        )) === 0 && (await scalar(db, 'SELECT count(*) AS n FROM webhook_deliveries')) >= 16,
      60_000,
      250,
    );
    const failedAttempts = await scalar(
      db,
      'SELECT count(*) AS n FROM webhook_attempts WHERE status IS NULL',
    );
    await receiver.start();
    const upAt = Date.now();
    const report = await settle(db, receiver, 60_000);
    const deliveredMs = Math.max(...receiver.receipts.map((r) => r.at)) - upAt;
    expectInvariants(report, receiver);
    expect(report.deliveries).toBe(16);
    expect(failedAttempts).toBeGreaterThanOrEqual(32);
    console.log(
      `RELIABILITY ${JSON.stringify({
        scenario: 'receiver down for a while',
        downSeconds: +((upAt - downAt) / 1000).toFixed(1),
        deliveries: report.deliveries,
        failedAttemptsWhileDown: failedAttempts,
        allDeliveredSecondsAfterUp: +(deliveredMs / 1000).toFixed(1),
        duplicateReceipts: report.duplicateReceipts,
      })}`,
    );
  }, 180_000);

  it('clock jumps across 00:00 UTC: daily allowances follow the UTC day, money and events stay whole', async () => {
    const db = await database('clock');
    const DAY = 86_400_000;
    const now = Date.now();
    const midnight = Math.ceil(now / DAY) * DAY;
    // Phase 1 at 23:00 UTC; phase 2 jumps forward to 00:00:30 the next day; phase 3 jumps back to 23:59:00.
    const offsets = [midnight - 3_600_000 - now, midnight + 30_000 - now, midnight - 60_000 - now];
    let offset = offsets[0]!;
    const receiver = await receiverFor(() => offset);
    // One cluster: the same SECRET_KEY and ADMIN_TOKEN in every process, only the clock differs.
    const base = shared(db, { UNSAFE_TEST_HOOKS: '1', MODERATOR_DECISION_SECONDS: '0.2' });
    const envAt = (o: number) => ({ ...base, TEST_CLOCK_OFFSET_MS: String(Math.round(o)) });
    let [serve, work] = await Promise.all([start('serve', envAt(offset)), start('work', envAt(offset))]);
    const acct = await fundedAccount(serve!.url!);
    const hook = await registerWebhook(serve!.url!, acct.key, receiver.url);
    receiver.secret = hook.secret;

    const answers: Answer[] = [];
    const phases: { offsetHours: number; keylessOk: number; retryAfter: number; posts: number }[] = [];
    const phase = async () => {
      const base = serve!.url!;
      let ok = 0;
      let refused: Answer | undefined;
      for (let i = 0; i < 25 && !refused; i++) {
        const r = await call(base, 'GET', `/v1/search?q=story${i}`);
        answers.push(r);
        if (r.status === 200) ok++;
        else if (r.status === 429) refused = r;
      }
      const posted: Answer[] = [];
      await Promise.all(
        Array.from({ length: 3 }, () => postOnce(base, acct.key, posted, Date.now() + 30_000)),
      );
      answers.push(...posted);
      phases.push({
        offsetHours: +(offset / 3_600_000).toFixed(3),
        keylessOk: ok,
        retryAfter: Number(refused?.retryAfter ?? -1),
        posts: posted.filter((p) => p.status === 202).length,
      });
      return { ok, refused };
    };
    const jump = async (to: number) => {
      await Promise.all([stopRole(serve!, 'SIGTERM'), stopRole(work!, 'SIGTERM')]);
      running.splice(0);
      offset = to;
      [serve, work] = await Promise.all([start('serve', envAt(offset)), start('work', envAt(offset))]);
    };

    const p1 = await phase();
    expect(p1.ok).toBe(20);
    expect(p1.refused?.json.code).toBe('search_allowance_exhausted');
    // Retry-After points at 00:00 UTC by the process clock (about an hour away).
    expect(Number(p1.refused?.retryAfter)).toBeGreaterThan(3000);
    expect(Number(p1.refused?.retryAfter)).toBeLessThanOrEqual(3600);

    await jump(offsets[1]!);
    const p2 = await phase();
    expect(p2.ok, 'a new UTC day brings a new allowance').toBe(20);
    expect(Number(p2.refused?.retryAfter)).toBeGreaterThan(86_000);

    await jump(offsets[2]!);
    const p3 = await phase();
    expect(p3.ok, 'back on the first day: its allowance is still used up').toBe(0);
    expect(Number(p3.refused?.retryAfter)).toBeLessThanOrEqual(60);

    expectNo5xx(answers);
    const report = await settle(db, receiver, 60_000);
    expectInvariants(report, receiver);
    expect(report.posts).toBe(9);
    console.log(
      `RELIABILITY ${JSON.stringify({ scenario: 'clock jumps across 00:00 UTC', phases, posts: report.posts, deliveries: report.deliveries })}`,
    );
  }, 180_000);

  it('a full disk for the site build: rebuilds fail and are retried, served files stay whole, the site catches up once there is room', async () => {
    const db = await database('disk');
    // A real small file system: a 16 MiB tmpfs that the test fills up (we run as root, as CI does).
    const siteDir = mkdtempSync(join(tmpdir(), 'agentpress-fulldisk-'));
    const mounted = spawnSync('mount', ['-t', 'tmpfs', '-o', 'size=16m', 'tmpfs', siteDir], {
      encoding: 'utf8',
    });
    expect(mounted.status, `mount a tmpfs for the full-disk scenario (needs root): ${mounted.stderr}`).toBe(
      0,
    );
    try {
      const env = shared(db, {
        SITE_DIR: siteDir,
        SITE_REBUILD_DELAY_SECONDS: '1',
        MODERATOR_DECISION_SECONDS: '0.2',
      });
      const [serve, work] = await Promise.all([start('serve', env), start('work', env)]);
      const base = serve.url!;
      const acct = await fundedAccount(base);
      const answers: Answer[] = [];
      const built = (rel: string) => existsSync(join(siteDir, 'stories', rel));
      const publishedIds = async () => {
        const c = new pg.Client({ connectionString: db });
        await c.connect();
        try {
          return (await c.query<{ id: string }>("SELECT id FROM posts WHERE status = 'published'")).rows.map(
            (r) => r.id,
          );
        } finally {
          await c.end();
        }
      };

      // 1. Four stories published and built while there is room.
      await Promise.all(
        Array.from({ length: 4 }, () => postOnce(base, acct.key, answers, Date.now() + 30_000)),
      );
      const before = await waitFor(
        'four stories published and built',
        async () => {
          const ids = await publishedIds();
          return ids.length === 4 && ids.every((id) => built(`p/${id}.html`) && built(`p/${id}.json`))
            ? ids
            : undefined;
        },
        60_000,
        250,
      );

      // 2. Fill the disk to the last block.
      const filler = join(siteDir, 'filler');
      spawnSync('dd', ['if=/dev/zero', `of=${filler}`, 'bs=64k'], { encoding: 'utf8' });
      expect(statfsSync(siteDir).bavail, 'the disk is full').toBe(0);
      const failedBefore = await scalar(
        db,
        "SELECT coalesce(sum(retry_count), 0) AS n FROM pgboss.job WHERE name = 'site-rebuild'",
      );

      // 3. Load while full: six new stories, two of the first four deleted, reads throughout.
      const reads: Answer[] = [];
      const stopReads = readLoad(() => [base], [acct.key], reads);
      const posted = await Promise.all(
        Array.from({ length: 6 }, () => postOnce(base, acct.key, answers, Date.now() + 30_000)),
      );
      const newIds = posted.map((r) => r!.json.id as string);
      const deleted = before.slice(0, 2);
      for (const id of deleted) {
        const r = await call(base, 'DELETE', `/v1/posts/${id}`, { key: acct.key });
        answers.push(r);
        expect(r.status).toBe(204);
      }
      await waitFor(
        'the new stories published',
        async () => (await publishedIds()).filter((id) => newIds.includes(id)).length === newIds.length,
        60_000,
        250,
      );
      // Rebuilds fail with ENOSPC and are retried; wait for two failed attempts.
      const failed = await waitFor(
        'two failed site rebuilds',
        async () => {
          const n =
            (await scalar(
              db,
              "SELECT coalesce(sum(retry_count), 0) AS n FROM pgboss.job WHERE name = 'site-rebuild'",
            )) - failedBefore;
          return n >= 2 ? n : undefined;
        },
        90_000,
        250,
      );
      const lastError = await scalar(
        db,
        "SELECT count(*) AS n FROM pgboss.job WHERE name = 'site-rebuild' AND output::text LIKE '%ENOSPC%'",
      );
      expect(lastError, 'the failure recorded is ENOSPC').toBeGreaterThan(0);
      // While full: both processes alive, the API answers, every file in place is whole.
      expect(serve.child.exitCode).toBeNull();
      expect(work.child.exitCode).toBeNull();
      expect((await call(base, 'GET', '/healthz')).status).toBe(200);
      const whileFull = wholeFiles(join(siteDir, 'stories'));
      expect(whileFull.broken, 'no half-written file while the disk is full').toEqual([]);
      expect(whileFull.temps, 'no temporary file left behind').toEqual([]);
      for (const id of newIds) expect(built(`p/${id}.html`), 'not built while full').toBe(false);

      // 4. Make room: the next retry brings the site up to date.
      rmSync(filler);
      const freedAt = Date.now();
      await waitFor(
        'the site caught up after the disk was freed',
        async () => {
          const home = readFileSync(join(siteDir, 'stories', 'index.html'), 'utf8');
          return (
            newIds.every((id) => built(`p/${id}.html`) && built(`p/${id}.json`) && home.includes(id)) &&
            deleted.every((id) => !built(`p/${id}.html`) && !built(`p/${id}.json`) && !home.includes(id))
          );
        },
        120_000,
        250,
      );
      const caughtUpMs = Date.now() - freedAt;
      await stopReads();
      const after = wholeFiles(join(siteDir, 'stories'));
      expect(after.broken).toEqual([]);
      expect(after.temps).toEqual([]);

      answers.push(...reads);
      expectNo5xx(answers);
      const report = await settle(db, undefined, 60_000);
      expectInvariants(report);
      expect(report.posts).toBe(10);
      console.log(
        `RELIABILITY ${JSON.stringify({
          scenario: 'full disk for the site build',
          requests: answers.length,
          failedRebuildAttempts: failed,
          caughtUpSecondsAfterFreed: +(caughtUpMs / 1000).toFixed(1),
          filesChecked: after.files,
        })}`,
      );
    } finally {
      await Promise.all(running.splice(0).map((p) => stopRole(p, 'SIGKILL')));
      spawnSync('umount', [siteDir]);
      rmSync(siteDir, { recursive: true, force: true });
    }
  }, 300_000);
});
