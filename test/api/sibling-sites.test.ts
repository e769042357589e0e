import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectProblem, fundedAccount, type TestAccount } from '../helpers/flows.js';
import { startTestEnv, type TestEnv } from '../helpers/harness.js';
import { AD, EVENT, SIBLING_SITES } from '../helpers/stories.js';

let env: TestEnv;
let a: TestAccount;
beforeAll(async () => {
  env = await startTestEnv({
    env: { SITES: SIBLING_SITES },
  });
  a = await fundedAccount(env, 50_000_000);
});
afterAll(async () => env?.close());

const post = (host: string, body: unknown, dry = true) =>
  env.call('POST', `/v1/posts${dry ? '?dry_run=true' : ''}`, { key: a.key, body, headers: { host } });
const pointers = (problem: { errors: { pointer: string }[] }) => problem.errors.map((e) => e.pointer);

describe('"The body of post creation depends on the site that is called"', () => {
  it('a story body on the messages site is refused, a message body accepted', async () => {
    expectProblem(
      await post('messages.test', { title: 't', body: 'x', topics: [] }),
      422,
      'validation_failed',
    );
    const r = await post('messages.test', {
      text: 'Fog on the bridge this morning, drive slowly.',
      topics: ['traffic'],
      location: { country: 'US', state: 'US-CA', city: { geonames_id: 5391959, name: 'San Francisco' } },
    });
    expect(r.status, r.text).toBe(200);
    expect(r.json.price).toBe(250_000);
  });

  it('a message with a link carries the link surcharge', async () => {
    const r = await post('messages.test', { text: 'Timetable: https://example.org/ferry', topics: [] });
    expect(r.json.price).toBe(250_000 + 50_000);
    const real = await post('messages.test', { text: 'Timetable: https://example.org/ferry' }, false);
    expect(real.json.charged).toBe(300_000);
  });

  it('message city must be {geonames_id, name}', async () => {
    const r = await post('messages.test', { text: 'hi', location: { country: 'US', city: 'Boston' } });
    expect(pointers(expectProblem(r, 422, 'validation_failed'))).toContain('/location/city');
  });

  it('classified ad: valid; then each bad value is refused at its pointer', async () => {
    expect((await post('ads.test', AD)).status).toBe(200);
    const cases: [Record<string, unknown>, string][] = [
      [{ ...AD, category: 'spaceships' }, '/category'],
      [{ ...AD, price: { amount: -1, currency: 'EUR' } }, '/price/amount'],
      [{ ...AD, price: { amount: 5, currency: 'EURO' } }, '/price/currency'],
      [{ ...AD, condition: 'mint' }, '/condition'],
      [{ ...AD, location: { country: 'FR', state: 'US-CA' } }, '/location/state'],
      [{ ...AD, location: { country: 'ZZ' } }, '/location/country'],
      [{ ...AD, location: undefined }, '/location'],
      [{ ...AD, expires_at: '2025-01-01T00:00:00Z' }, '/expires_at'],
    ];
    for (const [body, pointer] of cases)
      expect(pointers(expectProblem(await post('ads.test', body), 422))).toContain(pointer);
  });

  it('event: valid; bad zone, ends before starts, missing offset and foreign subdivision are refused', async () => {
    expect((await post('events.test', EVENT)).status).toBe(200);
    const cases: [Record<string, unknown>, string][] = [
      [{ ...EVENT, timezone: 'Mars/Olympus' }, '/timezone'],
      [{ ...EVENT, ends_at: '2026-12-05T16:00:00+01:00' }, '/ends_at'],
      [{ ...EVENT, ends_at: EVENT.starts_at }, '/ends_at'],
      [{ ...EVENT, starts_at: '2026-12-05T17:00:00' }, '/starts_at'],
      [{ ...EVENT, location: { country: 'NO', state: 'SE-AB' } }, '/location/state'],
    ];
    for (const [body, pointer] of cases)
      expect(pointers(expectProblem(await post('events.test', body), 422))).toContain(pointer);
  });

  it('expired classifieds and ended events are left out of the list', async () => {
    const short = await post(
      'ads.test',
      {
        ...AD,
        title: 'Short-lived ad',
        expires_at: new Date(env.clock.now().getTime() + 3600_000).toISOString(),
      },
      false,
    );
    const ev = await post(
      'events.test',
      {
        ...EVENT,
        starts_at: new Date(env.clock.now().getTime() + 60_000).toISOString(),
        ends_at: new Date(env.clock.now().getTime() + 7200_000).toISOString(),
      },
      false,
    );
    await env.platform.workers.drain('moderate');
    const ids = async (host: string) =>
      (await env.call('GET', '/v1/posts', { headers: { host } })).json.data.map((p: { id: string }) => p.id);
    expect(await ids('ads.test')).toContain(short.json.id);
    expect(await ids('events.test')).toContain(ev.json.id);
    expect(await ids('agentpress.test')).not.toContain(short.json.id);
    env.clock.advance(3600_000 + 1);
    expect(await ids('ads.test')).not.toContain(short.json.id);
    expect(await ids('events.test')).toContain(ev.json.id);
    env.clock.advance(3600_000);
    expect(await ids('events.test')).not.toContain(ev.json.id);
  });

  it('place filters: country, state and city', async () => {
    const r = await post(
      'ads.test',
      { ...AD, title: 'Lamp', location: { country: 'DE', state: 'DE-BE', city: 'Berlin' } },
      false,
    );
    await env.platform.workers.drain('moderate');
    const q = async (query: string) =>
      (await env.call('GET', `/v1/posts?${query}`, { headers: { host: 'ads.test' } })).json.data.map(
        (p: { id: string }) => p.id,
      );
    expect(await q('country=DE')).toContain(r.json.id);
    expect(await q('state=DE-BE')).toContain(r.json.id);
    expect(await q('city=berlin')).toContain(r.json.id);
    expect(await q('country=FR')).not.toContain(r.json.id);
    expectProblem(
      await env.call('GET', '/v1/posts?country=fr', { headers: { host: 'ads.test' } }),
      422,
      'validation_failed',
    );
  });

  it('an unknown host is 404 when no site matches', async () => {
    expectProblem(
      await env.call('GET', '/v1/posts', { headers: { host: 'nowhere.test' } }),
      404,
      'not_found',
    );
  });
});
