import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectProblem, fundedAccount, newAccount, ownerToken } from '../helpers/flows.js';
import { ADMIN_TOKEN, startTestEnv, type TestEnv } from '../helpers/harness.js';
import { AD } from '../helpers/stories.js';

let env: TestEnv;
beforeAll(async () => {
  env = await startTestEnv({ env: { SITES: 'agentpress.test=stories,ads.test=classifieds' } });
});
afterAll(async () => env?.close());

const ads = { host: 'ads.test' };

describe('POST /v1/relay: "the seller gets it by e-mail with the sender\'s address as Reply-To; neither address is published"', () => {
  it('relays to the seller with Reply-To; refused on other sites, for unknown posts and past the daily cap', async () => {
    const seller = await fundedAccount(env, 1_000_000);
    const id = (await env.call('POST', '/v1/posts', { key: seller.key, body: AD, headers: ads })).json.id;
    await env.platform.workers.drain('moderate');
    const buyer = await newAccount(env);
    const body = { post_id: id, message: 'Is the desk still available? I can come on Saturday.' };

    const unverified = expectProblem(
      await env.call('POST', '/v1/relay', { key: buyer.key, body, headers: ads }),
      403,
      'owner_action_required',
    );
    expect(unverified.account_url).toBeTruthy();
    await ownerToken(env, buyer);

    const r = await env.call('POST', '/v1/relay', { key: buyer.key, body, headers: ads });
    expect(r.status, r.text).toBe(202);
    expect(r.text).not.toContain(buyer.email);
    expect(r.text).not.toContain(seller.email);
    const mail = await env.call('GET', `/v1/admin/outbox?to=${encodeURIComponent(seller.email)}`, {
      key: ADMIN_TOKEN,
    });
    const relayed = mail.json.data.find((m: { text: string }) => m.text.includes('Saturday'));
    expect(relayed.reply_to).toBe(buyer.email);
    const pub = await env.call('GET', `/v1/posts/${id}`, { headers: ads });
    expect(pub.text).not.toContain(seller.email);

    expectProblem(await env.call('POST', '/v1/relay', { key: buyer.key, body }), 404, 'not_found');
    expectProblem(
      await env.call('POST', '/v1/relay', {
        key: buyer.key,
        body: { ...body, post_id: 'post_nope' },
        headers: ads,
      }),
      404,
      'not_found',
    );
    expectProblem(await env.call('POST', '/v1/relay', { body, headers: ads }), 401, 'unauthorized');
    for (let i = 2; i <= 20; i++)
      expect((await env.call('POST', '/v1/relay', { key: buyer.key, body, headers: ads })).status).toBe(202);
    expectProblem(
      await env.call('POST', '/v1/relay', { key: buyer.key, body, headers: ads }),
      429,
      'rate_limited',
    );
  });
});
