/**
 * Tools of the hostile-input fuzz pass (test/fuzz/hostile.test.ts): the characters XML 1.0
 * forbids, spellings of a path that are not its canonical form, valid base values derived from
 * the JSON Schemas of /openapi.json and of the MCP tools (so that one injected character is the
 * only thing wrong with a request), a fetch for the MCP SDK client that goes through
 * `app.inject`, a raw HTTP sender that keeps a path byte for byte, and the recorder that turns
 * every refused expectation into one readable line (method, path, field, value, status).
 */

import { request as httpRequest } from 'node:http';
import fc from 'fast-check';

// ---------------------------------------------------------------------------------------------
// Characters.

/** Every character XML 1.0 forbids (a lone surrogate only where JSON can carry it). */
export const FORBIDDEN_URL_SAFE: string[] = [
  '\u0000',
  ...Array.from({ length: 8 }, (_, i) => String.fromCharCode(0x01 + i)),
  '\u000b',
  '\u000c',
  ...Array.from({ length: 18 }, (_, i) => String.fromCharCode(0x0e + i)),
  '\ufffe',
  '\uffff',
];
/** Lone surrogates: JSON bodies and MCP arguments only (they have no UTF-8 percent-encoding). */
export const LONE_SURROGATES = ['\ud800', '\udbff', '\udc00', '\udfff'];
export const FORBIDDEN_ALL = [...FORBIDDEN_URL_SAFE, ...LONE_SURROGATES];

/**
 * Percent sequences that do not decode to valid UTF-8 (a surrogate in WTF-8, an overlong NUL,
 * a stray byte): a path or query holding one may be refused any way but never with a 5xx.
 */
export const BAD_PERCENT = ['%ED%A0%80', '%C0%80', '%FF', '%E0%80'];

/** Line breaks and other control characters (C0 and C1) a one-line field must refuse. */
export const ONE_LINE_BREAKERS = [
  'first line\nsecond line',
  'first line\r\nsecond line',
  'carriage\rreturn',
  'trailing newline\n',
  '\nleading newline',
  'with\ttab',
  'vertical\u000btab',
  'escape \u001b[31m red',
  'delete\u007fchar',
  'next line\u0085C1',
  'bell\u0007',
];

/** A value as a developer can read it in a report: non-printable characters escaped. */
export function show(v: unknown, max = 90): string {
  const s = typeof v === 'string' ? v : (JSON.stringify(v) ?? String(v));
  const esc = s.replace(/[^\x20-\x7e]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
  return `'${esc.length > max ? `${esc.slice(0, max)}...(${esc.length} chars)` : esc}'`;
}

/** The shape of one hostile value; the forbidden character itself is chosen by rotation. */
export interface HostileShape {
  insert: boolean;
  at: number;
  pre: string;
  post: string;
  repeat: number;
}

const printable = (max: number) =>
  fc.string({ unit: 'binary-ascii', maxLength: max }).map((s) => s.replace(/[^\x20-\x7e]/g, ''));

/** fast-check arbitrary of hostile shapes: inside a valid value, or standing alone between printable text. */
export const hostileShape: fc.Arbitrary<HostileShape> = fc.record({
  insert: fc.boolean(),
  at: fc.double({ min: 0, max: 1, noNaN: true }),
  pre: printable(6),
  post: printable(6),
  repeat: fc.integer({ min: 1, max: 3 }),
});

/**
 * The hostile values sent to one field: a NUL inside the valid value, a NUL alone, then `k`
 * (or, for k <= 0, one per character of `chars`) shapes drawn by fast-check (seeded per field, so a run is reproducible and fields differ),
 * each holding the next character of `chars` rotated by `index`, so that consecutive fields
 * together cover every forbidden character.
 */
export function hostileValues(
  base: string,
  chars: string[],
  k: number,
  seed: number,
  index: number,
  onlyAlone = false,
): string[] {
  // k <= 0: one value per character of `chars`.
  const n = k > 0 ? k : chars.length;
  const shapes = fc.sample(hostileShape, { numRuns: n, seed: seed + index * 7919 });
  const values = [...(onlyAlone || !base ? [] : [insertAt(base, '\u0000', 0.5)]), '\u0000'];
  shapes.forEach((h, i) => {
    const c = (chars[(index * n + i) % chars.length] as string).repeat(h.repeat);
    values.push(h.insert && !onlyAlone && base ? insertAt(base, c, h.at) : `${h.pre}${c}${h.post}`);
  });
  return [...new Set(values)];
}

export function insertAt(base: string, char: string, at: number): string {
  const i = Math.min(base.length, Math.max(0, Math.round(at * base.length)));
  return `${base.slice(0, i)}${char}${base.slice(i)}`;
}

// ---------------------------------------------------------------------------------------------
// Non-canonical spellings of a path.

const UNRESERVED = /[A-Za-z0-9\-._~]/;

function pct(c: string, lower: boolean): string {
  const h = c.charCodeAt(0).toString(16).padStart(2, '0');
  return `%${lower ? h.toLowerCase() : h.toUpperCase()}`;
}

/**
 * Spellings of `path` (a concrete path, no template) that are not its canonical form but that a
 * lax server would route to it: each unreserved character percent-encoded (upper- and
 * lower-case hex), a few with several encoded at once (fast-check), `//`, `/./`, `/x/../`,
 * `/%2e%2e/`, `;` parameters, a trailing `/`, `/.` or `;x`.
 */
export function spellings(path: string, seed: number, multi = 3): string[] {
  const out = new Set<string>();
  for (let i = 1; i < path.length; i++) {
    const c = path[i] as string;
    if (!UNRESERVED.test(c)) continue;
    out.add(`${path.slice(0, i)}${pct(c, false)}${path.slice(i + 1)}`);
    const lower = `${path.slice(0, i)}${pct(c, true)}${path.slice(i + 1)}`;
    out.add(lower);
  }
  const positions = [...path].map((c, i) => (i > 0 && UNRESERVED.test(c) ? i : -1)).filter((i) => i >= 0);
  if (positions.length > 1) {
    const subsets = fc.sample(fc.tuple(fc.subarray(positions, { minLength: 2 }), fc.boolean()), {
      numRuns: multi,
      seed,
    });
    for (const [pick, lower] of subsets) {
      out.add([...path].map((c, i) => (pick.includes(i) ? pct(c, lower) : c)).join(''));
    }
  }
  const segs = path.split('/').slice(1);
  for (let k = 0; k < segs.length; k++) {
    const head = `/${segs.slice(0, k).join('/')}${k > 0 ? '/' : ''}`;
    const tail = segs.slice(k).join('/');
    const seg = segs[k] as string;
    const rest = segs.slice(k + 1).join('/');
    const after = rest ? `/${rest}` : '';
    out.add(`${head}/${tail}`); // a doubled slash
    out.add(`${head}./${tail}`);
    out.add(`${head}x/../${tail}`);
    out.add(`${head}x/%2e%2e/${tail}`);
    out.add(`${head}%2E/${tail}`);
    out.add(`${head}${seg};x${after}`);
    out.add(`${head}${seg};${after}`);
  }
  out.add(`${path}/`);
  out.add(`${path}/.`);
  out.add(`${path};x`);
  out.add(`${path}//`);
  out.delete(path);
  return [...out];
}

// ---------------------------------------------------------------------------------------------
// JSON Schema: valid base values and the places a hostile string can go.

// biome-ignore lint/suspicious/noExplicitAny: JSON Schema is walked freely
export type Schema = Record<string, any>;

/** Picks the alternative of a oneOf/anyOf to build values from (not null). */
export function pickAlternative(schema: Schema, prefer?: (s: Schema) => boolean): Schema {
  const alts: Schema[] | undefined = schema.oneOf ?? schema.anyOf;
  if (!alts) return schema;
  const nonNull = alts.filter((a) => a.type !== 'null');
  return (prefer && nonNull.find(prefer)) || nonNull[0] || schema;
}

/**
 * A valid value for `schema`; `named` supplies values by member name (the semantics a schema
 * cannot carry: a story of 150 words, a real post id). Objects get their required members only.
 */
export function baseValue(schema: Schema, name: string, named: Record<string, () => unknown>): unknown {
  const byName = named[name];
  if (byName) return byName();
  const s = pickAlternative(schema);
  if (s.const !== undefined) return s.const;
  if (Array.isArray(s.enum)) return s.enum[0];
  const type = Array.isArray(s.type) ? s.type.find((t: string) => t !== 'null') : s.type;
  switch (type) {
    case 'string':
      return 'x'.repeat(Math.max(8, s.minLength ?? 0)).slice(0, s.maxLength ?? 64);
    case 'integer':
    case 'number':
      return s.minimum ?? (s.exclusiveMinimum !== undefined ? s.exclusiveMinimum + 1 : 1);
    case 'boolean':
      return false;
    case 'array':
      return (s.minItems ?? 0) > 0 ? [baseValue(s.items ?? {}, `${name}[]`, named)] : [];
    case 'object': {
      const out: Record<string, unknown> = {};
      for (const k of s.required ?? []) out[k] = baseValue(s.properties?.[k] ?? {}, k, named);
      return out;
    }
    default:
      return null;
  }
}

/** A place in a body where a string goes: its pointer, and how to put a value there. */
export interface Slot {
  field: string;
  base: string;
  put(body: Record<string, unknown>, value: string): Record<string, unknown>;
}

/**
 * Every string member of an object schema (nested objects and arrays of strings included,
 * optional members too), each with the valid value it replaces.
 */
export function stringSlots(schema: Schema, named: Record<string, () => unknown>, prefix = ''): Slot[] {
  const s = pickAlternative(schema);
  const slots: Slot[] = [];
  for (const [key, raw] of Object.entries((s.properties ?? {}) as Record<string, Schema>)) {
    const p = pickAlternative(raw);
    const type = Array.isArray(p.type) ? p.type : [p.type];
    const field = `${prefix}${key}`;
    const baseOf = () => {
      const v = baseValue(p, key, named);
      return typeof v === 'string' ? v : Array.isArray(v) && typeof v[0] === 'string' ? v[0] : '';
    };
    if (type.includes('string') || (p.enum && typeof p.enum[0] === 'string')) {
      slots.push({ field, base: baseOf(), put: (b, v) => ({ ...b, [key]: v }) });
    } else if (type.includes('array')) {
      const items = pickAlternative(p.items ?? {});
      const itemTypes = Array.isArray(items.type) ? items.type : [items.type];
      if (itemTypes.includes('string') || items.enum) {
        slots.push({ field: `${field}[0]`, base: baseOf() || 'x', put: (b, v) => ({ ...b, [key]: [v] }) });
      }
    } else if (type.includes('object') && p.properties) {
      for (const inner of stringSlots(p, named, `${field}.`)) {
        slots.push({
          field: inner.field,
          base: inner.base,
          put: (b, v) => {
            const current =
              (b[key] as Record<string, unknown> | undefined) ?? (baseValue(p, key, named) as object);
            return { ...b, [key]: inner.put({ ...(current as Record<string, unknown>) }, v) };
          },
        });
      }
    }
  }
  return slots;
}

// ---------------------------------------------------------------------------------------------
// Transport helpers.

interface InjectApp {
  inject(opts: {
    method: string;
    url: string;
    headers: Record<string, string>;
    payload?: string;
    remoteAddress?: string;
  }): Promise<{ statusCode: number; headers: Record<string, unknown>; body: string }>;
}

/**
 * A `fetch` for the MCP SDK's StreamableHTTPClientTransport that answers through `app.inject`
 * (from `ip()`, so per-IP allowances such as reports do not shape the results) and hands every
 * HTTP answer to `seen`.
 */
export function injectFetch(
  app: InjectApp,
  host: string,
  ip: () => string,
  seen: (status: number, body: string) => void,
): (input: string | URL | Request, init?: RequestInit) => Promise<Response> {
  return async (input, init = {}) => {
    const u = new URL(typeof input === 'string' ? input : input instanceof URL ? input.href : input.url);
    const headers: Record<string, string> = {};
    new Headers(init.headers).forEach((v, k) => {
      headers[k] = v;
    });
    headers.host = host;
    const res = await app.inject({
      method: init.method ?? 'GET',
      url: `${u.pathname}${u.search}`,
      headers,
      ...(typeof init.body === 'string' ? { payload: init.body } : {}),
      remoteAddress: ip(),
    });
    seen(res.statusCode, res.body);
    const h = new Headers();
    for (const [k, v] of Object.entries(res.headers)) {
      if (v !== undefined) h.set(k, Array.isArray(v) ? v.join(', ') : String(v));
    }
    const empty = res.statusCode === 204 || res.statusCode === 304 || res.body === '';
    return new Response(empty ? null : res.body, { status: res.statusCode, headers: h });
  };
}

export interface RawReply {
  status: number;
  contentType: string;
  text: string;
}

/** One request over real HTTP with the path sent byte for byte (fetch and inject normalize `..`). */
export function rawHttp(
  port: number,
  method: string,
  path: string,
  headers: Record<string, string>,
  body?: string,
): Promise<RawReply> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(
      {
        host: '127.0.0.1',
        port,
        method,
        path,
        headers: {
          ...headers,
          ...(body !== undefined ? { 'content-length': String(Buffer.byteLength(body)) } : {}),
        },
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () =>
          resolve({
            status: res.statusCode ?? 0,
            contentType: String(res.headers['content-type'] ?? ''),
            text: Buffer.concat(chunks).toString('utf8'),
          }),
        );
        res.on('error', reject);
      },
    );
    req.on('error', reject);
    if (body !== undefined) req.write(body);
    req.end();
  });
}

// ---------------------------------------------------------------------------------------------
// Recording.

export interface Failure {
  check: string;
  method: string;
  path: string;
  field: string;
  value: string;
  status: number | string;
  why: string;
}

/** Counts what was sent and keeps every broken expectation as one line a developer can act on. */
export class Recorder {
  sent = 0;
  readonly statuses = new Map<number, number>();
  readonly failures: Failure[] = [];
  /** Every 5xx of the whole pass (the last test asserts there is none). */
  readonly serverErrors: Failure[] = [];

  saw(status: number, where: Omit<Failure, 'status' | 'why' | 'check'>, check: string, body = ''): void {
    this.sent++;
    this.statuses.set(status, (this.statuses.get(status) ?? 0) + 1);
    if (status >= 500) this.serverErrors.push({ ...where, check, status, why: `5xx ${excerpt(body)}` });
  }

  fail(f: Failure): void {
    this.failures.push(f);
  }

  /** The failures of one check, formatted; empty when it passed. */
  report(check: string): string[] {
    return format(this.failures.filter((f) => f.check === check));
  }
}

export function excerpt(body: string): string {
  try {
    const j = JSON.parse(body);
    if (j && typeof j === 'object' && 'code' in j)
      return `${j.code}: ${String(j.detail ?? '').slice(0, 120)}`;
  } catch {}
  return body.replace(/\s+/g, ' ').slice(0, 120);
}

export function format(fs: Failure[]): string[] {
  return fs.map(
    (f) => `${f.method} ${f.path} ${f.field ? `[${f.field}=${f.value}] ` : ''}-> ${f.status}: ${f.why}`,
  );
}
