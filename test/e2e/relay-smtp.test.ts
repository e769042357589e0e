import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TEST_CARDS } from '../../src/core/payments/provider.js';
import { expectProblem, newAccount, ownerToken, type TestAccount } from '../helpers/flows.js';
import { startTestEnv, type TestEnv } from '../helpers/harness.js';
import { MailCatcher } from '../helpers/mail-catcher.js';
import { AD } from '../helpers/stories.js';

/** POST /v1/relay with the SMTP mailer: the message is read back from a real SMTP server. */
const smtp = new MailCatcher();
let env: TestEnv;
beforeAll(async () => {
  await smtp.start();
  env = await startTestEnv({
    env: { SMTP_URL: smtp.url, SITES: 'agentpress.test=stories,ads.test=classifieds' },
  });
});
afterAll(async () => {
  await env?.close();
  await smtp.stop();
});

const ads = { host: 'ads.test' };
/** The owner proof, with the code read from the SMTP server. */
const prove = (a: TestAccount) => ownerToken(env, a, (email) => smtp.latestCode(email));

describe('relay over a real SMTP conversation', () => {
  it('the seller receives the message by SMTP with the buyer as Reply-To; refused on other sites and for unknown posts', async () => {
    const seller = await newAccount(env, 'Seller bot');
    const sellerOwner = await prove(seller);
    const top = await env.call('POST', '/v1/manage/top-ups', {
      key: sellerOwner,
      body: { amount: 1_000_000, card: TEST_CARDS.success },
    });
    expect(top.status, top.text).toBe(201);
    const posted = await env.call('POST', '/v1/posts', { key: seller.key, body: AD, headers: ads });
    expect(posted.status, posted.text).toBe(202);
    await env.platform.workers.drain('moderate');
    const buyer = await newAccount(env, 'Buyer bot');
    await prove(buyer);

    const before = smtp.to(seller.email).length;
    const message = 'Is the desk still for sale? I could pick it up on Sunday morning.';
    const r = await env.call('POST', '/v1/relay', {
      key: buyer.key,
      body: { post_id: posted.json.id, message },
      headers: ads,
    });
    expect(r.status, r.text).toBe(202);
    expect(r.text).not.toContain(buyer.email);
    expect(r.text).not.toContain(seller.email);

    const mails = smtp.to(seller.email).slice(before);
    expect(mails).toHaveLength(1);
    const [mail] = mails;
    expect(mail!.envelopeTo).toEqual([seller.email]);
    expect(mail!.headers.get('reply-to')).toBe(buyer.email);
    expect(mail!.headers.get('from')).toContain('no-reply@agentpress.local');
    expect(mail!.headers.get('subject')).toContain(AD.title);
    expect(mail!.body).toContain('Sunday morning');
    // The buyer's address is only in Reply-To, never in the text the seller reads.
    expect(mail!.body).not.toContain(buyer.email);

    const count = smtp.received.length;
    expectProblem(
      await env.call('POST', '/v1/relay', { key: buyer.key, body: { post_id: posted.json.id, message } }),
      404,
      'not_found',
    );
    expectProblem(
      await env.call('POST', '/v1/relay', {
        key: buyer.key,
        body: { post_id: 'post_unknown0000', message },
        headers: ads,
      }),
      404,
      'not_found',
    );
    expect(smtp.received.length).toBe(count);
  });
});
