import type { AddressInfo } from 'node:net';
import { SMTPServer } from 'smtp-server';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectProblem, linkToken, newAccount } from '../helpers/flows.js';
import { ADMIN_TOKEN, startTestEnv, type TestEnv } from '../helpers/harness.js';

/** One message as the SMTP server received it. */
interface Received {
  envelopeTo: string[];
  envelopeFrom: string;
  raw: string;
  headers: Map<string, string>;
  body: string;
}

/** Headers (unfolded, lower-case names) and a body decoded from quoted-printable or base64 if it is. */
function parseMessage(raw: string): { headers: Map<string, string>; body: string } {
  const split = raw.indexOf('\r\n\r\n');
  const head = raw.slice(0, split).replace(/\r\n[ \t]+/g, ' ');
  let body = raw.slice(split + 4);
  const headers = new Map<string, string>();
  for (const line of head.split('\r\n')) {
    const colon = line.indexOf(':');
    if (colon > 0) headers.set(line.slice(0, colon).trim().toLowerCase(), line.slice(colon + 1).trim());
  }
  const encoding = (headers.get('content-transfer-encoding') ?? '7bit').toLowerCase();
  if (encoding === 'quoted-printable') {
    body = body
      .replace(/=\r\n/g, '')
      .replace(/=([0-9A-F]{2})/gi, (_, h: string) => String.fromCharCode(Number.parseInt(h, 16)));
  } else if (encoding === 'base64') {
    body = Buffer.from(body.replace(/\s+/g, ''), 'base64').toString('utf8');
  }
  return { headers, body };
}

const received: Received[] = [];
let rejectRecipients = false;
const smtp = new SMTPServer({
  authOptional: true,
  disabledCommands: ['STARTTLS'],
  logger: false,
  onRcptTo(_address, _session, callback) {
    if (rejectRecipients) return callback(new Error('550 mailbox unavailable'));
    callback();
  },
  onData(stream, session, callback) {
    const chunks: Buffer[] = [];
    stream.on('data', (c: Buffer) => chunks.push(c));
    stream.on('end', () => {
      const raw = Buffer.concat(chunks).toString('utf8');
      received.push({
        envelopeTo: session.envelope.rcptTo.map((r) => r.address),
        envelopeFrom: session.envelope.mailFrom ? session.envelope.mailFrom.address : '',
        raw,
        ...parseMessage(raw),
      });
      callback();
    });
  },
});

let env: TestEnv;
let port = 0;

beforeAll(async () => {
  await new Promise<void>((resolve) => smtp.listen(0, '127.0.0.1', resolve));
  port = (smtp.server.address() as AddressInfo).port;
  env = await startTestEnv({ env: { SMTP_URL: `smtp://127.0.0.1:${port}` } });
});
afterAll(async () => {
  await env?.close();
  await new Promise<void>((resolve) => smtp.close(resolve));
});

const mailsTo = (address: string) => received.filter((m) => m.envelopeTo.includes(address));
const codeIn = (m: Received) => /\b(\d{6})\b/.exec(`${m.headers.get('subject')}\n${m.body}`)?.[1];

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
    rejectRecipients = true;
    try {
      const r = await env.call('POST', '/v1/manage/session', { body: { token: linkToken(a.account_url) } });
      const p = expectProblem(r, 503, 'service_unavailable');
      expect(Number(r.headers['retry-after'])).toBeGreaterThan(0);
      expect(r.text).not.toMatch(/550|mailbox|127\.0\.0\.1|smtp/i);
      expect(p.detail).toMatch(/code/i);
    } finally {
      rejectRecipients = false;
    }
    expect(mailsTo(a.email)).toHaveLength(0);
    // Once the server accepts mail again, the owner can carry on.
    const again = await env.call('POST', '/v1/manage/session', { body: { token: linkToken(a.account_url) } });
    expect(again.status, again.text).toBe(202);
    expect(mailsTo(a.email)).toHaveLength(1);
  });
});
