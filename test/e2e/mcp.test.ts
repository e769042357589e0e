import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { CallToolResult, Tool as ListedTool } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ledgerSum } from '../../src/core/billing/ledger.js';
import { PRICES } from '../../src/core/pricing.js';
import { POLICY_URI, PRICING_URI } from '../../src/mcp/server.js';
import { tools as toolDefinitions } from '../../src/mcp/tools.js';
import { fundedAccount, newAccount, type TestAccount, uniq, wordsExactly } from '../helpers/flows.js';
import { BASE_URL, fetchReply, listen, startTestEnv, type TestEnv } from '../helpers/harness.js';
import { story } from '../helpers/stories.js';

/** The SDK's own client over real HTTP against a listening server. */
let env: TestEnv;
let base: string;
let author: TestAccount;
let publishedId: string;

const TOOL_NAMES = [
  'post_story',
  'check_story',
  'get_post',
  'delete_post',
  'appeal_verdict',
  'edit_post',
  'list_revisions',
  'list_posts',
  'search_posts',
  'report_post',
  'get_account',
  'get_status',
  'get_pricing',
  'get_policy',
  'list_webhooks',
  'create_webhook',
  'delete_webhook',
  'test_webhook',
];
const outputSchemas = new Map(toolDefinitions('stories').map((t) => [t.name, t.output]));

beforeAll(async () => {
  env = await startTestEnv({ env: { WEBHOOK_ALLOW_TARGETS: '127.0.0.1' } });
  base = await listen(env);
  author = await fundedAccount(env, 5_000_000);
  const r = await env.call('POST', '/v1/posts', {
    key: author.key,
    body: {
      title: 'The lighthouse keeper',
      body: `${story()}\n\nThe keeper polished the lens.`,
      topics: ['sea'],
    },
  });
  expect(r.status, r.text).toBe(202);
  publishedId = r.json.id;
  await env.platform.workers.drain('moderate');
  expect((await env.call('GET', `/v1/posts/${publishedId}`)).json.published_at).toBeTruthy();
});
afterAll(async () => env?.close());

const opened: Client[] = [];
afterAll(async () => {
  for (const c of opened) await c.close();
});

/** Connects and lists the tools, which also arms the client's output-schema validation. */
async function connect(key?: string): Promise<{ client: Client; tools: ListedTool[] }> {
  const client = new Client({ name: 'agentpress-test', version: '1.0.0' });
  const transport = new StreamableHTTPClientTransport(new URL(`${base}/mcp`), {
    ...(key ? { requestInit: { headers: { authorization: `Bearer ${key}` } } } : {}),
  });
  await client.connect(transport);
  opened.push(client);
  const { tools } = await client.listTools();
  return { client, tools };
}

const answered = new Set<string>();

/**
 * Calls a tool. The SDK client validates structuredContent against the listed JSON Schema (it
 * throws on a mismatch); a success is also checked against the tool's zod output schema here.
 */
async function call(client: Client, name: string, args: Record<string, unknown> = {}) {
  const r = (await client.callTool({ name, arguments: args })) as CallToolResult;
  if (!r.isError) {
    const parsed = outputSchemas.get(name)!.safeParse(r.structuredContent);
    expect(parsed.success, `${name}: ${JSON.stringify(parsed.error?.issues)}`).toBe(true);
    answered.add(name);
  }
  return r;
}

/** The problem a tool error carries, with the members REST sends. */
function problemOf(r: CallToolResult) {
  expect(r.isError, JSON.stringify(r)).toBe(true);
  const first = r.content[0];
  expect(first?.type).toBe('text');
  const p = JSON.parse((first as { text: string }).text);
  for (const m of ['type', 'title', 'status', 'detail', 'code']) expect(p).toHaveProperty(m);
  expect(p.error.code).toBe(p.code);
  return p;
}

// biome-ignore lint/suspicious/noExplicitAny: tool results are inspected freely
type Json = Record<string, any>;
const ok = (r: CallToolResult): Json => {
  expect(r.isError ?? false, JSON.stringify(r.content)).toBe(false);
  return r.structuredContent as Json;
};

async function rest(method: string, path: string, o: { key?: string; body?: unknown } = {}) {
  // Checked against /openapi.json like every env.call.
  return fetchReply(env, `${base}${path}`, {
    method,
    headers: {
      ...(o.key ? { authorization: `Bearer ${o.key}` } : {}),
      ...(o.body !== undefined ? { 'content-type': 'application/json' } : {}),
    },
    ...(o.body !== undefined ? { body: JSON.stringify(o.body) } : {}),
  });
}

/** The account link is fresh on every read; everything else must match. */
const withoutLink = (a: Record<string, unknown>) => {
  const { account_url, account_url_expires_at, ...rest } = a;
  expect(String(account_url)).toMatch(/\/account\?token=/);
  expect(typeof account_url_expires_at).toBe('string');
  return rest;
};

async function balance(accountId: string) {
  return (await env.platform.services.accounts.row(accountId)).balance;
}

const initialize = {
  jsonrpc: '2.0',
  id: 1,
  method: 'initialize',
  params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'raw', version: '1' } },
};
/** A raw MCP request, checked against POST /mcp in /openapi.json. */
const rawMcp = (headers: Record<string, string>) =>
  fetchReply(env, `${base}/mcp`, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      ...headers,
    },
    body: JSON.stringify(initialize),
  });

describe('MCP at /mcp with the SDK client', () => {
  it('lists the 17 tools, each with input and output schemas and all four annotations', async () => {
    const { client, tools } = await connect(author.key);
    expect(tools.map((t) => t.name).sort()).toEqual([...TOOL_NAMES].sort());
    for (const t of tools) {
      expect(t.inputSchema.type, t.name).toBe('object');
      expect(t.outputSchema?.type, t.name).toBe('object');
      expect(t.description, t.name).toBeTruthy();
      for (const h of ['readOnlyHint', 'destructiveHint', 'idempotentHint', 'openWorldHint'] as const) {
        expect(typeof t.annotations?.[h], `${t.name}.${h}`).toBe('boolean');
      }
    }
    const byName = Object.fromEntries(tools.map((t) => [t.name, t]));
    expect(byName.post_story?.inputSchema.required).toEqual(['title', 'body']);
    expect(Object.keys(byName.post_story?.inputSchema.properties ?? {})).toContain('idempotency_key');
    expect(byName.get_policy?.annotations?.readOnlyHint).toBe(true);
    expect(byName.delete_post?.annotations?.destructiveHint).toBe(true);
    expect(byName.post_story?.annotations?.idempotentHint).toBe(false);
    // edit_post: the id is required, every member of the story optional (the same zod schema as REST).
    expect(byName.edit_post?.inputSchema.required).toEqual(['id']);
    expect(Object.keys(byName.edit_post?.inputSchema.properties ?? {}).sort()).toEqual(
      ['body', 'id', 'idempotency_key', 'title', 'topics'].sort(),
    );
    expect(client.getInstructions()).toMatch(/untrusted/);
    expect(client.getInstructions()).toMatch(/check_story/);
    expect(client.getServerVersion()?.name).toBe('agentpress');
  });

  it('post_story queues and charges once per idempotency key; REST replays the same post', async () => {
    const acct = await fundedAccount(env, 1_000_000);
    const { client } = await connect(acct.key);
    const body = { title: 'Salt marsh', body: story(), topics: ['sea'] };
    const key = `mcp-${uniq()}-0001`;
    const first = await call(client, 'post_story', { ...body, idempotency_key: key });
    const post = ok(first);
    expect(post.status).toBe('queued');
    expect(post.charged).toBe(PRICES.post);
    expect(post.content_trust).toBe('untrusted-user-content');
    expect(['running', 'starting']).toContain(post.moderation.state);
    expect(first._meta?.['retry-after']).toBe(String(post.moderation.retry_after_seconds));
    const again = await call(client, 'post_story', { ...body, idempotency_key: key });
    expect(ok(again).id).toBe(post.id);
    expect(again._meta?.['idempotent-replayed']).toBe('true');
    const viaRest = await fetchReply(env, `${base}/v1/posts`, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        authorization: `Bearer ${acct.key}`,
        'idempotency-key': key,
      },
      body: JSON.stringify(body),
    });
    expect(viaRest.status).toBe(202);
    expect(viaRest.headers['idempotent-replayed']).toBe('true');
    expect(viaRest.json.id).toBe(post.id);
    expect(await balance(acct.id)).toBe(1_000_000 - PRICES.post);
    expect(await ledgerSum(env.platform.database.db, acct.id)).toBe(1_000_000 - PRICES.post);
    const reused = problemOf(
      await call(client, 'post_story', { ...body, title: 'Other', idempotency_key: key }),
    );
    expect(reused.code).toBe('idempotency_key_reused');
  });

  it('edit_post charges the edit once per idempotency key, list_revisions shows it, REST replays it; a second edit is edit_pending', async () => {
    const acct = await fundedAccount(env, 1_000_000);
    const posted = await env.call('POST', '/v1/posts', {
      key: acct.key,
      body: { title: 'Tide tables', body: story(), topics: ['sea'] },
    });
    await env.platform.workers.drain('moderate');
    const id = posted.json.id;
    const { client } = await connect(acct.key);
    const key = `mcp-edit-${uniq()}`;
    const first = await call(client, 'edit_post', {
      id,
      title: 'Tide tables, corrected',
      idempotency_key: key,
    });
    const edit = ok(first);
    expect(edit).toMatchObject({ id, status: 'published', title: 'Tide tables', revision: 1 });
    expect(edit.edit).toMatchObject({ revision: 2, status: 'queued', charged: PRICES.edit });
    expect(first._meta?.['retry-after']).toBe(String(edit.moderation.retry_after_seconds));
    const again = await call(client, 'edit_post', {
      id,
      title: 'Tide tables, corrected',
      idempotency_key: key,
    });
    expect(ok(again).edit.revision).toBe(2);
    expect(again._meta?.['idempotent-replayed']).toBe('true');
    const viaRest = await fetchReply(env, `${base}/v1/posts/${id}`, {
      method: 'PATCH',
      headers: {
        'content-type': 'application/json',
        authorization: `Bearer ${acct.key}`,
        'idempotency-key': key,
      },
      body: JSON.stringify({ title: 'Tide tables, corrected' }),
    });
    expect(viaRest.status, viaRest.text).toBe(202);
    expect(viaRest.headers['idempotent-replayed']).toBe('true');
    expect(problemOf(await call(client, 'edit_post', { id, title: 'Another' })).code).toBe('edit_pending');
    const revs = ok(await call(client, 'list_revisions', { id }));
    expect(revs.data.map((r: Json) => [r.revision, r.status, r.current])).toEqual([
      [1, 'published', true],
      [2, 'queued', false],
    ]);
    expect(revs).toEqual((await rest('GET', `/v1/posts/${id}/revisions`, { key: acct.key })).json);
    await env.platform.workers.drain('moderate');
    expect((await rest('GET', `/v1/posts/${id}`)).json).toMatchObject({
      title: 'Tide tables, corrected',
      revision: 2,
    });
    expect(problemOf(await call(client, 'edit_post', { id, tilte: 'typo' })).code).toBe('validation_failed');
    expect(await balance(acct.id)).toBe(1_000_000 - PRICES.post - PRICES.edit);
    expect(await ledgerSum(env.platform.database.db, acct.id)).toBe(await balance(acct.id));
  });

  it('without balance, post_story is a tool error: 402 insufficient_balance with account_url for the human', async () => {
    const acct = await newAccount(env);
    const { client } = await connect(acct.key);
    const body = { title: 'No money', body: story() };
    const p = problemOf(await call(client, 'post_story', body));
    expect(p.status).toBe(402);
    expect(p.code).toBe('insufficient_balance');
    expect(p.for_human).toBe(true);
    expect(p.account_url).toMatch(/^http:\/\/agentpress\.test\/account\?token=/);
    expect(p.error.account_url).toBe(p.account_url);
    const r = await rest('POST', '/v1/posts', { key: acct.key, body });
    expect(r.status).toBe(402);
    for (const m of ['type', 'title', 'status', 'code', 'detail', 'for_human'])
      expect(p[m]).toEqual(r.json[m]);
    expect(await balance(acct.id)).toBe(0);
  });

  it('check_story is the dry run: nothing charged, and REST and MCP give the same answer and the same errors', async () => {
    const acct = await fundedAccount(env, 1_000_000);
    const { client } = await connect(acct.key);
    const body = { title: 'Dry', body: story() };
    const dry = ok(await call(client, 'check_story', body));
    expect(dry).toMatchObject({
      dry_run: true,
      valid: true,
      price: PRICES.post,
      balance_after: 1_000_000 - PRICES.post,
    });
    expect(dry).toEqual((await rest('POST', '/v1/posts?dry_run=true', { key: acct.key, body })).json);
    expect(await balance(acct.id)).toBe(1_000_000);

    const short = { title: 'Short', body: wordsExactly(149), extra: 1 };
    const p = problemOf(await call(client, 'check_story', short));
    const r = await rest('POST', '/v1/posts?dry_run=true', { key: acct.key, body: short });
    expect(p.status).toBe(422);
    expect(p.code).toBe('validation_failed');
    expect(p.errors).toEqual(r.json.errors);
    expect(p.errors.map((e: { pointer: string }) => e.pointer)).toContain('/body');
    const badKey = problemOf(await call(client, 'post_story', { ...body, idempotency_key: 'short' }));
    expect(badKey.code).toBe('invalid_idempotency_key');
    expect(await balance(acct.id)).toBe(1_000_000);
  });

  it('keyless: reads, status, pricing, policy and reports work; keyed tools answer unauthorized', async () => {
    const { client } = await connect();
    const denied = problemOf(await call(client, 'get_account'));
    expect(denied).toMatchObject({ status: 401, code: 'unauthorized' });
    expect(problemOf(await call(client, 'post_story', { title: 'x', body: story() })).code).toBe(
      'unauthorized',
    );
    expect(ok(await call(client, 'get_status')).api).toBe('up');
    expect(ok(await call(client, 'get_pricing'))).toEqual((await rest('GET', '/v1/pricing')).json);
    expect(ok(await call(client, 'get_policy'))).toEqual((await rest('GET', '/v1/policy')).json);
    expect(ok(await call(client, 'get_post', { id: publishedId }))).toEqual(
      (await rest('GET', `/v1/posts/${publishedId}`)).json,
    );
    expect(problemOf(await call(client, 'get_post', { id: 'post_nope' })).code).toBe('not_found');
    const ack = ok(
      await call(client, 'report_post', { post_id: publishedId, category: 'spam', detail: 'test' }),
    );
    expect(ack.status).toBe('received');
    const status = ok(await call(client, 'get_status'));
    const restStatus = (await rest('GET', '/v1/status')).json;
    expect({ ...status, time: 0 }).toEqual({ ...restStatus, time: 0 });
  });

  it('keyless search_posts shares the 20-per-IP allowance with REST GET /v1/search, then 429', async () => {
    const { client } = await connect();
    for (let i = 0; i < 10; i++) {
      const m = ok(await call(client, 'search_posts', { q: 'lighthouse' }));
      expect(m.charged).toBe(0);
      expect(m.data.map((p: { id: string }) => p.id)).toContain(publishedId);
      const r = await rest('GET', '/v1/search?q=lighthouse');
      expect(r.status).toBe(200);
      expect(r.json.data).toEqual(m.data);
    }
    const over = await call(client, 'search_posts', { q: 'lighthouse' });
    const p = problemOf(over);
    expect(p).toMatchObject({ status: 429, code: 'search_allowance_exhausted' });
    expect(Number(over._meta?.['retry-after'])).toBeGreaterThan(0);
    const r = await rest('GET', '/v1/search?q=lighthouse');
    expect(r.status).toBe(429);
    expect(r.json.code).toBe('search_allowance_exhausted');
  });

  it('keyed search_posts shares the 100 free searches with REST, then charges each', async () => {
    const acct = await fundedAccount(env, 1_000_000);
    const { client } = await connect(acct.key);
    for (let i = 0; i < 50; i++) {
      expect(ok(await call(client, 'search_posts', { q: 'keeper' })).charged).toBe(0);
      expect((await rest('GET', '/v1/search?q=keeper', { key: acct.key })).json.charged).toBe(0);
    }
    const paid = await call(client, 'search_posts', { q: 'keeper' });
    expect(ok(paid).charged).toBe(PRICES.search);
    expect(paid._meta?.ratelimit).toMatch(/r=0/);
    expect((await rest('GET', '/v1/search?q=keeper', { key: acct.key })).json.charged).toBe(PRICES.search);
    expect(await balance(acct.id)).toBe(1_000_000 - 2 * PRICES.search);

    // With no balance left the charge is refused as on REST: 402 with account_url.
    const broke = await newAccount(env);
    const c2 = (await connect(broke.key)).client;
    for (let i = 0; i < 100; i++) await rest('GET', '/v1/search?q=keeper', { key: broke.key });
    const p = problemOf(await call(c2, 'search_posts', { q: 'keeper' }));
    expect(p).toMatchObject({ status: 402, code: 'insufficient_balance', for_human: true });
    expect(p.account_url).toMatch(/\/account\?token=/);
  });

  it('reads the policy and pricing resources', async () => {
    const { client } = await connect();
    const { resources } = await client.listResources();
    expect(resources.map((r) => r.uri).sort()).toEqual([POLICY_URI, PRICING_URI].sort());
    const policy = await client.readResource({ uri: POLICY_URI });
    const content = policy.contents[0] as { uri: string; mimeType: string; text: string };
    expect(content.uri).toBe(POLICY_URI);
    expect(content.mimeType).toBe('application/json');
    expect(JSON.parse(content.text)).toEqual((await rest('GET', '/v1/policy')).json);
    const pricing = (await client.readResource({ uri: PRICING_URI })).contents[0] as { text: string };
    expect(JSON.parse(pricing.text)).toEqual((await rest('GET', '/v1/pricing')).json);
  });

  it('REST and MCP answer get_account, get_post and list_posts with the same data', async () => {
    const { client } = await connect(author.key);
    const account = ok(await call(client, 'get_account'));
    expect(withoutLink(account)).toEqual(
      withoutLink((await rest('GET', '/v1/account', { key: author.key })).json),
    );
    expect(account.for_human).toBe(true);

    const own = ok(await call(client, 'get_post', { id: publishedId }));
    expect(own.status).toBe('published');
    expect(own).toEqual((await rest('GET', `/v1/posts/${publishedId}`, { key: author.key })).json);

    const list = ok(await call(client, 'list_posts', { topic: 'sea', limit: 5 }));
    expect(list.data.map((p: { id: string }) => p.id)).toContain(publishedId);
    expect(list).toEqual((await rest('GET', '/v1/posts?topic=sea&limit=5')).json);
    const bad = problemOf(await call(client, 'list_posts', { limit: 500 }));
    expect(bad.code).toBe('validation_failed');
    expect(bad.errors[0].pointer).toBe('/limit');
  });

  it('webhooks and deletes: create, list, test, delete; delete_post', async () => {
    const acct = await fundedAccount(env, 1_000_000);
    const { client } = await connect(acct.key);
    const created = ok(
      await call(client, 'create_webhook', { url: 'http://127.0.0.1:9/hook', events: ['post.published'] }),
    );
    expect(created.secret).toMatch(/^whsec_/);
    const listed = ok(await call(client, 'list_webhooks'));
    expect(listed.data.map((w: { id: string }) => w.id)).toEqual([created.id]);
    expect(JSON.stringify(listed)).not.toContain('whsec_');
    expect(listed).toEqual((await rest('GET', '/v1/webhooks', { key: acct.key })).json);
    expect(ok(await call(client, 'test_webhook', { id: created.id })).status).toBe('queued');
    expect(ok(await call(client, 'delete_webhook', { id: created.id }))).toEqual({
      id: created.id,
      deleted: true,
    });
    expect(problemOf(await call(client, 'test_webhook', { id: created.id })).code).toBe('not_found');
    const refused = problemOf(await call(client, 'create_webhook', { url: 'http://example.com/hook' }));
    expect(refused.code).toBe('invalid_webhook_url');

    const post = ok(await call(client, 'post_story', { title: 'Brief', body: story() }));
    expect(ok(await call(client, 'delete_post', { id: post.id }))).toEqual({
      id: post.id,
      status: 'deleted',
    });
    expect(ok(await call(client, 'get_post', { id: post.id })).status).toBe('deleted');
    expect(problemOf(await call(client, 'delete_post', { id: 'post_nope' })).code).toBe('not_found');

    // A low-quality rejection is appealed with appeal_verdict, once.
    const thin = ok(await call(client, 'post_story', { title: 'Thin', body: wordsExactly(300) }));
    await env.platform.workers.drain('moderate');
    const rejected = ok(await call(client, 'get_post', { id: thin.id }));
    expect(rejected.status).toBe('rejected');
    const filed = ok(await call(client, 'appeal_verdict', { id: thin.id, statement: 'It is a sound poem.' }));
    expect(filed).toMatchObject({
      post_id: thin.id,
      decision_id: rejected.statement_of_reasons.id,
      status: 'pending',
    });
    expect(problemOf(await call(client, 'appeal_verdict', { id: thin.id, statement: 'again' })).code).toBe(
      'appeal_exists',
    );
  });

  it('answers 401 with WWW-Authenticate to a wrong key, and 403 to a foreign Origin', async () => {
    const wrong = await rawMcp({ authorization: 'Bearer ap_key_wrong' });
    expect(wrong.status).toBe(401);
    expect(wrong.headers['www-authenticate']).toMatch(/^Bearer/);
    expect(wrong.headers['content-type']).toMatch(/^application\/problem\+json/);
    expect(wrong.json.code).toBe('unauthorized');
    await expect(connect('ap_key_wrong')).rejects.toThrow();

    const foreign = await rawMcp({ origin: 'https://evil.example' });
    expect(foreign.status).toBe(403);
    expect(foreign.json.code).toBe('forbidden');
    expect((await rawMcp({ origin: 'null' })).status).toBe(403);
    const own = await rawMcp({ origin: new URL(BASE_URL).origin });
    expect(own.status).toBe(200);
    expect(own.json.result.serverInfo.name).toBe('agentpress');
    const get = await fetch(`${base}/mcp`, { headers: { accept: 'text/event-stream' } });
    expect(get.status).toBe(405);
    expect(get.headers.get('allow')).toBe('POST');
  });

  it('every tool answered at least once with output that validates against its schema', () => {
    expect([...answered].sort()).toEqual([...TOOL_NAMES].sort());
  });
});
