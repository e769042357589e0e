import { and, eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ledger, webhookDeliveries } from '../../src/db/schema.js';
import { tools } from '../../src/mcp/tools.js';
import { TestClock } from '../helpers/clock.js';
import {
  expectProblem,
  fundedAccount,
  newAccount,
  type TestAccount,
  wordsExactly,
} from '../helpers/flows.js';
import { ADMIN_TOKEN, startTestEnv, type TestEnv } from '../helpers/harness.js';
import { expectLedgerMatchesBalance } from '../helpers/money.js';
import { injected, story } from '../helpers/stories.js';

let env: TestEnv;
beforeAll(async () => {
  env = await startTestEnv({ env: { WEBHOOK_ALLOW_TARGETS: '127.0.0.1' } });
});
afterAll(async () => env?.close());

const db = () => env.platform.database.db;
const moderate = () => env.platform.workers.drain('moderate');
const admin = (method: string, path: string, body?: unknown) =>
  env.call(method, path, { key: ADMIN_TOKEN, ...(body === undefined ? {} : { body }) });
const own = async (a: TestAccount, id: string) =>
  (await env.call('GET', `/v1/posts/${id}`, { key: a.key })).json;
const account = async (a: TestAccount) => (await env.call('GET', '/v1/account', { key: a.key })).json;
const post = async (a: TestAccount, body: string, title = 'A title') => {
  const r = await env.call('POST', '/v1/posts', { key: a.key, body: { title, body } });
  expect(r.status, r.text).toBe(202);
  return r.json.id as string;
};
const appeal = (
  a: TestAccount,
  id: string,
  statement = 'It is fiction; nothing in it asks a reader to act.',
) => env.call('POST', `/v1/posts/${id}/appeal`, { key: a.key, body: { statement } });
/** A person's decision of an appeal (POST /v1/admin/appeals/{id}/decision). */
const decide = (appealId: string, decision: string, reason: string) =>
  admin('POST', `/v1/admin/appeals/${appealId}/decision`, { decision, reason });
const hook = async (a: TestAccount) => {
  const r = await env.call('POST', '/v1/webhooks', { key: a.key, body: { url: 'http://127.0.0.1:9/none' } });
  expect(r.status, r.text).toBe(201);
  return r.json.id as string;
};
const deliveries = async (endpointId: string) =>
  (await db().select().from(webhookDeliveries).where(eq(webhookDeliveries.endpointId, endpointId))).map(
    (d) => ({
      type: d.eventType,
      body: JSON.parse(d.payload),
    }),
  );
/** Posts sent to review by the rules, then rejected by a person in an abuse category (fine and strike each). */
const struckMany = async (a: TestAccount, n: number, category = 'agent_injection') => {
  const ids: string[] = [];
  for (let i = 0; i < n; i++) ids.push(await post(a, injected(), `Struck ${i}`));
  await moderate();
  for (const id of ids) {
    const r = await admin('POST', `/v1/admin/posts/${id}/decision`, {
      decision: 'reject',
      category,
      reason: 'Instructions aimed at AI readers.',
    });
    expect(r.status, r.text).toBe(200);
  }
  return ids;
};
const struck = async (a: TestAccount) => (await struckMany(a, 1))[0]!;

describe('statement of reasons: "on every rejection, removal and strike, and on review outcomes"', () => {
  it('a low-quality rejection by the rules: automated, refunded, appealable; the owner sees it, the webhook carries it, nobody else does', async () => {
    const a = await fundedAccount(env, 1_000_000);
    const endpoint = await hook(a);
    const id = await post(a, wordsExactly(300), 'Gibberish');
    await moderate();
    const p = await own(a, id);
    expect(p.status).toBe('rejected');
    const sor = p.statement_of_reasons;
    expect(sor).toMatchObject({
      puid: id,
      outcome: 'rejected',
      decision_visibility: ['DECISION_VISIBILITY_CONTENT_REMOVED'],
      decision_ground: 'DECISION_GROUND_INCOMPATIBLE_CONTENT',
      category: 'STATEMENT_CATEGORY_SCOPE_OF_PLATFORM_SERVICE',
      policy_category: 'low_quality',
      content_type: ['CONTENT_TYPE_TEXT'],
      automated_detection: 'Yes',
      automated_decision: 'AUTOMATED_DECISION_FULLY',
      source_type: 'SOURCE_VOLUNTARY',
      decided_by: 'rules',
      decision_monetary: null,
      fine: 0,
      fee_refunded: true,
      strike: false,
      account_banned: false,
      redress: {
        appeal: { available: true, endpoint: `POST /v1/posts/${id}/appeal`, mcp_tool: 'appeal_verdict' },
      },
    });
    expect(sor.id).toMatch(/^dec_/);
    expect(sor.policy.version).toMatch(/^\d{4}-\d{2}-\d{2}\.\d+$/);
    expect(sor.policy.rule_ids.length).toBeGreaterThan(0);
    expect(sor.policy.rule_ids.every((r: string) => r.startsWith('quality.'))).toBe(true);
    expect(sor.evidence.length).toBeGreaterThan(0);
    expect(sor.decision_facts).toBe(p.rejection.reason);
    expect(sor.application_date).toBe(env.clock.now().toISOString());
    expect(p.appeal).toBeUndefined();
    // The webhook payload carries the same statement.
    const events = await deliveries(endpoint);
    const rejected = events.find((e) => e.type === 'post.rejected');
    expect(rejected?.body.data.post.statement_of_reasons).toEqual(sor);
    // Not public, and another account's key sees nothing of a rejected post.
    expectProblem(await env.call('GET', `/v1/posts/${id}`), 404, 'not_found');
    const other = await newAccount(env);
    expectProblem(await env.call('GET', `/v1/posts/${id}`, { key: other.key }), 404, 'not_found');
  });

  it("review holds the post (automated), and a person's rejection carries the flagged evidence, the fine and the strike", async () => {
    const a = await fundedAccount(env, 5_000_000);
    const endpoint = await hook(a);
    const id = await post(a, injected());
    await moderate();
    const held = (await own(a, id)).statement_of_reasons;
    expect(held).toMatchObject({
      outcome: 'review',
      decision_visibility: ['DECISION_VISIBILITY_CONTENT_DISABLED'],
      decision_visibility_other: 'Held from publication until a person decides.',
      automated_decision: 'AUTOMATED_DECISION_FULLY',
      redress: { appeal: { available: false } },
    });
    expect(held.evidence.length).toBeGreaterThan(0);
    await admin('POST', `/v1/admin/posts/${id}/decision`, {
      decision: 'reject',
      category: 'agent_injection',
      reason: 'Instructions aimed at AI readers.',
    });
    const sor = (await own(a, id)).statement_of_reasons;
    expect(sor).toMatchObject({
      outcome: 'rejected',
      policy_category: 'agent_injection',
      decided_by: 'person',
      automated_detection: 'Yes',
      automated_decision: 'AUTOMATED_DECISION_NOT_AUTOMATED',
      decision_monetary: 'DECISION_MONETARY_OTHER',
      fine: 2_250_000,
      strike: true,
      account_banned: false,
      decision_facts: 'Instructions aimed at AI readers.',
    });
    expect(sor.id).not.toBe(held.id);
    expect(sor.evidence).toEqual(held.evidence);
    expect(sor.policy.rule_ids.every((r: string) => r.startsWith('agent_injection.'))).toBe(true);
    const events = await deliveries(endpoint);
    expect(events.find((e) => e.type === 'post.review')?.body.data.post.statement_of_reasons.id).toBe(
      held.id,
    );
    expect(events.find((e) => e.type === 'post.rejected')?.body.data.post.statement_of_reasons).toEqual(sor);
  });

  it('a person publishing a post in review gives a statement of that outcome (no restriction, nothing to appeal)', async () => {
    const a = await fundedAccount(env, 1_000_000);
    const id = await post(a, injected());
    await moderate();
    await admin('POST', `/v1/admin/posts/${id}/decision`, { decision: 'publish', reason: 'Fiction.' });
    expect((await own(a, id)).statement_of_reasons).toMatchObject({
      outcome: 'published',
      decision_visibility: [],
      decision_ground: null,
      decided_by: 'person',
      redress: { appeal: { available: false } },
    });
    expectProblem(await appeal(a, id), 409, 'invalid_state');
  });
});

describe('appeals: POST /v1/posts/{id}/appeal and the decision in /v1/admin', () => {
  it('only the owning account may appeal (another key: 404 as for its posts); one appeal per decision (409 appeal_exists); free', async () => {
    const a = await fundedAccount(env, 5_000_000);
    const id = await struck(a);
    const other = await fundedAccount(env, 1_000_000);
    expectProblem(await appeal(other, id), 404, 'not_found');
    expectProblem(
      await env.call('POST', `/v1/posts/${id}/appeal`, { body: { statement: 'x' } }),
      401,
      'unauthorized',
    );
    expectProblem(await appeal(a, 'post_nope'), 404, 'not_found');
    expectProblem(
      await env.call('POST', `/v1/posts/${id}/appeal`, { key: a.key, body: { statement: '  ' } }),
      422,
      'validation_failed',
    );
    const before = (await account(a)).balance;
    const r = await appeal(a, id);
    expect(r.status, r.text).toBe(202);
    const decisionId = (await own(a, id)).statement_of_reasons.id;
    expect(r.json).toMatchObject({
      post_id: id,
      decision_id: decisionId,
      status: 'pending',
      decided_at: null,
      reason: null,
    });
    expect((await account(a)).balance).toBe(before);
    expect((await own(a, id)).appeal).toEqual({
      id: r.json.id,
      decision_id: decisionId,
      status: 'pending',
      created_at: r.json.created_at,
      decided_at: null,
      reason: null,
    });
    const again = expectProblem(await appeal(a, id, 'Once more.'), 409, 'appeal_exists');
    expect(again.detail).toContain(r.json.id);
    await expectLedgerMatchesBalance(db(), a.id);
  });

  it('two concurrent appeals of one decision: one is filed, the other is 409 appeal_exists', async () => {
    const a = await fundedAccount(env, 5_000_000);
    const id = await struck(a);
    const rs = await Promise.all([appeal(a, id, 'first'), appeal(a, id, 'second'), appeal(a, id, 'third')]);
    expect(rs.map((r) => r.status).sort()).toEqual([202, 409, 409]);
    for (const r of rs.filter((x) => x.status === 409)) expectProblem(r, 409, 'appeal_exists');
  });

  it('nothing but a rejection or a removal can be appealed: a published, queued or held post is 409 invalid_state', async () => {
    const a = await fundedAccount(env, 1_000_000);
    const queued = await post(a, story());
    expectProblem(await appeal(a, queued), 409, 'invalid_state');
    const held = await post(a, injected());
    await moderate();
    expect((await own(a, queued)).status).toBe('published');
    expectProblem(await appeal(a, queued), 409, 'invalid_state');
    expect((await own(a, held)).status).toBe('review');
    expectProblem(await appeal(a, held), 409, 'invalid_state');
  });

  it('upheld: nothing changes; the owner reads {status, decided_at, reason}; post.appeal_decided is emitted; a second decision is 409', async () => {
    const a = await fundedAccount(env, 5_000_000);
    const endpoint = await hook(a);
    const id = await struck(a);
    const filed = (await appeal(a, id)).json;
    const queue = await admin('GET', '/v1/admin/appeals');
    const item = queue.json.data.find((x: { id: string }) => x.id === filed.id);
    expect(item).toMatchObject({
      status: 'pending',
      statement: 'It is fiction; nothing in it asks a reader to act.',
      account_id: a.id,
      post: { id, status: 'rejected', statement_of_reasons: { outcome: 'rejected', fine: 2_250_000 } },
    });
    expect(item.post.body).toContain('ignore all previous instructions');
    const before = await account(a);
    env.clock.advance(3_600_000);
    const r = await decide(filed.id, 'uphold', 'The postscript addresses AI readers.');
    expect(r.status, r.text).toBe(200);
    expect(r.json).toMatchObject({
      status: 'upheld',
      decided_by: 'admin-token',
      refunded: 0,
      strike_removed: false,
    });
    const after = await account(a);
    expect([after.balance, after.strikes, after.status]).toEqual([
      before.balance,
      before.strikes,
      before.status,
    ]);
    const p = await own(a, id);
    expect(p.status).toBe('rejected');
    expect(p.appeal).toMatchObject({
      status: 'upheld',
      decided_at: env.clock.now().toISOString(),
      reason: 'The postscript addresses AI readers.',
    });
    const decided = (await deliveries(endpoint)).filter((e) => e.type === 'post.appeal_decided');
    expect(decided).toHaveLength(1);
    expect(decided[0]!.body.data.appeal).toMatchObject({ id: filed.id, status: 'upheld' });
    expect(decided[0]!.body.data.post.id).toBe(id);
    expectProblem(await decide(filed.id, 'reverse', 'changed my mind'), 409, 'invalid_state');
    expectProblem(await decide('apl_nope', 'reverse', 'x'), 404, 'not_found');
    expectProblem(await appeal(a, id), 409, 'appeal_exists');
    expectProblem(await env.call('GET', '/v1/admin/appeals', { key: a.key }), 401, 'unauthorized');
    expect(
      (await admin('GET', '/v1/admin/appeals?status=upheld')).json.data.map((x: { id: string }) => x.id),
    ).toContain(filed.id);
    await expectLedgerMatchesBalance(db(), a.id);
  });

  it('reversed: the post is published, the fine refunded (a ledger row), the strike removed and the ban lifted below three strikes', async () => {
    const a = await fundedAccount(env, 5_000_000);
    const endpoint = await hook(a);
    const ids = await struckMany(a, 3);
    const banned = await account(a);
    expect([banned.strikes, banned.status, banned.balance]).toEqual([3, 'banned', 5_000_000 - 3 * 2_500_000]);
    expect((await own(a, ids[2]!)).statement_of_reasons).toMatchObject({
      account_banned: true,
      decision_account: 'DECISION_ACCOUNT_SUSPENDED',
    });
    // A banned account can still appeal: that is how a wrong ban is undone.
    const filed = (await appeal(a, ids[1]!)).json;
    const r = await decide(filed.id, 'reverse', 'The postscript is part of the story.');
    expect(r.status, r.text).toBe(200);
    expect(r.json).toMatchObject({
      status: 'reversed',
      refunded: 2_250_000,
      strike_removed: true,
      ban_lifted: true,
      decided_by: 'admin-token',
      post: { id: ids[1], status: 'published' },
    });
    const after = await account(a);
    expect([after.strikes, after.status, after.balance]).toEqual([
      2,
      'active',
      5_000_000 - 3 * 2_500_000 + 2_250_000,
    ]);
    const refund = await db()
      .select()
      .from(ledger)
      .where(and(eq(ledger.accountId, a.id), eq(ledger.reference, ids[1]!), eq(ledger.kind, 'refund')));
    expect(refund.map((x) => [x.amount, x.memo])).toEqual([[2_250_000, 'appeal_reversed']]);
    await expectLedgerMatchesBalance(db(), a.id);
    // Published: anyone reads it; the owner sees the appeal beside the original statement.
    expect((await env.call('GET', `/v1/posts/${ids[1]}`)).status).toBe(200);
    const p = await own(a, ids[1]!);
    expect(p.rejection).toBeUndefined();
    expect(p.appeal).toMatchObject({ status: 'reversed', reason: 'The postscript is part of the story.' });
    expect(p.statement_of_reasons.outcome).toBe('rejected');
    const types = (await deliveries(endpoint)).map((e) => e.type);
    expect(types.filter((t) => t === 'post.appeal_decided')).toHaveLength(1);
    expect(types.filter((t) => t === 'post.published')).toHaveLength(1);
    // No longer 403 account_banned: the balance (negative after two fines) is what stops a post now.
    expect(
      (await env.call('POST', '/v1/posts', { key: a.key, body: { title: 'Back', body: story() } })).status,
    ).toBe(402);
  });

  it('a ban stays when the strikes do not fall below three', async () => {
    const a = await fundedAccount(env, 10_000_000);
    const ids = await struckMany(a, 4);
    expect((await account(a)).strikes).toBe(4);
    const filed = (await appeal(a, ids[0]!)).json;
    const r = await decide(filed.id, 'reverse', 'wrong');
    expect(r.json).toMatchObject({ strike_removed: true, ban_lifted: false });
    expect(await account(a)).toMatchObject({ strikes: 3, status: 'banned' });
    await expectLedgerMatchesBalance(db(), a.id);
  });

  it('a low-quality rejection reversed: published, no money moves (the fee was refunded already)', async () => {
    const a = await fundedAccount(env, 1_000_000);
    const id = await post(a, wordsExactly(300));
    await moderate();
    const before = (await account(a)).balance;
    const filed = (await appeal(a, id)).json;
    const r = await decide(filed.id, 'reverse', 'A poem.');
    expect(r.json).toMatchObject({ refunded: 0, strike_removed: false, post: { status: 'published' } });
    expect((await account(a)).balance).toBe(before);
    await expectLedgerMatchesBalance(db(), a.id);
  });

  it('two concurrent decisions of one appeal decide it once: one 200, one 409; refunded once', async () => {
    const a = await fundedAccount(env, 5_000_000);
    const id = await struck(a);
    const filed = (await appeal(a, id)).json;
    const decideAs = (decision: string) => decide(filed.id, decision, `${decision} it`);
    const rs = await Promise.all([
      decideAs('reverse'),
      decideAs('reverse'),
      decideAs('uphold'),
      decideAs('reverse'),
    ]);
    expect(rs.map((r) => r.status).sort()).toEqual([200, 409, 409, 409]);
    for (const r of rs.filter((x) => x.status === 409)) expectProblem(r, 409, 'invalid_state');
    const won = rs.find((r) => r.status === 200)!.json;
    const refunds = await db()
      .select()
      .from(ledger)
      .where(and(eq(ledger.reference, id), eq(ledger.kind, 'refund')));
    expect(refunds).toHaveLength(won.status === 'reversed' ? 1 : 0);
    expect((await account(a)).strikes).toBe(won.status === 'reversed' ? 0 : 1);
    await expectLedgerMatchesBalance(db(), a.id);
  });

  it('a deleted post cannot be reversed: 409 and the appeal stays pending', async () => {
    const a = await fundedAccount(env, 5_000_000);
    const id = await struck(a);
    const filed = (await appeal(a, id)).json;
    expect((await env.call('DELETE', `/v1/posts/${id}`, { key: a.key })).status).toBe(204);
    expectProblem(await decide(filed.id, 'reverse', 'x'), 409, 'invalid_state');
    expect(
      (await admin('GET', '/v1/admin/appeals')).json.data.find((x: { id: string }) => x.id === filed.id)
        .status,
    ).toBe('pending');
    expect((await account(a)).strikes).toBe(1);
    await expectLedgerMatchesBalance(db(), a.id);
  });

  it('the MCP tool appeal_verdict files the same appeal', async () => {
    const a = await fundedAccount(env, 5_000_000);
    const id = await struck(a);
    const tool = tools('stories').find((t) => t.name === 'appeal_verdict')!;
    const principal = (await env.platform.services.keys.authenticate(a.key))!;
    const ctx = { services: env.platform.services, site: 'stories' as const, ip: '203.0.113.9', principal };
    const r = await tool.run({ id, statement: 'A story, not a prompt.' }, ctx);
    expect(tool.output.parse(r.data)).toMatchObject({ post_id: id, status: 'pending' });
    await expect(tool.run({ id, statement: 'again' }, ctx)).rejects.toMatchObject({ code: 'appeal_exists' });
    await expect(tool.run({ id, statement: 'x' }, { ...ctx, principal: undefined })).rejects.toMatchObject({
      code: 'unauthorized',
    });
  });
});

describe('removals and reports close the loop', () => {
  it('a keyed reporter reads its report: open, then content_removed after a removal; the removal says a notice led to it and can be appealed and reversed', async () => {
    const author = await fundedAccount(env, 1_000_000);
    const id = await post(author, story());
    await moderate();
    const reporter = await newAccount(env);
    const rep = await env.call('POST', '/v1/reports', {
      key: reporter.key,
      ip: '198.51.100.20',
      body: { post_id: id, category: 'harassment', detail: 'names a real neighbour' },
    });
    expect(rep.status, rep.text).toBe(202);
    expect(rep.json.detail).toContain(`/v1/reports/${rep.json.id}`);
    const read = () => env.call('GET', `/v1/reports/${rep.json.id}`, { key: reporter.key });
    expect((await read()).json).toMatchObject({
      status: 'open',
      outcome: null,
      resolved_at: null,
      post_id: id,
    });
    expectProblem(await env.call('GET', `/v1/reports/${rep.json.id}`, { key: author.key }), 404, 'not_found');
    expectProblem(await env.call('GET', `/v1/reports/${rep.json.id}`), 401, 'unauthorized');

    const removed = await admin('POST', `/v1/admin/posts/${id}/remove`, { reason: 'Names a real person.' });
    expect(removed.status, removed.text).toBe(200);
    expect((await read()).json).toMatchObject({
      status: 'resolved',
      outcome: 'content_removed',
      resolved_at: env.clock.now().toISOString(),
    });
    const sor = (await own(author, id)).statement_of_reasons;
    expect(sor).toMatchObject({
      outcome: 'removed',
      policy_category: 'harassment',
      category: 'STATEMENT_CATEGORY_ILLEGAL_OR_HARMFUL_SPEECH',
      automated_detection: 'No',
      automated_decision: 'AUTOMATED_DECISION_NOT_AUTOMATED',
      source_type: 'SOURCE_ARTICLE_16',
      decided_by: 'person',
      fine: 0,
      redress: { appeal: { available: true } },
    });
    const before = (await account(author)).balance;
    const filed = (await appeal(author, id)).json;
    const r = await decide(filed.id, 'reverse', 'The neighbour is invented.');
    expect(r.json).toMatchObject({ refunded: 0, post: { status: 'published' } });
    expect((await env.call('GET', `/v1/posts/${id}`)).status).toBe(200);
    expect((await account(author)).balance).toBe(before);
    await expectLedgerMatchesBalance(db(), author.id);
  });

  it('a person dismisses a report: no_action with the reason; twice is 409; a removal on its own initiative is SOURCE_VOLUNTARY', async () => {
    const author = await fundedAccount(env, 1_000_000);
    const id = await post(author, story());
    await moderate();
    const reporter = await newAccount(env);
    const rep = (
      await env.call('POST', '/v1/reports', {
        key: reporter.key,
        ip: '198.51.100.21',
        body: { post_id: id, category: 'spam' },
      })
    ).json;
    const d = await admin('POST', `/v1/admin/reports/${rep.id}/dismiss`, { reason: 'No promotion in it.' });
    expect(d.status, d.text).toBe(200);
    expect(d.json).toMatchObject({ status: 'resolved', outcome: 'no_action' });
    expect((await env.call('GET', `/v1/reports/${rep.id}`, { key: reporter.key })).json).toMatchObject({
      outcome: 'no_action',
      reason: 'No promotion in it.',
    });
    expectProblem(
      await admin('POST', `/v1/admin/reports/${rep.id}/dismiss`, { reason: 'again' }),
      409,
      'invalid_state',
    );
    expectProblem(
      await admin('POST', '/v1/admin/reports/rep_nope/dismiss', { reason: 'x' }),
      404,
      'not_found',
    );
    await admin('POST', `/v1/admin/posts/${id}/remove`, { reason: 'On a second reading.', category: 'spam' });
    expect((await own(author, id)).statement_of_reasons).toMatchObject({
      source_type: 'SOURCE_VOLUNTARY',
      policy_category: 'spam',
    });
  });
});

describe('the appeal window: "within 6 months", by the injected clock, at N and N+1', () => {
  let w: TestEnv;
  const clock = new TestClock('2026-03-31T10:00:00.000Z');
  beforeAll(async () => {
    w = await startTestEnv({ clock });
  });
  afterAll(async () => w?.close());

  it('decided 31 March: appealable until 30 September at the same instant (calendar months), not a millisecond later', async () => {
    const a = await fundedAccount(w, 5_000_000);
    const ids: string[] = [];
    for (let i = 0; i < 2; i++)
      ids.push(
        (
          await w.call('POST', '/v1/posts', {
            key: a.key,
            body: { title: `Late ${i}`, body: wordsExactly(300) },
          })
        ).json.id,
      );
    await w.platform.workers.drain('moderate');
    const sor = (await w.call('GET', `/v1/posts/${ids[0]}`, { key: a.key })).json.statement_of_reasons;
    expect(sor.application_date).toBe('2026-03-31T10:00:00.000Z');
    expect(sor.redress.appeal.deadline).toBe('2026-09-30T10:00:00.000Z');
    clock.set('2026-09-30T10:00:00.001Z');
    const late = expectProblem(
      await w.call('POST', `/v1/posts/${ids[1]}/appeal`, { key: a.key, body: { statement: 'late' } }),
      409,
      'appeal_window_closed',
    );
    expect(late.detail).toContain('2026-09-30T10:00:00.000Z');
    clock.set('2026-09-30T10:00:00.000Z');
    expect(
      (await w.call('POST', `/v1/posts/${ids[0]}/appeal`, { key: a.key, body: { statement: 'in time' } }))
        .status,
    ).toBe(202);
  });
});
