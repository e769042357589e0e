/**
 * A hostile-input fuzz pass, with credentials, so that every request reaches the handler it aims at:
 *
 * 1. Paths not in canonical form (percent-encoded unreserved characters, `//`, `/./`, `/../`,
 *    `;` parameters, a trailing `/` or `/.`) of every /v1 route and /mcp, sent without
 *    credentials over real HTTP (fetch and inject would normalize `..`): never 2xx, never 5xx,
 *    and refused with 400 (a problem) or 404, never let through to the route's guard (401).
 * 2. Characters XML 1.0 forbids (NUL, the other C0 controls but tab/LF/CR, U+FFFE, U+FFFF, lone
 *    surrogates) in every path parameter, query parameter and string member of a body of every
 *    operation of /openapi.json (walked generically), in the forms of the account and staff
 *    pages, and in every string argument of every MCP tool (listed with the SDK's client): the
 *    JSON API answers 422 validation_failed, MCP a tool error or a JSON-RPC error (never an HTTP
 *    5xx, never internal_error), pages never 5xx.
 * 3. Cursors out of range or garbage on /v1/posts, /v1/search, /v1/manage/ledger, the home page
 *    and the MCP list_posts and search_posts tools: never 5xx, never internal_error.
 * 4. One-line fields (account name, title, topics, staff reasons) holding CR/LF or other control
 *    characters: refused (4xx, a tool error) and never stored.
 * 5. Afterwards: not one 5xx in the whole pass, and the rows of the tables a refused request could
 *    have written are unchanged (counts, and the members a refused request could have altered).
 *
 * Sizes: FUZZ_HOSTILE_PER_FIELD hostile values per field (default 0: one per forbidden character,
 * each in a shape fast-check draws; plus two fixed NUL cases),
 * FUZZ_SEED for fast-check. Every broken expectation is listed as
 * `METHOD path [field=value] -> status: why`.
 */

import type { AddressInfo } from 'node:net';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { McpError } from '@modelcontextprotocol/sdk/types.js';
import { sql } from 'drizzle-orm';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { queryRows } from '../../src/db/client.js';
import { fundedAccount, linkToken, newAccount, type TestAccount, uniq } from '../helpers/flows.js';
import { ADMIN_TOKEN, BASE_URL, startTestEnv, type TestEnv } from '../helpers/harness.js';
import { injected, story } from '../helpers/stories.js';
import {
  BAD_PERCENT,
  baseValue,
  excerpt,
  FORBIDDEN_ALL,
  FORBIDDEN_URL_SAFE,
  format,
  hostileValues,
  injectFetch,
  ONE_LINE_BREAKERS,
  pickAlternative,
  Recorder,
  rawHttp,
  type Schema,
  type Slot,
  show,
  spellings,
  stringSlots,
} from './hostile-kit.js';

const PER_FIELD = Number(process.env.FUZZ_HOSTILE_PER_FIELD ?? 0);
const SEED = Number(process.env.FUZZ_SEED ?? 20261122);
const HOST = new URL(BASE_URL).host;
const ORIGIN = new URL(BASE_URL).origin;

/** Tables a refused request could have written to (those present in this schema are counted). */
const TABLES = [
  'accounts',
  'api_keys',
  'owner_challenges',
  'owner_sessions',
  'ledger',
  'top_ups',
  'recharges',
  'mail_outbox',
  'posts',
  'idempotency_keys',
  'reports',
  'webhook_endpoints',
  'webhook_deliveries',
  'staff_sessions',
];
/** The members a refused request could alter in place (a decision, a removal, a revoked key…). */
const DIGESTS: Record<string, string> = {
  posts: 'SELECT id, status, title, topics, rejection_reason, deleted_at FROM posts',
  accounts: 'SELECT id, name, status, balance, card_on_file, deletion_requested_at FROM accounts',
  api_keys: 'SELECT id, revoked_at FROM api_keys',
  webhook_endpoints: 'SELECT id, url, events, deleted_at FROM webhook_endpoints',
  reports: 'SELECT id, post_id, status, detail FROM reports',
};

const rec = new Recorder();
let env: TestEnv;
let port: number;
let started = 0;

/** Who calls what. */
let agent: TestAccount; // unfunded: the keyed routes
let author: TestAccount; // funded, with an owner session: posting, /v1/manage, the account page
const searchers: TestAccount[] = []; // REST search, each with its own daily allowance
let searches = 0;
const mcpSearchers: TestAccount[] = []; // MCP search_posts, in turn
let cursorSearcher: TestAccount; // the cursor pass's searches
let staffCookie: string;
/** Real ids, so that a request would succeed but for the injected character. */
const ids = {
  /** Read, reported, relayed about: never changed unless a hostile request gets through. */
  pubA: '',
  /** Each target of a change has its own post, so one request let through does not hide the next. */
  pubB: '', // console remove (2b)
  pubC: '', // DELETE /v1/posts/{id} (2a)
  pubD: '', // POST /v1/admin/posts/{id}/remove (2a)
  pubE: '', // one-line reason, REST remove (4)
  pubF: '', // one-line reason, console remove (4)
  pubG: '', // MCP delete_post (2c)
  revA: '', // POST /v1/admin/posts/{id}/decision (2a)
  revB: '', // console decision (2b)
  revC: '', // one-line reason, REST decision (4)
  revD: '', // one-line reason, console decision (4)
  agentHook: '', // POST /v1/webhooks/{id}/test and /deliveries
  agentHookDel: '', // DELETE /v1/webhooks/{id}
  authorHook: '', // MCP test_webhook
  authorHookDel: '', // MCP delete_webhook
  spareKey: '', // DELETE /v1/manage/keys/{id}
  spareKey2: '', // the account page's revoke form
};

let ipCounter = 0;
const nextIp = () => {
  ipCounter++;
  return `10.${(ipCounter >> 16) & 255}.${(ipCounter >> 8) & 255}.${ipCounter & 255}`;
};

async function counts(): Promise<Record<string, number | string>> {
  const db = env.platform.database.db;
  const present = new Set(
    (
      await queryRows<{ t: string }>(
        db,
        sql.raw(`SELECT table_name AS t FROM information_schema.tables WHERE table_schema = 'public'`),
      )
    ).map((r) => r.t),
  );
  const out: Record<string, number | string> = {};
  for (const t of TABLES) {
    if (!present.has(t)) continue;
    const [row] = await queryRows<{ n: string }>(db, sql.raw(`SELECT count(*) AS n FROM ${t}`));
    out[t] = Number(row?.n ?? 0);
  }
  for (const [t, q] of Object.entries(DIGESTS)) {
    const [row] = await queryRows<{ d: string | null }>(
      db,
      sql.raw(`SELECT md5(coalesce(string_agg(r::text, '|' ORDER BY r::text), '')) AS d FROM (${q}) r`),
    );
    out[`${t} (digest)`] = String(row?.d);
  }
  return out;
}

async function postStatus(id: string): Promise<string> {
  const [row] = await queryRows<{ status: string }>(
    env.platform.database.db,
    sql`SELECT status FROM posts WHERE id = ${id}`,
  );
  return row?.status ?? '(none)';
}

async function createPost(acct: TestAccount, body: string, title: string): Promise<string> {
  const r = await env.call('POST', '/v1/posts', { key: acct.key, body: { title, body, topics: ['sea'] } });
  expect(r.status, r.text).toBe(202);
  return r.json.id;
}

let before: Record<string, number | string>;

beforeAll(async () => {
  started = Date.now();
  env = await startTestEnv({ env: { WEBHOOK_ALLOW_TARGETS: '127.0.0.1' } });
  await env.app.listen({ port: 0, host: '127.0.0.1' });
  port = (env.app.server.address() as AddressInfo).port;

  agent = await newAccount(env);
  for (let i = 0; i < 4; i++) searchers.push(await newAccount(env));
  cursorSearcher = await newAccount(env);
  for (let i = 0; i < 3; i++) mcpSearchers.push(await newAccount(env));
  author = await fundedAccount(env, 10_000_000);

  const published = ['pubA', 'pubB', 'pubC', 'pubD', 'pubE', 'pubF', 'pubG'] as const;
  const review = ['revA', 'revB', 'revC', 'revD'] as const;
  for (const k of published) ids[k] = await createPost(author, story(), `The lighthouse keeper ${k}`);
  for (const k of review) ids[k] = await createPost(author, injected(), `Read me first ${k}`);
  await env.platform.workers.drain('moderate');
  for (const k of published) expect(await postStatus(ids[k])).toBe('published');
  for (const k of review) expect(await postStatus(ids[k])).toBe('review');

  const hook = async (key: string) => {
    const r = await env.call('POST', '/v1/webhooks', { key, body: { url: 'http://127.0.0.1:9/none' } });
    expect(r.status, r.text).toBe(201);
    return r.json.id as string;
  };
  ids.agentHook = await hook(agent.key);
  ids.agentHookDel = await hook(agent.key);
  ids.authorHook = await hook(author.key);
  ids.authorHookDel = await hook(author.key);
  for (const k of ['spareKey', 'spareKey2'] as const) {
    const r = await env.call('POST', '/v1/manage/keys', { key: author.owner, body: {} });
    expect(r.status, r.text).toBe(201);
    ids[k] = r.json.id;
  }

  // The staff console's session (the admin token itself at HEAD, a session token once staff
  // sessions exist): whatever the sign-in sets.
  const signIn = await env.app.inject({
    method: 'POST',
    url: '/admin/sign-in',
    headers: { host: HOST, origin: ORIGIN, 'content-type': 'application/x-www-form-urlencoded' },
    payload: `token=${encodeURIComponent(ADMIN_TOKEN)}`,
    remoteAddress: nextIp(),
  });
  expect(signIn.statusCode, signIn.body).toBe(303);
  const setCookie = [signIn.headers['set-cookie']].flat().join(';');
  const m = /ap_admin=([^;]+)/.exec(setCookie);
  expect(m, setCookie).toBeTruthy();
  staffCookie = `ap_admin=${m?.[1]}`;

  before = await counts();
}, 120_000);

afterAll(async () => {
  console.log(
    `hostile fuzz: ${rec.sent} requests in ${((Date.now() - started) / 1000).toFixed(1)} s; ` +
      `statuses ${JSON.stringify(Object.fromEntries([...rec.statuses].sort((a, b) => a[0] - b[0])))}; ` +
      `${rec.failures.length} broken expectations, ${rec.serverErrors.length} answers 5xx`,
  );
  await env?.close();
});

/** Fails the test with every broken expectation of `check`, one per line. */
function expectNoFailures(check: string) {
  const lines = rec.report(check);
  if (lines.length) console.log(`\n[${check}] ${lines.length} broken:\n${lines.join('\n')}`);
  expect(lines.length, `${check}: ${lines.length} broken expectations\n${lines.join('\n')}`).toBe(0);
}

// ---------------------------------------------------------------------------------------------
// The route table of /openapi.json.

interface Param {
  in: string;
  name: string;
  required?: boolean;
  schema: Schema;
}
interface Operation {
  method: string;
  path: string;
  security: Record<string, string[]>[] | undefined;
  params: Param[];
  body: Schema | undefined;
}

async function operations(): Promise<Operation[]> {
  const doc = (await env.call('GET', '/openapi.json')).json as {
    paths: Record<string, Record<string, Schema>>;
  };
  const ops: Operation[] = [];
  for (const [path, byMethod] of Object.entries(doc.paths)) {
    for (const [method, op] of Object.entries(byMethod)) {
      if (!['get', 'post', 'put', 'patch', 'delete'].includes(method)) continue;
      ops.push({
        method: method.toUpperCase(),
        path,
        security: op.security,
        params: (op.parameters ?? []) as Param[],
        body: op.requestBody?.content?.['application/json']?.schema,
      });
    }
  }
  return ops;
}

const schemeOf = (op: Operation) => {
  const named = new Set((op.security ?? []).flatMap((s) => Object.keys(s)));
  return named.has('adminToken')
    ? 'admin'
    : named.has('ownerSession')
      ? 'owner'
      : named.has('apiKey')
        ? 'key'
        : 'none';
};

/** The bearer a request of `op` carries, so that it gets past authentication. */
function credentialFor(op: Operation): string | undefined {
  switch (schemeOf(op)) {
    case 'admin':
      return ADMIN_TOKEN;
    case 'owner':
      return author.owner;
    case 'key':
      // The funded author owns the posts: a post that passes validation is charged and stored.
      if (op.path.startsWith('/v1/posts')) return author.key;
      // Each searcher has its own daily allowance (100 free): a few keys, in turn, stay inside it.
      if (op.path === '/v1/search') return searchers[Math.floor(searches++ / 30) % searchers.length]?.key;
      return agent.key;
    default:
      return undefined;
  }
}

/** Valid values by member name: what a schema cannot say (a real id, a story of 150 words). */
function namedValues(op: { method: string; path: string }): Record<string, () => unknown> {
  const id = op.path.startsWith('/v1/admin/posts/')
    ? op.path.endsWith('/decision')
      ? ids.revA
      : ids.pubD
    : op.path.startsWith('/v1/webhooks')
      ? op.method === 'DELETE'
        ? ids.agentHookDel
        : ids.agentHook
      : op.path.startsWith('/v1/manage/keys')
        ? ids.spareKey
        : op.path.startsWith('/v1/posts') && op.method === 'DELETE'
          ? ids.pubC
          : ids.pubA;
  return {
    id: () => id,
    post_id: () => ids.pubA,
    name: () => `hostile agent ${uniq()}`,
    email: () => `hostile-${uniq()}@example.com`,
    to: () => author.email,
    token: () => linkToken(agent.account_url),
    code: () => (op.path.startsWith('/errors') ? 'not_found' : '123456'),
    card: () => '4242424242424242',
    country: () => 'PT',
    state: () => 'PT-11',
    city: () => 'Lisbon',
    topic: () => 'sea',
    topics: () => ['sea'],
    'topics[]': () => 'sea',
    title: () => 'A quiet harbour',
    body: () => story(),
    q: () => 'harbour',
    cursor: () => Buffer.from('2026-11-01T00:00:00.000Z|post_x').toString('base64url'),
    url: () => 'http://127.0.0.1:9/hook',
    reason: () => 'Checked by a person.',
    detail: () => 'It copies another story word for word.',
    message: () => 'Is it still available?',
    decision: () => 'publish',
    category: () => 'spam',
    dry_run: () => 'true',
    limit: () => 5,
  };
}

function fill(template: string, params: Record<string, string>): string {
  return template.replace(/\{([^}]+)\}/g, (_m, n: string) => params[n] ?? 'x1');
}

// ---------------------------------------------------------------------------------------------

describe('hostile input', () => {
  let ops: Operation[];
  beforeAll(async () => {
    ops = await operations();
  });

  it('covers every operation of /openapi.json', () => {
    expect(ops.length).toBeGreaterThan(40);
    expect(ops.some((o) => o.path.startsWith('/v1/admin/'))).toBe(true);
    expect(ops.some((o) => o.path.startsWith('/v1/manage/'))).toBe(true);
  });

  it('1. refuses every non-canonical spelling of the /v1 routes and /mcp without credentials (400 or 404; a trailing slash answers as the path)', async () => {
    const check = 'canonical-path';
    const routes: [string, string][] = ops
      .filter((o) => o.path.startsWith('/v1/') || o.path === '/mcp')
      .map((o) => [o.method, o.path]);
    for (const m of ['GET', 'DELETE'])
      if (!routes.some(([x, p]) => x === m && p === '/mcp')) routes.push([m, '/mcp']);
    // Sanity: the canonical spelling of a staff route is refused for want of a token.
    const canonical = await rawHttp(port, 'GET', '/v1/admin/outbox', {
      host: HOST,
      accept: 'application/json',
    });
    expect(canonical.status).toBe(401);

    const jobs: { method: string; path: string; canonical: string }[] = [];
    routes.forEach(([method, template], i) => {
      const path = fill(template, { id: String(namedValues({ method, path: template }).id?.()) });
      for (const s of spellings(path, SEED + i)) jobs.push({ method, path: s, canonical: path });
    });
    // One trailing slash is the one normalisation the router makes (ignoreTrailingSlash): it must
    // answer exactly what the canonical path answers with the same (no) credentials.
    const send = async (j: (typeof jobs)[number]) => {
      const hasBody = ['POST', 'PUT', 'PATCH'].includes(j.method);
      const request = (path: string) =>
        rawHttp(
          port,
          j.method,
          path,
          {
            host: HOST,
            accept: j.canonical === '/mcp' ? 'application/json, text/event-stream' : 'application/json',
            ...(hasBody ? { 'content-type': 'application/json' } : {}),
          },
          hasBody
            ? j.canonical === '/mcp'
              ? JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list', params: {} })
              : '{}'
            : undefined,
        );
      const r = await request(j.path);
      const where = { method: j.method, path: j.path, field: '', value: '' };
      rec.saw(r.status, where, check, r.text);
      const fail = (why: string) =>
        rec.fail({ ...where, check, status: r.status, why: `${why} (${excerpt(r.text)})` });
      if (j.path === `${j.canonical}/`) {
        const c = await request(j.canonical);
        if (r.status !== c.status) fail(`a trailing slash answered ${r.status}, the path itself ${c.status}`);
        return;
      }
      if (r.status >= 200 && r.status < 300)
        fail(`a non-canonical spelling reached ${j.canonical} without credentials`);
      else if (r.status >= 500) fail('server error');
      else if (r.status !== 400 && r.status !== 404)
        fail(`a non-canonical spelling of ${j.canonical} must answer 400 or 404`);
      else if (r.status === 400 && !/^application\/problem\+json/.test(r.contentType))
        fail(`400 must be application/problem+json, was ${r.contentType}`);
    };
    // A few at a time over the socket.
    for (let i = 0; i < jobs.length; i += 8) await Promise.all(jobs.slice(i, i + 8).map(send));
    console.log(`canonical-path: ${jobs.length} spellings of ${routes.length} routes`);
    expectNoFailures(check);
  }, 120_000);

  it('2a. answers 422 validation_failed to forbidden characters in every parameter and body string of /openapi.json', async () => {
    const check = 'forbidden-chars-api';
    let index = 0;
    let sentHere = 0;
    for (const op of ops) {
      if (op.path === '/mcp' || op.path === '/v1/stripe/webhook') continue; // MCP below; the Stripe body is signed
      const named = namedValues(op);
      const base = (n: string, s: Schema) => baseValue(s, n, named);
      const pathBase: Record<string, string> = {};
      for (const p of op.params.filter((x) => x.in === 'path'))
        pathBase[p.name] = String(base(p.name, p.schema));
      const requiredQuery = op.params.filter((x) => x.in === 'query' && x.required);
      const bodySchema = op.body ? pickAlternative(op.body, (s) => s.title === 'stories') : undefined;
      const slots: Slot[] = bodySchema ? stringSlots(bodySchema, named) : [];
      const strict = op.path.startsWith('/v1/');
      const key = credentialFor(op);

      type Point = {
        field: string;
        base: string;
        inBody: boolean;
        build(v: string, raw: boolean): { url: string; body?: unknown };
      };
      const points: Point[] = [];
      const queryOf = (over: Record<string, string>, raw?: string) => {
        const q: string[] = [];
        for (const p of requiredQuery)
          if (!(p.name in over)) q.push(`${p.name}=${encodeURIComponent(String(base(p.name, p.schema)))}`);
        for (const [k, v] of Object.entries(over)) q.push(`${k}=${raw === k ? v : encodeURIComponent(v)}`);
        return q.length ? `?${q.join('&')}` : '';
      };
      const baseBody = () => (bodySchema ? (base('', bodySchema) as Record<string, unknown>) : undefined);
      for (const p of op.params) {
        if (p.in === 'path')
          points.push({
            field: `path.${p.name}`,
            base: pathBase[p.name] ?? 'x1',
            inBody: false,
            build: (v, raw) => ({
              url: fill(op.path, { ...pathBase, [p.name]: raw ? v : encodeURIComponent(v) }) + queryOf({}),
              body: baseBody(),
            }),
          });
        else if (p.in === 'query')
          points.push({
            field: `query.${p.name}`,
            base: String(base(p.name, p.schema)),
            inBody: false,
            build: (v, raw) => ({
              url: fill(op.path, pathBase) + queryOf({ [p.name]: v }, raw ? p.name : undefined),
              body: baseBody(),
            }),
          });
      }
      for (const s of slots)
        points.push({
          field: `body.${s.field}`,
          base: s.base,
          inBody: true,
          build: (v) => ({ url: fill(op.path, pathBase) + queryOf({}), body: s.put(baseBody() ?? {}, v) }),
        });

      for (const pt of points) {
        const values = hostileValues(
          pt.base,
          pt.inBody ? FORBIDDEN_ALL : FORBIDDEN_URL_SAFE,
          PER_FIELD,
          SEED,
          index++,
        );
        const cases: { v: string; raw: boolean }[] = values.map((v) => ({ v, raw: false }));
        if (!pt.inBody)
          cases.push(...BAD_PERCENT.slice(0, 2).map((b) => ({ v: `${pt.base}${b}`, raw: true })));
        for (const { v, raw } of cases) {
          const { url, body } = pt.build(v, raw);
          const r = await env.call(op.method, url, {
            unchecked: true,
            ip: nextIp(),
            ...(key ? { key } : {}),
            ...(body !== undefined ? { body } : {}),
          });
          sentHere++;
          const where = {
            method: op.method,
            path: url.length > 140 ? `${url.slice(0, 140)}...` : url,
            field: pt.field,
            value: show(v),
          };
          rec.saw(r.status, where, check, r.text);
          const code = r.json?.code;
          const fail = (why: string) =>
            rec.fail({ ...where, check, status: r.status, why: `${why} (${excerpt(r.text)})` });
          if (r.status >= 500) fail('server error');
          else if (raw) {
            // Not valid UTF-8: it may decode to U+FFFD (a character like any other); only never 5xx.
          } else if (r.status < 400) fail('accepted a forbidden character');
          else if (strict) {
            const okCodes =
              pt.field === 'body.url' ? ['validation_failed', 'invalid_webhook_url'] : ['validation_failed'];
            // A control byte percent-encoded in the path may instead be refused by the path check
            // (400 problem, before routing): refused either way, and nothing reaches a handler.
            const pathRefusal =
              pt.field.startsWith('path.') &&
              r.status === 400 &&
              /^application\/problem\+json/.test(String(r.headers['content-type']));
            if (!pathRefusal && (r.status !== 422 || !okCodes.includes(code)))
              fail(
                `expected 422 ${okCodes.join(' or ')}${pt.field.startsWith('path.') ? ' (or a 400 problem)' : ''}`,
              );
          }
        }
      }
    }
    console.log(`forbidden-chars-api: ${sentHere} requests, ${index} fields`);
    expectNoFailures(check);
  }, 180_000);

  it('2b. never answers 5xx to forbidden characters in the forms and queries of the account and staff pages', async () => {
    const check = 'forbidden-chars-pages';
    const ownerCookie = `ap_owner=${author.owner}`;
    const forms: {
      path: string;
      cookie?: string;
      fields: Record<string, string>;
      /** Fields whose hostile values stand alone (numbers a lax parser would read past a control character). */
      alone?: string[];
      pathParam?: { name: string; base: string };
      /** What a request let through would change; checked after each request. */
      probe?: () => Promise<string>;
    }[] = [
      { path: '/account/code', fields: { token: linkToken(agent.account_url) } },
      { path: '/account/verify', fields: { token: linkToken(agent.account_url), code: '123456' } },
      { path: '/account/top-up', cookie: ownerCookie, fields: { amount: '5000000' }, alone: ['amount'] },
      { path: '/account/card', cookie: ownerCookie, fields: { card: '4242424242424242' }, alone: ['card'] },
      {
        path: '/account/auto-recharge',
        cookie: ownerCookie,
        fields: { threshold: '1000000', amount: '10000000' },
        alone: ['threshold', 'amount'],
      },
      {
        path: '/account/keys/revoke',
        cookie: ownerCookie,
        fields: { id: ids.spareKey2 },
        probe: async () =>
          String(
            (
              await queryRows<{ r: string | null }>(
                env.platform.database.db,
                sql`SELECT revoked_at::text AS r FROM api_keys WHERE id = ${ids.spareKey2}`,
              )
            )[0]?.r ?? 'live',
          ),
      },
      { path: '/admin/sign-in', fields: { token: ADMIN_TOKEN } },
      {
        path: '/admin/posts/{id}/decision',
        cookie: staffCookie,
        fields: { decision: 'publish', reason: 'Checked by a person.' },
        pathParam: { name: 'id', base: ids.revB },
        probe: () => postStatus(ids.revB),
      },
      {
        path: '/admin/posts/{id}/remove',
        cookie: staffCookie,
        fields: { reason: 'Checked by a person.' },
        pathParam: { name: 'id', base: ids.pubB },
        probe: () => postStatus(ids.pubB),
      },
    ];
    let index = 1000;
    const send = async (
      method: string,
      url: string,
      field: string,
      value: string,
      cookie?: string,
      form?: string,
      probe?: () => Promise<string>,
    ) => {
      const stateBefore = probe ? await probe() : '';
      const r = await env.call(method, url, {
        unchecked: true,
        ip: nextIp(),
        headers: {
          accept: 'text/html',
          origin: ORIGIN,
          ...(cookie ? { cookie } : {}),
          ...(form !== undefined ? { 'content-type': 'application/x-www-form-urlencoded' } : {}),
        },
        ...(form !== undefined ? { raw: form } : {}),
      });
      const where = {
        method,
        path: url.length > 140 ? `${url.slice(0, 140)}...` : url,
        field,
        value: show(value),
      };
      rec.saw(r.status, where, check, r.text);
      if (r.status >= 500)
        rec.fail({ ...where, check, status: r.status, why: `server error (${excerpt(r.text)})` });
      const stateAfter = probe ? await probe() : '';
      if (stateAfter !== stateBefore)
        rec.fail({
          ...where,
          check,
          status: r.status,
          why: `accepted and stored: ${stateBefore} -> ${stateAfter}`,
        });
    };
    const enc = (fields: Record<string, string>, raw?: string) =>
      Object.entries(fields)
        .map(([k, v]) => `${k}=${k === raw ? v : encodeURIComponent(v)}`)
        .join('&');
    for (const f of forms) {
      const url = (id?: string) => (f.pathParam ? f.path.replace('{id}', id ?? f.pathParam.base) : f.path);
      for (const [name, base] of Object.entries(f.fields)) {
        const alone = f.alone?.includes(name);
        for (const v of hostileValues(base, FORBIDDEN_URL_SAFE, PER_FIELD, SEED, index++, alone))
          await send('POST', url(), `form.${name}`, v, f.cookie, enc({ ...f.fields, [name]: v }), f.probe);
        // Invalid UTF-8 may decode to U+FFFD, a valid character: sent only where nothing is stored.
        const bad = `${base}%ED%A0%80`;
        if (!f.probe)
          await send(
            'POST',
            url(),
            `form.${name}`,
            bad,
            f.cookie,
            enc({ ...f.fields, [name]: bad }, name),
            f.probe,
          );
      }
      if (f.pathParam) {
        for (const v of hostileValues(f.pathParam.base, FORBIDDEN_URL_SAFE, PER_FIELD, SEED, index++))
          await send('POST', url(encodeURIComponent(v)), 'path.id', v, f.cookie, enc(f.fields), f.probe);
      }
    }
    // Page queries and path segments.
    const gets: [string, (v: string) => string, string][] = [
      ['query.token', (v) => `/account?token=${encodeURIComponent(v)}`, linkToken(agent.account_url)],
      ['path.slug', (v) => `/t/${encodeURIComponent(v)}`, 'sea'],
      ['path.file', (v) => `/p/${encodeURIComponent(v)}`, `${ids.pubA}.html`],
      ['path.id', (v) => `/p/${encodeURIComponent(v)}.json`, ids.pubA],
    ];
    for (const [field, url, base] of gets)
      for (const v of hostileValues(base, FORBIDDEN_URL_SAFE, PER_FIELD, SEED, index++))
        await send('GET', url(v), field, v, `ap_owner=${author.owner}`);
    expectNoFailures(check);
  }, 120_000);

  // -------------------------------------------------------------------------------------------
  // MCP through the SDK's own client.

  const clients: Client[] = [];
  afterAll(async () => {
    for (const c of clients) await c.close().catch(() => {});
  });
  let lastHttp: { status: number; body: string }[] = [];
  async function connect(key: string): Promise<Client> {
    const client = new Client({ name: 'hostile-fuzz', version: '1.0.0' });
    const transport = new StreamableHTTPClientTransport(new URL(`${BASE_URL}/mcp`), {
      requestInit: { headers: { authorization: `Bearer ${key}` } },
      fetch: injectFetch(env.app as never, HOST, nextIp, (status, body) => lastHttp.push({ status, body })),
    });
    await client.connect(transport);
    clients.push(client);
    return client;
  }

  /**
   * Calls a tool and checks the answer: no HTTP 5xx, no internal_error; `mustRefuse` also
   * requires a tool error or a JSON-RPC error. Returns the outcome for the caller's own checks.
   */
  async function callTool(
    client: Client,
    check: string,
    tool: string,
    field: string,
    value: unknown,
    args: Record<string, unknown>,
    mustRefuse: boolean,
  ): Promise<'refused' | 'accepted' | 'broken'> {
    lastHttp = [];
    const where = { method: 'MCP', path: `tools/call ${tool}`, field, value: show(value) };
    let outcome: 'refused' | 'accepted' | 'broken' = 'refused';
    let why = '';
    let status: number | string = 200;
    try {
      const r = (await client.callTool({ name: tool, arguments: args })) as {
        isError?: boolean;
        content?: { type: string; text?: string }[];
      };
      const text = r.content?.find((c) => c.type === 'text')?.text ?? '';
      if (r.isError) {
        let code = '';
        try {
          code = JSON.parse(text).code;
        } catch {}
        if (code === 'internal_error' || /internal_error/.test(text)) {
          outcome = 'broken';
          why = `tool error internal_error (${excerpt(text)})`;
        } else status = `tool error ${code || excerpt(text)}`;
      } else {
        outcome = 'accepted';
        why = `accepted: ${excerpt(text)}`;
      }
    } catch (e) {
      if (e instanceof McpError) {
        status = `JSON-RPC ${e.code}`;
        if (e.code === -32603 || /internal_error/.test(e.message)) {
          outcome = 'broken';
          why = `JSON-RPC internal error: ${e.message.slice(0, 160)}`;
        }
      } else {
        outcome = 'broken';
        why = `client error: ${String((e as Error).message ?? e).slice(0, 200)}`;
      }
    }
    for (const h of lastHttp) {
      rec.saw(h.status, where, check, h.body);
      if (h.status >= 500) {
        outcome = 'broken';
        status = h.status;
        why = `HTTP ${h.status} (${excerpt(h.body)})`;
      }
    }
    if (outcome === 'broken' || (mustRefuse && outcome === 'accepted'))
      rec.fail({ ...where, check, status, why });
    return outcome;
  }

  /** Named values of the MCP tools' arguments (their ids are the funded author's). */
  function toolNamed(tool: string): Record<string, () => unknown> {
    const named = namedValues({ method: 'GET', path: '/mcp' });
    const id =
      tool === 'delete_post'
        ? ids.pubG
        : tool === 'delete_webhook'
          ? ids.authorHookDel
          : tool === 'test_webhook'
            ? ids.authorHook
            : ids.pubA;
    return { ...named, id: () => id, idempotency_key: () => `idem-${uniq()}-key` };
  }

  let authorMcp: Client;
  let searchMcps: Client[] = [];
  let tools: { name: string; inputSchema: Schema }[];

  it('2c. answers a tool error to forbidden characters in every string argument of every MCP tool', async () => {
    const check = 'forbidden-chars-mcp';
    authorMcp = await connect(author.key);
    searchMcps = await Promise.all(mcpSearchers.map((a) => connect(a.key)));
    let searches = 0;
    tools = (await authorMcp.listTools()).tools as never;
    expect(tools.length).toBeGreaterThan(10);
    let index = 2000;
    let calls = 0;
    for (const t of tools) {
      const named = toolNamed(t.name);
      const slots = stringSlots(t.inputSchema, named);
      // search_posts is metered: each searcher key stays inside its free daily allowance.
      const client = () =>
        t.name === 'search_posts'
          ? (searchMcps[Math.floor(searches++ / 30) % searchMcps.length] as Client)
          : authorMcp;
      for (const s of slots) {
        for (const v of hostileValues(s.base, FORBIDDEN_ALL, PER_FIELD, SEED, index++)) {
          const args = s.put(baseValue(t.inputSchema, '', named) as Record<string, unknown>, v);
          await callTool(client(), check, t.name, s.field, v, args, true);
          calls++;
        }
      }
    }
    console.log(`forbidden-chars-mcp: ${calls} tool calls over ${tools.length} tools`);
    expectNoFailures(check);
  }, 120_000);

  it('3. never answers 5xx to cursors out of range, garbage, empty or very long', async () => {
    const check = 'cursors';
    const b64 = (s: string) => Buffer.from(s).toString('base64url');
    const cursors = [
      b64('0000-01-01T00:00:00.000Z|x'),
      b64('9999-99-99T99:99:99.999Z|x'),
      b64('+275760-09-13T00:00:00.000Z|x'),
      b64('+275760-09-13T00:00:00.001Z|x'),
      b64('-271821-04-20T00:00:00.000Z|x'),
      b64('-000001-01-01T00:00:00.000Z|x'),
      b64('1969-12-31T23:59:59.999Z|x'),
      b64(`2026-11-01T00:00:00.000Z|${'\u0000'}`),
      b64('2026-11-01T00:00:00.000Z'),
      b64('|'),
      b64('x|y|z'),
      '',
      '!!!garbage!!!',
      '%',
      'A'.repeat(4000),
      b64(`2026-11-01T00:00:00.000Z|${'x'.repeat(3000)}`),
      ...fc.sample(
        fc.oneof(
          fc.string({ maxLength: 60 }).map(b64),
          fc
            .date({ noInvalidDate: false })
            .map((d) => b64(`${Number.isNaN(d.getTime()) ? 'Invalid Date' : d.toISOString()}|p`)),
          fc.string({ maxLength: 60 }),
        ),
        { numRuns: 6, seed: SEED },
      ),
    ];
    const rest: [string, (c: string) => string, string | undefined, string][] = [
      ['GET', (c) => `/v1/posts?cursor=${encodeURIComponent(c)}`, undefined, 'application/json'],
      [
        'GET',
        (c) => `/v1/search?q=harbour&cursor=${encodeURIComponent(c)}`,
        cursorSearcher.key,
        'application/json',
      ],
      ['GET', (c) => `/v1/manage/ledger?cursor=${encodeURIComponent(c)}`, author.owner, 'application/json'],
      ['GET', (c) => `/?cursor=${encodeURIComponent(c)}`, undefined, 'text/html'],
    ];
    for (const [method, url, key, accept] of rest) {
      for (const c of cursors) {
        const u = url(c);
        const r = await env.call(method, u, {
          unchecked: true,
          ip: nextIp(),
          headers: { accept },
          ...(key ? { key } : {}),
        });
        const where = {
          method,
          path: u.length > 120 ? `${u.slice(0, 120)}...` : u,
          field: 'query.cursor',
          value: show(c, 60),
        };
        rec.saw(r.status, where, check, r.text);
        if (r.status >= 500)
          rec.fail({ ...where, check, status: r.status, why: `server error (${excerpt(r.text)})` });
        else if (
          u.startsWith('/v1/') &&
          r.status >= 400 &&
          !/^application\/problem\+json/.test(String(r.headers['content-type']))
        )
          rec.fail({ ...where, check, status: r.status, why: 'a refusal of the JSON API must be a problem' });
      }
    }
    const cursorMcp = await connect(cursorSearcher.key);
    for (const c of cursors) {
      await callTool(authorMcp, check, 'list_posts', 'cursor', c, { cursor: c }, false);
      await callTool(cursorMcp, check, 'search_posts', 'cursor', c, { q: 'harbour', cursor: c }, false);
    }
    expectNoFailures(check);
  }, 120_000);

  it('4. refuses CR/LF and other control characters in one-line fields and stores none of them', async () => {
    const check = 'one-line';
    const db = env.platform.database.db;
    const n = async (q: ReturnType<typeof sql>) => Number((await queryRows<{ n: string }>(db, q))[0]?.n ?? 0);
    /** Rows holding `v` (or what a trim would leave of it): a refused request adds none. */
    const accountsNamed = (v: string) =>
      n(sql`SELECT count(*) AS n FROM accounts WHERE name IN (${v}, ${v.trim()})`);
    const postsHolding = (v: string) =>
      n(
        sql`SELECT count(*) AS n FROM posts WHERE title IN (${v}, ${v.trim()}) OR topics ? ${v} OR topics ? ${v.trim()}`,
      );
    type Case = {
      method: string;
      path: string;
      key?: string;
      field: string;
      body: (v: string) => unknown;
      /** What a request let through would change. */
      probe: (v: string) => Promise<string | number>;
    };
    const cases: Case[] = [
      {
        method: 'POST',
        path: '/v1/accounts',
        field: 'body.name',
        body: (v) => ({ name: v, email: `oneline-${uniq()}@example.com`, accept_terms: true }),
        probe: accountsNamed,
      },
      {
        method: 'POST',
        path: '/v1/posts',
        key: author.key,
        field: 'body.title',
        body: (v) => ({ title: v, body: story(), topics: ['sea'] }),
        probe: postsHolding,
      },
      {
        method: 'POST',
        path: '/v1/posts',
        key: author.key,
        field: 'body.topics[0]',
        body: (v) => ({ title: 'A quiet harbour', body: story(), topics: [v] }),
        probe: postsHolding,
      },
      {
        method: 'POST',
        path: `/v1/admin/posts/${ids.revC}/decision`,
        key: ADMIN_TOKEN,
        field: 'body.reason',
        body: (v) => ({ decision: 'reject', category: 'spam', reason: v }),
        probe: () => postStatus(ids.revC),
      },
      {
        method: 'POST',
        path: `/v1/admin/posts/${ids.pubE}/remove`,
        key: ADMIN_TOKEN,
        field: 'body.reason',
        body: (v) => ({ reason: v }),
        probe: () => postStatus(ids.pubE),
      },
    ];
    for (const c of cases) {
      for (const v of ONE_LINE_BREAKERS) {
        const stateBefore = await c.probe(v);
        const r = await env.call(c.method, c.path, {
          unchecked: true,
          ip: nextIp(),
          body: c.body(v),
          ...(c.key ? { key: c.key } : {}),
        });
        const where = { method: c.method, path: c.path, field: c.field, value: show(v) };
        rec.saw(r.status, where, check, r.text);
        if (r.status < 400 || r.status >= 500)
          rec.fail({ ...where, check, status: r.status, why: `expected a 4xx refusal (${excerpt(r.text)})` });
        const stateAfter = await c.probe(v);
        if (stateAfter !== stateBefore)
          rec.fail({ ...where, check, status: r.status, why: `stored: ${stateBefore} -> ${stateAfter}` });
      }
    }
    // The staff console: a reason on one line, or nothing decided.
    const consoleCases: [string, string, Record<string, string>][] = [
      [`/admin/posts/${ids.revD}/decision`, ids.revD, { decision: 'reject', category: 'spam' }],
      [`/admin/posts/${ids.pubF}/remove`, ids.pubF, {}],
    ];
    for (const [path, id, fields] of consoleCases) {
      for (const v of ONE_LINE_BREAKERS) {
        const form = Object.entries({ ...fields, reason: v })
          .map(([k, x]) => `${k}=${encodeURIComponent(x)}`)
          .join('&');
        const stateBefore = await postStatus(id);
        const r = await env.call('POST', path, {
          unchecked: true,
          ip: nextIp(),
          raw: form,
          headers: {
            accept: 'text/html',
            origin: ORIGIN,
            cookie: staffCookie,
            'content-type': 'application/x-www-form-urlencoded',
          },
        });
        const where = { method: 'POST', path, field: 'form.reason', value: show(v) };
        rec.saw(r.status, where, check, r.text);
        if (r.status >= 500) rec.fail({ ...where, check, status: r.status, why: 'server error' });
        const stateAfter = await postStatus(id);
        if (stateAfter !== stateBefore)
          rec.fail({
            ...where,
            check,
            status: r.status,
            why: `stored: the post went ${stateBefore} -> ${stateAfter}`,
          });
      }
    }
    // MCP: post_story stores, check_story is its dry run; both must refuse.
    for (const tool of ['post_story', 'check_story']) {
      for (const field of ['title', 'topics'] as const) {
        for (const v of ONE_LINE_BREAKERS) {
          const args = {
            title: field === 'title' ? v : 'A quiet harbour',
            body: story(),
            topics: field === 'topics' ? [v] : ['sea'],
          };
          const stateBefore = await postsHolding(v);
          await callTool(authorMcp, check, tool, field, v, args, true);
          const stateAfter = await postsHolding(v);
          if (stateAfter !== stateBefore)
            rec.fail({
              method: 'MCP',
              path: `tools/call ${tool}`,
              field,
              value: show(v),
              check,
              status: '-',
              why: `stored: ${stateAfter - stateBefore} post(s) hold it`,
            });
        }
      }
    }
    expectNoFailures(check);
  }, 120_000);

  it('5. answered no request of the whole pass with a 5xx, and no refused request wrote a row', async () => {
    const lines = format(rec.serverErrors);
    if (lines.length) console.log(`\n[5xx] ${lines.length} answers 5xx:\n${lines.join('\n')}`);
    expect(rec.sent).toBeGreaterThan(1000);
    const after = await counts();
    const changed = Object.keys(before)
      .filter((k) => before[k] !== after[k])
      .map((k) => `${k}: ${before[k]} -> ${after[k]}`);
    if (changed.length) console.log(`\n[rows] changed by refused requests:\n${changed.join('\n')}`);
    expect({ serverErrors: lines, rowsChanged: changed }).toEqual({ serverErrors: [], rowsChanged: [] });
  }, 60_000);
});
