import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectProblem, linkToken, newAccount } from '../helpers/flows.js';
import { ADMIN_TOKEN, startTestEnv, type TestEnv } from '../helpers/harness.js';
import { type CaughtMail, MailCatcher } from '../helpers/mail-catcher.js';

const catcher = new MailCatcher();
const received = catcher.received;

let env: TestEnv;
let port = 0;

beforeAll(async () => {
  await catcher.start();
  port = Number(new URL(catcher.url).port);
  env = await startTestEnv({ env: { SMTP_URL: `smtp://127.0.0.1:${port}` } });
});
afterAll(async () => {
  await env?.close();
  await catcher.stop();
});

const mailsTo = (address: string) => catcher.to(address);
const codeIn = (m: CaughtMail) => /\b(\d{6})\b/.exec(`${m.headers.get('subject')}\n${m.body}`)?.[1];

describe('owner proof over a real SMTP conversation', () => {
  it('SMTP_URL selects the SMTP mailer', () => {
    expect(env.platform.config.smtpUrl).toBe(`smtp://127.0.0.1:${port}`);
    expect(env.platform.deps.mailer.kind).toBe('smtp');
  });

  it('the code arrives by SMTP and opens the owner session', async () => {
    const a = await newAccount(env);
    const token = linkToken(a.account_url);
    const before = received.length;
    const r = await env.call('POST', '/v1/manage/session', { body: { token } });
    expect(r.status, r.text).toBe(202);

    // The send is awaited by the request, so the message is already here.
    expect(received.length).toBe(before + 1);
    const [mail] = mailsTo(a.email);
    expect(mail, 'a message to the account address').toBeDefined();
    expect(mail!.envelopeTo).toEqual([a.email]);
    expect(mail!.headers.get('to')).toContain(a.email);
    expect(mail!.envelopeFrom).toBe('no-reply@agentpress.local');
    expect(mail!.headers.get('from')).toContain('no-reply@agentpress.local');
    expect(mail!.body).toMatch(/expires in 10 minutes/);
    const code = codeIn(mail!);
    expect(code).toMatch(/^\d{6}$/);
    // Subject and body carry the same code.
    expect(mail!.body).toContain(code);

    // Nothing went to the database outbox.
    const outbox = await env.call('GET', `/v1/admin/outbox?to=${encodeURIComponent(a.email)}`, {
      key: ADMIN_TOKEN,
    });
    expect(outbox.json.data).toEqual([]);

    const s = await env.call('POST', '/v1/manage/session', { body: { token, code } });
    expect(s.status, s.text).toBe(200);
    const me = await env.call('GET', '/v1/manage/account', { key: s.json.owner_token });
    expect(me.status, me.text).toBe(200);
    expect(me.json).toMatchObject({ id: a.id, email_verified: true });
  });

  it('a second request mails a new code and only the newest one works', async () => {
    const a = await newAccount(env);
    const token = linkToken(a.account_url);
    let first: string | undefined;
    let second: string | undefined;
    do {
      expect((await env.call('POST', '/v1/manage/session', { body: { token } })).status).toBe(202);
      const mails = mailsTo(a.email);
      first ??= codeIn(mails[0]!);
      second = codeIn(mails[mails.length - 1]!);
    } while (first === second);
    expectProblem(
      await env.call('POST', '/v1/manage/session', { body: { token, code: first! } }),
      401,
      'invalid_code',
    );
    expect((await env.call('POST', '/v1/manage/session', { body: { token, code: second! } })).status).toBe(
      200,
    );
  });

  it('a mail server that refuses the message is a clear 503, not a 500 that leaks', async () => {
    const a = await newAccount(env);
    catcher.rejectRecipients = true;
    try {
      const r = await env.call('POST', '/v1/manage/session', { body: { token: linkToken(a.account_url) } });
      const p = expectProblem(r, 503, 'service_unavailable');
      expect(Number(r.headers['retry-after'])).toBeGreaterThan(0);
      expect(r.text).not.toMatch(/550|mailbox|127\.0\.0\.1|smtp/i);
      expect(p.detail).toMatch(/code/i);
    } finally {
      catcher.rejectRecipients = false;
    }
    expect(mailsTo(a.email)).toHaveLength(0);
    // Once the server accepts mail again, the owner can carry on.
    const again = await env.call('POST', '/v1/manage/session', { body: { token: linkToken(a.account_url) } });
    expect(again.status, again.text).toBe(202);
    expect(mailsTo(a.email)).toHaveLength(1);
  });
});
