import { existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer as createHttpServer, type Server as HttpServer } from 'node:http';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { eq, sql } from 'drizzle-orm';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.js';
import { ledgerSum } from '../../src/core/billing/ledger.js';
import {
  liveMembers,
  type ModelServerControl,
  ProcessModelServer,
  type ServerRef,
  type StartedServer,
} from '../../src/core/moderation/model-server.js';
import { ServerLifecycle, type ServerStored } from '../../src/core/moderation/server-lifecycle.js';
import { POLICY } from '../../src/core/policy/document.js';
import { type Database, queryRows } from '../../src/db/client.js';
import { posts } from '../../src/db/schema.js';
import { TestClock } from '../helpers/clock.js';
import { fundedAccount, type TestAccount } from '../helpers/flows.js';
import { openTestDatabase, startTestEnv, type TestEnv } from '../helpers/harness.js';
import { story } from '../helpers/stories.js';

/**
 * MODERATOR=openai: the lifecycle starts, probes and stops a real model server, and
 * GET /v1/status reports what the probe saw. The first two suites run a real child process
 * (test/helpers/model-server-fixture.mjs) in real time; the last one drives the controller
 * step by step with a test clock and a fake server (lease, timeouts, idle timer).
 */

const FIXTURE = resolve('test/helpers/model-server-fixture.mjs');

/** Real time for the real-process suites: the fixture's cold start and the idle timer are real. */
class WallClock extends TestClock {
  override now(): Date {
    return new Date();
  }
}

async function freePort(): Promise<number> {
  return new Promise((ok, fail) => {
    const srv = createServer();
    srv.once('error', fail);
    srv.listen(0, '127.0.0.1', () => {
      const address = srv.address();
      const port = typeof address === 'object' && address ? address.port : 0;
      srv.close(() => ok(port));
    });
  });
}

/** Alive: exists and is not a zombie. */
function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch {
    return false;
  }
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return !stat.slice(stat.lastIndexOf(')') + 2).startsWith('Z');
  } catch {
    return true;
  }
}

async function waitFor<T>(what: string, fn: () => Promise<T | undefined | false>, ms = 15_000): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    const v = await fn();
    if (v) return v;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

const pidsIn = (file: string) =>
  existsSync(file) ? readFileSync(file, 'utf8').split('\n').filter(Boolean).map(Number) : [];

function killAll(file: string): void {
  for (const pid of pidsIn(file)) {
    try {
      process.kill(pid, 'SIGKILL');
    } catch {
      // already gone
    }
  }
}

interface FixtureStats {
  pid: number;
  probes: number;
  completions: number;
  ready_at: number;
}

async function fixtureStats(port: number): Promise<FixtureStats | undefined> {
  try {
    const res = await fetch(`http://127.0.0.1:${port}/fixture/stats`, { signal: AbortSignal.timeout(1000) });
    return res.ok ? ((await res.json()) as FixtureStats) : undefined;
  } catch {
    return undefined;
  }
}

function realServerEnv(port: number, dir: string, extra: string[] = []): Record<string, string> {
  return {
    MODERATOR: 'openai',
    MODERATOR_URL: `http://127.0.0.1:${port}/v1`,
    MODERATOR_MODEL: 'fixture-model',
    MODERATOR_START_COMMAND: [
      'exec node',
      `'${FIXTURE}'`,
      `--port ${port}`,
      `--policy-version '${POLICY.version}'`,
      `--pid-log '${join(dir, 'pids')}'`,
      ...extra,
    ].join(' '),
    MODERATOR_START_SECONDS: '1',
    MODERATOR_IDLE_SECONDS: '1',
    MODERATOR_PROBE_SECONDS: '0.1',
    MODERATOR_START_RETRY_SECONDS: '0.2',
    MODERATOR_START_TIMEOUT_SECONDS: '20',
  };
}

describe('a real model server: started by the first post, probed, stopped when idle, started again', () => {
  let env: TestEnv;
  let port: number;
  let dir: string;
  beforeAll(async () => {
    port = await freePort();
    dir = mkdtempSync(join(tmpdir(), 'agentpress-model-'));
    env = await startTestEnv({
      clock: new WallClock(),
      env: realServerEnv(port, dir, ['--ready-after 1000']),
    });
    await env.platform.startWorkers();
  });
  afterAll(async () => {
    await env?.close();
    if (dir) killAll(join(dir, 'pids'));
  });

  const status = async (): Promise<string> => (await env.call('GET', '/v1/status')).json.moderation.model;

  /** Posts one story and follows /v1/status until the post is decided; returns what it saw. */
  async function postAndFollow(a: TestAccount, title: string) {
    const r = await env.call('POST', '/v1/posts', { key: a.key, body: { title, body: story() } });
    expect(r.status, r.text).toBe(202);
    expect(r.json.moderation.state).toBe('starting');
    const seen: string[] = [];
    let stats: FixtureStats | undefined;
    await waitFor('running', async () => {
      const s = await status();
      if (seen.at(-1) !== s) seen.push(s);
      if (s !== 'running') return false;
      // Running only once the probe has answered: the fixture is up and has been probed.
      stats = await fixtureStats(port);
      return true;
    });
    expect(seen[0]).toBe('starting');
    expect(seen).not.toContain('idle');
    expect(stats?.probes).toBeGreaterThanOrEqual(1);
    expect(stats!.ready_at).toBeLessThanOrEqual(Date.now());
    const decided = await waitFor('the verdict', async () => {
      const p = await env.call('GET', `/v1/posts/${r.json.id}`, { key: a.key });
      return p.json.status !== 'queued' && p.json;
    });
    expect(decided.status).toBe('published');
    return { id: r.json.id as string, charged: r.json.charged as number, stats: stats! };
  }

  it('idle -> starting -> running (probe answered) -> decided -> idle (process gone) -> started again', async () => {
    expect(await status()).toBe('idle');
    const a = await fundedAccount(env, 5_000_000);

    const first = await postAndFollow(a, 'Cold start');
    const pid1 = first.stats.pid;
    expect(alive(pid1)).toBe(true);
    expect((await fixtureStats(port))?.completions).toBe(1);

    // The start was measured: the estimate now uses it, not the configured guess.
    const stored = await env.platform.services.lifecycle.server!.read(env.platform.database.db);
    expect(stored.starts).toBe(1);
    expect(stored.start_seconds).toBeGreaterThanOrEqual(0.9);
    expect(stored.decisions).toBe(1);

    // Idle for MODERATOR_IDLE_SECONDS: the controller stops it, and idle means stopped.
    await waitFor('idle', async () => (await status()) === 'idle', 10_000);
    expect(alive(pid1)).toBe(false);
    expect(await fixtureStats(port)).toBeUndefined();

    // The next post starts a new server.
    const second = await postAndFollow(a, 'Cold again');
    expect(second.stats.pid).not.toBe(pid1);
    expect((await fixtureStats(port))?.completions).toBe(1);
    await waitFor('idle again', async () => (await status()) === 'idle', 10_000);
    expect(alive(second.stats.pid)).toBe(false);

    const balance = (await env.call('GET', '/v1/account', { key: a.key })).json.balance;
    expect(balance).toBe(5_000_000 - first.charged - second.charged);
    expect(await ledgerSum(env.platform.database.db, a.id)).toBe(balance);
    expect(pidsIn(join(dir, 'pids'))).toHaveLength(2);
  });
});

describe('a start that fails, or never gets ready, is retried; the post waits queued and is decided once', () => {
  let env: TestEnv;
  let port: number;
  let dir: string;
  let mode: string;
  beforeAll(async () => {
    port = await freePort();
    dir = mkdtempSync(join(tmpdir(), 'agentpress-model-'));
    mode = join(dir, 'mode');
    writeFileSync(mode, 'fail');
    env = await startTestEnv({
      clock: new WallClock(),
      env: {
        ...realServerEnv(port, dir, ['--ready-after 300', `--mode-file '${mode}'`]),
        MODERATOR_START_TIMEOUT_SECONDS: '1',
      },
    });
    await env.platform.startWorkers();
  });
  afterAll(async () => {
    await env?.close();
    if (dir) killAll(join(dir, 'pids'));
  });

  it('exit 1 -> retried, hung -> ended and retried, fixed -> running; one verdict, one charge', async () => {
    const db = env.platform.database.db;
    const server = env.platform.services.lifecycle.server!;
    const a = await fundedAccount(env, 5_000_000);
    const r = await env.call('POST', '/v1/posts', { key: a.key, body: { title: 'Patience', body: story() } });
    expect(r.status, r.text).toBe(202);
    const charged = r.json.charged as number;

    const statuses = new Set<string>();
    const watch = async (s: ServerStored) => {
      statuses.add((await env.call('GET', '/v1/status')).json.moderation.model);
      const p = await env.call('GET', `/v1/posts/${r.json.id}`, { key: a.key });
      expect(p.json.status).toBe('queued');
      expect(p.json.moderation.state).toBe('starting');
      return s;
    };

    // The command exits 1: each attempt fails, is retried, and the post waits.
    const failed = await waitFor('two failed attempts', async () => {
      const s = await watch(await server.read(db));
      return s.attempt >= 2 && s.started_at === null && s.last_error?.includes('exited with code 1') && s;
    });
    expect(failed.state).toBe('starting');

    // Now the command starts a server that never answers: it is ended at the timeout and retried.
    writeFileSync(mode, 'hang');
    const before = pidsIn(join(dir, 'pids')).length;
    await waitFor('a start that timed out', async () => {
      const s = await watch(await server.read(db));
      return pidsIn(join(dir, 'pids')).length > before && s.last_error?.includes('did not answer') && s;
    });
    const hung = pidsIn(join(dir, 'pids')).at(-1)!;
    await waitFor('the hung server ended', async () => !alive(hung), 5000);
    expect([...statuses]).toEqual(['starting']);

    // Fixed: the next retry starts a server that gets ready; the post is decided once.
    writeFileSync(mode, 'ok');
    const decided = await waitFor(
      'the verdict',
      async () => {
        const status = (await env.call('GET', '/v1/status')).json.moderation.model;
        if (status === 'running') expect(await fixtureStats(port)).toBeDefined();
        const p = await env.call('GET', `/v1/posts/${r.json.id}`, { key: a.key });
        return p.json.status !== 'queued' && p.json;
      },
      30_000,
    );
    expect(decided.status).toBe('published');
    expect((await fixtureStats(port))?.completions).toBe(1);
    const [row] = await db.select().from(posts).where(eq(posts.id, r.json.id));
    expect(row?.status).toBe('published');

    const balance = (await env.call('GET', '/v1/account', { key: a.key })).json.balance;
    expect(balance).toBe(5_000_000 - charged);
    expect(await ledgerSum(db, a.id)).toBe(balance);
  });
});

/** A model server the test switches by hand. */
class FakeServer implements ModelServerControl {
  starts = 0;
  stops = 0;
  aborts = 0;
  up = false;
  /** The next start is refused (a start URL that fails). */
  refuse: string | undefined;
  /** What the last start's process reports (a command that exits non-zero). */
  exitFailure: string | undefined;
  /** Holds stop() until released (a slow stop). */
  stopGate: Promise<void> | undefined;
  async start(): Promise<StartedServer> {
    this.starts++;
    if (this.refuse) throw new Error(this.refuse);
    this.exitFailure = undefined;
    return { failure: () => this.exitFailure };
  }
  async probe(): Promise<boolean> {
    return this.up;
  }
  canStop(_: ServerRef): boolean {
    return true;
  }
  async stop(_: ServerRef): Promise<void> {
    this.stops++;
    await this.stopGate;
    this.up = false;
  }
  async abort(_: ServerRef): Promise<void> {
    this.aborts++;
  }
}

describe('the controller, step by step on a test clock', () => {
  let database: Database;
  let clock: TestClock;
  let fake: FakeServer;
  const opts = {
    startSeconds: 1200,
    idleSeconds: 600,
    startTimeoutSeconds: 1800,
    retrySeconds: 30,
    probeSeconds: 2,
    leaseSeconds: 20,
    probeFailures: 2,
  };
  const controller = (owner: string) => new ServerLifecycle(database.db, clock, fake, { ...opts, owner });
  let a: ServerLifecycle;
  let b: ServerLifecycle;

  beforeAll(async () => {
    database = await openTestDatabase();
  });
  afterAll(async () => database?.close());
  afterEach(async () => {
    // Each test starts from idle with no lease.
    await database.db.execute(sql`delete from service_state where name like 'moderation_server%'`);
  });
  const fresh = () => {
    clock = new TestClock();
    fake = new FakeServer();
    a = controller('a');
    b = controller('b');
  };
  /** Fresh controllers, and `a` has brought the server up: woken, started, probed once it answers. */
  const freshAndUp = async () => {
    fresh();
    await a.wake(database.db, 0);
    await a.tick();
    fake.up = true;
    await a.tick();
  };

  const leaseOwner = async () =>
    (
      await queryRows<{ owner: string }>(
        database.db,
        sql`select value->>'owner' as owner from service_state where name = 'moderation_server_lease'`,
      )
    )[0]?.owner;

  it('one process starts it (the lease); running only once the probe answers; start time is measured', async () => {
    fresh();
    const db = database.db;
    expect(await a.state(db)).toBe('idle');
    const e = await a.wake(db, 0);
    expect(e.state).toBe('starting');
    expect(e.retry_after_seconds).toBeGreaterThanOrEqual(1200);
    expect(await b.state(db)).toBe('starting');

    await Promise.all([a.tick(), b.tick(), a.tick(), b.tick()]);
    await Promise.all([b.tick(), a.tick()]);
    expect(fake.starts).toBe(1);
    expect(await a.state(db)).toBe('starting');
    const [holder, other] = (await leaseOwner()) === 'a' ? [a, b] : [b, a];

    clock.advance(10_000);
    await holder.tick();
    expect(await a.state(db)).toBe('starting');
    fake.up = true;
    // The probe answers, but only the lease holder acts on it.
    await other.tick();
    expect(await a.state(db)).toBe('starting');
    await holder.tick();
    expect(await a.state(db)).toBe('running');
    const s = await a.read(db);
    expect(s.starts).toBe(1);
    expect(s.start_seconds).toBe(10);
    expect(fake.starts).toBe(1);

    // Measured pace: the first decision replaces the seed, later ones average in.
    await a.recordDecision(db, 7);
    expect((await a.read(db)).seconds_per_post).toBe(7);
    await a.recordDecision(db, 2);
    expect((await a.read(db)).seconds_per_post).toBeCloseTo(6);
    expect((await a.estimate(db, 0)).state).toBe('running');
    expect(await a.readyIn(db)).toBe(0);

    // A controller that shuts down gives its lease up: the other takes over at once.
    const otherName = (await leaseOwner()) === 'a' ? 'b' : 'a';
    await holder.stopLoop();
    expect(await leaseOwner()).toBe('');
    await other.tick();
    expect(await leaseOwner()).toBe(otherName);
  });

  it('a lease holder that goes away is replaced once its lease expires; the idle timer stops the server', async () => {
    await freshAndUp();
    const db = database.db;
    expect(await a.state(db)).toBe('running');

    clock.advance(590_000);
    await a.tick(); // renews its lease (20 s), not idle yet
    // a is gone (no more ticks). Past the idle time b would stop it, but a's lease still holds.
    clock.advance(15_000);
    await b.tick();
    expect(fake.stops).toBe(0);
    expect(await b.state(db)).toBe('running');
    clock.advance(5_001);
    await b.tick();
    expect(fake.stops).toBe(1);
    expect(await b.state(db)).toBe('idle');
    expect((await b.read(db)).stopping).toBe(false);
  });

  it('no idle stop while it is used; a post during a stop makes it start again', async () => {
    await freshAndUp();
    const db = database.db;
    clock.advance(400_000);
    await a.wake(db, 0); // a post: the last use moves
    clock.advance(400_000);
    await a.tick();
    expect(fake.stops).toBe(0);
    clock.advance(201_000);

    let release = () => {};
    fake.stopGate = new Promise((r) => {
      release = r;
    });
    const stopping = a.tick();
    await waitFor('the stop to begin', async () => fake.stops === 1, 2000);
    // Being stopped, it still runs, and says so; but a job does not send it work.
    expect(await a.state(db)).toBe('running');
    expect(await a.readyIn(db)).toBeGreaterThan(0);
    // readyIn woke it: a start is wanted again.
    expect(await a.state(db)).toBe('starting');
    release();
    await stopping;
    expect(await a.state(db)).toBe('starting');
    await a.tick();
    expect(fake.starts).toBe(2);
  });

  it('failed starts (refused, exited, timed out) are retried with backoff; the state stays starting', async () => {
    fresh();
    const db = database.db;
    await a.wake(db, 0);
    fake.refuse = 'start URL answered HTTP 503';
    await a.tick();
    let s = await a.read(db);
    expect(s).toMatchObject({ state: 'starting', attempt: 1, started_at: null });
    expect(s.last_error).toContain('503');
    await a.tick();
    expect(fake.starts).toBe(1); // waits for the retry time
    // The estimate follows the retry: not before the next attempt plus a start.
    expect((await a.estimate(db, 0)).retry_after_seconds).toBeGreaterThanOrEqual(30 + 1200);

    clock.advance(30_000);
    fake.refuse = undefined;
    await a.tick();
    expect(fake.starts).toBe(2);
    fake.exitFailure = 'start command exited with code 1';
    await a.tick();
    s = await a.read(db);
    expect(s).toMatchObject({ state: 'starting', attempt: 2, started_at: null });
    expect(s.last_error).toContain('code 1');
    expect(fake.aborts).toBe(2);

    clock.advance(60_000); // doubled
    await a.tick();
    expect(fake.starts).toBe(3);
    clock.advance(1_800_000);
    await a.tick();
    s = await a.read(db);
    expect(s.last_error).toContain('did not answer within 1800 s');
    expect(await a.state(db)).toBe('starting');
    expect(fake.aborts).toBe(3);

    clock.advance(120_000);
    await a.wake(db, 0); // still wanted (here: a new post; in service, the queued ones)
    await a.tick();
    expect(fake.starts).toBe(4);
    fake.up = true;
    await a.tick();
    expect(await a.state(db)).toBe('running');
    // A failed attempt's time is not a measured start.
    expect((await a.read(db)).starts).toBe(1);
  });

  it('failing starts with nothing waiting any more give up: idle', async () => {
    fresh();
    const db = database.db;
    await a.wake(db, 0);
    fake.refuse = 'no';
    await a.tick();
    clock.advance(601_000);
    await a.tick();
    expect(await a.state(db)).toBe('idle');
    expect(fake.starts).toBe(1);
  });

  it('a running server that stops answering is started again when wanted, else idle', async () => {
    await freshAndUp();
    const db = database.db;
    fake.up = false;
    await a.tick();
    expect(await a.state(db)).toBe('running'); // one failed probe is not enough
    await a.tick();
    expect(await a.state(db)).toBe('starting');
    await a.tick();
    expect(fake.starts).toBe(2);
    fake.up = true;
    await a.tick();
    clock.advance(601_000);
    fake.up = false;
    await a.tick();
    await a.tick();
    expect(await a.state(db)).toBe('idle');
    expect(fake.starts).toBe(2);
  });
});

describe('ProcessModelServer: the HTTP and command actions', () => {
  let http: HttpServer;
  let base: string;
  const seen: string[] = [];
  let answer = 200;
  beforeAll(async () => {
    http = createHttpServer((req, res) => {
      seen.push(`${req.method} ${req.url} ${req.headers.authorization ?? '-'}`);
      res.writeHead(answer, { 'content-type': 'application/json' }).end('{}');
    });
    await new Promise<void>((ok) => http.listen(0, '127.0.0.1', ok));
    const address = http.address();
    base = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`;
  });
  afterAll(async () => new Promise<void>((ok) => http.close(() => ok())));

  it('POSTs the start and stop URLs (a failure rejects) and probes with the API key', async () => {
    const server = new ProcessModelServer({
      startUrl: `${base}/scale/up`,
      stopUrl: `${base}/scale/down`,
      healthUrl: `${base}/v1/models`,
      apiKey: 'sk-local',
    });
    const none = { pid: null, host: null };
    answer = 200;
    expect((await server.start()).failure()).toBeUndefined();
    expect(await server.probe()).toBe(true);
    expect(server.canStop(none)).toBe(true);
    await server.stop(none);
    answer = 503;
    await expect(server.start()).rejects.toThrow(/start URL answered HTTP 503/);
    expect(await server.probe()).toBe(false);
    await expect(server.stop(none)).rejects.toThrow(/stop URL answered HTTP 503/);
    expect(seen.slice(0, 3)).toEqual([
      'POST /scale/up -',
      'GET /v1/models Bearer sk-local',
      'POST /scale/down -',
    ]);
    expect(await new ProcessModelServer({ healthUrl: 'http://127.0.0.1:9/v1/models' }).probe()).toBe(false);
  });

  it('a start command that exits non-zero is a failure; a stop command must exit 0; nothing to stop without one', async () => {
    const server = new ProcessModelServer({
      startCommand: 'exit 3',
      stopCommand: 'test "$MODEL_SERVER_PGID" = 4242',
      healthUrl: `${base}/v1/models`,
    });
    const started = await server.start();
    expect(started.pid).toBeGreaterThan(1);
    await waitFor('the exit', async () => started.failure(), 5000);
    expect(started.failure()).toBe('start command exited with code 3');
    await server.stop({ pid: 4242, host: null });
    await expect(server.stop({ pid: 1234, host: null })).rejects.toThrow(/stop command exited with code 1/);

    const bare = new ProcessModelServer({ startUrl: `${base}/up`, healthUrl: `${base}/v1/models` });
    expect(bare.canStop({ pid: null, host: null })).toBe(false);
    await expect(bare.stop({ pid: null, host: null })).rejects.toThrow(/MODERATOR_STOP_COMMAND/);
  });

  it('stops what a command started by ending its process group (the shell and its children)', async () => {
    const server = new ProcessModelServer({ startCommand: 'sleep 60 & sleep 60; wait', healthUrl: base });
    const started = await server.start();
    const ref = { pid: started.pid ?? null, host: started.host ?? null };
    expect(server.canStop(ref)).toBe(true);
    expect(alive(started.pid!)).toBe(true);
    await server.stop(ref);
    expect(alive(started.pid!)).toBe(false);
    expect(liveMembers(started.pid!)).toBe(0);
    expect(started.failure()).toMatch(/ended by SIGTERM/);
  });
});

describe('settings', () => {
  it('one way to start and one to stop, and only with MODERATOR=openai', () => {
    const openai = { MODERATOR: 'openai', MODERATOR_URL: 'http://127.0.0.1:1/v1', MODERATOR_MODEL: 'm' };
    const c = loadConfig({ ...openai, MODERATOR_START_COMMAND: 'vllm serve m' });
    expect(c).toMatchObject({
      moderatorStartCommand: 'vllm serve m',
      moderatorStartTimeoutSeconds: 1800,
      moderatorStartRetrySeconds: 30,
      moderatorProbeSeconds: 2,
      moderatorHealthUrl: undefined,
    });
    expect(() =>
      loadConfig({ ...openai, MODERATOR_START_COMMAND: 'x', MODERATOR_START_URL: 'http://scaler/up' }),
    ).toThrow(/MODERATOR_START_COMMAND or MODERATOR_START_URL/);
    expect(() =>
      loadConfig({ ...openai, MODERATOR_STOP_COMMAND: 'x', MODERATOR_STOP_URL: 'http://scaler/down' }),
    ).toThrow(/not both/);
    expect(() => loadConfig({ MODERATOR_START_COMMAND: 'x' })).toThrow(/only with MODERATOR=openai/);
    expect(() => loadConfig({ ...openai, MODERATOR_HEALTH_URL: 'ftp://x' })).toThrow(/MODERATOR_HEALTH_URL/);
  });
});
