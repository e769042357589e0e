import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ledgerSum } from '../../src/core/billing/ledger.js';
import { webhookDeliveries } from '../../src/db/schema.js';
import { expectProblem, fundedAccount, type TestAccount, wordsExactly } from '../helpers/flows.js';
import { ADMIN_TOKEN, startTestEnv, type TestEnv } from '../helpers/harness.js';
import { injected, KEY_INJECTION, story, storyWith } from '../helpers/stories.js';

describe('model lifecycle: "The model scales to zero when idle, and the next post starts it"', () => {
  let env: TestEnv;
  beforeAll(async () => {
    env = await startTestEnv({ env: { MODERATOR_START_SECONDS: '1200', MODERATOR_IDLE_SECONDS: '600' } });
  });
  afterAll(async () => env?.close());

  it('idle -> starting on the first post -> running -> idle after the idle timeout; estimates shrink as it warms', async () => {
    const status = async () => (await env.call('GET', '/v1/status')).json.moderation.model;
    expect(await status()).toBe('idle');
    const a = await fundedAccount(env, 1_000_000);
    const r = await env.call('POST', '/v1/posts', { key: a.key, body: { title: 'Cold', body: story() } });
    expect(r.json.moderation.state).toBe('starting');
    expect(r.json.moderation.retry_after_seconds).toBeGreaterThanOrEqual(1200);
    expect(
      Date.parse(r.json.moderation.estimated_decision_at) - env.clock.now().getTime(),
    ).toBeGreaterThanOrEqual(1200_000);
    expect(await status()).toBe('starting');

    // The worker does not hold a slot while the model starts: the job is deferred.
    expect(await env.platform.services.moderation.handle(r.json.id)).toBe('deferred');
    env.clock.advance(600_000);
    const mid = await env.call('GET', `/v1/posts/${r.json.id}`, { key: a.key });
    expect(mid.json.moderation.state).toBe('starting');
    expect(mid.json.moderation.retry_after_seconds).toBeLessThan(r.json.moderation.retry_after_seconds);
    expect(mid.json.moderation.retry_after_seconds).toBeGreaterThanOrEqual(600);

    env.clock.advance(600_000);
    expect(await status()).toBe('running');
    const warm = await env.call('GET', `/v1/posts/${r.json.id}`, { key: a.key });
    expect(warm.json.moderation.state).toBe('running');
    expect(warm.json.moderation.retry_after_seconds).toBeLessThan(60);

    // The sweep's safety net decides posts whose job was deferred or lost.
    expect(await env.platform.services.moderation.runDue()).toBe(1);
    expect((await env.call('GET', `/v1/posts/${r.json.id}`, { key: a.key })).json.status).toBe('published');

    env.clock.advance(600_000);
    expect(await status()).toBe('running');
    env.clock.advance(1_001);
    expect(await status()).toBe('idle');
    await env.platform.services.lifecycle.sweep(env.platform.database.db);
    const again = await env.call('POST', '/v1/posts', {
      key: a.key,
      body: { title: 'Cold again', body: story() },
    });
    expect(again.json.moderation.state).toBe('starting');
  });
});

describe('verdicts, people, strikes and reports', () => {
  let env: TestEnv;
  beforeAll(async () => {
    env = await startTestEnv({ env: { WEBHOOK_ALLOW_TARGETS: '127.0.0.1' } });
  });
  afterAll(async () => env?.close());

  const balance = async (a: TestAccount) =>
    (await env.call('GET', '/v1/account', { key: a.key })).json.balance;
  const moderate = () => env.platform.workers.drain('moderate');
  const admin = (method: string, path: string, body?: unknown) =>
    env.call(method, path, { key: ADMIN_TOKEN, body });

  it('good -> published, gibberish -> rejected low_quality and refunded, injection -> review; each emits its event', async () => {
    const a = await fundedAccount(env, 1_000_000);
    const good = await env.call('POST', '/v1/posts', { key: a.key, body: { title: 'Good', body: story() } });
    const bad = await env.call('POST', '/v1/posts', {
      key: a.key,
      body: { title: 'Bad', body: wordsExactly(300) },
    });
    const inj = await env.call('POST', '/v1/posts', { key: a.key, body: { title: 'Inj', body: injected() } });
    // An endpoint to see the events land in the outbox, in the verdict's transaction.
    const wh = await env.call('POST', '/v1/webhooks', {
      key: a.key,
      body: { url: 'http://127.0.0.1:9/none' },
    });
    expect(wh.status, wh.text).toBe(201);
    await moderate();
    const st = async (id: string) => (await env.call('GET', `/v1/posts/${id}`, { key: a.key })).json;
    expect((await st(good.json.id)).status).toBe('published');
    expect(await st(bad.json.id)).toMatchObject({
      status: 'rejected',
      rejection: { category: 'low_quality', refunded: true },
    });
    expect((await st(inj.json.id)).status).toBe('review');
    expect(await balance(a)).toBe(1_000_000 - 2 * 250_000);
    expect(await ledgerSum(env.platform.database.db, a.id)).toBe(await balance(a));
    const events = await env.platform.database.db
      .select()
      .from(webhookDeliveries)
      .where(eq(webhookDeliveries.endpointId, wh.json.id));
    expect(events.map((e) => e.eventType).sort()).toEqual(['post.published', 'post.rejected', 'post.review']);
  });

  it('a verdict is applied at most once even if the job runs twice', async () => {
    const a = await fundedAccount(env, 1_000_000);
    const bad = await env.call('POST', '/v1/posts', {
      key: a.key,
      body: { title: 'Bad', body: wordsExactly(300) },
    });
    const m = env.platform.services.moderation;
    const outcomes = await Promise.all([m.handle(bad.json.id), m.handle(bad.json.id), m.handle(bad.json.id)]);
    expect(outcomes.filter((o) => o === 'done').length).toBeGreaterThanOrEqual(1);
    await moderate();
    expect(await balance(a)).toBe(1_000_000);
    expect(await ledgerSum(env.platform.database.db, a.id)).toBe(1_000_000);
  });

  it('a person decides review through /v1/admin: publish, or reject with a category', async () => {
    const a = await fundedAccount(env, 1_000_000);
    const one = await env.call('POST', '/v1/posts', { key: a.key, body: { title: 'One', body: injected() } });
    const two = await env.call('POST', '/v1/posts', { key: a.key, body: { title: 'Two', body: injected() } });
    await moderate();
    const queue = await admin('GET', '/v1/admin/review');
    expect(queue.json.data.map((p: { id: string }) => p.id)).toEqual(
      expect.arrayContaining([one.json.id, two.json.id]),
    );
    const item = queue.json.data.find((p: { id: string }) => p.id === one.json.id);
    expect(item.prefilter.signals.length).toBeGreaterThan(0);
    expect(
      (
        await admin('POST', `/v1/admin/posts/${one.json.id}/decision`, {
          decision: 'publish',
          reason: 'fiction',
        })
      ).json.status,
    ).toBe('published');
    expect((await env.call('GET', `/v1/posts/${one.json.id}`)).status).toBe(200);
    expectProblem(
      await admin('POST', `/v1/admin/posts/${two.json.id}/decision`, {
        decision: 'reject',
        reason: 'no category',
      }),
      422,
      'validation_failed',
    );
    const rej = await admin('POST', `/v1/admin/posts/${two.json.id}/decision`, {
      decision: 'reject',
      category: 'low_quality',
      reason: 'thin',
    });
    expect(rej.json.rejection).toMatchObject({ category: 'low_quality', refunded: true });
    expectProblem(
      await admin('POST', `/v1/admin/posts/${two.json.id}/decision`, {
        decision: 'publish',
        reason: 'again',
      }),
      409,
      'invalid_state',
    );
    expectProblem(await env.call('GET', '/v1/admin/review'), 401, 'unauthorized');
    expectProblem(await env.call('GET', '/v1/admin/review', { key: a.key }), 401, 'unauthorized');
  });

  it('"An abusive post costs 10 times the post price. Three strikes ban the account."', async () => {
    const a = await fundedAccount(env, 5_000_000);
    const ids: string[] = [];
    for (let i = 0; i < 3; i++) {
      ids.push(
        (await env.call('POST', '/v1/posts', { key: a.key, body: { title: `Spam ${i}`, body: injected() } }))
          .json.id,
      );
    }
    await moderate();
    for (const [i, id] of ids.entries()) {
      const r = await admin('POST', `/v1/admin/posts/${id}/decision`, {
        decision: 'reject',
        category: 'agent_injection',
        reason: 'instructions aimed at AI readers',
      });
      expect(r.status, r.text).toBe(200);
      expect(r.json.rejection.refunded).toBe(false);
      const me = (await env.call('GET', '/v1/account', { key: a.key })).json;
      expect(me.strikes).toBe(i + 1);
      expect(me.status).toBe(i < 2 ? 'active' : 'banned');
    }
    // 5,000,000 - 3 posts x 250,000 fee - 3 fines x 2,250,000 = -2,500,000: the balance may go negative.
    expect(await balance(a)).toBe(5_000_000 - 3 * 2_500_000);
    expect(await ledgerSum(env.platform.database.db, a.id)).toBe(await balance(a));
    expectProblem(
      await env.call('POST', '/v1/posts', { key: a.key, body: { title: 'After', body: story() } }),
      403,
      'account_banned',
    );
  });

  it('a negative balance answers 402 to the next post', async () => {
    const a = await fundedAccount(env, 1_000_000);
    const id = (await env.call('POST', '/v1/posts', { key: a.key, body: { title: 'x', body: injected() } }))
      .json.id;
    await moderate();
    await admin('POST', `/v1/admin/posts/${id}/decision`, {
      decision: 'reject',
      category: 'spam',
      reason: 'spam',
    });
    expect(await balance(a)).toBe(-1_500_000);
    expectProblem(
      await env.call('POST', '/v1/posts', { key: a.key, body: { title: 'y', body: story() } }),
      402,
      'insufficient_balance',
    );
  });

  it('a person removes a published post: it leaves the public views and post.removed is emitted', async () => {
    const a = await fundedAccount(env, 1_000_000);
    const id = (
      await env.call('POST', '/v1/posts', { key: a.key, body: { title: 'Soon gone', body: story() } })
    ).json.id;
    await moderate();
    expect((await env.call('GET', `/v1/posts/${id}`)).status).toBe(200);
    const r = await admin('POST', `/v1/admin/posts/${id}/remove`, { reason: 'reported and upheld' });
    expect(r.json.status).toBe('removed');
    expectProblem(await env.call('GET', `/v1/posts/${id}`), 404, 'not_found');
    expect((await env.call('GET', `/v1/posts/${id}`, { key: a.key })).json.status).toBe('removed');
    expectProblem(
      await admin('POST', `/v1/admin/posts/${id}/remove`, { reason: 'twice' }),
      409,
      'invalid_state',
    );
  });

  it('reports: 20 per IP per UTC day; the 21st is 429 rate_limited without RateLimit or Retry-After; midnight resets', async () => {
    const a = await fundedAccount(env, 1_000_000);
    const id = (
      await env.call('POST', '/v1/posts', { key: a.key, body: { title: 'Reported', body: story() } })
    ).json.id;
    await moderate();
    const report = (ip: string) =>
      env.call('POST', '/v1/reports', { ip, body: { post_id: id, category: 'spam', detail: 'test' } });
    expectProblem(
      await env.call('POST', '/v1/reports', {
        ip: '203.0.113.7',
        body: { post_id: 'post_nope', category: 'spam' },
      }),
      404,
      'not_found',
    );
    expectProblem(
      await env.call('POST', '/v1/reports', {
        ip: '203.0.113.7',
        body: { post_id: id, category: 'nonsense' },
      }),
      422,
      'validation_failed',
    );
    for (let i = 1; i <= 20; i++) expect((await report('203.0.113.7')).status, `report ${i}`).toBe(202);
    const r21 = await report('203.0.113.7');
    expectProblem(r21, 429, 'rate_limited');
    expect(r21.headers['retry-after']).toBeUndefined();
    expect(r21.headers.ratelimit).toBeUndefined();
    expect(r21.headers['ratelimit-policy']).toBeUndefined();
    expect((await report('203.0.113.8')).status).toBe(202);
    const reports = await admin('GET', '/v1/admin/reports');
    expect(reports.json.data.filter((x: { post_id: string }) => x.post_id === id)).toHaveLength(21);
    const now = env.clock.now();
    env.clock.set(new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate() + 1)));
    expect((await report('203.0.113.7')).status).toBe(202);
  });

  it('concurrent reports never exceed the allowance', async () => {
    const a = await fundedAccount(env, 1_000_000);
    const id = (await env.call('POST', '/v1/posts', { key: a.key, body: { title: 'Busy', body: story() } }))
      .json.id;
    await moderate();
    const rs = await Promise.all(
      Array.from({ length: 30 }, () =>
        env.call('POST', '/v1/reports', { ip: '198.51.100.9', body: { post_id: id, category: 'spam' } }),
      ),
    );
    expect(rs.filter((r) => r.status === 202)).toHaveLength(20);
    expect(rs.filter((r) => r.status === 429)).toHaveLength(10);
  });
});

describe('near duplicates: "exact and near duplicates ... against the corpus and the author\'s own posts"', () => {
  let env: TestEnv;
  beforeAll(async () => {
    env = await startTestEnv();
  });
  afterAll(async () => env?.close());

  const moderate = () => env.platform.workers.drain('moderate');
  const post = (a: TestAccount, title: string, body: string) =>
    env.call('POST', '/v1/posts', { key: a.key, body: { title, body } });
  const read = async (a: TestAccount, id: string) =>
    (await env.call('GET', `/v1/posts/${id}`, { key: a.key })).json;
  /** The same story with every 25th word changed: a light edit that keeps it a copy. */
  const lightlyEdited = (text: string) =>
    text
      .split(' ')
      .map((w, i) => (i % 25 === 5 ? 'quietly' : w))
      .join(' ');

  it("rejects the author's own repost and another account's light edit as low_quality, refunded, naming the original", async () => {
    const a = await fundedAccount(env, 2_000_000);
    const b = await fundedAccount(env, 2_000_000);
    const text = story(260);
    const original = await post(a, 'The lantern', text);
    await moderate();
    expect((await read(a, original.json.id)).status).toBe('published');
    env.clock.advance(1000);

    const repost = await post(a, 'The lantern, again', text);
    const copy = await post(b, 'Not a copy', lightlyEdited(text));
    const fresh = await post(b, 'Something new', story(260));
    await moderate();

    for (const [acct, r] of [
      [a, repost],
      [b, copy],
    ] as const) {
      const p = await read(acct, r.json.id);
      expect(p.status).toBe('rejected');
      expect(p.rejection).toMatchObject({ category: 'low_quality', refunded: true });
      expect(p.rejection.reason).toContain(original.json.id);
    }
    expect((await read(b, fresh.json.id)).status).toBe('published');
    for (const acct of [a, b]) {
      const me = (await env.call('GET', '/v1/account', { key: acct.key })).json;
      expect(me.strikes).toBe(0);
      expect(await ledgerSum(env.platform.database.db, acct.id)).toBe(me.balance);
    }
    // a: one fee kept, one refunded; b: one fee kept, one refunded.
    expect((await env.call('GET', '/v1/account', { key: a.key })).json.balance).toBe(2_000_000 - 250_000);
    expect((await env.call('GET', '/v1/account', { key: b.key })).json.balance).toBe(2_000_000 - 250_000);
  });

  it('of two identical posts queued one millisecond apart, only the later is the duplicate', async () => {
    const a = await fundedAccount(env, 2_000_000);
    const text = story(200);
    const first = await post(a, 'Twin', text);
    env.clock.advance(1);
    const second = await post(a, 'Twin', text);
    await moderate();
    expect((await read(a, first.json.id)).status).toBe('published');
    expect((await read(a, second.json.id)).status).toBe('rejected');
  });

  it('a dry run reports the duplicate (signal quality.duplicate, hint reject_low_quality) and charges nothing', async () => {
    const a = await fundedAccount(env, 1_000_000);
    const text = story(200);
    await post(a, 'Once', text);
    const dry = await env.call('POST', '/v1/posts?dry_run=true', {
      key: a.key,
      body: { title: 'Twice', body: text },
    });
    expect(dry.status).toBe(200);
    expect(dry.json.prefilter.hint, JSON.stringify(dry.json)).toBe('reject_low_quality');
    expect(dry.json.prefilter.signals.map((s: { id: string }) => s.id)).toContain('quality.duplicate');
    const other = await env.call('POST', '/v1/posts?dry_run=true', {
      key: a.key,
      body: { title: 'New', body: story(200) },
    });
    expect(other.json.prefilter.signals.map((s: { id: string }) => s.id)).not.toContain('quality.duplicate');
    expect((await env.call('GET', '/v1/account', { key: a.key })).json.balance).toBe(1_000_000 - 250_000);
  });

  it('a rejected post does not count: the same text posted again meets the moderator anew', async () => {
    const a = await fundedAccount(env, 5_000_000);
    const text = storyWith(KEY_INJECTION, 200);
    const first = await post(a, 'Hidden', text);
    await moderate();
    expect((await read(a, first.json.id)).status).toBe('review');
    await env.call('POST', `/v1/admin/posts/${first.json.id}/decision`, {
      key: ADMIN_TOKEN,
      body: { decision: 'reject', category: 'agent_injection', reason: 'Instructions to AI readers.' },
    });
    env.clock.advance(1000);
    const again = await post(a, 'Hidden again', text);
    expect(again.status).toBe(202);
    await moderate();
    // Not refunded as a duplicate: it goes to a person again.
    expect((await read(a, again.json.id)).status).toBe('review');
  });
});
