/**
 * Structured logs: one JSON object per line, with secrets redacted before anything is written.
 * The HTTP face logs through fastify's pino with the same redaction paths; core and the workers
 * log through `jsonLogger`. Request ids: an incoming `X-Request-Id` is honoured when it is
 * well formed, otherwise one is generated; either way it is echoed on the response.
 */
import { randomBytes } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import ipaddr from 'ipaddr.js';
import type { Logger } from './core/context.js';

export const REDACTED = '[redacted]';

/** Header and member names whose values never reach a log line. */
const SECRET_NAME =
  /^(authorization|proxy-authorization|cookie|set-cookie|x-api-key|api[-_]?key|.*token|.*secret.*|password|webhook-signature|secret_sealed)$/i;

/** Values that look like credentials wherever they appear in a string. */
const SECRET_VALUE =
  /\b(ap_(?:key|admin|secret|owner|link)_[A-Za-z0-9_-]+|whsec_[A-Za-z0-9+/=]+|Bearer\s+[A-Za-z0-9._~+/=-]+)/g;

/** pino `redact` paths for fastify's request/response serialisers. */
export const PINO_REDACT_PATHS = [
  'req.headers.authorization',
  'req.headers["proxy-authorization"]',
  'req.headers.cookie',
  'req.headers["x-api-key"]',
  'res.headers["set-cookie"]',
  'err.config.headers.authorization',
];

/** Deep copy of `value` with secret members and credential-looking substrings replaced. */
export function redact(value: unknown, depth = 0): unknown {
  if (depth > 8) return '[depth]';
  if (typeof value === 'string') return value.replace(SECRET_VALUE, REDACTED);
  if (value === null || typeof value !== 'object') return value;
  if (value instanceof Error) {
    return {
      type: value.name,
      message: redact(value.message, depth + 1),
      ...('code' in value && typeof value.code === 'string' ? { code: value.code } : {}),
      ...(value.stack ? { stack: redact(value.stack, depth + 1) } : {}),
    };
  }
  if (Array.isArray(value)) return value.map((v) => redact(v, depth + 1));
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(value)) {
    out[k] = SECRET_NAME.test(k) ? REDACTED : redact(v, depth + 1);
  }
  return out;
}

/** A request URL for the log: token, key and code query values are replaced. */
export function redactUrl(url: string): string {
  return (redact(url) as string).replace(/([?&](?:token|key|code|api_key)=)[^&]*/gi, `$1${REDACTED}`);
}

const LEVELS = { trace: 10, debug: 20, info: 30, warn: 40, error: 50, fatal: 60, silent: 100 } as const;
export type LogLevel = keyof typeof LEVELS;

/** A JSON-lines logger for core and the workers (same shape as pino's lines). */
export function jsonLogger(
  level: LogLevel,
  bindings: Record<string, unknown> = {},
  write: (line: string) => void = (line) => process.stdout.write(line),
): Logger {
  const at = LEVELS[level];
  const emit = (lvl: 'info' | 'warn' | 'error') => (obj: object | string, msg?: string) => {
    if (LEVELS[lvl] < at) return;
    const fields = typeof obj === 'string' ? { msg: obj } : { ...(redact(obj) as object), msg };
    const line = { level: LEVELS[lvl], time: Date.now(), pid: process.pid, ...bindings, ...fields };
    if (typeof obj === 'string' && msg) line.msg = `${obj} ${msg}`;
    else if (typeof obj !== 'string' && msg === undefined) delete (line as { msg?: string }).msg;
    if (typeof line.msg === 'string') line.msg = redact(line.msg) as string;
    write(`${JSON.stringify(line)}\n`);
  };
  return { info: emit('info'), warn: emit('warn'), error: emit('error') };
}

/** A request id a client may choose: 8-128 characters of letters, digits and `._:-`. */
const REQUEST_ID = /^[A-Za-z0-9._:-]{8,128}$/;

const KEYWORD_RANGES: Record<string, string[]> = {
  loopback: ['127.0.0.0/8', '::1/128'],
  linklocal: ['169.254.0.0/16', 'fe80::/10'],
  uniquelocal: ['10.0.0.0/8', '172.16.0.0/12', '192.168.0.0/16', 'fc00::/7'],
};

/** Whether `remote` is a proxy TRUST_PROXY names (true, or addresses, CIDR ranges and keywords). */
export function isTrustedProxy(remote: string | undefined, trust: boolean | string | undefined): boolean {
  if (trust === true) return true;
  if (!trust || !remote || !ipaddr.isValid(remote)) return false;
  const addr = ipaddr.process(remote);
  return trust
    .split(',')
    .map((p) => p.trim())
    .flatMap((p) => KEYWORD_RANGES[p] ?? [p.includes('/') ? p : `${p}/${p.includes(':') ? 128 : 32}`])
    .some((cidr) => {
      try {
        const range = ipaddr.parseCIDR(cidr);
        return addr.kind() === range[0].kind() && addr.match(range);
      } catch {
        return false;
      }
    });
}

/**
 * fastify `genReqId`. A request id is chosen by the platform, not by a client (a forged id would
 * let anyone blend their requests into another's log trail): an incoming `X-Request-Id` is kept
 * only when it is well formed and the connection comes from a proxy TRUST_PROXY names (the load
 * balancer's id then follows the request through); otherwise one is generated.
 */
export function requestIdGenerator(trust: boolean | string | undefined): (req: IncomingMessage) => string {
  return (req) => {
    const incoming = req.headers['x-request-id'];
    if (
      typeof incoming === 'string' &&
      REQUEST_ID.test(incoming) &&
      isTrustedProxy(req.socket?.remoteAddress, trust)
    ) {
      return incoming;
    }
    return `req_${pooledRandom(9).toString('base64url')}`;
  };
}

/** Random bytes drawn from a pool refilled 4 KiB at a time: one system call per 455 request ids. */
let pool = Buffer.alloc(0);
let poolOffset = 0;
function pooledRandom(n: number): Buffer {
  if (poolOffset + n > pool.length) {
    pool = randomBytes(4096);
    poolOffset = 0;
  }
  const out = pool.subarray(poolOffset, poolOffset + n);
  poolOffset += n;
  return out;
}
