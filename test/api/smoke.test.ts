import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectProblem, fundedAccount } from '../helpers/flows.js';
import { startTestEnv, type TestEnv } from '../helpers/harness.js';

let env: TestEnv;
beforeAll(async () => {
  env = await startTestEnv();
});
afterAll(async () => env?.close());

describe('smoke', () => {
  it('status is up', async () => {
    const r = await env.call('GET', '/v1/status');
    expect(r.status).toBe(200);
    expect(r.json.api).toBe('up');
  });
  it('a funded account has its balance', async () => {
    const a = await fundedAccount(env, 1_000_000);
    const me = await env.call('GET', '/v1/account', { key: a.key });
    expect(me.json.balance).toBe(1_000_000);
    expect(me.json.email_verified).toBe(true);
  });
  it('unknown path is a problem', async () => {
    // No operation of the contract describes a path that does not exist.
    expectProblem(await env.call('GET', '/v1/nope', { unchecked: true }), 404, 'not_found');
  });
});
