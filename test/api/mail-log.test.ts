import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { listOutbox, OutboxMailer } from '../../src/core/mail/mailer.js';
import { jsonLogger } from '../../src/log.js';
import { uniq } from '../helpers/flows.js';
import { startTestEnv, type TestEnv } from '../helpers/harness.js';

/**
 * "No code, token or mail body in any log line": a platform whose logger keeps every line
 * (LOG_LEVEL debug, the outbox mailer announcing each mail through it) goes through sign-up,
 * a code request and the sign-in; then the lines are searched for what the flow must not log.
 */
const lines: string[] = [];
let env: TestEnv;

beforeAll(async () => {
  env = await startTestEnv({
    env: { LOG_LEVEL: 'debug' },
    log: jsonLogger('debug', {}, (line) => lines.push(line)),
  });
});
afterAll(async () => env?.close());

const post = (url: string, body: unknown) => env.call('POST', url, { body });

describe('the log of a code request', () => {
  it('holds the mail’s id, kind and masked address, never the code, the address, the subject or the body', async () => {
    const email = `logged-${uniq()}@example.com`;
    const created = await post('/v1/accounts', { name: 'Log probe', email, accept_terms: true });
    expect(created.status).toBe(201);
    const token = new URL(created.json.account_url).searchParams.get('token') ?? '';
    expect((await post('/v1/manage/session', { token })).status).toBe(202);

    const [mail] = await listOutbox(env.platform.database.db, email);
    const code = /Your one-time code is (\d{6})\./.exec(mail!.text)?.[1] ?? '';
    expect(code).toMatch(/^\d{6}$/);
    expect(mail!.subject).toBe('Your agentpress sign-in code');
    const signedIn = await post('/v1/manage/session', { token, code });
    expect(signedIn.status).toBe(200);

    const log = lines.join('');
    const announced = lines.filter((l) => l.includes(mail!.id));
    expect(announced, 'the outbox mailer announces the mail').toHaveLength(1);
    expect(announced[0]).toContain('(owner_code)');
    expect(announced[0]).toMatch(/to l\*+@example\.com/);
    for (const [what, secret] of Object.entries({
      code,
      email,
      subject: mail!.subject,
      body: mail!.text.split('\n')[0]!,
      apiKey: created.json.api_key as string,
      linkToken: token,
      ownerToken: signedIn.json.owner_token as string,
    })) {
      expect(log.includes(secret), `${what} appears in the log`).toBe(false);
    }
  });

  it('the outbox mailer logs neither subject nor text even when they hold a code', async () => {
    const logged: string[] = [];
    const mailer = new OutboxMailer(env.platform.database.db, env.clock, (m) => logged.push(m));
    await mailer.send({
      kind: 'owner_code',
      to: 'Someone.Else@Example.com',
      subject: 'code 424242',
      text: 'Your code is 424242.',
    });
    expect(logged).toHaveLength(1);
    expect(logged[0]).toMatch(/^mail mail_\S+ \(owner_code\) to S\*+@Example\.com/);
    expect(logged[0]).not.toContain('424242');
    expect(logged[0]).not.toContain('Someone.Else');
  });
});
