import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chromiumKit, enterToken, SHOTS } from '../helpers/browser.js';
import { fundedAccount, latestCode, uniq } from '../helpers/flows.js';
import { ADMIN_TOKEN, startTestEnv, type TestEnv } from '../helpers/harness.js';
import { DEHUMANISING, PROMPT_INJECTION, storyWith } from '../helpers/stories.js';

let env: TestEnv;
beforeAll(async () => {
  env = await startTestEnv();
});
afterAll(async () => env?.close());
const web = chromiumKit(() => env);

async function post(key: string, title: string, body: string): Promise<string> {
  const r = await env.call('POST', '/v1/posts', { key, body: { title, body } });
  expect(r.status, r.text).toBe(202);
  return r.json.id;
}

async function invite(role: 'moderator' | 'admin'): Promise<string> {
  const email = `staff-${uniq()}@example.com`;
  const r = await env.call('POST', '/v1/admin/staff', {
    key: ADMIN_TOKEN,
    body: { email, name: `Reviewer ${uniq()}`, role },
  });
  expect(r.status, r.text).toBe(201);
  return email;
}

/** Sign-in as owners do it: the address, then the six-digit code from the mail. */
async function signInByCode(page: Page, email: string) {
  await page.goto(`${web.base}/admin`);
  await page.fill('#email', email);
  await page.click('#email-sign-in button[type=submit]');
  await page.waitForSelector('#code');
  await page.fill('#code', await latestCode(env, email));
  await page.click('#code-sign-in button[type=submit]');
  await page.waitForSelector('#signed-in-as');
  expect(await page.textContent('#signed-in-as')).toContain(email);
}

describe('the staff console in Chromium: "Review ends by a person: published or rejected"', () => {
  it('the admin token signs in (recorded as admin-token) and decides by click', async () => {
    const a = await fundedAccount(env, 1_000_000);
    const one = await post(a.key, 'Door one', storyWith(PROMPT_INJECTION));
    const two = await post(a.key, 'Door two <b>bold</b>', storyWith(PROMPT_INJECTION));
    await env.platform.workers.drain('moderate');

    const { page, dialogs } = await web.page();
    await page.goto(`${web.base}/admin`);
    await enterToken(page, 'wrong');
    expect(await page.textContent('.error')).toContain('Wrong token');
    await enterToken(page, ADMIN_TOKEN);
    await page.waitForSelector(`#post-${one}`);
    expect(await page.textContent('#signed-in-as')).toContain('ADMIN_TOKEN');
    // The title is text, not markup.
    expect(await page.textContent(`#post-${two} h2`)).toBe('Door two <b>bold</b>');
    expect(await page.locator(`#post-${two} h2 b`).count()).toBe(0);
    await page.screenshot({ path: `${SHOTS}/admin-review.png`, fullPage: true });

    await page.click(`#post-${one} button[name=open]`);
    await page.waitForSelector(`#item-${one}`);
    await page.click('#publish');
    expect(await page.textContent('#notice')).toContain(`${one} is now published`);
    expect((await env.call('GET', `/v1/posts/${one}`)).status).toBe(200);

    await page.click(`#post-${two} button[name=open]`);
    await page.waitForSelector(`#item-${two}`);
    expect(await page.inputValue('#category')).toBe('agent_injection');
    await page.fill('#reason', 'Instructions aimed at AI readers.');
    await page.click('#reject');
    expect(await page.textContent('#notice')).toContain(`${two} is now rejected`);
    const rejected = (await env.call('GET', `/v1/posts/${two}`, { key: a.key })).json;
    expect(rejected.rejection).toMatchObject({ category: 'agent_injection', refunded: false });
    expect((await env.call('GET', '/v1/account', { key: a.key })).json.strikes).toBe(1);
    expect(await page.locator('article.review').count()).toBe(0);
    expect(dialogs).toEqual([]);

    const audit = (
      await env.call('GET', `/v1/admin/audit?subject=${two}`, { key: ADMIN_TOKEN })
    ).json.data.map((e: { actor: string; action: string }) => `${e.actor} ${e.action}`);
    expect(audit).toContain('admin-token post.decided');

    const headers = (await page.goto(`${web.base}/admin`))!.headers();
    expect(headers['content-security-policy']).toContain("default-src 'none'");
    await page.close();
  });

  it('a moderator signs in by code and decides by keyboard in three keys; a second browser sees the claim and cannot decide', async () => {
    const alice = await invite('moderator');
    const bob = await invite('moderator');
    const a = await fundedAccount(env, 5_000_000);
    const earlier = await post(a.key, 'An earlier one', storyWith(PROMPT_INJECTION));
    await env.platform.workers.drain('moderate');
    await env.call('POST', `/v1/admin/posts/${earlier}/decision`, {
      key: ADMIN_TOKEN,
      body: { decision: 'reject', category: 'agent_injection', reason: 'Earlier verdict.' },
    });
    const id = await post(a.key, 'The lower town', storyWith(DEHUMANISING));
    await env.platform.workers.drain('moderate');
    const detail = (await env.call('GET', `/v1/admin/review/${id}`, { key: ADMIN_TOKEN })).json;
    const preset = detail.evidence.preset_category as string;
    expect(preset).toBeTruthy();
    expect(preset).not.toBe('low_quality');

    const ctxA = await web.browser.newContext();
    const ctxB = await web.browser.newContext();
    const pa = await ctxA.newPage();
    const pb = await ctxB.newPage();
    await signInByCode(pa, alice);
    await signInByCode(pb, bob);

    // Key 1: Enter opens the focused (first free) item and claims it.
    expect(await pa.evaluate(() => document.activeElement?.getAttribute('name'))).toBe('open');
    await pa.keyboard.press('Enter');
    await pa.waitForSelector(`#item-${id}`);
    // The item opens with the text, the flagged paragraph and the quoted evidence marked, the
    // category preset to the suspected one and focused, and the author's history.
    expect(await pa.locator('#text p.flagged mark').first().textContent()).toContain('They breed like rats');
    expect(await pa.inputValue('#category')).toBe(preset);
    expect(await pa.evaluate(() => document.activeElement?.id)).toBe('category');
    expect(await pa.textContent('#strikes')).toBe('1');
    expect(await pa.textContent('#verdicts')).toContain(earlier);
    await pa.screenshot({ path: `${SHOTS}/admin-item.png`, fullPage: true });

    // The second browser sees who holds it, and cannot open or decide it.
    await pb.reload();
    expect(await pb.textContent(`#post-${id} .claim`)).toContain(`being reviewed by ${alice}`);
    await pb.click(`#post-${id} button[name=open]`);
    expect(await pb.textContent('.error')).toContain(`${alice} is reviewing this post until`);
    await pb.goto(`${web.base}/admin/review/${id}`);
    expect(await pb.textContent('#claimed-elsewhere')).toContain(alice);
    expect(await pb.locator('#reject-form').count()).toBe(0);
    // A decision posted anyway from the second context (its cookie, same origin) is refused.
    const forged = await ctxB.request.post(`${web.base}/admin/posts/${id}/decision`, {
      form: { decision: 'publish', reason: 'mine' },
      headers: { origin: web.base },
    });
    expect(forged.status()).toBe(200);
    expect(await forged.text()).toContain(`${alice} is reviewing this post until`);

    // Key 2: Tab confirms the preset category and moves to Reject; key 3: Enter submits.
    await pa.keyboard.press('Tab');
    expect(await pa.evaluate(() => document.activeElement?.id)).toBe('reject');
    await pa.keyboard.press('Enter');
    await pa.waitForSelector('#notice');
    expect(await pa.textContent('#notice')).toContain(`${id} is now rejected`);
    const after = (await env.call('GET', `/v1/posts/${id}`, { key: a.key })).json;
    expect(after.rejection.category).toBe(preset);

    // The audit page names her, newest first, and pages.
    await pa.goto(`${web.base}/admin/audit`);
    const firstRow = pa.locator('#audit tbody tr').first();
    expect(await firstRow.textContent()).toContain(alice);
    const rows = await pa.locator('#audit tbody tr').allTextContents();
    expect(rows.find((r) => r.includes('post.decided') && r.includes(id))).toContain(alice);
    await pa.goto(`${web.base}/admin/audit?limit=2`);
    expect(await pa.locator('#audit tbody tr').count()).toBe(2);
    const page1 = await pa.locator('#audit tbody tr').allTextContents();
    await pa.click('#older');
    const page2 = await pa.locator('#audit tbody tr').allTextContents();
    expect(page2).toHaveLength(2);
    expect(page2.some((r) => page1.includes(r))).toBe(false);

    // A moderator does not manage staff.
    const staffPage = await pa.goto(`${web.base}/admin/staff`);
    expect(staffPage!.status()).toBe(403);
    await ctxA.close();
    await ctxB.close();
  });

  it('an admin invites a moderator from the staff page; the invitation is audited', async () => {
    const page = await web.browser.newPage();
    await page.goto(`${web.base}/admin`);
    await enterToken(page, ADMIN_TOKEN);
    await page.waitForSelector('#signed-in-as');
    await page.goto(`${web.base}/admin/staff`);
    const email = `new-${uniq()}@example.com`;
    await page.fill('#invite-email', email);
    await page.fill('#invite-name', 'Newcomer');
    await page.selectOption('#invite-role', 'moderator');
    await page.click('#invite button[type=submit]');
    expect(await page.textContent('#notice')).toContain(`${email} was invited as moderator`);
    expect(await page.textContent('#staff')).toContain(email);
    const list = (await env.call('GET', '/v1/admin/staff', { key: ADMIN_TOKEN })).json.data as {
      email: string;
      invited_by: string;
    }[];
    expect(list.find((m) => m.email === email)?.invited_by).toBe('admin-token');
    await page.close();
  });
});
