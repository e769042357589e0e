import { mkdtempSync, readFileSync } from 'node:fs';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import { type AddressInfo, connect, createServer as createTcpServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { eq } from 'drizzle-orm';
import { Webhook } from 'standardwebhooks';
import { afterAll, afterEach, beforeAll, describe, expect, inject, it, vi } from 'vitest';
import type { Resolver } from '../../src/core/webhooks/url-policy.js';
import { type Database, migrate, openDatabase } from '../../src/db/client.js';
import { webhookDeliveries, webhookEndpoints } from '../../src/db/schema.js';
import { WebhookContract } from '../helpers/asyncapi.js';
import { TestClock } from '../helpers/clock.js';
import { expectProblem, fundedAccount, newAccount, wordsExactly } from '../helpers/flows.js';
import { openTestDatabase, startTestEnv, type TestEnv } from '../helpers/harness.js';
import { NON_PUBLIC_URLS } from '../helpers/ssrf.js';
import { story } from '../helpers/stories.js';

const POST_EVENTS = ['post.published', 'post.rejected', 'post.review', 'post.removed', 'post.appeal_decided'];

// ---------------------------------------------------------------------------------------------
// A local receiver: verifies every request with the official standardwebhooks library, dedupes
// on webhook-id, and answers what the test tells it to.
// ---------------------------------------------------------------------------------------------

interface Hit {
  id: string;
  timestamp: number;
  signature: string;
  body: string;
  headers: IncomingHttpHeaders;
  verified: boolean;
  error?: string;
  /** Where the delivery breaks /asyncapi.json (payload schema of its kind, Standard Webhooks headers). */
  contract: string[];
}

/** Built from /asyncapi.json as the app serves it; every receiver checks every delivery with it. */
let webhookContract: WebhookContract | undefined;

interface Answer {
  status: number;
  headers?: Record<string, string>;
}

type Responder = (n: number, hit: Hit) => Answer | Promise<Answer>;

/**
 * The receiver lives in the same simulated time as the platform: standardwebhooks rejects a
 * timestamp more than five minutes from `Date.now()`, so `Date.now()` is pinned to the test clock
 * for the (synchronous) verify call and nothing else.
 */
function verifyAt(now: Date, secret: string, body: string, headers: IncomingHttpHeaders): unknown {
  const flat: Record<string, string> = {};
  for (const [k, v] of Object.entries(headers)) if (v !== undefined) flat[k] = String(v);
  const spy = vi.spyOn(Date, 'now').mockReturnValue(now.getTime());
  try {
    return new Webhook(secret).verify(body, flat);
  } finally {
    spy.mockRestore();
  }
}

class Receiver {
  readonly hits: Hit[] = [];
  /** Verified events, deduped on webhook-id (at-least-once delivery, exactly-once processing). */
  readonly events = new Map<string, { type: string; timestamp: string; data: Record<string, unknown> }>();
  secret = '';
  respond: Responder = () => ({ status: 200 });
  readonly #server: Server;
  #port = 0;

  constructor(private readonly now: () => Date) {
    this.#server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', async () => {
        const body = Buffer.concat(chunks).toString('utf8');
        const hit: Hit = {
          id: String(req.headers['webhook-id'] ?? ''),
          timestamp: Number(req.headers['webhook-timestamp']),
          signature: String(req.headers['webhook-signature'] ?? ''),
          body,
          headers: req.headers,
          verified: false,
          contract: webhookContract?.check(req.headers, body) ?? ['no /asyncapi.json contract loaded'],
        };
        try {
          const payload = verifyAt(this.now(), this.secret, body, req.headers) as {
            type: string;
            timestamp: string;
            data: Record<string, unknown>;
          };
          hit.verified = true;
          if (!this.events.has(hit.id)) this.events.set(hit.id, payload);
        } catch (e) {
          hit.error = String(e);
        }
        this.hits.push(hit);
        if (!hit.verified) {
          res.writeHead(400).end('bad signature');
          return;
        }
        const answer = await this.respond(this.hits.length - 1, hit);
        if (!res.destroyed) res.writeHead(answer.status, answer.headers ?? {}).end('ok');
      });
    });
  }

  async listen(port = 0, host = '127.0.0.1'): Promise<this> {
    await new Promise<void>((resolve, reject) => {
      this.#server.once('error', reject);
      this.#server.listen(port, host, () => resolve());
    });
    this.#port = (this.#server.address() as AddressInfo).port;
    return this;
  }

  get port(): number {
    return this.#port;
  }

  get url(): string {
    return `http://127.0.0.1:${this.#port}/hook`;
  }

  async close(): Promise<void> {
    if (!this.#server.listening) return;
    this.#server.closeAllConnections();
    await new Promise<void>((resolve) => this.#server.close(() => resolve()));
  }
}

function expectAllVerified(rx: Receiver) {
  expect(
    rx.hits.filter((h) => !h.verified).map((h) => h.error),
    'every delivery verifies with standardwebhooks',
  ).toEqual([]);
  expectContractKept(rx);
}

function expectContractKept(rx: Receiver) {
  expect(
    rx.hits.flatMap((h) => h.contract),
    'every delivery keeps /asyncapi.json',
  ).toEqual([]);
}

async function freePort(): Promise<number> {
  const s = createTcpServer();
  await new Promise<void>((resolve) => s.listen(0, '127.0.0.1', resolve));
  const { port } = s.address() as AddressInfo;
  await new Promise<void>((resolve) => s.close(() => resolve()));
  return port;
}

// ---------------------------------------------------------------------------------------------
// API helpers
// ---------------------------------------------------------------------------------------------

async function register(env: TestEnv, key: string, url: string, events?: string[]) {
  const r = await env.call('POST', '/v1/webhooks', { key, body: { url, ...(events ? { events } : {}) } });
  expect(r.status, r.text).toBe(201);
  return r.json as { id: string; url: string; events: string[]; secret: string; status: string };
}

async function postStory(env: TestEnv, key: string, body = story(), title = 'A morning'): Promise<string> {
  const r = await env.call('POST', '/v1/posts', { key, body: { title, body } });
  expect(r.status, r.text).toBe(202);
  return r.json.id;
}

interface DeliveryView {
  id: string;
  event_type: string;
  status: string;
  attempts: { at: string; status: number | null; latency_ms: number | null; error: string | null }[];
  next_attempt_at: string | null;
}

async function deliveries(env: TestEnv, key: string, endpointId: string): Promise<DeliveryView[]> {
  const r = await env.call('GET', `/v1/webhooks/${endpointId}/deliveries`, { key });
  expect(r.status, r.text).toBe(200);
  return r.json.data;
}

const ms = (iso: string | null) => new Date(iso ?? NaN).getTime();

// ---------------------------------------------------------------------------------------------
// The main environment: WEBHOOK_ALLOW_TARGETS=127.0.0.1 lets local receivers take deliveries.
// ---------------------------------------------------------------------------------------------

let env: TestEnv;
const receivers: Receiver[] = [];
const registered: { key: string; id: string }[] = [];

beforeAll(async () => {
  env = await startTestEnv({ env: { WEBHOOK_ALLOW_TARGETS: '127.0.0.1' }, webhookTimeoutMs: 1500 });
  webhookContract = new WebhookContract((await env.call('GET', '/asyncapi.json')).json);
});
afterAll(async () => {
  // The receivers above checked every delivery; make sure there were some to check.
  expect(webhookContract?.checked).toBeGreaterThan(10);
  expect(webhookContract?.mismatches).toBe(0);
  await env?.close();
});

/** Every test leaves nothing pending: its endpoints are deleted (cancelling retries), its receivers closed. */
afterEach(async () => {
  for (const { key, id } of registered.splice(0)) await env.call('DELETE', `/v1/webhooks/${id}`, { key });
  for (const rx of receivers.splice(0)) {
    await rx.close();
    expectContractKept(rx);
  }
});

async function receiver(): Promise<Receiver> {
  const rx = await new Receiver(() => env.clock.now()).listen();
  receivers.push(rx);
  return rx;
}

/** Registers `rx` for the account, remembering the secret for its verification. */
async function subscribe(key: string, rx: Receiver, events?: string[]) {
  const ep = await register(env, key, rx.url, events);
  registered.push({ key, id: ep.id });
  rx.secret = ep.secret;
  return ep;
}

const drainDeliveries = () => env.platform.workers.drain('deliver-webhook');
const runDue = () => env.platform.services.delivery.runDue();

describe('registering endpoints', () => {
  it('201 with id, url, events and a whsec_ secret of 32 random bytes; omitted events = all four post.* kinds', async () => {
    const a = await newAccount(env);
    const url = 'http://127.0.0.1:9/hook';
    const r = await env.call('POST', '/v1/webhooks', { key: a.key, body: { url } });
    expect(r.status, r.text).toBe(201);
    registered.push({ key: a.key, id: r.json.id });
    expect(r.json).toMatchObject({ url, status: 'active' });
    expect(typeof r.json.id).toBe('string');
    expect([...r.json.events].sort()).toEqual([...POST_EVENTS].sort());
    expect(r.json.secret).toMatch(/^whsec_[A-Za-z0-9+/]+={0,2}$/);
    const key = Buffer.from(r.json.secret.slice('whsec_'.length), 'base64');
    expect(key).toHaveLength(32);
    expect(key.toString('base64')).toBe(r.json.secret.slice('whsec_'.length));

    const other = await register(env, a.key, url, ['post.rejected']);
    registered.push({ key: a.key, id: other.id });
    expect(other.events).toEqual(['post.rejected']);
    expect(other.secret).not.toBe(r.json.secret);
  });

  it('GET /v1/webhooks never shows the secret, and the database holds it only sealed', async () => {
    const a = await newAccount(env);
    const ep = await register(env, a.key, 'http://127.0.0.1:9/hook');
    registered.push({ key: a.key, id: ep.id });
    const b64 = ep.secret.slice('whsec_'.length);
    const hex = Buffer.from(b64, 'base64').toString('hex');

    const list = await env.call('GET', '/v1/webhooks', { key: a.key });
    expect(list.status).toBe(200);
    expect(list.json.data).toHaveLength(1);
    expect(list.json.data[0]).toMatchObject({ id: ep.id, url: ep.url, events: ep.events, status: 'active' });
    expect(list.json.data[0]).not.toHaveProperty('secret');
    expect(list.text).not.toContain(b64);
    expect(list.text).not.toContain('whsec_');

    const rows = await env.platform.database.db
      .select()
      .from(webhookEndpoints)
      .where(eq(webhookEndpoints.id, ep.id));
    expect(rows).toHaveLength(1);
    const stored = JSON.stringify(rows[0]);
    expect(stored).not.toContain(b64);
    expect(stored).not.toContain(hex);
    expect(stored).not.toContain('whsec_');
    expect(stored).not.toContain(Buffer.from(ep.secret).toString('base64'));
  });

  it('unknown event kinds are refused with 422', async () => {
    const a = await newAccount(env);
    for (const events of [['post.exploded'], ['post.published', 'account.deleted'], ['*']]) {
      const r = await env.call('POST', '/v1/webhooks', {
        key: a.key,
        body: { url: 'http://127.0.0.1:9/hook', events },
      });
      expectProblem(r, 422);
    }
    expect((await env.call('GET', '/v1/webhooks', { key: a.key })).json.data).toEqual([]);
  });

  it('5 endpoints are fine, the 6th is 409 too_many_webhooks, deleting one frees a slot', async () => {
    const a = await newAccount(env);
    const ids: string[] = [];
    for (let i = 0; i < 5; i++) {
      const ep = await register(env, a.key, `http://127.0.0.1:9/hook/${i}`);
      registered.push({ key: a.key, id: ep.id });
      ids.push(ep.id);
    }
    const sixth = await env.call('POST', '/v1/webhooks', {
      key: a.key,
      body: { url: 'http://127.0.0.1:9/hook/6' },
    });
    expectProblem(sixth, 409, 'too_many_webhooks');

    // Someone else's endpoint is not ours to delete, and does not free a slot.
    const b = await newAccount(env);
    expectProblem(await env.call('DELETE', `/v1/webhooks/${ids[0]}`, { key: b.key }), 404, 'not_found');

    const del = await env.call('DELETE', `/v1/webhooks/${ids[0]}`, { key: a.key });
    expect(del.status).toBe(204);
    const list = await env.call('GET', '/v1/webhooks', { key: a.key });
    expect(list.json.data.map((e: { id: string }) => e.id)).not.toContain(ids[0]);
    expect(list.json.data).toHaveLength(4);

    const again = await register(env, a.key, 'http://127.0.0.1:9/hook/again');
    registered.push({ key: a.key, id: again.id });
    expectProblem(
      await env.call('POST', '/v1/webhooks', { key: a.key, body: { url: 'http://127.0.0.1:9/x' } }),
      409,
      'too_many_webhooks',
    );
  });

  it('with WEBHOOK_ALLOW_TARGETS=127.0.0.1: http://127.0.0.1:PORT is accepted, [::1] and 10.0.0.1 are not', async () => {
    const a = await newAccount(env);
    const ok = await register(env, a.key, 'http://127.0.0.1:8123/hook');
    registered.push({ key: a.key, id: ok.id });
    for (const url of ['http://[::1]:8123/hook', 'http://10.0.0.1:8123/hook']) {
      const r = await env.call('POST', '/v1/webhooks', { key: a.key, body: { url } });
      const p = expectProblem(r, 422, 'invalid_webhook_url');
      expect(p.errors?.[0]?.pointer).toBe('/url');
    }
  });
});

describe('deliveries to a local receiver', () => {
  it('a good story reaches the endpoint as a signed post.published {type, timestamp, data: {post, revision}}', async () => {
    const a = await fundedAccount(env);
    const rx = await receiver();
    const ep = await subscribe(a.key, rx);
    // Non-ASCII text: the signature covers the UTF-8 bytes the receiver reads.
    const postId = await postStory(env, a.key, story(), 'Café naïve — the ☕ morning');
    await env.platform.workers.drain('moderate');
    expect((await env.call('GET', `/v1/posts/${postId}`)).status).toBe(200);
    const sentAt = env.clock.now();
    await drainDeliveries();

    expect(rx.hits).toHaveLength(1);
    expectAllVerified(rx);
    const hit = rx.hits[0]!;
    expect(hit.timestamp).toBe(Math.floor(sentAt.getTime() / 1000));
    expect(hit.signature).toMatch(/^v1,[A-Za-z0-9+/]+=*$/);
    expect(String(hit.headers['content-type'])).toMatch(/^application\/json/);
    const body = JSON.parse(hit.body);
    expect(Object.keys(body).sort()).toEqual(['data', 'timestamp', 'type']);
    expect(body.type).toBe('post.published');
    expect(new Date(body.timestamp).toISOString()).toBe(body.timestamp);
    expect(Object.keys(body.data)).toEqual(['post', 'revision']);
    expect(body.data.revision).toEqual({ number: 1, status: 'published' });
    expect(body.data.post.id).toBe(postId);
    expect(body.data.post.content_trust).toBe('untrusted-user-content');
    expect(body.data.post.title).toBe('Café naïve — the ☕ morning');
    expect(rx.events.get(hit.id)).toEqual(body);

    const [d] = await deliveries(env, a.key, ep.id);
    expect(d).toMatchObject({ id: hit.id, event_type: 'post.published', status: 'succeeded' });
    expect(d!.attempts.map((x) => x.status)).toEqual([200]);

    // Nothing more arrives later.
    env.clock.advance(24 * 3600_000);
    await runDue();
    await drainDeliveries();
    expect(rx.hits).toHaveLength(1);
  });

  it('the event filter: an endpoint for post.rejected only gets the rejection, not the publication', async () => {
    const a = await fundedAccount(env);
    const onlyRejected = await receiver();
    const everything = await receiver();
    await subscribe(a.key, onlyRejected, ['post.rejected']);
    await subscribe(a.key, everything);
    const good = await postStory(env, a.key);
    const bad = await postStory(env, a.key, wordsExactly(200));
    await env.platform.workers.drain('moderate');
    await drainDeliveries();

    expectAllVerified(onlyRejected);
    expectAllVerified(everything);
    const rejected = [...onlyRejected.events.values()];
    expect(rejected.map((e) => e.type)).toEqual(['post.rejected']);
    expect((rejected[0]!.data.post as { id: string }).id).toBe(bad);
    const all = [...everything.events.values()].map((e) => [e.type, (e.data.post as { id: string }).id]);
    expect(all.sort()).toEqual([
      ['post.published', good],
      ['post.rejected', bad],
    ]);
  });

  it('fails twice (500) then succeeds: three attempts, one webhook-id, fresh timestamps, 5 s then 5 min (±10%)', async () => {
    const a = await fundedAccount(env);
    const rx = await receiver();
    rx.respond = (n) => ({ status: n < 2 ? 500 : 200 });
    const ep = await subscribe(a.key, rx);
    await postStory(env, a.key);
    await env.platform.workers.drain('moderate');

    const t0 = env.clock.now().getTime();
    await drainDeliveries();
    expect(rx.hits).toHaveLength(1);
    let [d] = await deliveries(env, a.key, ep.id);
    expect(d!.status).toBe('pending');
    expect(ms(d!.attempts[0]!.at)).toBe(t0);
    const wait1 = ms(d!.next_attempt_at) - t0;
    expect(wait1).toBeGreaterThanOrEqual(4_500);
    expect(wait1).toBeLessThanOrEqual(5_500);

    // Less than the shortest possible delay: nothing.
    env.clock.advance(4_400);
    expect((await runDue()).retry + (await runDue()).succeeded).toBe(0);
    expect(rx.hits).toHaveLength(1);
    env.clock.advance(1_200);
    const t1 = env.clock.now().getTime();
    expect((await runDue()).retry).toBe(1);
    expect(rx.hits).toHaveLength(2);

    [d] = await deliveries(env, a.key, ep.id);
    const wait2 = ms(d!.next_attempt_at) - t1;
    expect(wait2).toBeGreaterThanOrEqual(270_000);
    expect(wait2).toBeLessThanOrEqual(330_000);
    env.clock.advance(269_000);
    await runDue();
    expect(rx.hits).toHaveLength(2);
    env.clock.advance(62_000);
    expect((await runDue()).succeeded).toBe(1);
    expect(rx.hits).toHaveLength(3);

    expectAllVerified(rx);
    const [h0, h1, h2] = rx.hits;
    expect(new Set(rx.hits.map((h) => h.id)).size).toBe(1);
    expect(h1!.timestamp).toBeGreaterThan(h0!.timestamp);
    expect(h2!.timestamp).toBeGreaterThan(h1!.timestamp);
    expect(new Set(rx.hits.map((h) => h.signature)).size).toBe(3);
    expect(h0!.body).toBe(h2!.body);
    expect(rx.events.size).toBe(1);

    [d] = await deliveries(env, a.key, ep.id);
    expect(d).toMatchObject({ id: h0!.id, status: 'succeeded', next_attempt_at: null });
    expect(d!.attempts.map((x) => x.status)).toEqual([500, 500, 200]);
    expect(d!.attempts.map((x) => Math.floor(ms(x.at) / 1000))).toEqual(rx.hits.map((h) => h.timestamp));

    env.clock.advance(24 * 3600_000);
    await runDue();
    expect(rx.hits).toHaveLength(3);
  });

  it('a receiver that always fails gets 8 attempts over about a day, then the delivery is failed', async () => {
    const a = await newAccount(env);
    const rx = await receiver();
    rx.respond = () => ({ status: 500 });
    const ep = await subscribe(a.key, rx);
    await env.call('POST', `/v1/webhooks/${ep.id}/test`, { key: a.key });
    const start = env.clock.now().getTime();
    await drainDeliveries();
    // 5 s, 5 min, 30 min, 2 h, 5 h, 10 h, 10 h: step past each (+10% jitter at most).
    for (const s of [5, 300, 1800, 7200, 18000, 36000, 36000]) {
      const before = rx.hits.length;
      env.clock.advance(Math.ceil(s * 1.1 * 1000) + 1000);
      await runDue();
      expect(rx.hits).toHaveLength(before + 1);
    }
    const [d] = await deliveries(env, a.key, ep.id);
    expect(d!.status).toBe('failed');
    expect(d!.attempts).toHaveLength(8);
    const span = ms(d!.attempts[7]!.at) - start;
    expect(span).toBeGreaterThan(20 * 3600_000);
    expect(span).toBeLessThan(36 * 3600_000);
    env.clock.advance(48 * 3600_000);
    await runDue();
    expect(rx.hits).toHaveLength(8);
    expectAllVerified(rx);
    expect(new Set(rx.hits.map((h) => h.id)).size).toBe(1);
  });

  it("honours the receiver's Retry-After, in seconds and as an HTTP date", async () => {
    const a = await fundedAccount(env);
    const rx = await receiver();
    rx.respond = (n) =>
      n === 0
        ? { status: 503, headers: { 'retry-after': '600' } }
        : n === 1
          ? {
              status: 429,
              headers: { 'retry-after': new Date(env.clock.now().getTime() + 900_000).toUTCString() },
            }
          : { status: 200 };
    const ep = await subscribe(a.key, rx);
    await postStory(env, a.key);
    await env.platform.workers.drain('moderate');
    await drainDeliveries();
    expect(rx.hits).toHaveLength(1);

    let [d] = await deliveries(env, a.key, ep.id);
    expect(ms(d!.next_attempt_at) - ms(d!.attempts[0]!.at)).toBe(600_000);
    env.clock.advance(599_000);
    await runDue();
    expect(rx.hits, 'not before 600 s').toHaveLength(1);
    env.clock.advance(2_000);
    await runDue();
    expect(rx.hits).toHaveLength(2);

    [d] = await deliveries(env, a.key, ep.id);
    const wait = ms(d!.next_attempt_at) - ms(d!.attempts[1]!.at);
    expect(wait).toBeGreaterThan(898_000);
    expect(wait).toBeLessThanOrEqual(900_000);
    env.clock.advance(897_000);
    await runDue();
    expect(rx.hits, 'not before the HTTP date').toHaveLength(2);
    env.clock.advance(4_000);
    await runDue();
    expect(rx.hits).toHaveLength(3);
    expectAllVerified(rx);
    [d] = await deliveries(env, a.key, ep.id);
    expect(d!.attempts.map((x) => x.status)).toEqual([503, 429, 200]);
    expect(d!.status).toBe('succeeded');
  });

  it('a redirect (302) is a failure and is not followed', async () => {
    const a = await fundedAccount(env);
    const target = await receiver();
    const rx = await receiver();
    rx.respond = () => ({ status: 302, headers: { location: target.url } });
    const ep = await subscribe(a.key, rx);
    target.secret = ep.secret;
    await postStory(env, a.key);
    await env.platform.workers.drain('moderate');
    await drainDeliveries();

    expect(rx.hits).toHaveLength(1);
    let [d] = await deliveries(env, a.key, ep.id);
    expect(d!.status).toBe('pending');
    expect(d!.attempts[0]).toMatchObject({ status: 302 });
    expect(d!.attempts[0]!.error).toMatch(/redirect/i);

    env.clock.advance(6_000);
    await runDue();
    expect(rx.hits).toHaveLength(2);
    expect(target.hits, 'the redirect target receives nothing').toHaveLength(0);
    [d] = await deliveries(env, a.key, ep.id);
    expect(d!.attempts.map((x) => x.status)).toEqual([302, 302]);
    expect(d!.status).toBe('pending');
  });

  it('410 Gone disables the endpoint and nothing more is delivered to it', async () => {
    const a = await fundedAccount(env);
    const rx = await receiver();
    rx.respond = () => ({ status: 410 });
    const ep = await subscribe(a.key, rx);
    await postStory(env, a.key);
    await postStory(env, a.key);
    await env.platform.workers.drain('moderate');
    await drainDeliveries();

    expect(rx.hits, 'the second queued delivery is dropped').toHaveLength(1);
    const list = await env.call('GET', '/v1/webhooks', { key: a.key });
    expect(list.json.data[0]).toMatchObject({ id: ep.id, status: 'disabled' });
    expect(list.json.data[0].disabled_reason).toMatch(/410/);
    const ds = await deliveries(env, a.key, ep.id);
    expect(ds.map((d) => d.status).sort()).toEqual(['cancelled', 'failed']);
    expect(ds.find((d) => d.status === 'failed')!.attempts.map((x) => x.status)).toEqual([410]);

    // A later post, a test delivery, a day of retries: nothing reaches it.
    await postStory(env, a.key);
    await env.platform.workers.drain('moderate');
    expectProblem(await env.call('POST', `/v1/webhooks/${ep.id}/test`, { key: a.key }), 409);
    await drainDeliveries();
    env.clock.advance(24 * 3600_000);
    await runDue();
    expect(rx.hits).toHaveLength(1);
    expect(await deliveries(env, a.key, ep.id)).toHaveLength(2);
  });

  it('deleting an endpoint cancels its queued retries', async () => {
    const a = await fundedAccount(env);
    const rx = await receiver();
    rx.respond = () => ({ status: 500 });
    const ep = await subscribe(a.key, rx);
    await postStory(env, a.key);
    await env.platform.workers.drain('moderate');
    await drainDeliveries();
    expect(rx.hits).toHaveLength(1);
    const [d] = await deliveries(env, a.key, ep.id);
    expect(d!.status).toBe('pending');
    expect(d!.next_attempt_at).not.toBeNull();

    expect((await env.call('DELETE', `/v1/webhooks/${ep.id}`, { key: a.key })).status).toBe(204);
    expectProblem(
      await env.call('GET', `/v1/webhooks/${ep.id}/deliveries`, { key: a.key }),
      404,
      'not_found',
    );
    env.clock.advance(10 * 60_000);
    await runDue();
    await drainDeliveries();
    expect(rx.hits).toHaveLength(1);
    const [row] = await env.platform.database.db
      .select()
      .from(webhookDeliveries)
      .where(eq(webhookDeliveries.id, d!.id));
    expect(row).toMatchObject({ status: 'cancelled', attempts: 1, nextAttemptAt: null });
  });

  it('POST /v1/webhooks/{id}/test queues a signed webhook.test (202) that the receiver verifies', async () => {
    const a = await newAccount(env);
    const rx = await receiver();
    const ep = await subscribe(a.key, rx);
    const r = await env.call('POST', `/v1/webhooks/${ep.id}/test`, { key: a.key });
    expect(r.status, r.text).toBe(202);
    expect(r.json).toEqual({ delivery_id: expect.any(String), status: 'queued' });
    const b = await newAccount(env);
    expectProblem(await env.call('POST', `/v1/webhooks/${ep.id}/test`, { key: b.key }), 404, 'not_found');

    await drainDeliveries();
    expect(rx.hits).toHaveLength(1);
    expectAllVerified(rx);
    expect(rx.hits[0]!.id).toBe(r.json.delivery_id);
    const event = rx.events.get(r.json.delivery_id)!;
    expect(event.type).toBe('webhook.test');
    expect(event.data).toMatchObject({ endpoint_id: ep.id });
    const [d] = await deliveries(env, a.key, ep.id);
    expect(d).toMatchObject({ id: r.json.delivery_id, event_type: 'webhook.test', status: 'succeeded' });
  });

  it('a receiver slower than the timeout is a failed attempt, retried later', async () => {
    const a = await newAccount(env);
    const rx = await receiver();
    rx.respond = () => new Promise<Answer>((resolve) => setTimeout(() => resolve({ status: 200 }), 4_000));
    const ep = await subscribe(a.key, rx);
    await env.call('POST', `/v1/webhooks/${ep.id}/test`, { key: a.key });
    const started = Date.now();
    await drainDeliveries();
    expect(Date.now() - started).toBeLessThan(3_500);
    expect(rx.hits).toHaveLength(1);
    const [d] = await deliveries(env, a.key, ep.id);
    expect(d!.status).toBe('pending');
    expect(d!.attempts[0]!.status).toBeNull();
    expect(d!.attempts[0]!.error).toMatch(/timeout|abort/i);
    expect(d!.attempts[0]!.latency_ms).toBeGreaterThanOrEqual(1_400);
  });
});

// ---------------------------------------------------------------------------------------------
// Restart: the delivery row and its schedule live in the database, not in the process.
// ---------------------------------------------------------------------------------------------

/** The same data opened again after a close: a PostgreSQL database, or a PGlite data directory. */
async function reopenableStore(): Promise<() => Promise<Database>> {
  if (process.env.DATABASE_URL) {
    const first = await openTestDatabase();
    const url = first.connectionString!;
    let opened = false;
    return async () => {
      if (!opened) {
        opened = true;
        return first;
      }
      return openDatabase({ databaseUrl: url, poolSize: 10 });
    };
  }
  // A PGlite data directory seeded from the migrated template (much faster than migrating an
  // empty cluster), reopened from disk on every later open.
  const dir = mkdtempSync(join(tmpdir(), 'agentpress-restart-'));
  let seed: Blob | undefined = new Blob([readFileSync(inject('templateSnapshot'))]);
  return async () => {
    const db = await openDatabase({ pgliteDir: dir, pgliteSnapshot: seed });
    seed = undefined;
    await migrate(db);
    return db;
  };
}

describe('a delivery survives a process restart', () => {
  it('receiver down, platform closed, a new platform on the same data delivers it once', async () => {
    // The secret key must survive the restart too (a real deployment keeps SECRET_KEY or DATA_DIR).
    const conf = { WEBHOOK_ALLOW_TARGETS: '127.0.0.1', SECRET_KEY: 'restart-test-secret-key-0123456789' };
    const open = await reopenableStore();
    const clock1 = new TestClock();
    let clock2: TestClock | undefined;
    const port = await freePort();
    const rx = new Receiver(() => (clock2 ?? clock1).now());
    let first: TestEnv | undefined = await startTestEnv({ env: conf, clock: clock1, database: await open() });
    let second: TestEnv | undefined;
    try {
      const a = await fundedAccount(first);
      const ep = await register(first, a.key, `http://127.0.0.1:${port}/hook`);
      rx.secret = ep.secret;
      await postStory(first, a.key);
      await first.platform.workers.drain('moderate');
      await first.platform.workers.drain('deliver-webhook');
      const [d1] = await deliveries(first, a.key, ep.id);
      expect(d1!.status).toBe('pending');
      expect(d1!.attempts).toHaveLength(1);
      expect(d1!.attempts[0]!.status).toBeNull();
      expect(d1!.attempts[0]!.error).toMatch(/ECONNREFUSED/);

      await first.close();
      first = undefined;
      await rx.listen(port);
      clock2 = new TestClock(clock1.now());
      second = await startTestEnv({ env: conf, clock: clock2, database: await open() });

      clock2.advance(6_000);
      expect((await second.platform.services.delivery.runDue()).succeeded).toBe(1);
      expect(rx.hits).toHaveLength(1);
      expectAllVerified(rx);
      expect(rx.hits[0]!.id).toBe(d1!.id);
      expect(rx.events.get(d1!.id)?.type).toBe('post.published');

      clock2.advance(24 * 3600_000);
      await second.platform.services.delivery.runDue();
      await second.platform.workers.drain('deliver-webhook');
      expect(rx.hits, 'delivered once').toHaveLength(1);
      const [d2] = await deliveries(second, a.key, ep.id);
      expect(d2).toMatchObject({ id: d1!.id, status: 'succeeded' });
      expect(d2!.attempts.map((x) => x.status)).toEqual([null, 200]);
    } finally {
      await first?.close();
      await second?.close();
      await rx.close();
    }
  });
});

// ---------------------------------------------------------------------------------------------
// SSRF: no allow list, a fake DNS the test controls.
// ---------------------------------------------------------------------------------------------

describe('SSRF with no allow list', () => {
  let ssrf: TestEnv;
  let rebindCalls = 0;
  const dns: Record<string, string[]> = {
    localhost: ['127.0.0.1'],
    'example.com': ['93.184.216.34'],
    'internal.example': ['10.1.2.3'],
  };
  const resolver: Resolver = async (host) => {
    if (host === 'rebind.example') return ++rebindCalls === 1 ? ['93.184.216.34'] : ['127.0.0.2'];
    const a = dns[host];
    if (!a) throw new Error(`ENOTFOUND ${host}`);
    return a;
  };

  beforeAll(async () => {
    ssrf = await startTestEnv({ resolver });
  });
  afterAll(async () => ssrf?.close());

  it.each([
    ...NON_PUBLIC_URLS,
    'https://169.254.169.254/',
    'http://example.com/',
    'https://example.com:8443/',
    'https://user:pass@example.com/',
    'http://127.0.0.1:8123/',
  ])('refuses %s with 422 invalid_webhook_url', async (url) => {
    const a = await newAccount(ssrf);
    const r = await ssrf.call('POST', '/v1/webhooks', { key: a.key, body: { url } });
    const p = expectProblem(r, 422, 'invalid_webhook_url');
    expect(p.errors?.[0]?.pointer).toBe('/url');
    expect((await ssrf.call('GET', '/v1/webhooks', { key: a.key })).json.data).toEqual([]);
  });

  it('accepts https://example.com/', async () => {
    const a = await newAccount(ssrf);
    const ep = await register(ssrf, a.key, 'https://example.com/');
    expect(ep.url).toBe('https://example.com/');
  });

  it('DNS rebinding: public at registration, loopback at delivery -> refused at connect, no connection made', async () => {
    // Where a connection would land if the connector dialled the second answer.
    let connections = 0;
    const trap = createTcpServer((s) => {
      connections++;
      s.destroy();
    });
    await new Promise<void>((resolve, reject) => {
      trap.once('error', reject);
      trap.listen(443, '127.0.0.2', () => resolve());
    });
    try {
      // The trap counts: prove it once, then reset.
      await new Promise<void>((resolve, reject) => {
        const c = connect(443, '127.0.0.2', () => {
          c.destroy();
          resolve();
        });
        c.once('error', reject);
      });
      await vi.waitFor(() => expect(connections).toBe(1));
      connections = 0;

      const a = await fundedAccount(ssrf);
      const ep = await register(ssrf, a.key, 'https://rebind.example/hook');
      expect(rebindCalls).toBe(1);
      await postStory(ssrf, a.key);
      await ssrf.platform.workers.drain('moderate');
      await ssrf.platform.workers.drain('deliver-webhook');

      expect(rebindCalls, 'the delivery resolved the name again').toBeGreaterThanOrEqual(2);
      const r = await ssrf.call('GET', `/v1/webhooks/${ep.id}/deliveries`, { key: a.key });
      const [d] = r.json.data as DeliveryView[];
      expect(d!.attempts).toHaveLength(1);
      expect(d!.attempts[0]!.status).toBeNull();
      expect(d!.attempts[0]!.error).toMatch(/non-public address/);
      expect(d!.status).toBe('pending');
      await new Promise((resolve) => setTimeout(resolve, 100));
      expect(connections, 'no connection reached 127.0.0.2').toBe(0);
    } finally {
      await new Promise<void>((resolve) => trap.close(() => resolve()));
    }
  });
});
