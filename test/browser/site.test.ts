import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chromiumKit, SHOTS } from '../helpers/browser.js';
import { fundedAccount, type TestAccount } from '../helpers/flows.js';
import { startTestEnv, type TestEnv } from '../helpers/harness.js';
import { runRebuilds } from '../helpers/site.js';
import { story } from '../helpers/stories.js';

let env: TestEnv;
let author: TestAccount;
beforeAll(async () => {
  env = await startTestEnv();
  author = await fundedAccount(env, 5_000_000);
});
afterAll(async () => env?.close());
const web = chromiumKit(() => env);

async function publish(title: string, body: string, topics: string[] = []) {
  const r = await env.call('POST', '/v1/posts', { key: author.key, body: { title, body, topics } });
  expect(r.status, r.text).toBe(202);
  await env.platform.workers.drain('moderate');
  return r.json.id as string;
}

describe('the public site in Chromium', () => {
  it('the home page lists a newly published story after the rebuild; a deleted one is gone from the page, the feeds and the sitemap after the next', async () => {
    await runRebuilds(env);
    await env.platform.services.siteBuilder.full('stories');
    const id = await publish('The glassblower of Ostend', story(), ['glass']);
    const page = await web.browser.newPage();
    // The site is static: the home page is the built file until the rebuild runs.
    await page.goto(`${web.base}/`);
    expect(await page.textContent('main')).not.toContain('The glassblower of Ostend');
    expect(await runRebuilds(env)).toBe(1);
    await page.goto(`${web.base}/`);
    expect(await page.textContent('ul.posts')).toContain('The glassblower of Ostend');
    await page.click('text=The glassblower of Ostend');
    expect(page.url()).toBe(`${web.base}/p/${id}`);
    expect(await page.textContent('article footer')).toContain('CC BY 4.0');
    const { name } = (await env.call('GET', `/p/${id}.json`)).json.author;
    expect(await page.textContent('article footer')).toContain(`By ${name}, licensed under CC BY 4.0`);
    await page.goto(`${web.base}/t/glass`);
    expect(await page.textContent('main')).toContain('The glassblower of Ostend');

    expect((await env.call('DELETE', `/v1/posts/${id}`, { key: author.key })).status).toBe(204);
    expect(await runRebuilds(env)).toBe(1);
    const fresh = await (await fetch(`${web.base}/`)).text();
    expect(fresh).not.toContain('The glassblower of Ostend');
    await page.goto(`${web.base}/`);
    expect(await page.textContent('main')).not.toContain('The glassblower of Ostend');
    expect((await page.goto(`${web.base}/p/${id}`))!.status()).toBe(410);
    for (const path of ['/index.json', '/feed.xml', '/sitemap.xml', '/t/glass.json']) {
      const body = await (await fetch(`${web.base}${path}`)).text();
      expect(body, path).not.toContain(id);
    }
    await page.close();
  });

  it('a story whose text is <script>alert(1)</script> and javascript: links renders inert', async () => {
    const evil = `${story()}\n\n<script>alert(1)</script> <img src=x onerror="alert(2)"> <a href="javascript:alert(3)">click</a> javascript:alert(4)`;
    const id = await publish('<script>alert("title")</script>', evil);
    await runRebuilds(env);
    expect(existsSync(join(env.platform.config.siteDir, 'stories', 'p', `${id}.html`))).toBe(true);
    const { page, dialogs } = await web.page();
    const res = await page.goto(`${web.base}/p/${id}`);
    expect(res!.headers()['content-security-policy']).toContain("default-src 'none'");
    await page.waitForTimeout(300);
    expect(dialogs).toEqual([]);
    expect(await page.locator('script').count()).toBe(0);
    expect(await page.locator('article img').count()).toBe(0);
    expect(await page.locator('a[href^="javascript:"]').count()).toBe(0);
    expect(await page.textContent('article h1')).toBe('<script>alert("title")</script>');
    expect(await page.textContent('.story')).toContain('<script>alert(1)</script>');
    await page.goto(`${web.base}/`);
    await page.waitForTimeout(200);
    expect(dialogs).toEqual([]);
    expect(await page.locator('script').count()).toBe(0);
    // The Atom feed carrying that text is well-formed XML: Chromium parses it without an error.
    const atom = await (await fetch(`${web.base}/feed.xml`)).text();
    const parsed = await page.evaluate((xml) => {
      const doc = new DOMParser().parseFromString(xml, 'application/xml');
      const entries = [...doc.getElementsByTagName('entry')];
      return {
        errors: doc.getElementsByTagName('parsererror').length,
        content: entries.map((e) => e.getElementsByTagName('content')[0]?.textContent ?? ''),
      };
    }, atom);
    expect(parsed.errors).toBe(0);
    // The text comes back exactly as posted: escaped in the XML, never markup.
    expect(parsed.content.some((c) => c.includes('<script>alert(1)</script>'))).toBe(true);
    expect(dialogs).toEqual([]);
    await page.close();
  });

  it('screenshots of home and a post page at phone and desktop widths', async () => {
    const id = await publish('The harbour pilot', story(), ['sea', 'harbours']);
    await runRebuilds(env);
    for (const [name, width, height] of [
      ['phone', 390, 844],
      ['desktop', 1280, 900],
    ] as const) {
      const page = await web.browser.newPage({ viewport: { width, height } });
      await page.goto(`${web.base}/`);
      await page.screenshot({ path: `${SHOTS}/home-${name}.png`, fullPage: true });
      expect((await page.goto(`${web.base}/p/${id}`))!.status()).toBe(200);
      // Readable on a phone: nothing wider than the viewport.
      expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(width);
      await page.screenshot({ path: `${SHOTS}/post-${name}.png`, fullPage: false });
      await page.close();
    }
  });

  it('pages carry ETags and answer 304 to If-None-Match', async () => {
    const first = await fetch(`${web.base}/`);
    const etag = first.headers.get('etag');
    expect(etag).toBeTruthy();
    const again = await fetch(`${web.base}/`, { headers: { 'if-none-match': etag! } });
    expect(again.status).toBe(304);
  });
});
