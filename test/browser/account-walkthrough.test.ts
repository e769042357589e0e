import { eq } from 'drizzle-orm';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { KEY_PREFIX } from '../../src/core/accounts/keys.js';
import { ledgerSum } from '../../src/core/billing/ledger.js';
import { accounts, ledger } from '../../src/db/schema.js';
import { chromiumKit, SHOTS } from '../helpers/browser.js';
import { newAccount } from '../helpers/flows.js';
import { startTestEnv, type TestEnv } from '../helpers/harness.js';
import { MailCatcher } from '../helpers/mail-catcher.js';

const smtp = new MailCatcher();
let env: TestEnv;
beforeAll(async () => {
  await smtp.start();
  env = await startTestEnv({ env: { SMTP_URL: smtp.url } });
});
afterAll(async () => {
  await env?.close();
  await smtp.stop();
});
const web = chromiumKit(() => env);

const submit = (page: Page, action: string) => page.click(`form[action="${action}"] button[type=submit]`);
const text = async (page: Page, selector: string) => (await page.textContent(selector))?.trim() ?? '';

describe('the owner in Chromium: account_url, code by SMTP, card, top-up, auto-recharge, keys, deletion', () => {
  it('walks the whole account page', async () => {
    const agent = await newAccount(env, 'Walkthrough bot');
    const link = new URL(agent.account_url);
    const { page, dialogs } = await web.page();

    // 1. The owner opens account_url and proves the address with the code the SMTP server received.
    const opened = await page.goto(`${web.base}${link.pathname}${link.search}`);
    expect(opened!.headers()['content-security-policy']).toContain("default-src 'none'");
    await submit(page, '/account/code');
    await page.waitForSelector('#code');
    const mail = smtp.to(agent.email).at(-1)!;
    expect(mail.headers.get('subject')).toMatch(/code/);
    await page.fill('#code', smtp.latestCode(agent.email));
    await submit(page, '/account/verify');
    await page.waitForSelector('#balance');
    expect(await text(page, 'h1')).toBe('Walkthrough bot');
    expect(await text(page, '#balance')).toBe('$0.00');
    expect(await text(page, '#card')).toBe('No card on file.');

    // 2. A declined test card, then a good one: only brand and last four are shown or kept.
    await page.fill('#card-number', '4000 0000 0000 0002');
    await submit(page, '/account/card');
    expect(await text(page, '#error')).toMatch(/declined/);
    await page.fill('#card-number', '4242 4242 4242 4242');
    await submit(page, '/account/card');
    expect(await text(page, '#card')).toBe('visa ending in 4242');
    expect(await page.content()).not.toContain('4242424242424242');

    // 3. Top up $10 from the pricing list.
    await page.selectOption('#amount', '10000000');
    await submit(page, '/account/top-up');
    expect(await text(page, '#notice')).toBe('Added $10.00.');
    expect(await text(page, '#balance')).toBe('$10.00');
    expect(await text(page, '#ledger')).toContain('Top-up');

    // 4. Auto-recharge on (here, and only here): under $2.00 add $5.00.
    await page.check('#ar-enabled');
    await page.fill('#ar-threshold', '2.00');
    await page.selectOption('#ar-amount', '5000000');
    await submit(page, '/account/auto-recharge');
    expect(await text(page, '#auto-recharge')).toContain(
      'On: when a charge leaves the balance under $2.00, $5.00',
    );
    const me = (await env.call('GET', '/v1/account', { key: agent.key })).json;
    expect(me).toMatchObject({
      card_on_file: true,
      balance: 10_000_000,
      auto_recharge: { enabled: true, threshold: 2_000_000, amount: 5_000_000 },
    });
    await page.screenshot({ path: `${SHOTS}/account-money.png`, fullPage: true });

    // 5. Create a key, see it work, revoke it, see it stop.
    expect(await text(page, '#key-count')).toBe('1');
    await submit(page, '/account/keys');
    const newKey = await text(page, '#new-key');
    expect(newKey.startsWith(`${KEY_PREFIX}_`)).toBe(true);
    expect(await text(page, '#key-count')).toBe('2');
    expect((await env.call('GET', '/v1/account', { key: newKey })).status).toBe(200);
    const prefix = newKey.slice(0, KEY_PREFIX.length + 7);
    await page.click(`#keys tr:has-text("${prefix}") button[type=submit]`);
    expect(await text(page, '#notice')).toBe('The key was revoked.');
    expect(await text(page, '#key-count')).toBe('1');
    expect((await env.call('GET', '/v1/account', { key: newKey })).status).toBe(401);

    // 6. Request deletion, then keep the account: nothing changed.
    await submit(page, '/account/deletion');
    await page.waitForSelector('#deletion');
    expect(await text(page, '#status')).toBe('pending_deletion');
    await submit(page, '/account/deletion/cancel');
    expect(await text(page, '#notice')).toMatch(/cancelled/);
    expect(await text(page, '#status')).toBe('active');
    expect((await env.call('GET', '/v1/account', { key: agent.key })).json.status).toBe('active');

    // 7. Request again and confirm with a refund of the unused balance.
    await submit(page, '/account/deletion');
    await page.check('#refund');
    await submit(page, '/account/deletion/confirm');
    await page.waitForSelector('#deleted');
    expect(await text(page, '#refunded')).toBe('$10.00 was refunded to your card.');
    await page.screenshot({ path: `${SHOTS}/account-deleted.png`, fullPage: true });
    expect((await env.call('GET', '/v1/account', { key: agent.key })).status).toBe(401);
    const [row] = await env.platform.database.db.select().from(accounts).where(eq(accounts.id, agent.id));
    expect(row).toMatchObject({ status: 'deleted', balance: 0, email: '' });
    expect(await ledgerSum(env.platform.database.db, agent.id)).toBe(0);
    const kinds = (
      await env.platform.database.db.select().from(ledger).where(eq(ledger.accountId, agent.id))
    ).map((l) => l.kind);
    expect(kinds).toEqual(['top_up', 'withdrawal']);
    expect(smtp.to(agent.email).at(-1)!.headers.get('subject')).toMatch(/was deleted/);
    // The page is gone with the session.
    expect((await page.goto(`${web.base}/account`))!.status()).toBe(401);
    expect(dialogs).toEqual([]);
    await page.close();
  });
});
