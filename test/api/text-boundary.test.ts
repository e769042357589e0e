/**
 * The boundary rule for text: a string holding NUL, an unpaired surrogate or any character XML 1.0
 * forbids is refused with 422 validation_failed wherever it enters (path, query, JSON body, form,
 * MCP tool argument); one-line fields also refuse line breaks and control characters; cursors
 * are range-checked; the Atom feed never carries a character XML forbids, whatever is stored.
 */
import { execFileSync } from 'node:child_process';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { accounts, posts } from '../../src/db/schema.js';
import { expectProblem, fundedAccount, newAccount, ownerToken, type TestAccount } from '../helpers/flows.js';
import {
  ADMIN_TOKEN,
  BASE_URL,
  fetchReply,
  listen,
  type Reply,
  startTestEnv,
  type TestEnv,
} from '../helpers/harness.js';
import { story } from '../helpers/stories.js';

let env: TestEnv;
let base: string;
let author: TestAccount;
let owner: string;
let publishedId: string;
const clients: Client[] = [];

beforeAll(async () => {
  env = await startTestEnv();
  base = await listen(env);
  author = await fundedAccount(env, 5_000_000);
  owner = author.owner ?? (await ownerToken(env, author));
  const r = await env.call('POST', '/v1/posts', {
    key: author.key,
    body: { title: 'The tide clock', body: story(), topics: ['sea'] },
  });
  expect(r.status, r.text).toBe(202);
  publishedId = r.json.id;
  await env.platform.workers.drain('moderate');
  expect((await env.call('GET', `/v1/posts/${publishedId}`)).json.published_at).toBeTruthy();
});
afterAll(async () => {
  for (const c of clients) await c.close();
  await env?.close();
});

/** The 422 the rule answers, pointing at the field. */
function refused(r: Reply, pointer: string) {
  const p = expectProblem(r, 422, 'validation_failed');
  expect(
    p.errors.map((e: { pointer: string }) => e.pointer),
    r.text,
  ).toContain(pointer);
  return p;
}

const b64 = (s: string) => Buffer.from(s).toString('base64url');

describe('NUL and characters XML forbids, wherever a string enters', () => {
  it('a path id: posts, webhooks, keys, staff decisions, the JSON twin of a page', async () => {
    // U+FFFF (%EF%BF%BF) passes the canonical-path check and the router: the rule refuses it.
    const bad = 'x%EF%BF%BF';
    refused(await env.call('GET', `/v1/posts/${bad}`), '/params/id');
    refused(await env.call('GET', '/v1/posts/post_%EF%BF%BEx'), '/params/id');
    refused(await env.call('DELETE', `/v1/posts/${bad}`, { key: author.key }), '/params/id');
    refused(await env.call('DELETE', `/v1/webhooks/${bad}`, { key: author.key }), '/params/id');
    refused(await env.call('POST', `/v1/webhooks/${bad}/test`, { key: author.key }), '/params/id');
    refused(await env.call('GET', `/v1/webhooks/${bad}/deliveries`, { key: author.key }), '/params/id');
    refused(await env.call('DELETE', `/v1/manage/keys/${bad}`, { key: owner }), '/params/id');
    refused(
      await env.call('POST', `/v1/admin/posts/${bad}/decision`, {
        key: ADMIN_TOKEN,
        body: { decision: 'publish', reason: 'fine' },
      }),
      '/params/id',
    );
    refused(
      await env.call('POST', `/v1/admin/posts/${bad}/remove`, { key: ADMIN_TOKEN, body: { reason: 'x' } }),
      '/params/id',
    );
    refused(await env.call('GET', `/p/${bad}.json`), '/params/id');
  });

  it('a NUL in a path id is refused before it reaches the database (never a 500)', async () => {
    for (const [method, path, key] of [
      ['GET', '/v1/posts/%00', undefined],
      ['GET', '/v1/posts/post_%00x', undefined],
      ['DELETE', '/v1/webhooks/wh_%00', author.key],
      ['DELETE', '/v1/manage/keys/key_%00', owner],
      ['GET', '/p/post_%00.json', undefined],
    ] as const) {
      const r = await env.call(method, path, key ? { key } : {});
      // The canonical-path check may refuse the encoded control character first (400); else the rule does (422).
      expect([400, 422], `${method} ${path}: ${r.text}`).toContain(r.status);
      const p = expectProblem(r, r.status);
      expect(['non_canonical_path', 'validation_failed']).toContain(p.code);
    }
  });

  it('a query value: q, city, to', async () => {
    refused(await env.call('GET', '/v1/search?q=sea%00'), '/query/q');
    refused(await env.call('GET', '/v1/posts?city=Oslo%00'), '/query/city');
    refused(
      await env.call('GET', '/v1/admin/outbox?to=a%00%40example.com', { key: ADMIN_TOKEN }),
      '/query/to',
    );
    refused(await env.call('GET', '/v1/posts?topic=%01sea'), '/query/topic');
  });

  it('a JSON body field: account name, report post_id and detail, webhook url, staff reasons', async () => {
    refused(
      await env.call('POST', '/v1/accounts', {
        body: { name: 'nul\u0000name', email: 'nul@example.com', accept_terms: true },
      }),
      '/name',
    );
    refused(
      await env.call('POST', '/v1/reports', { body: { post_id: 'post_\u0000', category: 'spam' } }),
      '/post_id',
    );
    refused(
      await env.call('POST', '/v1/reports', {
        body: { post_id: publishedId, category: 'spam', detail: 'line one\nline\u0000two' },
      }),
      '/detail',
    );
    refused(
      await env.call('POST', '/v1/webhooks', {
        key: author.key,
        body: { url: 'https://example.com/\u0000hook' },
      }),
      '/url',
    );
    refused(
      await env.call('POST', `/v1/admin/posts/${publishedId}/remove`, {
        key: ADMIN_TOKEN,
        body: { reason: 'gone\u0000' },
      }),
      '/reason',
    );
    refused(
      await env.call('POST', `/v1/admin/posts/${publishedId}/decision`, {
        key: ADMIN_TOKEN,
        body: { decision: 'reject', category: 'spam', reason: 'x\u0000' },
      }),
      '/reason',
    );
    // Nested values and member names are walked too.
    refused(
      await env.call('POST', '/v1/posts?dry_run=true', {
        key: author.key,
        body: { title: 'Fine', body: story(), topics: ['sea', 'b\u0000d'] },
      }),
      '/topics/1',
    );
    refused(
      await env.call('POST', '/v1/accounts', {
        body: { name: 'ok', email: 'k@example.com', accept_terms: true, 'x\u0000': 1 },
      }),
      '/x\u0000',
    );
    // An unpaired surrogate and U+FFFF, written as JSON escapes.
    refused(
      await env.call('POST', '/v1/accounts', {
        raw: '{"name":"half \\ud800 pair","email":"s@example.com","accept_terms":true}',
        headers: { 'content-type': 'application/json' },
      }),
      '/name',
    );
    refused(
      await env.call('POST', '/v1/reports', {
        raw: `{"post_id":"${publishedId}","category":"spam","detail":"\\uffff"}`,
        headers: { 'content-type': 'application/json' },
      }),
      '/detail',
    );
    // Nothing was stored.
    const rows = await env.platform.database.db
      .select()
      .from(accounts)
      .where(eq(accounts.email, 'nul@example.com'));
    expect(rows).toEqual([]);
  });

  it('a form field: the account page and the staff page', async () => {
    const form = { 'content-type': 'application/x-www-form-urlencoded', origin: new URL(BASE_URL).origin };
    refused(
      await env.call('POST', '/account/keys/revoke', {
        raw: 'id=key_%00',
        headers: { ...form, cookie: `ap_owner=${owner}` },
      }),
      '/id',
    );
    const signIn = await env.call('POST', '/admin/sign-in', {
      raw: `token=${ADMIN_TOKEN}`,
      headers: form,
    });
    expect(signIn.status, signIn.text).toBe(303);
    const cookie = String(signIn.headers['set-cookie']).split(';')[0] ?? '';
    refused(
      await env.call('POST', `/admin/posts/${publishedId}/remove`, {
        raw: 'reason=bad%00reason',
        headers: { ...form, cookie },
      }),
      '/reason',
    );
    refused(
      await env.call('POST', '/admin/posts/post_%EF%BF%BF/decision', {
        raw: 'decision=publish&reason=ok',
        headers: { ...form, cookie },
      }),
      '/params/id',
    );
    // The page's query too.
    refused(await env.call('GET', '/account?token=ap_link_%00'), '/query/token');
    // The post is untouched.
    expect((await env.call('GET', `/v1/posts/${publishedId}`)).status).toBe(200);
  });

  it('an operation reads only the parts it declares: an undeclared query is not input', async () => {
    // GET /v1/status declares no query, so it cannot answer a 422 its contract does not list.
    const r = await env.call('GET', '/v1/status?x=%00');
    expect(r.status, r.text).toBe(200);
  });

  it('what passes the rule still works: tab, newline, astral characters, U+FFFD in a body', async () => {
    const r = await env.call('POST', '/v1/reports', {
      body: { post_id: publishedId, category: 'spam', detail: 'tab\there\nnew line 🦀 \ufffd \ue000 \ud7ff' },
    });
    expect(r.status, r.text).toBe(202);
  });
});

describe('one-line fields', () => {
  it('an account name refuses CR, LF, tab, DEL, C1 and the Unicode line separators', async () => {
    for (const bad of [
      'Evil\r\nBcc: x@example.com',
      'a\nb',
      'a\rb',
      'a\tb',
      'a\u007fb',
      'a\u0085b',
      'a\u009bb',
      'a\u2028b',
      'a\u2029b',
    ]) {
      const p = refused(
        await env.call('POST', '/v1/accounts', {
          body: { name: bad, email: 'line@example.com', accept_terms: true },
        }),
        '/name',
      );
      expect(p.detail).toMatch(/one line/);
    }
    const ok = await newAccount(env, 'Ünïcödé agent 🦀');
    expect(ok.id).toMatch(/^acct_/);
  });

  it('a title, a staff reason and a search query are one line; a story body keeps its newlines', async () => {
    refused(
      await env.call('POST', '/v1/posts?dry_run=true', {
        key: author.key,
        body: { title: 'Two\u2028lines', body: story(), topics: [] },
      }),
      '/title',
    );
    refused(
      await env.call('POST', '/v1/posts?dry_run=true', {
        key: author.key,
        body: { title: 'Tab\there', body: story(), topics: [] },
      }),
      '/title',
    );
    refused(
      await env.call('POST', `/v1/admin/posts/${publishedId}/remove`, {
        key: ADMIN_TOKEN,
        body: { reason: 'first\nsecond' },
      }),
      '/reason',
    );
    refused(await env.call('GET', '/v1/search?q=sea%0Aglass'), '/query/q');
    refused(await env.call('GET', '/v1/posts?city=Oslo%0D%0ABergen'), '/query/city');
    refused(
      await env.call('POST', '/v1/webhooks', {
        key: author.key,
        body: { url: 'https://exa\nmple.com/hook' },
      }),
      '/url',
    );
    const dry = await env.call('POST', '/v1/posts?dry_run=true', {
      key: author.key,
      body: { title: 'One line', body: story(), topics: [] },
    });
    expect(dry.status, dry.text).toBe(200);
  });
});

describe('cursors are range-checked before they reach a query', () => {
  const BAD = [
    b64('0000-01-01T00:00:00.000Z|x'),
    b64('1969-12-31T23:59:59.999Z|post_a'),
    b64('+010000-01-01T00:00:00.000Z|post_a'),
    b64('2024-02-30T00:00:00.000Z|post_a'),
    b64('2024-01-01T00:00:00.000Z|post a\u0000'),
    b64('2024-01-01T00:00:00.000Z|'),
    b64('2024-01-01T00:00:00.000Z|post_a|x'),
    b64('2024-01-01|post_a'),
    'not a cursor!',
    '%00',
  ];

  it('GET /v1/posts', async () => {
    for (const c of BAD)
      refused(await env.call('GET', `/v1/posts?cursor=${encodeURIComponent(c)}`), '/query/cursor');
  });

  it('the home page /?cursor=', async () => {
    for (const c of BAD) {
      const r = await env.call('GET', `/?cursor=${encodeURIComponent(c)}`);
      expect(r.status, `${c}: ${r.text.slice(0, 200)}`).toBe(422);
      expect(r.json?.code).toBe('validation_failed');
      expect(r.json.errors[0].pointer).toBe('/query/cursor');
    }
  });

  it('a cursor this API handed out still pages', async () => {
    const r = await env.call('POST', '/v1/posts', {
      key: author.key,
      body: { title: 'The second tide', body: story(), topics: ['sea'] },
    });
    expect(r.status, r.text).toBe(202);
    await env.platform.workers.drain('moderate');
    const first = await env.call('GET', '/v1/posts?limit=1');
    expect(first.json.next_cursor).toBeTruthy();
    const second = await env.call('GET', `/v1/posts?limit=1&cursor=${first.json.next_cursor}`);
    expect(second.status, second.text).toBe(200);
    expect(second.json.data[0].id).not.toBe(first.json.data[0].id);
    const home = await env.call('GET', `/?cursor=${first.json.next_cursor}`);
    expect(home.status).toBe(200);
  });
});

describe('MCP: the same rule, answered as a tool error', () => {
  async function connect(key?: string): Promise<Client> {
    const client = new Client({ name: 'text-boundary-test', version: '1.0.0' });
    const transport = new StreamableHTTPClientTransport(new URL(`${base}/mcp`), {
      ...(key ? { requestInit: { headers: { authorization: `Bearer ${key}` } } } : {}),
    });
    await client.connect(transport);
    clients.push(client);
    await client.listTools();
    return client;
  }

  function problemOf(r: CallToolResult) {
    expect(r.isError, JSON.stringify(r)).toBe(true);
    const first = r.content[0] as { type: string; text: string };
    return JSON.parse(first.text);
  }

  async function toolRefused(client: Client, name: string, args: Record<string, unknown>, pointer: string) {
    const p = problemOf((await client.callTool({ name, arguments: args })) as CallToolResult);
    expect(p.code, JSON.stringify(p)).toBe('validation_failed');
    expect(p.status).toBe(422);
    expect(p.errors.map((e: { pointer: string }) => e.pointer)).toContain(pointer);
    return p;
  }

  it('a NUL in a tool argument is a validation_failed tool error with a pointer, not a 500', async () => {
    const client = await connect(author.key);
    await toolRefused(client, 'get_post', { id: 'post_\u0000' }, '/id');
    await toolRefused(client, 'delete_post', { id: '\u0000' }, '/id');
    await toolRefused(client, 'delete_webhook', { id: 'wh_\u0000' }, '/id');
    await toolRefused(client, 'test_webhook', { id: 'wh_\u0000' }, '/id');
    await toolRefused(client, 'list_posts', { city: 'Oslo\u0000' }, '/city');
    await toolRefused(client, 'search_posts', { q: 'sea\u0000' }, '/q');
    await toolRefused(
      client,
      'report_post',
      { post_id: publishedId, category: 'spam', detail: '\u0000' },
      '/detail',
    );
    await toolRefused(client, 'create_webhook', { url: 'https://example.com/\u0000' }, '/url');
    await toolRefused(client, 'check_story', { title: 'Lone \ud800', body: story(), topics: [] }, '/title');
    // The connection is still usable afterwards.
    const ok = (await client.callTool({
      name: 'get_post',
      arguments: { id: publishedId },
    })) as CallToolResult;
    expect(ok.isError ?? false).toBe(false);
  });

  it('list_posts refuses an out-of-range cursor', async () => {
    const client = await connect();
    await toolRefused(client, 'list_posts', { cursor: b64('0000-01-01T00:00:00.000Z|x') }, '/query/cursor');
    await toolRefused(
      client,
      'list_posts',
      { cursor: b64('2024-13-01T00:00:00.000Z|post_a') },
      '/query/cursor',
    );
  });

  it('over raw JSON-RPC the answer is HTTP 200 with the tool error, not a transport-level 422', async () => {
    const r = await fetchReply(env, `${base}/mcp`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 7,
        method: 'tools/call',
        params: { name: 'get_post', arguments: { id: 'post_\u0000' } },
      }),
    });
    expect(r.status, r.text).toBe(200);
    expect(r.json.id).toBe(7);
    expect(r.json.result.isError).toBe(true);
    expect(JSON.parse(r.json.result.content[0].text).code).toBe('validation_failed');
  });
});

describe('the Atom feed survives rows stored before the rule', () => {
  it('a title with U+0001 and an author name with U+FFFF still make a well-formed feed', async () => {
    const db = env.platform.database.db;
    // The author's name is copied onto the post when it is published.
    await db
      .update(posts)
      .set({ title: 'Bell\u0001 \ud800 tower', authorName: 'Agent \uffff\u001b' })
      .where(eq(posts.id, publishedId));
    // Rendered as the build and the live route render it (a built file could predate the update).
    const page = await env.platform.services.siteContent.render('stories', '/feed.xml');
    const text = page?.body ?? '';
    expect(text).toContain('Bell\ufffd \ufffd tower');
    expect(text).toContain('Agent \ufffd\ufffd');
    expect(text).not.toMatch(/[^\t\n\r\u0020-\ud7ff\ue000-\ufffd\u{10000}-\u{10ffff}]/u);
    const parsed = parseXml(text);
    if (parsed !== undefined) expect(parsed).toBe('feed');
  });
});

/** The root element's name, read by a real XML parser (Python's expat) when python3 is there. */
function parseXml(text: string): string | undefined {
  try {
    execFileSync('python3', ['--version'], { stdio: 'ignore' });
  } catch {
    return undefined;
  }
  return execFileSync(
    'python3',
    [
      '-c',
      'import sys, xml.dom.minidom as m; print(m.parseString(sys.stdin.buffer.read()).documentElement.localName)',
    ],
    { input: Buffer.from(text, 'utf8') },
  )
    .toString()
    .trim();
}
