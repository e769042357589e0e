import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { freePort, mainCommand, ROOT, waitFor } from '../../scripts/lib/cluster.js';

/**
 * "No code, token, key or e-mail body in any log line": the real server (`npm start`'s process,
 * PGlite, outbox mail, LOG_LEVEL=debug) goes through a whole flow while every line it writes is
 * kept; then each secret the flow created is searched for in those lines.
 */
interface Server {
  url: string;
  output: string[];
  child: ChildProcess;
}

const dirs: string[] = [];
afterAll(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

async function start(dataDir: string, env: Record<string, string> = {}): Promise<Server> {
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  const child = spawn(process.execPath, mainCommand(), {
    cwd: ROOT,
    env: {
      PATH: process.env.PATH ?? '',
      HOME: process.env.HOME ?? '/tmp',
      DATA_DIR: dataDir,
      PORT: String(port),
      HOST: '127.0.0.1',
      BASE_URL: url,
      LOG_LEVEL: 'debug',
      MODERATOR_START_SECONDS: '0',
      MODERATOR_DECISION_SECONDS: '0',
      ...env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const output: string[] = [];
  child.stdout?.on('data', (c: Buffer) => output.push(c.toString('utf8')));
  child.stderr?.on('data', (c: Buffer) => output.push(c.toString('utf8')));
  await waitFor(
    'the server to be ready',
    async () => {
      if (child.exitCode !== null) throw new Error(`exited:\n${output.join('')}`);
      return (await fetch(`${url}/readyz`, { signal: AbortSignal.timeout(1000) })).status === 200;
    },
    60_000,
    150,
  );
  return { url, output, child };
}

async function stop(s: Server): Promise<string> {
  if (s.child.exitCode === null) {
    const gone = new Promise((r) => s.child.once('exit', r));
    s.child.kill('SIGTERM');
    await gone;
  }
  return s.output.join('');
}

async function api(s: Server, method: string, path: string, body?: unknown, bearer?: string) {
  const headers: Record<string, string> = {};
  if (body !== undefined) headers['content-type'] = 'application/json';
  if (bearer) headers.authorization = `Bearer ${bearer}`;
  const r = await fetch(`${s.url}${path}`, {
    method,
    headers,
    ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
  });
  const text = await r.text();
  return { status: r.status, json: text ? (JSON.parse(text) as Record<string, unknown>) : {} };
}

describe('"no code, token, key or e-mail body in any log line"', () => {
  it('a whole flow on the real server leaves none of its secrets in the log', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'agentpress-logs-'));
    dirs.push(dataDir);
    const adminToken = `ap_admin_${'x'.repeat(8)}${Date.now().toString(36)}`;
    const s = await start(dataDir, { ADMIN_TOKEN: adminToken, WEBHOOK_ALLOW_TARGETS: '127.0.0.1' });
    const secrets: Record<string, string> = { adminToken };
    try {
      const email = `owner-${Date.now().toString(36)}@example.com`;
      const created = await api(s, 'POST', '/v1/accounts', { name: 'Log probe', email, accept_terms: true });
      expect(created.status).toBe(201);
      secrets.apiKey = String(created.json.api_key);
      const link = new URL(String(created.json.account_url)).searchParams.get('token') ?? '';
      secrets.linkToken = link;
      expect((await api(s, 'POST', '/v1/manage/session', { token: link })).status).toBe(202);
      const outbox = await api(
        s,
        'GET',
        `/v1/admin/outbox?to=${encodeURIComponent(email)}`,
        undefined,
        adminToken,
      );
      expect(outbox.status).toBe(200);
      const mail = (outbox.json.data as { text: string }[])[0]!;
      const code = /\b(\d{6})\b/.exec(mail.text)?.[1] ?? '';
      expect(code).toMatch(/^\d{6}$/);
      secrets.code = code;
      // A distinctive sentence of the mail's body (the line that carries the code).
      secrets.mailLine = mail.text.split('\n').find((l) => l.includes(code)) ?? '';
      const session = await api(s, 'POST', '/v1/manage/session', { token: link, code });
      expect(session.status).toBe(200);
      secrets.ownerToken = String(session.json.owner_token);
      const key2 = await api(s, 'POST', '/v1/manage/keys', {}, secrets.ownerToken);
      expect(key2.status).toBe(201);
      secrets.secondKey = String(key2.json.api_key);
      const top = await api(s, 'POST', '/v1/manage/top-ups', { amount: 5_000_000 }, secrets.ownerToken);
      expect(top.status).toBeLessThan(300);
      const hook = await api(
        s,
        'POST',
        '/v1/webhooks',
        { url: 'http://127.0.0.1:9/hook', events: ['post.published'] },
        secrets.apiKey,
      );
      expect(hook.status).toBe(201);
      secrets.webhookSecret = String(hook.json.secret);
      // Wrong credentials are logged as failures, never echoed.
      await api(s, 'GET', '/v1/account', undefined, `${secrets.apiKey}x`);
      await api(s, 'GET', '/v1/account', undefined, secrets.secondKey);
      await fetch(`${s.url}/account?token=${link}`);
    } finally {
      const log = await stop(s);
      expect(log.length).toBeGreaterThan(200);
      for (const [name, value] of Object.entries(secrets)) {
        expect(value.length, name).toBeGreaterThan(5);
        expect(log.includes(value), `${name} appears in the log`).toBe(false);
      }
    }
  }, 120_000);

  it('the admin token is printed once, when it was just generated; never when it came from ADMIN_TOKEN', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'agentpress-token-'));
    dirs.push(dataDir);
    const first = await stop(await start(dataDir));
    const token = readFileSync(join(dataDir, 'admin-token'), 'utf8').trim();
    expect(token.length).toBeGreaterThan(20);
    expect(first).toContain(token);
    const second = await stop(await start(dataDir));
    expect(second).not.toContain(token);
    const fromEnv = 'ap_admin_from_the_environment_0123456789';
    const third = await stop(await start(dataDir, { ADMIN_TOKEN: fromEnv }));
    expect(third).not.toContain(fromEnv);
  }, 120_000);
});
