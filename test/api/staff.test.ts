import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MAX_CODE_ATTEMPTS } from '../../src/core/owner/codes.js';
import { MAX_STRIKES } from '../../src/core/pricing.js';
import { CLAIM_TTL_MS, evidenceOf, markQuotes } from '../../src/core/staff/review.js';
import { STAFF_CODES_PER_DAY } from '../../src/core/staff/sessions.js';
import { accounts } from '../../src/db/schema.js';
import { expectProblem, fundedAccount, latestCode, type TestAccount, uniq } from '../helpers/flows.js';
import { ADMIN_TOKEN, startTestEnv, type TestEnv } from '../helpers/harness.js';
import { expectLedgerMatchesBalance } from '../helpers/money.js';
import { DEHUMANISING, injected, story, storyWith } from '../helpers/stories.js';

let env: TestEnv;
beforeAll(async () => {
  env = await startTestEnv();
});
afterAll(async () => env?.close());

const as = (token: string) => ({
  get: (path: string) => env.call('GET', path, { key: token }),
  post: (path: string, body?: unknown) => env.call('POST', path, { key: token, body }),
  patch: (path: string, body?: unknown) => env.call('PATCH', path, { key: token, body }),
});
const admin = as(ADMIN_TOKEN);
const outbox = async (to: string) =>
  (await admin.get(`/v1/admin/outbox?to=${encodeURIComponent(to)}`)).json.data as { text: string }[];

interface Member {
  id: string;
  email: string;
  token: string;
}

/** An admin invites; the member signs in by the e-mailed code and gets a staff token. */
async function member(role: 'moderator' | 'admin', by = admin): Promise<Member> {
  const email = `staff-${uniq()}@example.com`;
  const invited = await by.post('/v1/admin/staff', { email, name: `Reviewer ${uniq()}`, role });
  expect(invited.status, invited.text).toBe(201);
  expect((await env.call('POST', '/v1/staff/session', { body: { email } })).status).toBe(202);
  const code = await latestCode(env, email);
  const r = await env.call('POST', '/v1/staff/session', { body: { email, code } });
  expect(r.status, r.text).toBe(200);
  expect(r.json).toMatchObject({ staff_id: invited.json.id, role });
  return { id: invited.json.id, email, token: r.json.staff_token };
}

async function inReview(a: TestAccount, body = injected()): Promise<string> {
  const r = await env.call('POST', '/v1/posts', { key: a.key, body: { title: `Item ${uniq()}`, body } });
  expect(r.status, r.text).toBe(202);
  await env.platform.workers.drain('moderate');
  const st = (await env.call('GET', `/v1/posts/${r.json.id}`, { key: a.key })).json.status;
  expect(st).toBe('review');
  return r.json.id;
}

const auditOf = async (subject: string) =>
  (await admin.get(`/v1/admin/audit?subject=${encodeURIComponent(subject)}`)).json.data as {
    actor: string;
    actor_label: string;
    action: string;
    detail: Record<string, unknown>;
  }[];

describe('staff accounts: invited by an admin, signed in by an e-mailed code, roles moderator and admin', () => {
  it('the admin token invites; the invitation is mailed; a second invitation of the address is 409 already_staff', async () => {
    const email = `Staff-${uniq()}@Example.com`;
    const r = await admin.post('/v1/admin/staff', { email, name: 'Ada', role: 'moderator' });
    expect(r.status, r.text).toBe(201);
    expect(r.json).toMatchObject({
      email: email.toLowerCase(),
      role: 'moderator',
      invited_by: 'admin-token',
    });
    expect((await outbox(email))[0]!.text).toContain('/admin');
    expectProblem(
      await admin.post('/v1/admin/staff', { email: email.toLowerCase(), name: 'Ada', role: 'admin' }),
      409,
      'already_staff',
    );
    expect(await auditOf(r.json.id)).toMatchObject([
      { actor: 'admin-token', actor_label: 'ADMIN_TOKEN', action: 'staff.invited' },
    ]);
  });

  it('a moderator may review but not manage staff (403); an admin member may; the ADMIN_TOKEN bearer stays valid', async () => {
    const mod = await member('moderator');
    const adm = await member('admin');
    const m = as(mod.token);
    expect((await m.get('/v1/admin/review')).status).toBe(200);
    expectProblem(await m.get('/v1/admin/staff'), 403, 'forbidden');
    expectProblem(
      await m.post('/v1/admin/staff', { email: `x-${uniq()}@example.com`, name: 'X', role: 'admin' }),
      403,
      'forbidden',
    );
    expectProblem(await m.patch(`/v1/admin/staff/${mod.id}`, { role: 'admin' }), 403, 'forbidden');
    expect((await as(adm.token).get('/v1/admin/staff')).status).toBe(200);
    // An admin member invites too, and is recorded as the inviter.
    const other = await member('moderator', as(adm.token));
    const list = (await admin.get('/v1/admin/staff')).json.data as { id: string; invited_by: string }[];
    expect(list.find((x) => x.id === other.id)?.invited_by).toBe(adm.id);
    expect((await admin.get('/v1/admin/staff')).status).toBe(200);
    // A key or a wrong token is still 401.
    expectProblem(await env.call('GET', '/v1/admin/staff', { key: 'ap_staff_nope' }), 401, 'unauthorized');
  });

  it('an admin cannot disable or demote themselves; disabling signs the member out and stops their codes', async () => {
    const adm = await member('admin');
    expectProblem(
      await as(adm.token).patch(`/v1/admin/staff/${adm.id}`, { disabled: true }),
      409,
      'invalid_state',
    );
    expectProblem(
      await as(adm.token).patch(`/v1/admin/staff/${adm.id}`, { role: 'moderator' }),
      409,
      'invalid_state',
    );
    const mod = await member('moderator');
    const r = await as(adm.token).patch(`/v1/admin/staff/${mod.id}`, { disabled: true });
    expect(r.status, r.text).toBe(200);
    expect(r.json.disabled_at).not.toBeNull();
    expectProblem(await as(mod.token).get('/v1/admin/review'), 401, 'unauthorized');
    const before = (await outbox(mod.email)).length;
    expect((await env.call('POST', '/v1/staff/session', { body: { email: mod.email } })).status).toBe(202);
    expect((await outbox(mod.email)).length).toBe(before);
    expect((await auditOf(mod.id)).map((e) => e.action)).toContain('staff.updated');
  });

  it('an address not on the staff gets the same 202 and no mail', async () => {
    const email = `nobody-${uniq()}@example.com`;
    const r = await env.call('POST', '/v1/staff/session', { body: { email } });
    expect(r.status).toBe(202);
    expect(Object.keys(r.json).sort()).toEqual(['expires_at', 'sent_to']);
    expect(await outbox(email)).toEqual([]);
    expectProblem(
      await env.call('POST', '/v1/staff/session', { body: { email, code: '123456' } }),
      401,
      'invalid_code',
    );
  });

  it(`${MAX_CODE_ATTEMPTS} wrong codes (N) are 401; then even the right one is 429 too_many_attempts (N+1)`, async () => {
    const email = `staff-${uniq()}@example.com`;
    await admin.post('/v1/admin/staff', { email, name: 'Bea', role: 'moderator' });
    await env.call('POST', '/v1/staff/session', { body: { email } });
    const code = await latestCode(env, email);
    const wrong = String((Number(code) + 1) % 1_000_000).padStart(6, '0');
    for (let i = 0; i < MAX_CODE_ATTEMPTS; i++)
      expectProblem(
        await env.call('POST', '/v1/staff/session', { body: { email, code: wrong } }),
        401,
        'invalid_code',
      );
    expectProblem(
      await env.call('POST', '/v1/staff/session', { body: { email, code } }),
      429,
      'too_many_attempts',
    );
  });

  it(`${STAFF_CODES_PER_DAY} codes per member per UTC day (N); the next is 429 with Retry-After (N+1)`, async () => {
    const email = `staff-${uniq()}@example.com`;
    await admin.post('/v1/admin/staff', { email, name: 'Cy', role: 'moderator' });
    for (let i = 0; i < STAFF_CODES_PER_DAY; i++)
      expect((await env.call('POST', '/v1/staff/session', { body: { email } })).status).toBe(202);
    const r = await env.call('POST', '/v1/staff/session', { body: { email } });
    expectProblem(r, 429, 'rate_limited');
    expect(Number(r.headers['retry-after'])).toBeGreaterThan(0);
  });
});

describe("the per-address mail cap covers staff mail (the owners' code path)", () => {
  let capped: TestEnv;
  beforeAll(async () => {
    capped = await startTestEnv({ env: { MAIL_PER_ADDRESS_PER_DAY: '3' } });
  });
  afterAll(async () => capped?.close());

  it('invitation + 2 codes = 3 mails (N); the 3rd code is 429 and the 2nd code stays live (N+1)', async () => {
    const email = `staff-${uniq()}@example.com`;
    const inv = await capped.call('POST', '/v1/admin/staff', {
      key: ADMIN_TOKEN,
      body: { email, name: 'Dee', role: 'moderator' },
    });
    expect(inv.status).toBe(201);
    expect((await capped.call('POST', '/v1/staff/session', { body: { email } })).status).toBe(202);
    expect((await capped.call('POST', '/v1/staff/session', { body: { email } })).status).toBe(202);
    const live = await latestCode(capped, email);
    expectProblem(await capped.call('POST', '/v1/staff/session', { body: { email } }), 429, 'rate_limited');
    const r = await capped.call('POST', '/v1/staff/session', { body: { email, code: live } });
    expect(r.status, r.text).toBe(200);
  });
});

describe('the review queue: evidence, preset category, the author history, claims', () => {
  it('an item opens with the flagged paragraph and the quoted evidence marked, the preset category and the history', async () => {
    const a = await fundedAccount(env, 2_000_000);
    const id = await inReview(a, storyWith(DEHUMANISING));
    const d = await admin.get(`/v1/admin/review/${id}`);
    expect(d.status, d.text).toBe(200);
    const ev = d.json.evidence;
    const last = ev.paragraphs.length - 1;
    expect(ev.flagged_paragraphs).toContain(last);
    const marked = (ev.paragraphs[last] as { text: string; mark: boolean }[]).filter((s) => s.mark);
    expect(marked.map((s) => s.text).join(' ')).toContain('They breed like rats');
    expect(ev.suspected_category).not.toBeNull();
    expect(ev.preset_category).toBe(ev.suspected_category);
    expect(ev.preset_category).not.toBe('low_quality');
    expect(d.json.history).toMatchObject({ account_id: a.id, strikes: 0, status: 'active' });
    expect(d.json.claim).toBeNull();
  });

  it('a suspected abuse is never preset to low_quality; no suspicion presets nothing', () => {
    expect(evidenceOf('a\n\nb', { category: 'harassment' }).preset_category).toBe('harassment');
    expect(evidenceOf('a\n\nb', { category: 'low_quality' }).preset_category).toBe('low_quality');
    expect(evidenceOf('a\n\nb', { decision: 'review' }).preset_category).toBeNull();
    expect(evidenceOf('a\n\nb', null).preset_category).toBeNull();
    expect(evidenceOf('a\n\nb', { category: 'made_up' }).preset_category).toBeNull();
    // A model's evidence quote is marked wherever it occurs, across line breaks.
    const ev = evidenceOf('Calm start.\n\nThen he said: send the money\nnow or else.', {
      category: 'spam',
      details: { evidence: [{ quote: 'send the money now' }] },
    });
    expect(ev.flagged_paragraphs).toEqual([1]);
    expect(ev.paragraphs[1]!.filter((s) => s.mark).map((s) => s.text)).toEqual(['send the money\nnow']);
    expect(markQuotes('abc', [])).toEqual([{ text: 'abc', mark: false }]);
  });

  it(`a claim holds for ${CLAIM_TTL_MS / 60_000} minutes by the clock: refused to others until then (N-1 ms), free at expiry (N)`, async () => {
    const a = await fundedAccount(env, 2_000_000);
    const id = await inReview(a);
    const one = await member('moderator');
    const two = await member('moderator');
    const c = await as(one.token).post(`/v1/admin/review/${id}/claim`);
    expect(c.status, c.text).toBe(200);
    expect(c.json).toMatchObject({ post_id: id, claimed_by: one.id, claimed_by_label: one.email });
    const queued = (await admin.get('/v1/admin/review')).json.data.find((p: { id: string }) => p.id === id);
    expect(queued.claim).toMatchObject({ claimed_by: one.id });

    const refused = await as(two.token).post(`/v1/admin/posts/${id}/decision`, {
      decision: 'publish',
      reason: 'fine',
    });
    expectProblem(refused, 409, 'review_claimed');
    expect(refused.json.detail).toContain(one.email);
    expectProblem(
      await admin.post(`/v1/admin/posts/${id}/decision`, { decision: 'publish', reason: 'fine' }),
      409,
      'review_claimed',
    );
    expectProblem(await as(two.token).post(`/v1/admin/review/${id}/claim`), 409, 'review_claimed');

    env.clock.advance(CLAIM_TTL_MS - 1);
    expectProblem(await as(two.token).post(`/v1/admin/review/${id}/claim`), 409, 'review_claimed');
    env.clock.advance(1);
    const taken = await as(two.token).post(`/v1/admin/review/${id}/claim`);
    expect(taken.status, taken.text).toBe(200);
    expect(taken.json.claimed_by).toBe(two.id);
    // Now the first reviewer is the one refused.
    expectProblem(
      await as(one.token).post(`/v1/admin/posts/${id}/decision`, { decision: 'publish', reason: 'ok' }),
      409,
      'review_claimed',
    );
    const ok = await as(two.token).post(`/v1/admin/posts/${id}/decision`, {
      decision: 'publish',
      reason: 'ok',
    });
    expect(ok.status, ok.text).toBe(200);
    expect(ok.json.status).toBe('published');
  });

  it('two reviewers deciding the same item at the same moment: one decision applies, the other is 409 review_claimed', async () => {
    const a = await fundedAccount(env, 2_000_000);
    const id = await inReview(a);
    const one = await member('moderator');
    const two = await member('admin');
    const body = {
      decision: 'reject',
      category: 'agent_injection',
      reason: 'Instructions aimed at AI readers.',
    };
    const replies = await Promise.all([
      as(one.token).post(`/v1/admin/posts/${id}/decision`, body),
      as(two.token).post(`/v1/admin/posts/${id}/decision`, body),
    ]);
    const statuses = replies.map((r) => r.status).sort();
    expect(statuses).toEqual([200, 409]);
    expectProblem(replies.find((r) => r.status === 409)!, 409, 'review_claimed');
    // One fine, one strike, one entry.
    const [row] = await env.platform.database.db.select().from(accounts).where(eq(accounts.id, a.id));
    expect(row!.strikes).toBe(1);
    await expectLedgerMatchesBalance(env.platform.database.db, a.id);
    const decided = (await auditOf(id)).filter((e) => e.action === 'post.decided');
    expect(decided).toHaveLength(1);
    const winner = replies[0]!.status === 200 ? one : two;
    expect(decided[0]).toMatchObject({ actor: winner.id, actor_label: winner.email });
  });
});

describe('the audit log: who decided, removed, struck, banned and resolved what', () => {
  it('decisions, strikes and the ban name their actor; removal resolves the reports; dismissal is recorded', async () => {
    const a = await fundedAccount(env, 5_000_000);
    const mod = await member('moderator');
    const ids: string[] = [];
    for (let i = 0; i < MAX_STRIKES; i++) ids.push(await inReview(a));
    for (const id of ids) {
      const r = await as(mod.token).post(`/v1/admin/posts/${id}/decision`, {
        decision: 'reject',
        category: 'agent_injection',
        reason: 'Instructions aimed at AI readers.',
      });
      expect(r.status, r.text).toBe(200);
    }
    await expectLedgerMatchesBalance(env.platform.database.db, a.id);
    const onAccount = await auditOf(a.id);
    expect(onAccount.filter((e) => e.action === 'account.struck')).toHaveLength(MAX_STRIKES);
    expect(onAccount.filter((e) => e.action === 'account.banned')).toHaveLength(1);
    expect(onAccount.every((e) => e.actor === mod.id)).toBe(true);
    expect(await auditOf(ids[0]!)).toMatchObject([
      {
        action: 'post.decided',
        actor: mod.id,
        detail: {
          decision: 'reject',
          category: 'agent_injection',
          reason: 'Instructions aimed at AI readers.',
        },
      },
    ]);

    // A published post, reported twice; the admin token removes it and both reports resolve.
    const b = await fundedAccount(env, 2_000_000);
    const p = await env.call('POST', '/v1/posts', { key: b.key, body: { title: 'Fine', body: story() } });
    await env.platform.workers.drain('moderate');
    const rep = async (ip: string) =>
      (await env.call('POST', '/v1/reports', { ip, body: { post_id: p.json.id, category: 'spam' } })).json.id;
    const r1 = await rep('203.0.113.7');
    const r2 = await rep('203.0.113.8');
    expect(
      (await admin.post(`/v1/admin/posts/${p.json.id}/remove`, { reason: 'Spam after all.' })).status,
    ).toBe(200);
    expect(await auditOf(p.json.id)).toMatchObject([{ action: 'post.removed', actor: 'admin-token' }]);
    for (const r of [r1, r2])
      expect(await auditOf(r)).toMatchObject([
        { action: 'report.resolved', detail: { resolution: 'content_removed' } },
      ]);
    const reports = (await admin.get('/v1/admin/reports')).json.data as { id: string; status: string }[];
    expect(reports.find((x) => x.id === r1)?.status).toBe('resolved');

    // A report read and dismissed: the post stays; a second dismissal is 409.
    const c = await env.call('POST', '/v1/posts', {
      key: b.key,
      body: { title: 'Also fine', body: story() },
    });
    await env.platform.workers.drain('moderate');
    const r3 = (
      await env.call('POST', '/v1/reports', {
        ip: '203.0.113.9',
        body: { post_id: c.json.id, category: 'spam' },
      })
    ).json.id;
    const d = await as(mod.token).post(`/v1/admin/reports/${r3}/dismiss`, { reason: 'A story, not spam.' });
    expect(d.status, d.text).toBe(200);
    expectProblem(
      await as(mod.token).post(`/v1/admin/reports/${r3}/dismiss`, { reason: 'again' }),
      409,
      'invalid_state',
    );
    expectProblem(
      await as(mod.token).post('/v1/admin/reports/rep_nope/dismiss', { reason: 'x' }),
      404,
      'not_found',
    );
    expect(await auditOf(r3)).toMatchObject([
      {
        action: 'report.resolved',
        actor: mod.id,
        detail: { resolution: 'no_action', reason: 'A story, not spam.' },
      },
    ]);
  });

  it('GET /v1/admin/audit is newest first and pages by cursor; a foreign cursor is 422', async () => {
    for (let i = 0; i < 3; i++)
      await admin.post('/v1/admin/staff', {
        email: `page-${uniq()}@example.com`,
        name: 'P',
        role: 'moderator',
      });
    const first = await admin.get('/v1/admin/audit?limit=2');
    expect(first.status).toBe(200);
    expect(first.json.data).toHaveLength(2);
    expect(first.json.next_cursor).not.toBeNull();
    const second = await admin.get(`/v1/admin/audit?limit=2&cursor=${first.json.next_cursor}`);
    const ids = [...first.json.data, ...second.json.data].map((e: { id: string }) => Number(e.id));
    expect(ids).toEqual([...ids].sort((x, y) => y - x));
    expect(new Set(ids).size).toBe(4);
    expectProblem(await admin.get('/v1/admin/audit?cursor=abc'), 422, 'validation_failed');
    expectProblem(await env.call('GET', '/v1/admin/audit'), 401, 'unauthorized');
  });
});
