import { parseItem } from 'structured-headers';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { post as ledgerPost, ledgerSum } from '../../src/core/billing/ledger.js';
import { expectProblem, fundedAccount, newAccount, type TestAccount } from '../helpers/flows.js';
import { type Reply, startTestEnv, type TestEnv } from '../helpers/harness.js';
import { story } from '../helpers/stories.js';

let env: TestEnv;
let author: TestAccount;
let lighthouseId: string;
beforeAll(async () => {
  env = await startTestEnv({ env: { SITES: 'agentpress.test=stories,ads.test=classifieds' } });
  author = await fundedAccount(env, 5_000_000);
  const make = async (title: string, extra: string, topics: string[]) =>
    (
      await env.call('POST', '/v1/posts', {
        key: author.key,
        body: { title, body: `${story()}\n\n${extra}`, topics },
      })
    ).json.id;
  lighthouseId = await make(
    'The lighthouse keeper',
    'The lighthouse keeper polished the great lens every night.',
    ['sea'],
  );
  await make('Orchard song', 'Apples fell in the orchard while the bees went quiet.', ['orchards']);
  await make('Lamps', 'A lighthouse appears once, far away, in this story about lamps.', ['lamps']);
  await env.platform.workers.drain('moderate');
});
afterAll(async () => env?.close());

/** Parses RateLimit / RateLimit-Policy with a structured-fields parser. */
function limits(r: Reply) {
  const item = (h: string) => {
    const [name, params] = parseItem(String(r.headers[h]));
    expect(String(name)).toBe('search');
    return Object.fromEntries(params);
  };
  return { policy: item('ratelimit-policy'), limit: item('ratelimit') };
}
const midnightIn = () => {
  const now = env.clock.now();
  return Math.ceil(
    (Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate() + 1) - now.getTime()) / 1000,
  );
};
const search = (q: string, o: { key?: string; ip?: string; host?: string } = {}) =>
  env.call('GET', `/v1/search?q=${encodeURIComponent(q)}`, {
    ...(o.key ? { key: o.key } : {}),
    ip: o.ip ?? '192.0.2.10',
    headers: { host: o.host ?? 'agentpress.test' },
  });

describe('GET /v1/search: full-text, ranked, labelled', () => {
  it('finds published posts by words of title, body and topics, best match first', async () => {
    const r = await search('lighthouse', { ip: '192.0.2.1' });
    expect(r.status, r.text).toBe(200);
    expect(r.json.data[0].id).toBe(lighthouseId);
    expect(r.json.data).toHaveLength(2);
    for (const p of r.json.data) {
      expect(p.content_trust).toBe('untrusted-user-content');
      expect(p.license.name).toBe('CC BY 4.0');
    }
    expect((await search('apples', { ip: '192.0.2.1' })).json.data).toHaveLength(1);
    expect(
      (await search('"great lens" -apples', { ip: '192.0.2.1' })).json.data.map((p: { id: string }) => p.id),
    ).toEqual([lighthouseId]);
    expectProblem(await env.call('GET', '/v1/search', { ip: '192.0.2.1' }), 422, 'validation_failed');
  });
});

describe('metering: "100 per UTC day per API key ... then $0.0010 each from the balance"', () => {
  it('the 100th keyed search is free and the 101st is charged 1000; headers count down', async () => {
    const a = await fundedAccount(env, 1_000_000);
    let r: Reply | undefined;
    for (let i = 1; i <= 100; i++) {
      r = await search('lighthouse', { key: a.key });
      expect(r.status).toBe(200);
      const l = limits(r);
      expect(l.policy).toEqual({ q: 100, w: 86400 });
      expect(l.limit.r).toBe(100 - i);
      expect(l.limit.t).toBe(midnightIn());
      expect(r.json.charged).toBe(0);
    }
    expect((await env.call('GET', '/v1/account', { key: a.key })).json.balance).toBe(1_000_000);
    r = await search('lighthouse', { key: a.key });
    expect(r.status).toBe(200);
    expect(r.json.charged).toBe(1000);
    expect(limits(r).limit.r).toBe(0);
    expect((await env.call('GET', '/v1/account', { key: a.key })).json.balance).toBe(999_000);
    expect(await ledgerSum(env.platform.database.db, a.id)).toBe(999_000);
  });

  it('402 insufficient_balance with account_url when the balance cannot pay', async () => {
    const a = await newAccount(env);
    await ledgerPost(env.platform.database.db, {
      accountId: a.id,
      kind: 'top_up',
      amount: 1000,
      at: env.clock.now(),
    });
    for (let i = 0; i < 100; i++) expect((await search('fog', { key: a.key })).status).toBe(200);
    expect((await search('fog', { key: a.key })).json.charged).toBe(1000);
    const p = expectProblem(await search('fog', { key: a.key }), 402, 'insufficient_balance');
    expect(p.account_url).toMatch(/\/account\?token=/);
    expect(p.for_human).toBe(true);
    expect((await env.call('GET', '/v1/account', { key: a.key })).json.balance).toBe(0);
  });

  it('midnight UTC resets the allowance', async () => {
    const a = await newAccount(env);
    for (let i = 0; i < 100; i++) await search('fog', { key: a.key });
    expectProblem(await search('fog', { key: a.key }), 402, 'insufficient_balance');
    const now = env.clock.now();
    env.clock.set(new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate() + 1) - 1000));
    expectProblem(await search('fog', { key: a.key }), 402, 'insufficient_balance');
    env.clock.advance(1000);
    const r = await search('fog', { key: a.key });
    expect(r.status).toBe(200);
    expect(limits(r).limit).toEqual({ r: 99, t: 86400 });
  });

  it('counts are per key and shared between the sites', async () => {
    const a = await newAccount(env);
    for (let i = 0; i < 50; i++) await search('fog', { key: a.key, host: 'agentpress.test' });
    const r = await search('fog', { key: a.key, host: 'ads.test' });
    expect(limits(r).limit.r).toBe(49);
    const other = await env.platform.services.keys.createForOwner(a.id);
    expect(limits(await search('fog', { key: other.api_key })).limit.r).toBe(99);
  });
});

describe('keyless: "20 per UTC day per IP address, then 429 with Retry-After"', () => {
  it('the 20th is allowed and the 21st is 429 search_allowance_exhausted with Retry-After to midnight', async () => {
    const ip = '198.51.100.77';
    for (let i = 1; i <= 20; i++) {
      const r = await search('harbour', { ip });
      expect(r.status).toBe(200);
      expect(limits(r).policy).toEqual({ q: 20, w: 86400 });
      expect(limits(r).limit.r).toBe(20 - i);
    }
    const r = await search('harbour', { ip });
    expectProblem(r, 429, 'search_allowance_exhausted');
    expect(Number(r.headers['retry-after'])).toBe(midnightIn());
    expect(limits(r).limit.r).toBe(0);
    expect((await search('harbour', { ip: '198.51.100.78' })).status).toBe(200);
    const now = env.clock.now();
    env.clock.set(new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate() + 1)));
    expect((await search('harbour', { ip })).status).toBe(200);
  });
});

describe('concurrency', () => {
  it('150 concurrent keyed searches from a fresh key charge exactly 50 and the ledger sums', async () => {
    const a = await fundedAccount(env, 1_000_000);
    const rs = await Promise.all(Array.from({ length: 150 }, () => search('lighthouse', { key: a.key })));
    expect(rs.every((r) => r.status === 200)).toBe(true);
    expect(rs.filter((r) => r.json.charged === 1000)).toHaveLength(50);
    const balance = (await env.call('GET', '/v1/account', { key: a.key })).json.balance;
    expect(balance).toBe(1_000_000 - 50 * 1000);
    expect(await ledgerSum(env.platform.database.db, a.id)).toBe(balance);
  });

  it('30 concurrent keyless searches from one IP: exactly 20 answered', async () => {
    const rs = await Promise.all(
      Array.from({ length: 30 }, () => search('lighthouse', { ip: '203.0.113.200' })),
    );
    expect(rs.filter((r) => r.status === 200)).toHaveLength(20);
    expect(rs.filter((r) => r.status === 429)).toHaveLength(10);
  });
});
