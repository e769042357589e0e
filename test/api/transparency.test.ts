import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TestClock } from '../helpers/clock.js';
import { fundedAccount, newAccount, wordsExactly } from '../helpers/flows.js';
import { ADMIN_TOKEN, startTestEnv, type TestEnv } from '../helpers/harness.js';
import { injected, story } from '../helpers/stories.js';

let env: TestEnv;
const clock = new TestClock('2026-09-10T10:00:00.000Z');
beforeAll(async () => {
  env = await startTestEnv({ clock });
});
afterAll(async () => env?.close());

const admin = (method: string, path: string, body?: unknown) =>
  env.call(method, path, { key: ADMIN_TOKEN, ...(body === undefined ? {} : { body }) });

describe('the transparency report: GET /v1/transparency and /transparency, exact numbers from a seeded history', () => {
  it('per month: decisions by outcome and category, automated vs person, median and p90 time to decision, reports, appeals, strikes and bans; public and cached', async () => {
    // An empty report before anything happens.
    const empty = await env.call('GET', '/v1/transparency');
    expect(empty.status).toBe(200);
    expect(empty.json.months).toEqual([]);
    expect(empty.headers['cache-control']).toBe('public, max-age=300');

    // September: three posts at 10:00; the model decides two minutes later (published, rejected
    // low_quality, held for a person); a person rejects the held one an hour after that (strike).
    const a = await fundedAccount(env, 5_000_000);
    const post = async (title: string, body: string) =>
      (await env.call('POST', '/v1/posts', { key: a.key, body: { title, body } })).json.id as string;
    const good = await post('Good', story());
    const bad = await post('Bad', wordsExactly(300));
    const held = await post('Held', injected());
    clock.advance(120_000);
    await env.platform.workers.drain('moderate');
    clock.advance(3_600_000);
    await admin('POST', `/v1/admin/posts/${held}/decision`, {
      decision: 'reject',
      category: 'agent_injection',
      reason: 'Instructions aimed at AI readers.',
    });
    const reporter = await newAccount(env);
    const report = await env.call('POST', '/v1/reports', {
      key: reporter.key,
      ip: '198.51.100.30',
      body: { post_id: good, category: 'harassment' },
    });
    expect(report.status).toBe(202);

    // October: the reported post is removed (the report acted on); the rejection is appealed
    // and reversed, the removal appealed and upheld; the low-quality one is appealed, undecided.
    clock.set('2026-10-05T10:00:00.000Z');
    await admin('POST', `/v1/admin/posts/${good}/remove`, { reason: 'Names a real person.' });
    const appeal = async (id: string) =>
      (await env.call('POST', `/v1/posts/${id}/appeal`, { key: a.key, body: { statement: 'Wrong.' } })).json
        .id as string;
    const reversed = await appeal(held);
    const upheld = await appeal(good);
    await appeal(bad);
    await admin('POST', `/v1/admin/appeals/${reversed}/decision`, {
      decision: 'reverse',
      reason: 'Fiction.',
    });
    await admin('POST', `/v1/admin/appeals/${upheld}/decision`, { decision: 'uphold', reason: 'Real name.' });

    const r = await env.call('GET', '/v1/transparency');
    expect(r.status).toBe(200);
    expect(r.json.generated_at).toBe('2026-10-05T10:00:00.000Z');
    expect(r.json.months).toEqual([
      {
        month: '2026-10',
        decisions: {
          total: 1,
          automated: 0,
          person: 1,
          by_outcome: { published: 0, review: 0, rejected: 0, removed: 1 },
          by_category: [{ outcome: 'removed', category: 'harassment', automated: 0, person: 1 }],
        },
        time_to_decision_seconds: { decisions: 0, median: null, p90: null },
        reports: { received: 0, acted_on: 1, no_action: 0 },
        appeals: { received: 3, decided: 2, upheld: 1, reversed: 1, reversal_rate: 0.5 },
        strikes: { given: 0, removed_on_appeal: 1 },
        bans: { given: 0, lifted_on_appeal: 0 },
      },
      {
        month: '2026-09',
        decisions: {
          total: 4,
          automated: 3,
          person: 1,
          by_outcome: { published: 1, review: 1, rejected: 2, removed: 0 },
          by_category: [
            { outcome: 'published', category: null, automated: 1, person: 0 },
            { outcome: 'rejected', category: 'agent_injection', automated: 0, person: 1 },
            { outcome: 'rejected', category: 'low_quality', automated: 1, person: 0 },
            { outcome: 'review', category: 'agent_injection', automated: 1, person: 0 },
          ],
        },
        // Waits of the publications and rejections: 120 s, 120 s and 3,720 s (nearest rank).
        time_to_decision_seconds: { decisions: 3, median: 120, p90: 3720 },
        reports: { received: 1, acted_on: 0, no_action: 0 },
        appeals: { received: 0, decided: 0, upheld: 0, reversed: 0, reversal_rate: null },
        strikes: { given: 1, removed_on_appeal: 0 },
        bans: { given: 0, lifted_on_appeal: 0 },
      },
    ]);

    // Cached for five minutes by the service's clock: a new report shows after that.
    const again = await env.call('POST', '/v1/reports', {
      ip: '198.51.100.31',
      body: { post_id: held, category: 'spam' },
    });
    expect(again.status).toBe(202);
    clock.advance(299_999);
    expect((await env.call('GET', '/v1/transparency')).json.months[0].reports.received).toBe(0);
    clock.advance(1);
    const fresh = (await env.call('GET', '/v1/transparency')).json;
    expect(fresh.generated_at).toBe('2026-10-05T10:05:00.000Z');
    expect(fresh.months[0].reports).toEqual({ received: 1, acted_on: 1, no_action: 0 });

    // The page shows the same numbers, without a session.
    const page = await env.app.inject({
      method: 'GET',
      url: '/transparency',
      headers: { host: 'agentpress.test' },
    });
    expect(page.statusCode).toBe(200);
    expect(page.headers['content-type']).toMatch(/^text\/html/);
    expect(page.body).toContain('id="month-2026-10"');
    expect(page.body).toMatch(/class="appeals-received">3</);
    expect(page.body).toContain('50%');
    expect(page.body).toMatch(/class="decisions-total">4</);
    expect(page.body).toContain('2 min');
    expect(page.body).toContain('p90 62 min');
  });
});
