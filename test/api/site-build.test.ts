import { existsSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import * as fsp from 'node:fs/promises';
import { join, relative } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.js';
import { pathsForPost } from '../../src/core/sites/changes.js';
import { SiteBuilder } from '../../src/web/site-build.js';
import { SiteFiles, type SiteIo } from '../../src/web/site-files.js';
import { expectProblem, fundedAccount, type TestAccount } from '../helpers/flows.js';
import { ADMIN_TOKEN, startTestEnv, type TestEnv } from '../helpers/harness.js';
import { makeDue, pendingRebuilds, runRebuilds } from '../helpers/site.js';
import { SIBLING_SITES, story } from '../helpers/stories.js';

let env: TestEnv;
let author: TestAccount;
let root: string;
beforeAll(async () => {
  env = await startTestEnv({
    env: { SITES: SIBLING_SITES },
  });
  author = await fundedAccount(env, 50_000_000);
  root = join(env.platform.config.siteDir, 'stories');
});
afterAll(async () => env?.close());

const builder = () => env.platform.services.siteBuilder;
const file = (rel: string, kind = 'stories') => join(env.platform.config.siteDir, kind, rel);
const read = (rel: string, kind = 'stories') => readFileSync(file(rel, kind), 'utf8');

async function publish(title: string, topics: string[] = [], host = 'agentpress.test', body?: unknown) {
  const r = await env.call('POST', '/v1/posts', {
    key: author.key,
    body: body ?? { title, body: story(), topics },
    headers: { host },
  });
  expect(r.status, r.text).toBe(202);
  await env.platform.workers.drain('moderate');
  const got = await env.call('GET', `/v1/posts/${r.json.id}`, { key: author.key });
  expect(got.json.status, got.text).toBe('published');
  return r.json.id as string;
}

/** Every file under the built site with what identifies its version (a rename is a new inode). */
function snapshot(dir = root): Map<string, string> {
  const out = new Map<string, string>();
  if (!existsSync(dir)) return out;
  for (const e of readdirSync(dir, { recursive: true, withFileTypes: true })) {
    if (!e.isFile()) continue;
    const f = join(e.parentPath, e.name);
    const st = statSync(f);
    out.set(relative(dir, f), `${st.ino}:${st.mtimeMs}:${st.size}`);
  }
  return out;
}

function changed(before: Map<string, string>, after: Map<string, string>) {
  const names = new Set([...before.keys(), ...after.keys()]);
  return [...names].filter((n) => before.get(n) !== after.get(n)).sort();
}

describe('which paths a post change touches', () => {
  it('a story: its page and twin, home, feeds, sitemap, each topic page and twin', () => {
    const p = {
      id: 'post_a',
      site: 'stories',
      topics: ['sea', 'glass'],
      fields: {},
      country: null,
      state: null,
    };
    expect(pathsForPost(p).sort()).toEqual(
      [
        '/p/post_a',
        '/p/post_a.json',
        '/',
        '/index.json',
        '/feed.xml',
        '/sitemap.xml',
        '/t/sea',
        '/t/sea.json',
        '/t/glass',
        '/t/glass.json',
      ].sort(),
    );
  });

  it('the sibling sites add their own lists: upcoming events, the ad category, the message place', () => {
    const base = { id: 'x', topics: [], fields: {}, country: null, state: null };
    expect(pathsForPost({ ...base, site: 'events' })).toContain('/upcoming');
    expect(pathsForPost({ ...base, site: 'events' })).toContain('/upcoming.json');
    const ad = pathsForPost({ ...base, site: 'classifieds', fields: { category: 'housing' } });
    expect(ad).toEqual(expect.arrayContaining(['/c/housing', '/c/housing.json']));
    const msg = pathsForPost({ ...base, site: 'messages', country: 'US', state: 'US-CA' });
    expect(msg).toEqual(
      expect.arrayContaining(['/place/US', '/place/US.json', '/place/US/US-CA', '/place/US/US-CA.json']),
    );
    expect(pathsForPost({ ...base, site: 'messages' }).some((p) => p.startsWith('/place'))).toBe(false);
    expect(pathsForPost({ ...base, site: 'stories' }).some((p) => /upcoming|\/c\/|place/.test(p))).toBe(
      false,
    );
  });

  it('SITE_DIR defaults to DATA_DIR/site; SITE_REBUILD_DELAY_SECONDS defaults to 3, 0 allowed, -1 refused', () => {
    const c = loadConfig({ DATA_DIR: '/srv/ap' });
    expect(c.siteDir).toBe('/srv/ap/site');
    expect(c.siteRebuildDelaySeconds).toBe(3);
    expect(loadConfig({ SITE_DIR: '/var/www/ap' }).siteDir).toBe('/var/www/ap');
    expect(loadConfig({ SITE_REBUILD_DELAY_SECONDS: '0' }).siteRebuildDelaySeconds).toBe(0);
    expect(() => loadConfig({ SITE_REBUILD_DELAY_SECONDS: '-1' })).toThrow(/SITE_REBUILD_DELAY_SECONDS/);
  });
});

describe('the site-rebuild job', () => {
  it('is sent with the publication, debounced: several changes within the delay are one job', async () => {
    await runRebuilds(env);
    expect(await pendingRebuilds(env)).toEqual([]);
    const t0 = env.clock.now().getTime();
    const a = await publish('Debounce one', ['kilns']);
    env.clock.advance(1000);
    const b = await publish('Debounce two', ['looms']);
    env.clock.advance(1000);
    const c = await publish('Debounce three');
    const pending = (await pendingRebuilds(env)).filter((j) => j.singleton_key === 'site:stories');
    expect(pending).toHaveLength(1);
    // The first change set the start; the later ones joined it without pushing it back.
    expect(pending[0]!.start_after.getTime()).toBe(t0 + 3000);
    expect(pending[0]!.data.site).toBe('stories');
    expect(new Set(pending[0]!.data.paths)).toEqual(
      new Set([
        ...['/', '/index.json', '/feed.xml', '/sitemap.xml'],
        ...[a, b, c].flatMap((id) => [`/p/${id}`, `/p/${id}.json`]),
        ...['/t/kilns', '/t/kilns.json', '/t/looms', '/t/looms.json'],
      ]),
    );
    expect(existsSync(file(`p/${a}.html`))).toBe(false);
    expect(await runRebuilds(env)).toBe(1);
    for (const id of [a, b, c]) expect(existsSync(file(`p/${id}.html`))).toBe(true);
    expect(read('index.html')).toContain('Debounce three');
    expect(await pendingRebuilds(env)).toEqual([]);
  });

  it('a change after the waiting job has started gets a job of its own', async () => {
    await runRebuilds(env);
    await publish('Before the start');
    const [job] = (await pendingRebuilds(env)).filter((j) => j.singleton_key === 'site:stories');
    // The worker picks it up (active): the next change must not merge into a running build.
    await makeDue(env);
    expect(await env.platform.jobs.boss.fetch('site-rebuild')).toHaveLength(1);
    const late = await publish('After the start');
    const pending = (await pendingRebuilds(env)).filter((j) => j.singleton_key === 'site:stories');
    expect(pending).toHaveLength(1);
    expect(pending[0]!.id).not.toBe(job!.id);
    expect(pending[0]!.data.paths).toContain(`/p/${late}`);
    await env.platform.jobs.boss.complete('site-rebuild', job!.id);
    await runRebuilds(env);
  });

  it('an incremental rebuild writes exactly the touched files, and a rebuild with nothing new writes none', async () => {
    await runRebuilds(env);
    await builder().full('stories');
    const before = snapshot();
    expect(before.has('robots.txt')).toBe(true);
    const id = await publish('Exactly these files', ['tiles']);
    await runRebuilds(env);
    expect(changed(before, snapshot())).toEqual(
      [
        'feed.xml',
        'index.html',
        'index.json',
        `p/${id}.html`,
        `p/${id}.json`,
        'sitemap.xml',
        't/tiles.html',
        't/tiles.json',
      ].sort(),
    );
    const again = snapshot();
    const r = await builder().build(
      'stories',
      pathsForPost({ id, site: 'stories', topics: ['tiles'], fields: {}, country: null, state: null }),
    );
    expect(r.written).toEqual([]);
    expect(changed(again, snapshot())).toEqual([]);
  });

  it('a deleted story stays until the next rebuild, which removes its files and drops it from lists, feeds and sitemap', async () => {
    await runRebuilds(env);
    const id = await publish('Soon to be deleted', ['ephemera']);
    await runRebuilds(env);
    expect(read('index.html')).toContain('Soon to be deleted');
    expect(read('t/ephemera.html')).toContain('Soon to be deleted');

    expect((await env.call('DELETE', `/v1/posts/${id}`, { key: author.key })).status).toBe(204);
    // "page is removed on the next site rebuild": not before.
    expect(existsSync(file(`p/${id}.html`))).toBe(true);
    const [job] = await pendingRebuilds(env);
    expect(job!.data.paths).toEqual(expect.arrayContaining([`/p/${id}`, `/p/${id}.json`, '/t/ephemera']));

    await runRebuilds(env);
    expect(existsSync(file(`p/${id}.html`))).toBe(false);
    expect(existsSync(file(`p/${id}.json`))).toBe(false);
    // The topic has nothing left in it: its page goes too.
    expect(existsSync(file('t/ephemera.html'))).toBe(false);
    for (const f of ['index.html', 'index.json', 'feed.xml', 'sitemap.xml'])
      expect(read(f), f).not.toContain(id);

    const page = await env.call('GET', `/p/${id}`, { headers: { accept: 'text/html' } });
    expect(page.status).toBe(410);
    expectProblem(await env.call('GET', `/p/${id}.json`), 404, 'not_found');
    expect((await env.call('GET', '/p/post_neverexisted')).status).toBe(404);
  });

  it('deleting a post that was never published asks for no rebuild', async () => {
    await runRebuilds(env);
    const r = await env.call('POST', '/v1/posts', {
      key: author.key,
      body: { title: 'Queued', body: story() },
    });
    expect((await env.call('DELETE', `/v1/posts/${r.json.id}`, { key: author.key })).status).toBe(204);
    expect(await pendingRebuilds(env)).toEqual([]);
  });

  it('removal by staff rebuilds the site without the post', async () => {
    await runRebuilds(env);
    const id = await publish('Removed by a person');
    await runRebuilds(env);
    expect(existsSync(file(`p/${id}.json`))).toBe(true);
    const r = await env.call('POST', `/v1/admin/posts/${id}/remove`, {
      key: ADMIN_TOKEN,
      body: { reason: 'breaks the policy' },
    });
    expect(r.status, r.text).toBe(200);
    expect(await pendingRebuilds(env)).toHaveLength(1);
    await runRebuilds(env);
    expect(existsSync(file(`p/${id}.json`))).toBe(false);
    expect(read('feed.xml')).not.toContain(id);
  });

  it('a write that fails (a full disk) fails the job, which is retried; no file is half written', async () => {
    await runRebuilds(env);
    await builder().full('stories');
    const home = read('index.html');
    const enospc: SiteIo = {
      ...fsp,
      writeFile: (async (path: string, data: Buffer, opts: { flag: string }) => {
        await fsp.writeFile(path, data.subarray(0, 10), opts);
        throw Object.assign(new Error('ENOSPC: no space left on device, write'), { code: 'ENOSPC' });
      }) as unknown as SiteIo['writeFile'],
    };
    const real = env.platform.services.siteBuilder;
    env.platform.services.siteBuilder = new SiteBuilder(
      env.platform.services.siteContent,
      new SiteFiles(env.platform.config.siteDir, enospc),
      { info() {}, warn() {}, error() {} },
    );
    try {
      const id = await publish('Written to a full disk');
      await expect(runRebuilds(env)).rejects.toThrow(/ENOSPC/);
      const [job] = await pendingRebuilds(env);
      expect(job?.data.paths).toContain(`/p/${id}`);
      expect(read('index.html')).toBe(home);
      expect([...snapshot().keys()].filter((f) => f.endsWith('.tmp'))).toEqual([]);
      env.platform.services.siteBuilder = real;
      expect(await runRebuilds(env)).toBe(1);
      expect(read('index.html')).toContain('Written to a full disk');
    } finally {
      env.platform.services.siteBuilder = real;
    }
  });

  it('an expiring ad leaves its category list by a rebuild scheduled for its expiry', async () => {
    await runRebuilds(env);
    const expires = new Date(env.clock.now().getTime() + 2 * 86_400_000);
    const ad = {
      title: 'Oak desk for a week',
      body: 'A heavy oak desk with three drawers. Pick up only.',
      category: 'for-sale',
      price: { amount: 120, currency: 'EUR' },
      topics: [],
      location: { country: 'FR', state: 'FR-75C', city: 'Paris' },
      expires_at: expires.toISOString(),
    };
    const id = await publish('', [], 'ads.test', ad);
    const expiry = (await pendingRebuilds(env)).find((j) => j.singleton_key === `expire:${id}`);
    expect(expiry?.start_after.toISOString()).toBe(expires.toISOString());
    await runRebuilds(env);
    expect(read('c/for-sale.html', 'classifieds')).toContain('Oak desk for a week');
    env.clock.set(new Date(expires.getTime() + 1000));
    expect(await runRebuilds(env, { expiry: true })).toBe(1);
    expect(read('c/for-sale.html', 'classifieds')).not.toContain('Oak desk for a week');
    expect(read('index.json', 'classifieds')).not.toContain(id);
    env.clock.set(new Date(expires.getTime() - 2 * 86_400_000));
  });
});

describe('the built site', () => {
  it('the sibling sites have their own lists: events by start time, ads by category, messages by place', async () => {
    await runRebuilds(env);
    // Days after the test clock's today (upcoming means after now, whatever the date of the run).
    const at = (daysAhead: number, hour: number) =>
      new Date(
        Date.UTC(
          env.clock.now().getUTCFullYear(),
          env.clock.now().getUTCMonth(),
          env.clock.now().getUTCDate() + daysAhead,
          hour,
        ),
      )
        .toISOString()
        .replace('.000Z', 'Z');
    const event = (title: string, daysAhead: number) => ({
      title,
      body: 'Bring a lantern; we walk the old harbour wall.',
      timezone: 'Europe/Oslo',
      starts_at: at(daysAhead, 16),
      ends_at: at(daysAhead, 19),
      topics: [],
      location: { country: 'NO', state: 'NO-03', city: 'Oslo' },
    });
    await publish('', [], 'events.test', event('Later walk', 20));
    await publish('', [], 'events.test', event('Sooner walk', 10));
    await publish('', [], 'messages.test', {
      text: 'Fog on the bridge this morning, drive slowly.',
      topics: [],
      location: { country: 'US', state: 'US-CA', city: { geonames_id: 5391959, name: 'San Francisco' } },
    });
    await runRebuilds(env);
    const upcoming = read('upcoming.html', 'events');
    expect(upcoming.indexOf('Sooner walk')).toBeGreaterThan(0);
    expect(upcoming.indexOf('Sooner walk')).toBeLessThan(upcoming.indexOf('Later walk'));
    const feed = JSON.parse(read('upcoming.json', 'events'));
    expect(feed.items.map((i: { title: string }) => i.title)).toEqual(['Sooner walk', 'Later walk']);
    expect(feed.content_trust).toBe('untrusted-user-content');
    expect(read('place/US.html', 'messages')).toContain('Fog on the bridge');
    expect(read('place/US/US-CA.html', 'messages')).toContain('Fog on the bridge');
    expect(JSON.parse(read('place/US/US-CA.json', 'messages')).items).toHaveLength(1);

    const live = await env.call('GET', '/place/US/US-CA.json', { headers: { host: 'messages.test' } });
    expect(live.status).toBe(200);
    expect(live.json.items[0].content_trust ?? live.json.items[0]._agentpress.content_trust).toBe(
      'untrusted-user-content',
    );
    expect((await env.call('GET', '/place/US/US-NY', { headers: { host: 'messages.test' } })).status).toBe(
      404,
    );
    expect((await env.call('GET', '/upcoming')).status).toBe(404); // not on the stories site
    expect((await env.call('GET', '/c/furniture', { headers: { host: 'ads.test' } })).status).toBe(404);
    const empty = await env.call('GET', '/c/housing.json', { headers: { host: 'ads.test' } });
    expect(empty.status).toBe(200);
    expect(empty.json.items).toEqual([]);
  });

  it('built files are served with a strong ETag (the same as the live rendering), Cache-Control and 304', async () => {
    await runRebuilds(env);
    await builder().full('stories');
    const id = await publish('Served from disk', ['disk']);
    await runRebuilds(env);
    const content = env.platform.services.siteContent;
    for (const [path, rel, type] of [
      ['/', 'index.html', 'text/html'],
      [`/p/${id}`, `p/${id}.html`, 'text/html'],
      [`/p/${id}.json`, `p/${id}.json`, 'application/json'],
      ['/index.json', 'index.json', 'application/feed+json'],
      ['/feed.xml', 'feed.xml', 'application/atom+xml'],
      ['/sitemap.xml', 'sitemap.xml', 'application/xml'],
      ['/robots.txt', 'robots.txt', 'text/plain'],
      ['/t/disk.json', 't/disk.json', 'application/feed+json'],
    ] as const) {
      const r = await env.call('GET', path);
      expect(r.status, path).toBe(200);
      expect(r.text, path).toBe(read(rel));
      expect(r.text, path).toBe((await content.render('stories', path))?.body);
      expect(String(r.headers['content-type']).startsWith(`${type};`), path).toBe(true);
      expect(r.headers.etag, path).toMatch(/^"[A-Za-z0-9_-]{27}"$/);
      expect(r.headers['cache-control'], path).toMatch(/^public, (no-cache|max-age=\d+)$/);
      const again = await env.call('GET', path, { headers: { 'if-none-match': String(r.headers.etag) } });
      expect(again.status, path).toBe(304);
    }
    const page = await env.call('GET', `/p/${id}`);
    expect(page.headers['content-security-policy']).toContain("default-src 'none'");
    // The file on disk is what is served, not a fresh rendering; this process's writes show at once.
    await builder().files.write('stories', '/robots.txt', 'User-agent: *\nDisallow: /\n');
    expect((await env.call('GET', '/robots.txt')).text).toBe('User-agent: *\nDisallow: /\n');
    // Another process's write (a worker on shared storage) shows once the served copy is revalidated.
    const reader = new SiteFiles(env.platform.config.siteDir, fsp, 0);
    expect(reader.read('stories', '/robots.txt')?.body.toString()).toBe('User-agent: *\nDisallow: /\n');
    writeFileSync(file('robots.txt'), 'User-agent: *\nAllow: /\n');
    expect(reader.read('stories', '/robots.txt')?.body.toString()).toBe('User-agent: *\nAllow: /\n');
    await fsp.unlink(file('robots.txt'));
    expect(reader.read('stories', '/robots.txt')).toBeNull();
    // Not built (yet): rendered on request, same bytes and ETag as the build would give.
    const built = await env.call('GET', `/p/${id}`);
    await fsp.unlink(file(`p/${id}.html`));
    const rendered = await env.call('GET', `/p/${id}`);
    expect(rendered.status).toBe(200);
    expect(rendered.headers.etag).toBe(built.headers.etag);
  });

  it('a full build writes every page, removes files that are no longer pages and temporary leftovers', async () => {
    await runRebuilds(env);
    const keep = await publish('Kept by the full build', ['keep']);
    const gone = await publish('Deleted before the full build', ['gone-topic']);
    await runRebuilds(env);
    expect((await env.call('DELETE', `/v1/posts/${gone}`, { key: author.key })).status).toBe(204);
    await fsp.mkdir(file('p'), { recursive: true });
    writeFileSync(file('p/post_stale.html'), 'stale');
    writeFileSync(file('p/.abc123.tmp'), 'half');
    await fsp.unlink(file(`p/${keep}.json`));
    const r = await builder().full('stories');
    expect(r.written).toContain(`/p/${keep}.json`);
    expect(r.removed).toEqual(expect.arrayContaining([`/p/${gone}`, `/p/${gone}.json`, '/p/post_stale']));
    expect(existsSync(file('p/post_stale.html'))).toBe(false);
    expect(existsSync(file('p/.abc123.tmp'))).toBe(false);
    expect(existsSync(file(`p/${gone}.html`))).toBe(false);
    expect(existsSync(file('t/gone-topic.html'))).toBe(false);
    for (const f of ['index.html', 'index.json', 'feed.xml', 'sitemap.xml'])
      expect(read(f), f).not.toContain(gone);
    expect(read('sitemap.xml')).toContain(`/p/${keep}</loc>`);
    for (const f of ['robots.txt', 'policy.html', 't/keep.html', 't/keep.json'])
      expect(existsSync(file(f)), f).toBe(true);
  });

  it('a page per error code: built with the site, served to browsers; programs still get the JSON entry', async () => {
    await builder().full('stories');
    expect(read('errors/insufficient_balance.html')).toContain('402 insufficient_balance');
    expect(read('errors.html')).toContain('href="/errors/too_many_keys"');
    // The contract describes the JSON entry; the HTML page for browsers is outside it.
    const page = await env.call('GET', '/errors/insufficient_balance', {
      headers: { accept: 'text/html,application/xhtml+xml,*/*;q=0.8' },
      unchecked: true,
    });
    expect(page.status).toBe(200);
    expect(String(page.headers['content-type'])).toMatch(/^text\/html/);
    expect(page.text).toBe(read('errors/insufficient_balance.html'));
    const entry = await env.call('GET', '/errors/insufficient_balance');
    expect(entry.json.code ?? entry.json.status).toBeTruthy();
    expect(String(entry.headers['content-type'])).toMatch(/^application\/json/);
    const unknown = await env.call('GET', '/errors/nope', { headers: { accept: 'text/html' } });
    expect(unknown.status).toBe(404);
  });

  it('feeds escape post text: Atom as text (never HTML or CDATA), JSON Feed as JSON strings', async () => {
    await runRebuilds(env);
    const title = 'Brackets <b>bold</b> & ]]> "quotes"';
    const evil = `${story()}\n\n<script>alert(1)</script> ]]> ]]> <![CDATA[ x ]]> &amp; javascript:alert(2)`;
    const r = await env.call('POST', '/v1/posts', { key: author.key, body: { title, body: evil } });
    await env.platform.workers.drain('moderate');
    await runRebuilds(env);
    const atom = read('feed.xml');
    expect(atom).not.toContain('<script>');
    expect(atom).not.toContain('<![CDATA[');
    expect(atom).not.toContain('<b>');
    expect(atom).toContain(
      '&lt;script&gt;alert(1)&lt;/script&gt; ]]&gt; ]]&gt; &lt;![CDATA[ x ]]&gt; &amp;amp;',
    );
    expect(atom).toContain(
      '<title type="text">Brackets &lt;b&gt;bold&lt;/b&gt; &amp; ]]&gt; &quot;quotes&quot;</title>',
    );
    const item = JSON.parse(read('index.json')).items.find((i: { id: string }) => i.id === r.json.id);
    expect(item.content_text).toContain('<script>alert(1)</script> ]]> ]]>');
    expect(item.title).toBe(title);
    const html = read(`p/${r.json.id}.html`);
    expect(html).not.toContain('<script>');
    expect(html).toContain('&lt;script>alert(1)&lt;/script>');
  });
});
