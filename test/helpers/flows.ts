import { randomBytes } from 'node:crypto';
import { expect } from 'vitest';
import { post as ledgerPost } from '../../src/core/billing/ledger.js';
import { ADMIN_TOKEN, type Reply, type TestEnv } from './harness.js';

export const uniq = () => randomBytes(4).toString('hex');

export interface TestAccount {
  id: string;
  key: string;
  email: string;
  account_url: string;
  owner?: string;
}

/** Asserts the RFC 9457 shape DESIGN.md pins and returns the problem body. */
export function expectProblem(r: Reply, status: number, code?: string) {
  expect(r.status, r.text).toBe(status);
  expect(String(r.headers['content-type'])).toMatch(/^application\/problem\+json/);
  for (const m of ['type', 'title', 'status', 'detail', 'code']) expect(r.json).toHaveProperty(m);
  expect(r.json.status).toBe(status);
  if (code) expect(r.json.code).toBe(code);
  expect(r.json.type).toMatch(new RegExp(`/errors/${r.json.code}$`));
  expect(r.json.error.code).toBe(r.json.code);
  expect(typeof r.json.error.message).toBe('string');
  expect(r.headers['x-request-id']).toMatch(/^req_/);
  return r.json;
}

export async function newAccount(env: TestEnv, name = `agent ${uniq()}`): Promise<TestAccount> {
  const email = `owner-${uniq()}@example.com`;
  const r = await env.call('POST', '/v1/accounts', { body: { name, email, accept_terms: true } });
  expect(r.status, r.text).toBe(201);
  return { id: r.json.id, key: r.json.api_key, email, account_url: r.json.account_url };
}

export const linkToken = (accountUrl: string) => new URL(accountUrl).searchParams.get('token') ?? '';

/** The newest six-digit code in the outbox for this address. */
export async function latestCode(env: TestEnv, email: string): Promise<string> {
  const r = await env.call('GET', `/v1/admin/outbox?to=${encodeURIComponent(email)}`, { key: ADMIN_TOKEN });
  expect(r.status, r.text).toBe(200);
  for (const m of r.json.data) {
    const code = /\b(\d{6})\b/.exec(`${m.subject}\n${m.text}`);
    if (code?.[1]) return code[1];
  }
  throw new Error(`no code mailed to ${email}`);
}

/** A six-digit code that is certainly not `code`. */
export const otherCode = (code: string) => String((Number(code) + 1) % 1_000_000).padStart(6, '0');

/** Where a test reads the newest code mailed to an address (default: the admin outbox). */
export type CodeReader = (email: string) => string | Promise<string>;

/** Asks for an owner code with the account link (202) and answers the code mailed for it. */
export async function requestOwnerCode(
  env: TestEnv,
  acct: TestAccount,
  token = linkToken(acct.account_url),
  readCode: CodeReader = (email) => latestCode(env, email),
): Promise<string> {
  const r = await env.call('POST', '/v1/manage/session', { body: { token } });
  expect(r.status, r.text).toBe(202);
  return readCode(acct.email);
}

/** The owner proof (link, then the mailed code): answers the owner token and keeps it on `acct`. */
export async function ownerToken(env: TestEnv, acct: TestAccount, readCode?: CodeReader): Promise<string> {
  const token = linkToken(acct.account_url);
  const code = await requestOwnerCode(env, acct, token, readCode);
  const r = await env.call('POST', '/v1/manage/session', { body: { token, code } });
  expect(r.status, r.text).toBe(200);
  acct.owner = r.json.owner_token;
  return r.json.owner_token;
}

export async function fundedAccount(env: TestEnv, amount = 5_000_000): Promise<TestAccount> {
  const acct = await newAccount(env);
  const owner = await ownerToken(env, acct);
  const r = await env.call('POST', '/v1/manage/top-ups', { key: owner, body: { amount } });
  expect(r.status, r.text).toBe(201);
  return acct;
}

/** A new account credited `amount` straight in the ledger (no owner, no payment provider). */
export async function creditedAccount(env: TestEnv, amount: number): Promise<TestAccount> {
  const a = await newAccount(env);
  await ledgerPost(env.platform.database.db, {
    accountId: a.id,
    kind: 'top_up',
    amount,
    at: env.clock.now(),
  });
  return a;
}

/** Exactly n words in two paragraphs. */
export function wordsExactly(n: number): string {
  const w = Array.from({ length: n }, (_, k) => `word${k}`);
  const half = Math.floor(n / 2);
  return `${w.slice(0, half).join(' ')}\n\n${w.slice(half).join(' ')}`;
}
