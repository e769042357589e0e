import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chromiumKit, enterToken, SHOTS } from '../helpers/browser.js';
import { fundedAccount, ownerToken } from '../helpers/flows.js';
import { ADMIN_TOKEN, startTestEnv, type TestEnv } from '../helpers/harness.js';
import { expectLedgerMatchesBalance } from '../helpers/money.js';
import { PROMPT_INJECTION, storyWith } from '../helpers/stories.js';

let env: TestEnv;
beforeAll(async () => {
  env = await startTestEnv();
});
afterAll(async () => env?.close());
const web = chromiumKit(() => env);

describe('the appeals queue in Chromium: the original verdict, its evidence and the statement side by side', () => {
  it('a person reverses one appeal and upholds another; the owner sees both on the account page', async () => {
    const a = await fundedAccount(env, 5_000_000);
    const ids: string[] = [];
    for (const title of ['Appealed one', 'Appealed <i>two</i>'])
      ids.push(
        (
          await env.call('POST', '/v1/posts', {
            key: a.key,
            body: { title, body: storyWith(PROMPT_INJECTION) },
          })
        ).json.id,
      );
    await env.platform.workers.drain('moderate');
    for (const id of ids)
      await env.call('POST', `/v1/admin/posts/${id}/decision`, {
        key: ADMIN_TOKEN,
        body: { decision: 'reject', category: 'agent_injection', reason: 'Addresses AI readers.' },
      });
    const appeals: string[] = [];
    for (const [i, id] of ids.entries()) {
      const r = await env.call('POST', `/v1/posts/${id}/appeal`, {
        key: a.key,
        body: { statement: `Statement ${i}: the postscript is the narrator's <b>voice</b>.` },
      });
      expect(r.status, r.text).toBe(202);
      appeals.push(r.json.id);
    }
    const [one, two] = appeals as [string, string];

    const { page, dialogs } = await web.page();
    await page.goto(`${web.base}/admin`);
    await enterToken(page, ADMIN_TOKEN);
    await page.waitForSelector(`#appeal-${one}`);
    // Side by side: the verdict, the evidence the rules flagged, the owner's statement (as text).
    const verdict = await page.textContent(`#appeal-${one} .verdict`);
    expect(verdict).toContain('rejected (agent_injection) by person');
    expect(verdict).toContain('Addresses AI readers.');
    expect(verdict).toContain('fine 2250000 micro-dollars, a strike');
    expect((await page.textContent(`#appeal-${one} .evidence`))?.length).toBeGreaterThan(20);
    expect(await page.textContent(`#appeal-${one} .statement`)).toContain(
      "Statement 0: the postscript is the narrator's <b>voice</b>.",
    );
    expect(await page.locator(`#appeal-${one} .statement b`).count()).toBe(0);
    expect(await page.textContent(`#appeal-${two} h2`)).toBe('Appealed <i>two</i>');
    const boxes = await Promise.all(
      ['.verdict', '.evidence', '.statement'].map((s) => page.locator(`#appeal-${one} ${s}`).boundingBox()),
    );
    // One row on a desktop-wide page: the three boxes share a top edge.
    expect(new Set(boxes.map((b) => Math.round(b!.y))).size).toBe(1);
    await page.screenshot({ path: `${SHOTS}/admin-appeals.png`, fullPage: true });

    // A decision needs a reason: the browser refuses the empty field.
    await page.click(`#appeal-${one} button[value=reverse]`);
    expect(await page.locator('#notice').count()).toBe(0);
    await page.fill(`#appeal-reason-${one}`, 'The postscript belongs to the story.');
    await page.click(`#appeal-${one} button[value=reverse]`);
    expect(await page.textContent('#notice')).toContain(
      `Appeal ${one} reversed; post ${ids[0]} is published.`,
    );
    await page.fill(`#appeal-reason-${two}`, 'It addresses real AI readers.');
    await page.click(`#appeal-${two} button[value=uphold]`);
    expect(await page.textContent('#notice')).toContain(`Appeal ${two} upheld`);
    expect(await page.locator('article.appeal').count()).toBe(0);
    expect(dialogs).toEqual([]);

    expect((await env.call('GET', `/v1/posts/${ids[0]}`)).status).toBe(200);
    const me = (await env.call('GET', '/v1/account', { key: a.key })).json;
    expect(me.strikes).toBe(1);
    await expectLedgerMatchesBalance(env.platform.database.db, a.id);
    const decided = (await env.call('GET', '/v1/admin/appeals?status=all', { key: ADMIN_TOKEN })).json.data;
    expect(decided.map((x: { decided_by: string }) => x.decided_by)).toEqual(['admin-token', 'admin-token']);

    // The owner's account page lists both appeals with their outcome.
    const owner = await ownerToken(env, a);
    const ctx = await web.browser.newContext();
    await ctx.addCookies([{ name: 'ap_owner', value: owner, url: web.base }]);
    const mine = await ctx.newPage();
    await mine.goto(`${web.base}/account`);
    await mine.waitForSelector('#appeals');
    expect(await mine.textContent(`#appeal-${one} .appeal-status`)).toBe('reversed');
    expect(await mine.textContent(`#appeal-${one}`)).toContain('The postscript belongs to the story.');
    expect(await mine.textContent(`#appeal-${two} .appeal-status`)).toBe('upheld');
    await mine.screenshot({ path: `${SHOTS}/account-appeals.png`, fullPage: true });
    await ctx.close();
    await page.close();
  });
});
