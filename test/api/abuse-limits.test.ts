import { eq, sql } from 'drizzle-orm';
import { parseItem } from 'structured-headers';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.js';
import { MAX_KEYS } from '../../src/core/accounts/keys.js';
import { ledgerSum } from '../../src/core/billing/ledger.js';
import { secondsToUtcMidnight } from '../../src/core/clock.js';
import { dayKey, used } from '../../src/core/limits/daily.js';
import { listOutbox } from '../../src/core/mail/mailer.js';
import { OwnerNotices } from '../../src/core/owner/notices.js';
import { PRICES } from '../../src/core/pricing.js';
import { FREE_SEARCHES_PER_ACCOUNT_PER_DAY, searchQuery } from '../../src/core/search/search.js';
import { accounts } from '../../src/db/schema.js';
import {
  expectProblem,
  fundedAccount,
  latestCode,
  linkToken,
  newAccount,
  ownerToken,
  type TestAccount,
  uniq,
} from '../helpers/flows.js';
import { type Reply, startTestEnv, type TestEnv } from '../helpers/harness.js';

const MINUTE_MS = 60_000;

/** RateLimit as the search tests read it: r (remaining) and t. */
function remaining(r: Reply): number {
  const [name, params] = parseItem(String(r.headers.ratelimit));
  expect(String(name)).toBe('search');
  return Number(params.get('r'));
}

describe('"allowances cannot be reset": free keyed searches are counted per account as well as per key', () => {
  /** A lowered account allowance, so the rotation is walked through with few requests. */
  const PER_ACCOUNT = 150;
  let env: TestEnv;
  beforeAll(async () => {
    env = await startTestEnv({ env: { SEARCH_FREE_PER_ACCOUNT_PER_DAY: String(PER_ACCOUNT) } });
  });
  afterAll(async () => env?.close());

  const search = (key: string) => env.call('GET', '/v1/search?q=fog', { key });
  const balance = async (key: string) =>
    (await env.call('GET', '/v1/account', { key })).json.balance as number;

  it('revoke-and-create (through /v1/manage/keys): the account’s 150th free search is free, the 151st is charged', async () => {
    expect(PRICES.free_searches_per_day).toBe(100);
    const a = await fundedAccount(env, 1_000_000);
    const owner = a.owner!;
    const [first] = (await env.call('GET', '/v1/manage/keys', { key: owner })).json.data;
    // Key 1: its own 100 are free (RateLimit counts down the smaller of key and account); the 101st is paid.
    for (let i = 1; i <= 100; i++) {
      const r = await search(a.key);
      expect(r.status, r.text).toBe(200);
      expect(r.json.charged).toBe(0);
      expect(remaining(r)).toBe(Math.min(100 - i, PER_ACCOUNT - i));
    }
    const paid = await search(a.key);
    expect(paid.json.charged).toBe(1000);
    expect(remaining(paid)).toBe(0);
    // The owner rotates: a new key, the old one revoked.
    const second = await env.call('POST', '/v1/manage/keys', { key: owner });
    expect(second.status, second.text).toBe(201);
    expect((await env.call('DELETE', `/v1/manage/keys/${first.id}`, { key: owner })).status).toBe(204);
    // Key 2 starts where the account is: 50 free left (not 100), counted down honestly.
    const r1 = await search(second.json.api_key);
    expect(r1.json.charged).toBe(0);
    expect(remaining(r1)).toBe(PER_ACCOUNT - 101);
    for (let n = 102; n <= PER_ACCOUNT; n++) {
      const r = await search(second.json.api_key);
      expect(r.json.charged, `the account's free search ${n}`).toBe(0);
      expect(remaining(r)).toBe(PER_ACCOUNT - n);
    }
    // N + 1: the account's 151st free-looking search is charged although key 2 has used only 50.
    const over = await search(second.json.api_key);
    expect(over.status, over.text).toBe(200);
    expect(over.json.charged).toBe(1000);
    expect(remaining(over)).toBe(0);
    // And once more: a third key (the second revoked) gets nothing free today either.
    const third = await env.call('POST', '/v1/manage/keys', { key: owner });
    expect((await env.call('DELETE', `/v1/manage/keys/${second.json.id}`, { key: owner })).status).toBe(204);
    const again = await search(third.json.api_key);
    expect(again.json.charged).toBe(1000);
    expect(remaining(again)).toBe(0);
    // A paid search does not spend the key's own free unit.
    const db = env.platform.database.db;
    expect(await used(db, 'search_key', third.json.id, env.clock.now())).toBe(0);
    expect(await used(db, 'search_account', a.id, env.clock.now())).toBe(PER_ACCOUNT);
    expect(await balance(third.json.api_key)).toBe(1_000_000 - 3 * 1000);
    expect(await ledgerSum(db, a.id)).toBe(1_000_000 - 3 * 1000);
    // The next UTC day starts afresh for the account.
    env.clock.advance(secondsToUtcMidnight(env.clock.now()) * 1000);
    const tomorrow = await search(third.json.api_key);
    expect(tomorrow.json.charged).toBe(0);
    expect(remaining(tomorrow)).toBe(99);
  });

  it('with no balance, the account’s 151st is 402 insufficient_balance naming the account’s allowance', async () => {
    const a = await newAccount(env);
    // As if other keys of the account (since revoked) had used 149 free searches today.
    await env.platform.database.db.execute(
      sql`insert into daily_counters (scope, subject, day, count) values ('search_account', ${a.id}, ${dayKey(env.clock.now())}, ${PER_ACCOUNT - 1})`,
    );
    const last = await search(a.key);
    expect(last.status, last.text).toBe(200);
    expect(last.json.charged).toBe(0);
    expect(remaining(last)).toBe(0);
    const refused = await search(a.key);
    const p = expectProblem(refused, 402, 'insufficient_balance');
    expect(p.detail).toMatch(/account \(all its keys together\)/);
    expect(p.account_url).toMatch(/\/account\?token=/);
    expect(remaining(refused)).toBe(0);
  });

  it('concurrent searches over three keys never take more than the account’s allowance', async () => {
    const a = await fundedAccount(env, 1_000_000);
    const more = [
      await env.platform.services.keys.createForOwner(a.id),
      await env.platform.services.keys.createForOwner(a.id),
    ];
    const keys = [a.key, ...more.map((k) => k.api_key)];
    // 60 per key: no key reaches its own 100, together they pass the account's 150.
    const rs = await Promise.all(keys.flatMap((k) => Array.from({ length: 60 }, () => search(k))));
    expect(rs.every((r) => r.status === 200)).toBe(true);
    expect(rs.filter((r) => r.json.charged === 0)).toHaveLength(PER_ACCOUNT);
    expect(rs.filter((r) => r.json.charged === 1000)).toHaveLength(180 - PER_ACCOUNT);
    expect(await used(env.platform.database.db, 'search_account', a.id, env.clock.now())).toBe(PER_ACCOUNT);
    expect(await balance(a.key)).toBe(1_000_000 - 30 * 1000);
  });
});

describe('the account allowance with its default values (the core function)', () => {
  let env: TestEnv;
  beforeAll(async () => {
    env = await startTestEnv();
  });
  afterAll(async () => env?.close());

  it('defaults to 20 keys x 100 = 2,000: the 2,000th free search of a day is free, the 2,001st is charged', async () => {
    expect(MAX_KEYS).toBe(20);
    expect(FREE_SEARCHES_PER_ACCOUNT_PER_DAY).toBe(MAX_KEYS * PRICES.free_searches_per_day);
    expect(FREE_SEARCHES_PER_ACCOUNT_PER_DAY).toBe(2000);
    expect(loadConfig({}).searchFreePerAccountPerDay).toBe(2000);
    expect(env.platform.config.searchFreePerAccountPerDay).toBe(2000);

    const { search, keys } = env.platform.services;
    const a = await fundedAccount(env, 1_000_000);
    const db = env.platform.database.db;
    const now = env.clock.now();
    // 20 keys used and revoked today: 19 after their 100 free searches, one after 50.
    for (let k = 0; k < 20; k++) {
      const key = await keys.createForOwner(a.id);
      await db.execute(
        sql`insert into daily_counters (scope, subject, day, count) values ('search_key', ${key.id}, ${dayKey(now)}, ${k < 19 ? 100 : 50})`,
      );
      await keys.revoke(a.id, key.id);
    }
    await db.execute(
      sql`insert into daily_counters (scope, subject, day, count) values ('search_account', ${a.id}, ${dayKey(now)}, 1950)`,
    );
    // The sign-up key, unused: the account's 1,951st to 2,000th searches are free...
    const principal = (await keys.authenticate(a.key))!;
    const q = searchQuery.parse({ q: 'fog' });
    const run = () => search.search('stories', q, { principal, ip: '192.0.2.1' });
    for (let n = 1951; n <= 2000; n++) {
      const r = await run();
      expect(r.charged, `free search ${n}`).toBe(0);
      expect(r.allowance).toMatchObject({ limit: 100, remaining: 2000 - n });
    }
    // ...and the 2,001st is charged, although this key has used only 50 of its own 100.
    const over = await run();
    expect(over.charged).toBe(PRICES.search);
    expect(over.allowance.remaining).toBe(0);
    expect(await used(db, 'search_key', principal.keyId, now)).toBe(50);
    // Another rotation changes nothing.
    const next = await keys.createForOwner(a.id);
    const rotated = await search.search('stories', q, {
      principal: (await keys.authenticate(next.api_key))!,
      ip: '192.0.2.1',
    });
    expect(rotated.charged).toBe(PRICES.search);
    expect(await used(db, 'search_account', a.id, now)).toBe(2000);
  });
});

describe('POST /v1/accounts: per-IP limit', () => {
  let env: TestEnv;
  beforeAll(async () => {
    // The defaults (see the config test), set explicitly: the harness raises them for other suites.
    env = await startTestEnv({
      env: { ACCOUNT_CREATIONS_PER_IP: '10', ACCOUNT_CREATION_WINDOW_SECONDS: '3600' },
    });
  });
  afterAll(async () => env?.close());

  const signUp = (ip: string, body: Record<string, unknown> = {}) =>
    env.call('POST', '/v1/accounts', {
      ip,
      body: { name: `agent ${uniq()}`, email: `owner-${uniq()}@example.com`, accept_terms: true, ...body },
    });

  it('defaults: 60 sign-ups (the conformance suite makes 27 from one address) per client address per hour', () => {
    const c = loadConfig({});
    expect(c.accountCreationsPerIp).toBe(60);
    expect(c.accountCreationWindowSeconds).toBe(3600);
  });

  it('the 10th sign-up from one IP in a window is 201, the 11th 429 rate_limited with Retry-After to the window’s end; another IP is unaffected', async () => {
    env.clock.advance(25 * MINUTE_MS); // the window is the clock hour: 35 minutes are left
    const ip = '198.51.100.20';
    for (let i = 1; i <= 10; i++) expect((await signUp(ip)).status, `sign-up ${i}`).toBe(201);
    const over = await signUp(ip);
    const p = expectProblem(over, 429, 'rate_limited');
    expect(over.headers['retry-after']).toBe(String(35 * 60));
    expect(p.detail).toMatch(/At most 10 accounts .* an hour/);
    // Nothing was created by the refused request.
    const email = `owner-${uniq()}@example.com`;
    expectProblem(await signUp(ip, { email }), 429, 'rate_limited');
    const rows = await env.platform.database.db.select().from(accounts).where(eq(accounts.email, email));
    expect(rows).toHaveLength(0);
    // Another address is unaffected.
    expect((await signUp('198.51.100.21')).status).toBe(201);
    // A second before the window ends it is still refused; at its end the count starts afresh.
    env.clock.advance((35 * 60 - 1) * 1000);
    const last = await signUp(ip);
    expectProblem(last, 429, 'rate_limited');
    expect(last.headers['retry-after']).toBe('1');
    env.clock.advance(1000);
    expect((await signUp(ip)).status).toBe(201);
  });

  it('refused bodies do not count; IPv6 addresses count per /64 (and IPv4-mapped as IPv4)', async () => {
    const ip = '198.51.100.30';
    for (let i = 0; i < 12; i++) expect((await signUp(ip, { accept_terms: false })).status).toBe(422);
    for (let i = 0; i < 10; i++) expect((await signUp(ip)).status).toBe(201);
    expectProblem(await signUp(`::ffff:${ip}`), 429, 'rate_limited');

    for (let i = 1; i <= 10; i++) expect((await signUp(`2001:db8:7:1::${i.toString(16)}`)).status).toBe(201);
    expectProblem(await signUp('2001:db8:7:1:ffff:ffff:ffff:ffff'), 429, 'rate_limited');
    expect((await signUp('2001:db8:7:2::1')).status).toBe(201);
  });
});

describe('daily cap of mail to one address', () => {
  let env: TestEnv;
  beforeAll(async () => {
    // The default (see the config test), set explicitly: the harness raises it for other suites.
    env = await startTestEnv({ env: { MAIL_PER_ADDRESS_PER_DAY: '10' } });
  });
  afterAll(async () => env?.close());

  const requestCode = (a: TestAccount) =>
    env.call('POST', '/v1/manage/session', { body: { token: linkToken(a.account_url) } });
  const signUp = async (email: string): Promise<TestAccount> => {
    const r = await env.call('POST', '/v1/accounts', {
      body: { name: `agent ${uniq()}`, email, accept_terms: true },
    });
    expect(r.status, r.text).toBe(201);
    return {
      id: r.json.id,
      key: r.json.api_key,
      email: email.toLowerCase(),
      account_url: r.json.account_url,
    };
  };

  it('default: 10 mails per address per UTC day', () => {
    expect(loadConfig({}).mailPerAddressPerDay).toBe(10);
  });

  it('sign-ups naming one victim: the 10th code mail is sent, the 11th request is 429 rate_limited until 00:00 UTC; another address is unaffected', async () => {
    const victim = `victim-${uniq()}@example.com`;
    const [a, b, c] = [await signUp(victim), await signUp(victim), await signUp(victim.toUpperCase())];
    for (let i = 0; i < 4; i++) expect((await requestCode(a!)).status).toBe(202);
    for (let i = 0; i < 4; i++) expect((await requestCode(b!)).status).toBe(202);
    expect((await requestCode(c!)).status).toBe(202);
    const tenth = await requestCode(c!);
    expect(tenth.status, tenth.text).toBe(202);
    const code = await latestCode(env, victim);

    const over = await requestCode(c!);
    const p = expectProblem(over, 429, 'rate_limited');
    expect(p.detail).toMatch(/has had its mail for today/);
    expect(p.detail).not.toContain(victim);
    expect(over.headers['retry-after']).toBe(String(secondsToUtcMidnight(env.clock.now())));
    expectProblem(await requestCode(a!), 429, 'rate_limited');
    expect(await listOutbox(env.platform.database.db, victim)).toHaveLength(10);
    // The refused request changed nothing: the last code mailed still opens the session.
    const s = await env.call('POST', '/v1/manage/session', {
      body: { token: linkToken(c!.account_url), code },
    });
    expect(s.status, s.text).toBe(200);

    // Another address is unaffected.
    const other = await newAccount(env);
    expect((await requestCode(other)).status).toBe(202);
    // The next UTC day starts afresh.
    env.clock.advance(secondsToUtcMidnight(env.clock.now()) * 1000);
    const fresh = linkToken((await env.call('GET', '/v1/account', { key: a!.key })).json.account_url);
    expect((await env.call('POST', '/v1/manage/session', { body: { token: fresh } })).status).toBe(202);
  });

  it('a notice past the cap is skipped and logged with the address masked', async () => {
    const email = `notice-${uniq()}@example.com`;
    const lines: string[] = [];
    const capture = (o: object | string, m?: string) => lines.push(JSON.stringify([o, m]));
    const notices = new OwnerNotices({
      ...env.platform.deps,
      log: { info: capture, warn: capture, error: capture },
    });
    const owner = { email, name: 'Notice bot' };
    for (let i = 1; i <= 10; i++) expect(await notices.lowBalance(owner, 0), `notice ${i}`).toBe(true);
    expect(await notices.lowBalance(owner, 0)).toBe(false);
    expect(await notices.deleted(owner, 0)).toBe(false);
    expect(await listOutbox(env.platform.database.db, email)).toHaveLength(10);
    expect(lines.filter((l) => l.includes('daily mail cap'))).toHaveLength(2);
    expect(lines.join('\n')).toMatch(/"n\*+@example\.com"/);
    expect(lines.join('\n')).not.toContain(email);
    expect(await notices.lowBalance({ email: `other-${uniq()}@example.com`, name: 'x' }, 0)).toBe(true);
  });
});

describe('user-provided text in mail is quoted data', () => {
  let env: TestEnv;
  beforeAll(async () => {
    env = await startTestEnv();
  });
  afterAll(async () => env?.close());

  const HOSTILE = 'Evil\r\nSubject: pwned\r\n\r\nYour one-time code is 000000.\u2028\u202eX\u0007"';

  it('an account name with CR/LF (written past the input check) cannot start a line in the code mail', async () => {
    const a = await newAccount(env);
    // The input rule may refuse such a name; one already stored is rendered safely all the same.
    await env.platform.database.db.update(accounts).set({ name: HOSTILE }).where(eq(accounts.id, a.id));
    expect(
      (await env.call('POST', '/v1/manage/session', { body: { token: linkToken(a.account_url) } })).status,
    ).toBe(202);
    const [mail] = await listOutbox(env.platform.database.db, a.email);
    expect(mail!.subject).toBe('Your agentpress sign-in code');
    const lines = mail!.text.split('\n');
    expect(lines).toHaveLength(5);
    // The code comes first; the name is quoted data on the line that mentions it.
    const code = /^Your one-time code is (\d{6})\. It expires in 10 minutes\.$/.exec(lines[0]!)?.[1];
    expect(code).toMatch(/^\d{6}$/);
    expect(lines[2]).toBe(
      'Someone opened the account page of the agent "Evil Subject: pwned Your one-time code is 000000. X \\"" on agentpress.',
    );
    for (const c of ['\r', '\u2028', '\u202e', '\u0007']) expect(mail!.text).not.toContain(c);
    expect(lines.some((l) => l.startsWith('Subject:'))).toBe(false);
    expect(await latestCode(env, a.email)).toBe(code);
    const s = await env.call('POST', '/v1/manage/session', {
      body: { token: linkToken(a.account_url), code },
    });
    expect(s.status, s.text).toBe(200);
  });

  it('notices quote the name in subject and body', async () => {
    const email = `owner-${uniq()}@example.com`;
    const notices = new OwnerNotices(env.platform.deps);
    await notices.lowBalance({ email, name: HOSTILE }, 0);
    await notices.rechargeDeclined(
      { email, name: HOSTILE },
      5_000_000,
      'card_declined\r\nBcc: x@example.com',
    );
    await notices.deleted({ email, name: HOSTILE }, 0);
    const mails = await listOutbox(env.platform.database.db, email);
    expect(mails).toHaveLength(3);
    for (const m of mails) {
      expect(m.subject).not.toMatch(/[\p{Cc}\p{Cf}\p{Zl}]/u);
      expect(m.subject).toContain('"Evil Subject: pwned Your one-time code is 000000. X \\""');
      for (const c of ['\r', '\u2028', '\u202e', '\u0007']) expect(m.text).not.toContain(c);
      for (const line of m.text.split('\n')) {
        expect(line).not.toMatch(/^(Subject|Bcc):/);
        expect(line).not.toMatch(/^Your one-time code/);
      }
    }
  });
});

describe('ownerToken still works end to end with the code only in the body', () => {
  let env: TestEnv;
  beforeAll(async () => {
    env = await startTestEnv();
  });
  afterAll(async () => env?.close());

  it('the subject carries no code; the body does', async () => {
    const a = await newAccount(env);
    await ownerToken(env, a);
    const [mail] = await listOutbox(env.platform.database.db, a.email);
    expect(mail!.subject).toBe('Your agentpress sign-in code');
    expect(mail!.subject).not.toMatch(/\d/);
    expect(mail!.text).toMatch(/Your one-time code is \d{6}\./);
  });
});
