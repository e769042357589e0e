import { randomBytes } from 'node:crypto';
import { story } from '../helpers/stories.js';

export const ADMIN = 'cluster-admin-token-0123456789abcdef';

export interface Answer {
  status: number;
  /** 0 when the request failed at the network level (`error` says how). */
  error?: string;
  retryAfter: string | null;
  contentType: string | null;
  // biome-ignore lint/suspicious/noExplicitAny: replies are inspected freely in tests
  json: any;
  at: number;
  method: string;
  path: string;
  /** postOnce only, when the deadline passed: every answer this post got, in order. */
  trail?: string[];
}

export async function call(
  base: string,
  method: string,
  path: string,
  o: { key?: string; body?: unknown; headers?: Record<string, string>; timeoutMs?: number } = {},
): Promise<Answer> {
  const headers: Record<string, string> = { accept: 'application/json', ...o.headers };
  if (o.key) headers.authorization = `Bearer ${o.key}`;
  if (o.body !== undefined) headers['content-type'] = 'application/json';
  try {
    const r = await fetch(`${base}${path}`, {
      method,
      headers,
      ...(o.body !== undefined ? { body: JSON.stringify(o.body) } : {}),
      signal: AbortSignal.timeout(o.timeoutMs ?? 15_000),
    });
    const text = await r.text();
    let json: unknown;
    try {
      json = text ? JSON.parse(text) : undefined;
    } catch {
      json = undefined;
    }
    return {
      status: r.status,
      retryAfter: r.headers.get('retry-after'),
      contentType: r.headers.get('content-type'),
      json,
      at: Date.now(),
      method,
      path,
    };
  } catch (err) {
    const cause = (err as { cause?: { code?: string } }).cause;
    return {
      status: 0,
      error: cause?.code ?? String(err),
      retryAfter: null,
      contentType: null,
      json: undefined,
      at: Date.now(),
      method,
      path,
    };
  }
}

export interface Account {
  id: string;
  key: string;
}

/** Signs up, proves the owner through the outbox code and tops up (through the API, as a person would). */
export async function fundedAccount(base: string, amount = 20_000_000): Promise<Account> {
  const email = `owner-${randomBytes(4).toString('hex')}@example.com`;
  const a = await call(base, 'POST', '/v1/accounts', {
    body: { name: `rel ${email}`, email, accept_terms: true },
  });
  if (a.status !== 201) throw new Error(`sign-up: ${a.status} ${JSON.stringify(a.json)}`);
  const token = new URL(a.json.account_url).searchParams.get('token') ?? '';
  const s = await call(base, 'POST', '/v1/manage/session', { body: { token } });
  if (s.status !== 202) throw new Error(`session: ${s.status}`);
  const mail = await call(base, 'GET', `/v1/admin/outbox?to=${encodeURIComponent(email)}`, { key: ADMIN });
  const code = /\b(\d{6})\b/.exec(`${mail.json.data[0].subject}\n${mail.json.data[0].text}`)?.[1];
  const o = await call(base, 'POST', '/v1/manage/session', { body: { token, code } });
  if (o.status !== 200) throw new Error(`owner: ${o.status}`);
  const t = await call(base, 'POST', '/v1/manage/top-ups', { key: o.json.owner_token, body: { amount } });
  if (t.status !== 201) throw new Error(`top-up: ${t.status}`);
  return { id: a.json.id, key: a.json.api_key };
}

export async function registerWebhook(
  base: string,
  key: string,
  url: string,
): Promise<{ id: string; secret: string }> {
  const r = await call(base, 'POST', '/v1/webhooks', { key, body: { url } });
  if (r.status !== 201) throw new Error(`webhook: ${r.status} ${JSON.stringify(r.json)}`);
  return { id: r.json.id, secret: r.json.secret };
}

export function newStory() {
  return { title: `A story ${randomBytes(3).toString('hex')}`, body: story(180), topics: ['reliability'] };
}

/**
 * One logical post as a careful agent sends it: one Idempotency-Key, retried with the same key
 * after a 503/429 (Retry-After) or a network error, until `deadline`. Every answer is recorded.
 */
export async function postOnce(
  base: string | (() => string),
  key: string,
  log: Answer[],
  deadline: number,
): Promise<Answer | undefined> {
  const idem = `rel-${randomBytes(8).toString('hex')}`;
  const body = newStory();
  const mine: Answer[] = [];
  while (Date.now() < deadline) {
    const url = typeof base === 'string' ? base : base();
    const r = await call(url, 'POST', '/v1/posts', { key, body, headers: { 'idempotency-key': idem } });
    log.push(r);
    mine.push(r);
    if (r.status === 202) return r;
    if (r.status === 0 || r.status === 503 || r.status === 429 || r.status === 409) {
      const wait = Number(r.retryAfter ?? '1');
      await new Promise((res) => setTimeout(res, Math.min(2000, Math.max(200, wait * 1000))));
      continue;
    }
    throw new Error(`post answered ${r.status}: ${JSON.stringify(r.json)}`);
  }
  const last = mine.at(-1);
  if (!last) return undefined;
  const start = mine[0]?.at ?? 0;
  const trail = mine.map((a) => `+${a.at - start}ms ${a.status} ${a.error ?? a.json?.code ?? ''}`);
  return { ...last, trail };
}
