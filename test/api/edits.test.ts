import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PRICES } from '../../src/core/pricing.js';
import { ledger, postRevisions, webhookDeliveries } from '../../src/db/schema.js';
import {
  creditedAccount,
  expectProblem,
  fundedAccount,
  type TestAccount,
  uniq,
  wordsExactly,
} from '../helpers/flows.js';
import { ADMIN_TOKEN, startTestEnv, type TestEnv } from '../helpers/harness.js';
import { expectLedgerMatchesBalance } from '../helpers/money.js';
import { pendingRebuilds, runRebuilds } from '../helpers/site.js';
import { AD, EVENT, injected, SIBLING_SITES, story } from '../helpers/stories.js';

let env: TestEnv;
beforeAll(async () => {
  env = await startTestEnv({
    env: {
      SITES: SIBLING_SITES,
      WEBHOOK_ALLOW_TARGETS: '127.0.0.1',
    },
  });
});
afterAll(async () => env?.close());

const db = () => env.platform.database.db;
const moderate = () => env.platform.workers.drain('moderate');
const admin = (method: string, path: string, body?: unknown) =>
  env.call(method, path, { key: ADMIN_TOKEN, body });

async function balance(a: TestAccount): Promise<number> {
  return (await env.call('GET', '/v1/account', { key: a.key })).json.balance;
}
async function ledgerOk(a: TestAccount) {
  await expectLedgerMatchesBalance(db(), a.id, `ledger of ${a.id}`);
}

/** A story posted and published; answers its id. */
async function published(a: TestAccount, body: Record<string, unknown> = {}, host?: string): Promise<string> {
  const r = await env.call('POST', '/v1/posts', {
    key: a.key,
    // On a sibling site `body` is the whole creation body; on the stories site it overrides a story.
    body: host ? body : { title: `Story ${uniq()}`, body: story(), topics: ['sea'], ...body },
    ...(host ? { headers: { host } } : {}),
  });
  expect(r.status, r.text).toBe(202);
  await moderate();
  const got = await env.call('GET', `/v1/posts/${r.json.id}`, { key: a.key });
  expect(got.json.status, got.text).toBe('published');
  return r.json.id;
}

const edit = (
  a: TestAccount,
  id: string,
  body: unknown,
  o: { key?: string; host?: string; query?: string } = {},
) =>
  env.call('PATCH', `/v1/posts/${id}${o.query ?? ''}`, {
    key: a.key,
    body,
    headers: { ...(o.key ? { 'idempotency-key': o.key } : {}), ...(o.host ? { host: o.host } : {}) },
  });
const revisions = async (a: TestAccount, id: string) =>
  (await env.call('GET', `/v1/posts/${id}/revisions`, { key: a.key })).json.data as Array<
    Record<string, unknown>
  >;
const shape = (rs: Array<Record<string, unknown>>) => rs.map((r) => [r.revision, r.status, r.current]);

describe('PATCH /v1/posts/{id}: an edit of a published post', () => {
  it('is charged at once and queued; the published text stays until the verdict, then is replaced under the same id and URL', async () => {
    const a = await fundedAccount(env, 1_000_000);
    const id = await published(a, { title: 'The keeper', topics: ['sea'] });
    const before = (await env.call('GET', `/v1/posts/${id}`)).json;
    expect(before).toMatchObject({ revision: 1, updated_at: null });
    await runRebuilds(env);

    env.clock.advance(60_000);
    const r = await edit(a, id, { title: 'The keeper of the light', topics: ['harbour'] });
    expect(r.status, r.text).toBe(202);
    expect(r.json).toMatchObject({
      id,
      status: 'published',
      title: 'The keeper',
      revision: 1,
      edit: { revision: 2, status: 'queued', charged: PRICES.edit },
    });
    expect(['running', 'starting']).toContain(r.json.moderation.state);
    expect(r.headers['retry-after']).toBe(String(r.json.moderation.retry_after_seconds));
    expect(await balance(a)).toBe(1_000_000 - PRICES.post - PRICES.edit);
    await ledgerOk(a);

    // Until the verdict the public, the lists and the owner see revision 1.
    expect((await env.call('GET', `/v1/posts/${id}`)).json).toMatchObject({
      title: 'The keeper',
      revision: 1,
    });
    const listed = (await env.call('GET', '/v1/posts?topic=sea')).json.data.map((p: { id: string }) => p.id);
    expect(listed).toContain(id);
    expect(shape(await revisions(a, id))).toEqual([
      [1, 'published', true],
      [2, 'queued', false],
    ]);
    const queued = (await revisions(a, id))[1]!;
    expect(queued).toMatchObject({
      title: 'The keeper of the light',
      topics: ['harbour'],
      charged: PRICES.edit,
    });
    expect(queued.moderation).toBeDefined();
    expect(await env.platform.services.status.current()).toMatchObject({ moderation: { queued: 1 } });

    await moderate();
    const after = (await env.call('GET', `/v1/posts/${id}`)).json;
    expect(after).toMatchObject({
      id,
      title: 'The keeper of the light',
      topics: ['harbour'],
      revision: 2,
      url: before.url,
      json_url: before.json_url,
      published_at: before.published_at,
    });
    expect(after.updated_at).toBe(env.clock.now().toISOString());
    expect(shape(await revisions(a, id))).toEqual([
      [1, 'superseded', false],
      [2, 'published', true],
    ]);
    expect(
      (await env.call('GET', '/v1/posts?topic=sea')).json.data.map((p: { id: string }) => p.id),
    ).not.toContain(id);
    expect(
      (await env.call('GET', '/v1/posts?topic=harbour')).json.data.map((p: { id: string }) => p.id),
    ).toContain(id);

    // The same rebuild as a publication: the page, its twin, the lists, the old and the new topic.
    const paths = new Set((await pendingRebuilds(env)).flatMap((j) => j.data.paths));
    for (const p of [`/p/${id}`, `/p/${id}.json`, '/', '/index.json', '/feed.xml', '/t/sea', '/t/harbour'])
      expect(paths, p).toContain(p);
    await runRebuilds(env);
    const site = join(env.platform.config.siteDir, 'stories');
    expect(readFileSync(join(site, `p/${id}.html`), 'utf8')).toContain('The keeper of the light');
    expect(readFileSync(join(site, `p/${id}.json`), 'utf8')).toContain('The keeper of the light');
    expect(readFileSync(join(site, 'feed.xml'), 'utf8')).toContain('The keeper of the light');
    await ledgerOk(a);
  });

  it('the search index follows the published revision', async () => {
    const a = await fundedAccount(env, 1_000_000);
    const id = await published(a, { title: 'Zephyrquill harbour' });
    const search = async (q: string) =>
      (await env.call('GET', `/v1/search?q=${q}`, { key: a.key })).json.data.map((p: { id: string }) => p.id);
    expect(await search('zephyrquill')).toContain(id);
    expect((await edit(a, id, { title: 'Marrowvane harbour' })).status).toBe(202);
    expect(await search('marrowvane')).not.toContain(id);
    await moderate();
    expect(await search('marrowvane')).toContain(id);
    expect(await search('zephyrquill')).not.toContain(id);
  });

  it('takes any subset of the creation members, validated exactly like creation (limits at N and N+1)', async () => {
    const a = await fundedAccount(env, 5_000_000);
    const id = await published(a, { title: 'Limits' });
    const check = async (body: unknown, pointer: string) => {
      const r = await edit(a, id, body);
      expectProblem(r, 422, 'validation_failed');
      expect(r.json.errors.map((e: { pointer: string }) => e.pointer)).toContain(pointer);
    };
    await check({}, '');
    await check([], '');
    await check({ title: 'Limits' }, '');
    await check({ tilte: 'typo' }, '/tilte');
    await check({ body: wordsExactly(149) }, '/body');
    await check({ title: 'x'.repeat(201) }, '/title');
    await check({ topics: ['a', 'b', 'c', 'd', 'e', 'f'] }, '/topics');
    await check({ title: 'two\nlines' }, '/title');
    expect(await revisions(a, id)).toHaveLength(1);
    expect(await balance(a)).toBe(5_000_000 - PRICES.post);

    // N: a title of 200 characters and five topics pass.
    const ok = await edit(a, id, { title: 't'.repeat(200), topics: ['a', 'b', 'c', 'd', 'e'] });
    expect(ok.status, ok.text).toBe(202);
    await moderate();
    // N: 150 words pass validation (the model then judges the text; this one is refunded as low quality).
    const words = await edit(a, id, { body: wordsExactly(150) });
    expect(words.status, words.text).toBe(202);
    await moderate();
    await ledgerOk(a);
  });

  it('?dry_run=true validates, prices and runs the prefilter; nothing is charged or stored', async () => {
    const a = await fundedAccount(env, 1_000_000);
    const id = await published(a);
    const r = await edit(a, id, { title: 'Dry edit' }, { query: '?dry_run=true' });
    expect(r.status, r.text).toBe(200);
    expect(r.json).toMatchObject({
      dry_run: true,
      valid: true,
      price: PRICES.edit,
      balance_after: 1_000_000 - PRICES.post - PRICES.edit,
    });
    // Its own post is not a near duplicate of the edit.
    expect(r.json.prefilter.signals.map((s: { id: string }) => s.id)).not.toContain('quality.duplicate');
    expect(await balance(a)).toBe(1_000_000 - PRICES.post);
    expect(await revisions(a, id)).toHaveLength(1);
    expectProblem(await edit(a, id, { title: '' }, { query: '?dry_run=true' }), 422, 'validation_failed');
    await ledgerOk(a);
  });

  it('402 with account_url when the balance cannot pay the edit price (N passes, N-1 does not)', async () => {
    const exact = await creditedAccount(env, PRICES.post + PRICES.edit);
    const id = await published(exact);
    expect((await edit(exact, id, { title: 'Paid to the last micro-dollar' })).status).toBe(202);
    expect(await balance(exact)).toBe(0);
    await ledgerOk(exact);

    const short = await creditedAccount(env, PRICES.post + PRICES.edit - 1);
    const id2 = await published(short);
    const r = await edit(short, id2, { title: 'One short' });
    expectProblem(r, 402, 'insufficient_balance');
    expect(r.json.for_human).toBe(true);
    expect(r.json.account_url).toMatch(/\/account\?token=/);
    expectProblem(
      await edit(short, id2, { title: 'One short' }, { query: '?dry_run=true' }),
      402,
      'insufficient_balance',
    );
    expect(await balance(short)).toBe(PRICES.edit - 1);
    expect(await revisions(short, id2)).toHaveLength(1);
    await ledgerOk(short);
  });

  it('only published posts are edited: queued, review, rejected and deleted answer 409 invalid_state; others 404, no key 401', async () => {
    const a = await fundedAccount(env, 5_000_000);
    const other = await fundedAccount(env, 1_000_000);
    const queued = await env.call('POST', '/v1/posts', { key: a.key, body: { title: 'Q', body: story() } });
    const q = await edit(a, queued.json.id, { title: 'Q2' });
    expectProblem(q, 409, 'invalid_state');
    expect(q.json.detail).toMatch(/queued/);
    await moderate();

    const rev = await env.call('POST', '/v1/posts', { key: a.key, body: { title: 'R', body: injected() } });
    const rej = await env.call('POST', '/v1/posts', {
      key: a.key,
      body: { title: 'J', body: wordsExactly(300) },
    });
    await moderate();
    expect((await env.call('GET', `/v1/posts/${rev.json.id}`, { key: a.key })).json.status).toBe('review');
    expect((await env.call('GET', `/v1/posts/${rej.json.id}`, { key: a.key })).json.status).toBe('rejected');
    expectProblem(await edit(a, rev.json.id, { title: 'R2' }), 409, 'invalid_state');
    const j = await edit(a, rej.json.id, { body: story() });
    expectProblem(j, 409, 'invalid_state');
    expect(j.json.detail).toMatch(/new post/);

    const gone = await published(a);
    expect((await env.call('DELETE', `/v1/posts/${gone}`, { key: a.key })).status).toBe(204);
    expectProblem(await edit(a, gone, { title: 'Back' }), 409, 'invalid_state');

    const mine = await published(a);
    expectProblem(await edit(other, mine, { title: 'Not yours' }), 404, 'not_found');
    expectProblem(await env.call('GET', `/v1/posts/${mine}/revisions`, { key: other.key }), 404, 'not_found');
    expectProblem(await env.call('GET', `/v1/posts/${mine}/revisions`), 401, 'unauthorized');
    expectProblem(
      await env.call('PATCH', `/v1/posts/${mine}`, { body: { title: 'No key' } }),
      401,
      'unauthorized',
    );
    expectProblem(await edit(a, 'post_nope', { title: 'None' }), 404, 'not_found');
    for (const acct of [a, other]) await ledgerOk(acct);
    expect(await balance(other)).toBe(1_000_000);
  });
});

describe('one edit waits at a time', () => {
  it('a second edit while one is queued or with a person answers 409 edit_pending and charges nothing', async () => {
    const a = await fundedAccount(env, 5_000_000);
    const id = await published(a);
    expect((await edit(a, id, { title: 'First' })).status).toBe(202);
    const second = await edit(a, id, { title: 'Second' });
    expectProblem(second, 409, 'edit_pending');
    expect(second.json.pending_revision).toBe(2);
    expectProblem(await edit(a, id, { title: 'Second' }, { query: '?dry_run=true' }), 409, 'edit_pending');
    await moderate();
    // With a person: still waiting.
    expect((await edit(a, id, { body: injected() })).status).toBe(202);
    await moderate();
    expect(shape(await revisions(a, id)).at(-1)).toEqual([3, 'review', false]);
    expectProblem(await edit(a, id, { title: 'Third' }), 409, 'edit_pending');
    expect(await balance(a)).toBe(5_000_000 - PRICES.post - 2 * PRICES.edit);
    await ledgerOk(a);
  });

  it('two (and five) truly concurrent edits of one post: exactly one is accepted and charged, the others are edit_pending', async () => {
    for (const n of [2, 5]) {
      const a = await fundedAccount(env, 5_000_000);
      const id = await published(a);
      const replies = await Promise.all(
        Array.from({ length: n }, (_, i) => edit(a, id, { title: `Concurrent ${i}` })),
      );
      const statuses = replies.map((r) => r.status).sort();
      expect(statuses, replies.map((r) => r.text).join('\n')).toEqual([202, ...Array(n - 1).fill(409)]);
      for (const r of replies.filter((x) => x.status === 409)) expect(r.json.code).toBe('edit_pending');
      expect(await balance(a)).toBe(5_000_000 - PRICES.post - PRICES.edit);
      const rows = await db().select().from(postRevisions).where(eq(postRevisions.postId, id));
      expect(rows.map((r) => r.status).sort()).toEqual(['published', 'queued']);
      await ledgerOk(a);
      await moderate();
      const winner = replies.find((r) => r.status === 202)!;
      expect((await env.call('GET', `/v1/posts/${id}`)).json.title).toBe(
        `Concurrent ${replies.indexOf(winner)}`,
      );
    }
  });
});

describe('Idempotency-Key on PATCH', () => {
  it('same key and body replays the answer, charged once; same key and another body is idempotency_key_reused', async () => {
    const a = await fundedAccount(env, 1_000_000);
    const id = await published(a);
    const key = `edit-${uniq()}-key`;
    const first = await edit(a, id, { title: 'Once' }, { key });
    expect(first.status).toBe(202);
    const again = await edit(a, id, { title: 'Once' }, { key });
    expect(again.status).toBe(202);
    expect(again.headers['idempotent-replayed']).toBe('true');
    expect(again.text).toBe(first.text);
    const other = await edit(a, id, { title: 'Twice' }, { key });
    expectProblem(other, 422, 'idempotency_key_reused');
    // A key is one request: the same key on POST /v1/posts is another body.
    expectProblem(
      await env.call('POST', '/v1/posts', {
        key: a.key,
        body: { title: 'Once', body: story() },
        headers: { 'idempotency-key': key },
      }),
      422,
      'idempotency_key_reused',
    );
    expectProblem(await edit(a, id, { title: 'x' }, { key: 'short' }), 400, 'invalid_idempotency_key');
    expect(await balance(a)).toBe(1_000_000 - PRICES.post - PRICES.edit);
    expect(await revisions(a, id)).toHaveLength(2);
    await ledgerOk(a);
  });

  it('concurrent retries with one key are charged once', async () => {
    const a = await fundedAccount(env, 1_000_000);
    const id = await published(a);
    const key = `edit-${uniq()}-race`;
    const replies = await Promise.all(
      Array.from({ length: 4 }, () => edit(a, id, { title: 'Raced' }, { key })),
    );
    for (const r of replies) {
      expect([202, 409], r.text).toContain(r.status);
      if (r.status === 409) expect(r.json.code).toBe('idempotency_key_in_use');
    }
    expect(replies.filter((r) => r.status === 202).length).toBeGreaterThanOrEqual(1);
    expect(await balance(a)).toBe(1_000_000 - PRICES.post - PRICES.edit);
    await ledgerOk(a);
  });
});

describe('verdicts on edits: the same rules and money as posts', () => {
  it('a low-quality edit is rejected and refunded; the published revision stays; post.rejected carries the revision', async () => {
    const a = await fundedAccount(env, 1_000_000);
    const id = await published(a, { title: 'Stays up' });
    const wh = await env.call('POST', '/v1/webhooks', {
      key: a.key,
      body: { url: 'http://127.0.0.1:9/none' },
    });
    expect(wh.status, wh.text).toBe(201);
    expect((await edit(a, id, { body: wordsExactly(300) })).status).toBe(202);
    await moderate();
    const now = (await env.call('GET', `/v1/posts/${id}`)).json;
    expect(now).toMatchObject({ title: 'Stays up', revision: 1, updated_at: null });
    expect(now.body).not.toContain('word0');
    const rs = await revisions(a, id);
    expect(shape(rs)).toEqual([
      [1, 'published', true],
      [2, 'rejected', false],
    ]);
    expect(rs[1]!.rejection).toMatchObject({ category: 'low_quality', refunded: true });
    expect(await balance(a)).toBe(1_000_000 - PRICES.post);
    const rows = await db().select().from(ledger).where(eq(ledger.accountId, a.id)).orderBy(ledger.id);
    expect(rows.map((l) => [l.kind, l.amount])).toEqual([
      ['top_up', 1_000_000],
      ['post_fee', -PRICES.post],
      ['edit_fee', -PRICES.edit],
      ['refund', PRICES.edit],
    ]);
    await ledgerOk(a);
    const events = await db()
      .select()
      .from(webhookDeliveries)
      .where(eq(webhookDeliveries.endpointId, wh.json.id));
    expect(events.map((e) => e.eventType)).toEqual(['post.rejected']);
    const payload = JSON.parse(events[0]!.payload);
    expect(payload.data.post).toMatchObject({ id, status: 'published', revision: 1 });
    expect(payload.data.revision).toMatchObject({
      number: 2,
      status: 'rejected',
      rejection: { category: 'low_quality', refunded: true },
    });
  });

  it('a published edit announces post.published with revision 2', async () => {
    const a = await fundedAccount(env, 1_000_000);
    const id = await published(a);
    const wh = await env.call('POST', '/v1/webhooks', {
      key: a.key,
      body: { url: 'http://127.0.0.1:9/none', events: ['post.published'] },
    });
    expect(wh.status).toBe(201);
    expect((await edit(a, id, { title: 'Announced' })).status).toBe(202);
    await moderate();
    const [event] = await db()
      .select()
      .from(webhookDeliveries)
      .where(eq(webhookDeliveries.endpointId, wh.json.id));
    const payload = JSON.parse(event!.payload);
    expect(payload.type).toBe('post.published');
    expect(payload.data.post).toMatchObject({ id, title: 'Announced', revision: 2, status: 'published' });
    expect(payload.data.revision).toEqual({ number: 2, status: 'published' });
  });

  it('an edit sent to a person waits in the review queue; published by a person, it replaces the text', async () => {
    const a = await fundedAccount(env, 1_000_000);
    const id = await published(a, { title: 'Before review' });
    expect((await edit(a, id, { title: 'After review', body: injected() })).status).toBe(202);
    await moderate();
    expect((await env.call('GET', `/v1/posts/${id}`)).json.title).toBe('Before review');
    const queue = (await admin('GET', '/v1/admin/review')).json.data;
    const item = queue.find((p: { id: string }) => p.id === id);
    expect(item).toMatchObject({ edit: true, status: 'review', revision: 2, title: 'After review' });
    expect(item.prefilter.signals.length).toBeGreaterThan(0);
    // The console opens it as the post would read with the edit, and a claim can be taken on it.
    const opened = await admin('GET', `/v1/admin/review/${id}`);
    expect(opened.status, opened.text).toBe(200);
    expect(opened.json).toMatchObject({
      id,
      edit: true,
      status: 'review',
      revision: 2,
      title: 'After review',
    });
    expect((await admin('POST', `/v1/admin/review/${id}/claim`)).status).toBe(200);
    const r = await admin('POST', `/v1/admin/posts/${id}/decision`, {
      decision: 'publish',
      reason: 'fiction',
    });
    expect(r.status, r.text).toBe(200);
    expect(r.json).toMatchObject({ id, status: 'published', title: 'After review', revision: 2 });
    expect((await env.call('GET', `/v1/posts/${id}`)).json.title).toBe('After review');
    expect(await balance(a)).toBe(1_000_000 - PRICES.post - PRICES.edit);
    await ledgerOk(a);
  });

  it('an abusive edit is fined and struck like an abusive post: abuse_multiplier x the post price in all', async () => {
    const a = await fundedAccount(env, 5_000_000);
    const id = await published(a, { title: 'Clean first' });
    expect((await edit(a, id, { body: injected() })).status).toBe(202);
    await moderate();
    const r = await admin('POST', `/v1/admin/posts/${id}/decision`, {
      decision: 'reject',
      category: 'agent_injection',
      reason: 'instructions aimed at AI readers',
    });
    expect(r.status, r.text).toBe(200);
    expect(r.json).toMatchObject({ status: 'published', title: 'Clean first', revision: 1 });
    const me = (await env.call('GET', '/v1/account', { key: a.key })).json;
    expect(me.strikes).toBe(1);
    // The post fee, then the edit fee plus the fine: the abusive edit cost 10 x 250,000 in all.
    expect(me.balance).toBe(5_000_000 - PRICES.post - PRICES.post * PRICES.abuse_multiplier);
    const rs = await revisions(a, id);
    expect(rs[1]).toMatchObject({
      status: 'rejected',
      rejection: { category: 'agent_injection', refunded: false },
    });
    await ledgerOk(a);
    // A second decision finds nothing in review.
    expectProblem(
      await admin('POST', `/v1/admin/posts/${id}/decision`, { decision: 'publish', reason: 'again' }),
      409,
      'invalid_state',
    );
  });

  it('the near-duplicate check does not compare an edit with its own post, but does with the others', async () => {
    const a = await fundedAccount(env, 2_000_000);
    const b = await fundedAccount(env, 2_000_000);
    const text = story(260);
    const original = await published(a, { title: 'The lantern', body: text });
    env.clock.advance(1000);
    // Only the title changes: the body is the post's own, not a copy.
    expect((await edit(a, original, { title: 'The lantern, retitled' })).status).toBe(202);
    await moderate();
    expect((await env.call('GET', `/v1/posts/${original}`)).json).toMatchObject({
      title: 'The lantern, retitled',
      revision: 2,
    });
    // b edits its own story into a copy of a's: rejected as a duplicate of a's post, refunded.
    const theirs = await published(b, { title: 'Something else' });
    env.clock.advance(1000);
    expect((await edit(b, theirs, { body: text })).status).toBe(202);
    await moderate();
    const rs = await revisions(b, theirs);
    expect(rs.at(-1)).toMatchObject({
      status: 'rejected',
      rejection: { category: 'low_quality', refunded: true },
    });
    expect((rs.at(-1)!.rejection as { reason: string }).reason).toContain(original);
    for (const acct of [a, b]) await ledgerOk(acct);
  });

  it('DELETE (or a removal) while an edit waits cancels the edit: no refund, and its job does nothing', async () => {
    const a = await fundedAccount(env, 1_000_000);
    const id = await published(a);
    expect((await edit(a, id, { title: 'Never published' })).status).toBe(202);
    expect((await env.call('DELETE', `/v1/posts/${id}`, { key: a.key })).status).toBe(204);
    expect(shape(await revisions(a, id))).toEqual([
      [1, 'deleted', true],
      [2, 'cancelled', false],
    ]);
    expect(await env.platform.services.moderation.handle(id)).toBe('skipped');
    expect(await balance(a)).toBe(1_000_000 - PRICES.post - PRICES.edit);

    const id2 = await published(a);
    expect((await edit(a, id2, { title: 'Removed first' })).status).toBe(202);
    expect((await admin('POST', `/v1/admin/posts/${id2}/remove`, { reason: 'upheld report' })).status).toBe(
      200,
    );
    await moderate();
    expect(shape(await revisions(a, id2))).toEqual([
      [1, 'removed', true],
      [2, 'cancelled', false],
    ]);
    await ledgerOk(a);
  });
});

describe('generic over the site body', () => {
  it('a classified edits one member and keeps the others; an event is refused an end before its start', async () => {
    const a = await fundedAccount(env, 5_000_000);
    const adId = await published(a, AD, 'ads.test');
    const r = await edit(a, adId, { price: { amount: 95, currency: 'EUR' } }, { host: 'ads.test' });
    expect(r.status, r.text).toBe(202);
    await moderate();
    const got = (await env.call('GET', `/v1/posts/${adId}`, { headers: { host: 'ads.test' } })).json;
    expect(got).toMatchObject({
      title: AD.title,
      category: 'for-sale',
      condition: 'good',
      price: { amount: 95, currency: 'EUR' },
      location: AD.location,
      revision: 2,
    });
    expectProblem(
      await edit(a, adId, { category: 'spaceships' }, { host: 'ads.test' }),
      422,
      'validation_failed',
    );

    const evId = await published(a, EVENT, 'events.test');
    const bad = await edit(a, evId, { ends_at: '2026-12-05T16:00:00+01:00' }, { host: 'events.test' });
    expectProblem(bad, 422, 'validation_failed');
    expect(bad.json.errors.map((e: { pointer: string }) => e.pointer)).toEqual(['/ends_at']);
    expect(
      (await edit(a, evId, { title: 'Harbour lantern walk (moved)' }, { host: 'events.test' })).status,
    ).toBe(202);

    const msgId = await published(
      a,
      { text: 'Fog on the north pier this morning.', topics: [] },
      'messages.test',
    );
    const m = await edit(
      a,
      msgId,
      { text: 'Fog gone; see https://example.org/pier' },
      { host: 'messages.test' },
    );
    expect(m.status, m.text).toBe(202);
    // A message carrying a link pays the link surcharge on top of the edit price, as it would when posted.
    expect(m.json.edit.charged).toBe(PRICES.edit + PRICES.link_surcharge);
    await moderate();
    await ledgerOk(a);
  });
});

describe('contracts', () => {
  it('OpenAPI, AsyncAPI and rate-limits.json describe edits', async () => {
    const openapi = (await env.call('GET', '/openapi.json')).json;
    const patch = openapi.paths['/v1/posts/{id}'].patch;
    expect(patch.requestBody.content['application/json'].schema.oneOf).toHaveLength(4);
    expect(Object.keys(patch.responses)).toEqual(expect.arrayContaining(['200', '202', '402', '409', '422']));
    expect(openapi.paths['/v1/posts/{id}/revisions'].get).toBeDefined();
    const asyncapi = (await env.call('GET', '/asyncapi.json')).json;
    for (const m of ['post_published', 'post_rejected', 'post_review', 'post_removed'])
      expect(asyncapi.components.messages[m].payload.properties.data.required).toEqual(['post', 'revision']);
    const limits = (await env.call('GET', '/rate-limits.json')).json;
    expect(limits.limits.map((l: { operation: string }) => l.operation)).toEqual(
      expect.arrayContaining(['PATCH /v1/posts/{id}', 'PATCH /v1/posts/{id} Idempotency-Key']),
    );
    expect(limits.constants.edit_price).toBe(PRICES.edit);
    expect((await env.call('GET', '/errors/edit_pending')).status).toBe(200);
  });
});
