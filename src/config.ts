import { isIP } from 'node:net';
import { join } from 'node:path';
import { z } from 'zod';
import type { LifecycleConfig } from './core/moderation/lifecycle.js';
import { MODERATOR_PROFILE_NAMES } from './core/moderation/profiles/types.js';
import { SITE_KINDS, type SiteConfig, type SiteKind } from './core/sites/sites.js';

export type { SiteConfig, SiteKind };

/**
 * Every setting of the service, read from the environment in one place.
 * All are optional: with none set, `npm start` runs the embedded default
 * (PGlite under ./data, test payments, outbox mail, the local moderator).
 */
const optionalString = z
  .string()
  .optional()
  .transform((v) => (v === undefined || v.trim() === '' ? undefined : v.trim()));

/** An optional URL whose scheme is one of `protocols` (so a typo fails at start, not at first use). */
const optionalUrl = (protocols: readonly string[], what: string) =>
  optionalString.refine((v) => v === undefined || protocols.includes(urlProtocol(v) ?? ''), {
    message: `expected ${what}: a URL starting with ${protocols.map((p) => `${p}://`).join(' or ')}`,
  });

function urlProtocol(value: string): string | undefined {
  try {
    return new URL(value).protocol.replace(/:$/, '');
  } catch {
    return undefined;
  }
}

/** An IPv4/IPv6 address or a CIDR range such as 10.0.0.0/8 or fd00::/8. */
export function isAddressOrCidr(value: string): boolean {
  const [addr = '', bits, ...rest] = value.split('/');
  const family = isIP(addr);
  if (family === 0 || rest.length > 0) return false;
  if (bits === undefined) return true;
  if (!/^\d{1,3}$/.test(bits)) return false;
  return Number(bits) <= (family === 4 ? 32 : 128);
}

const addressList = (name: string) =>
  z
    .string()
    .default('')
    .transform((v) =>
      v
        .split(',')
        .map((s) => s.trim())
        .filter(Boolean),
    )
    .refine((list) => list.every(isAddressOrCidr), {
      message: `${name} is a comma list of IP addresses or CIDR ranges (e.g. 127.0.0.1,10.0.0.0/8)`,
    });

const PROXY_KEYWORDS = ['loopback', 'linklocal', 'uniquelocal'];

/**
 * TRUST_PROXY as fastify takes it: `true`/`false`, or a comma list of addresses, CIDR ranges
 * and the keywords loopback, linklocal, uniquelocal. A bare string such as "true" would
 * otherwise reach fastify as an address and crash the start with "invalid IP address".
 * (A hop count is refused: the fastify types in src/http/app.ts take no number.)
 */
const trustProxy = optionalString.transform((v, ctx): boolean | string | undefined => {
  if (v === undefined) return undefined;
  if (/^(true|false)$/i.test(v)) return v.toLowerCase() === 'true';
  const parts = v.split(',').map((s) => s.trim());
  const bad = parts.filter((s) => !PROXY_KEYWORDS.includes(s) && !isAddressOrCidr(s));
  if (bad.length > 0) {
    ctx.addIssue({
      code: 'custom',
      message: `expected true, false, or addresses/CIDR ranges/${PROXY_KEYWORDS.join('/')}; got "${bad.join(', ')}"`,
    });
    return z.NEVER;
  }
  return parts.join(',');
});

const baseUrl = optionalString.refine(
  (v) => {
    if (v === undefined) return true;
    try {
      const u = new URL(v);
      return (
        (u.protocol === 'http:' || u.protocol === 'https:') &&
        !u.username &&
        !u.password &&
        !u.search &&
        !u.hash
      );
    } catch {
      return false;
    }
  },
  {
    message:
      'expected an absolute http(s) URL without credentials, query or fragment, e.g. https://example.com',
  },
);

const envSchema = z.object({
  PORT: z.coerce.number().int().min(0).max(65535).default(8080),
  HOST: z.string().trim().default('127.0.0.1'),
  BASE_URL: baseUrl,
  DATA_DIR: z.string().trim().default('./data'),
  DATABASE_URL: optionalUrl(['postgres', 'postgresql'], 'a PostgreSQL connection string'),
  REDIS_URL: optionalUrl(['redis', 'rediss'], 'a Redis URL'),
  ADMIN_TOKEN: optionalString,
  SECRET_KEY: optionalString,
  SMTP_URL: optionalUrl(['smtp', 'smtps'], 'an SMTP URL'),
  MAIL_FROM: z.string().trim().default('agentpress <no-reply@agentpress.local>'),
  PAYMENTS: z.enum(['test', 'stripe']).default('test'),
  /** PAYMENTS=stripe: the secret API key, the webhook signing secret, and optionally another API address. */
  STRIPE_SECRET_KEY: optionalString,
  STRIPE_WEBHOOK_SECRET: optionalString,
  STRIPE_API_BASE: optionalUrl(['http', 'https'], 'the Stripe API address'),
  MODERATOR: z.enum(['local', 'openai']).default('local'),
  MODERATOR_START_SECONDS: z.coerce.number().min(0).default(2),
  MODERATOR_DECISION_SECONDS: z.coerce.number().min(0).max(60).default(1),
  MODERATOR_URL: optionalString,
  MODERATOR_MODEL: optionalString,
  MODERATOR_API_KEY: optionalString,
  /**
   * The model family behind MODERATOR=openai: how it asks the model and reads its answer
   * (src/core/moderation/profiles/).
   */
  MODERATOR_PROFILE: z
    .enum(MODERATOR_PROFILE_NAMES, { error: `expected one of ${MODERATOR_PROFILE_NAMES.join(', ')}` })
    .default('json'),
  MODERATOR_IDLE_SECONDS: z.coerce.number().min(1).default(600),
  /** MODERATOR=openai: how the model server is started, probed and stopped (server-lifecycle.ts). */
  MODERATOR_START_COMMAND: optionalString,
  MODERATOR_START_URL: optionalUrl(['http', 'https'], 'the address POSTed to start the model server'),
  MODERATOR_STOP_COMMAND: optionalString,
  MODERATOR_STOP_URL: optionalUrl(['http', 'https'], 'the address POSTed to stop the model server'),
  MODERATOR_HEALTH_URL: optionalUrl(['http', 'https'], 'the readiness probe of the model server'),
  MODERATOR_START_TIMEOUT_SECONDS: z.coerce.number().min(1).default(1800),
  MODERATOR_START_RETRY_SECONDS: z.coerce.number().min(0.1).default(30),
  MODERATOR_PROBE_SECONDS: z.coerce.number().min(0.05).max(60).default(2),
  WEBHOOK_ALLOW_TARGETS: addressList('WEBHOOK_ALLOW_TARGETS'),
  PLATFORM_RATE: z.coerce.number().int().min(1).default(100),
  PLATFORM_BURST: z.coerce.number().int().min(1).default(200),
  /** POST /v1/accounts: at most this many sign-ups from one client address (IPv6: its /64)... */
  ACCOUNT_CREATIONS_PER_IP: z.coerce.number().int().min(1).default(60),
  /** ...per fixed window of this many seconds (429 rate_limited with Retry-After to the window's end). */
  ACCOUNT_CREATION_WINDOW_SECONDS: z.coerce.number().int().min(1).max(86_400).default(3600),
  /** Mail of every kind the service sends to one address per UTC day. */
  MAIL_PER_ADDRESS_PER_DAY: z.coerce.number().int().min(1).default(10),
  /**
   * Free keyed searches of one account per UTC day, all its keys together (default 20 keys x 100),
   * so revoking and creating keys cannot reset the allowance; each key still has its own 100.
   */
  SEARCH_FREE_PER_ACCOUNT_PER_DAY: z.coerce.number().int().min(1).default(2000),
  /** As fastify's `trustProxy`: a flag, or a comma list of addresses, ranges and keywords. */
  TRUST_PROXY: trustProxy,
  SITES: optionalString,
  /** Where the static site is built (one folder per site kind). */
  SITE_DIR: optionalString,
  /** A change waits this long for others to join one incremental rebuild. */
  SITE_REBUILD_DELAY_SECONDS: z.coerce.number().min(0).max(3600).default(3),
  LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
  /** Bearer token that lets a scraper outside loopback read /metrics; unset: loopback only. */
  METRICS_TOKEN: optionalString,
  /** Knobs for the reliability suite (the TEST_* settings below, Config.testHooks); never in production. */
  UNSAFE_TEST_HOOKS: z.enum(['0', '1']).default('0'),
  TEST_CLOCK_OFFSET_MS: z.coerce.number().int().optional(),
  TEST_WEBHOOK_RETRY_SCHEDULE_S: optionalString.refine(
    (v) => v === undefined || /^\d+(\.\d+)?(,\d+(\.\d+)?)*$/.test(v),
    { message: 'a comma list of seconds, e.g. 1,1,2' },
  ),
  TEST_SWEEP_INTERVAL_MS: z.coerce.number().int().min(100).optional(),
  TEST_JOB_POLL_MS: z.coerce.number().int().min(50).optional(),
});

export type Env = z.infer<typeof envSchema>;

/** The TEST_* settings, all gathered into Config.testHooks. */
const TEST_HOOK_NAMES = [
  'TEST_CLOCK_OFFSET_MS',
  'TEST_WEBHOOK_RETRY_SCHEDULE_S',
  'TEST_SWEEP_INTERVAL_MS',
  'TEST_JOB_POLL_MS',
] as const;

/** The settings Config computes from others instead of taking them as they are (see loadConfig). */
const DERIVED = [
  'BASE_URL',
  'SITES',
  'SITE_DIR',
  'UNSAFE_TEST_HOOKS',
  ...TEST_HOOK_NAMES,
] as const satisfies readonly (keyof Env)[];
type Derived = (typeof DERIVED)[number];

/** MODERATOR_START_SECONDS -> moderatorStartSeconds: a setting's name in Config. */
type CamelCase<S extends string> = S extends `${infer Head}_${infer Tail}`
  ? `${Lowercase<Head>}${Capitalize<CamelCase<Tail>>}`
  : Lowercase<S>;
const camelCase = (name: string) =>
  name.toLowerCase().replace(/_([a-z])/g, (_, c: string) => c.toUpperCase());

/** Every other setting, as the schema reads it, under its camelCase name. */
type DirectSettings = { [K in Exclude<keyof Env, Derived> as CamelCase<K>]: Env[K] };

/** Every setting; the moderator's model-server settings are the ones core's lifecycle reads. */
export interface Config extends LifecycleConfig, DirectSettings {
  /** BASE_URL without a trailing slash; default http://localhost:PORT. */
  baseUrl: string;
  /** SITES, parsed. */
  sites: SiteConfig[];
  /** SITE_DIR, default DATA_DIR/site. */
  siteDir: string;
  /** Knobs for the reliability suite; present only with UNSAFE_TEST_HOOKS=1 (never in production). */
  testHooks: TestHooks | undefined;
}

/** UNSAFE: test-only behaviour, refused at start unless UNSAFE_TEST_HOOKS=1. */
export interface TestHooks {
  /** Added to the system clock (jumps a spawned process across 00:00 UTC). */
  clockOffsetMs: number;
  /** Replaces the webhook retry schedule (seconds after each failed attempt). */
  webhookRetryScheduleS: number[] | undefined;
  /** Replaces the sweep interval of the workers. */
  sweepIntervalMs: number | undefined;
  /** Replaces the workers' safety-net poll (they are woken by announcements). */
  jobPollMs: number | undefined;
}

function testHooks(env: Env): TestHooks | undefined {
  const set = TEST_HOOK_NAMES.filter((n) => env[n] !== undefined);
  if (env.UNSAFE_TEST_HOOKS !== '1') {
    if (set.length > 0) {
      throw new Error(
        `Invalid configuration:\n  ${set.join(', ')}: test-only settings need UNSAFE_TEST_HOOKS=1 (never in production)`,
      );
    }
    return undefined;
  }
  return {
    clockOffsetMs: env.TEST_CLOCK_OFFSET_MS ?? 0,
    webhookRetryScheduleS: env.TEST_WEBHOOK_RETRY_SCHEDULE_S?.split(',').map(Number),
    sweepIntervalMs: env.TEST_SWEEP_INTERVAL_MS,
    jobPollMs: env.TEST_JOB_POLL_MS,
  };
}

/** `SITES=stories.example=stories,ads.example=classifieds`; default: one stories site on any host. */
export function parseSites(value: string | undefined): SiteConfig[] {
  if (!value) return [{ host: '*', kind: 'stories' }];
  const sites = value
    .split(',')
    .map((pair) => pair.trim())
    .filter(Boolean)
    .map((pair) => {
      const parts = pair.split('=').map((s) => s.trim());
      const [host, kind] = parts;
      if (parts.length !== 2 || !host || !kind || !SITE_KINDS.includes(kind as SiteKind)) {
        throw new Error(`SITES: expected host=kind with kind one of ${SITE_KINDS.join('|')}, got "${pair}"`);
      }
      if (host !== '*' && !/^[a-z0-9]([a-z0-9-]*[a-z0-9])?(\.[a-z0-9]([a-z0-9-]*[a-z0-9])?)*$/i.test(host)) {
        throw new Error(`SITES: "${host}" is not a host name (no scheme, port or path), in "${pair}"`);
      }
      return { host: host.toLowerCase(), kind: kind as SiteKind };
    });
  if (sites.length === 0) return [{ host: '*', kind: 'stories' }];
  const seen = new Set<string>();
  for (const site of sites) {
    if (seen.has(site.host)) throw new Error(`SITES: host "${site.host}" is listed twice`);
    seen.add(site.host);
  }
  return sites;
}

/** `PORT=` (set but blank) means "not set": the default applies, not 0 or an empty string. */
function withoutBlanks(source: Record<string, string | undefined>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(source)) if (v !== undefined && v.trim() !== '') out[k] = v;
  return out;
}

export function loadConfig(source: Record<string, string | undefined> = process.env): Config {
  const parsed = envSchema.safeParse(withoutBlanks(source));
  if (!parsed.success) {
    const lines = parsed.error.issues.map((i) => `  ${i.path.join('.')}: ${i.message}`);
    throw new Error(`Invalid configuration:\n${lines.join('\n')}`);
  }
  const env = parsed.data;
  if (env.MODERATOR === 'openai' && (!env.MODERATOR_URL || !env.MODERATOR_MODEL)) {
    throw new Error(
      'Invalid configuration:\n  MODERATOR=openai needs MODERATOR_URL (an OpenAI-compatible /v1 base URL) and MODERATOR_MODEL',
    );
  }
  const serverControl = [
    ['MODERATOR_START_COMMAND', 'MODERATOR_START_URL'],
    ['MODERATOR_STOP_COMMAND', 'MODERATOR_STOP_URL'],
  ] as const;
  for (const [command, url] of serverControl) {
    if (env[command] && env[url]) {
      throw new Error(`Invalid configuration:\n  set ${command} or ${url}, not both`);
    }
  }
  const controlSet = serverControl.flat().filter((n) => env[n] !== undefined);
  if (env.MODERATOR !== 'openai' && controlSet.length > 0) {
    throw new Error(
      `Invalid configuration:\n  ${controlSet.join(', ')}: a model server is started and stopped only with MODERATOR=openai`,
    );
  }
  if (env.PAYMENTS === 'stripe' && (!env.STRIPE_SECRET_KEY || !env.STRIPE_WEBHOOK_SECRET)) {
    throw new Error(
      'Invalid configuration:\n  PAYMENTS=stripe needs STRIPE_SECRET_KEY (sk_...) and STRIPE_WEBHOOK_SECRET (whsec_... of the endpoint /v1/stripe/webhook)',
    );
  }
  const derived = new Set<string>(DERIVED);
  const direct = Object.fromEntries(
    Object.keys(envSchema.shape)
      .filter((name) => !derived.has(name))
      .map((name) => [camelCase(name), env[name as keyof Env]]),
  ) as DirectSettings;
  return {
    ...direct,
    baseUrl: (env.BASE_URL ?? `http://localhost:${env.PORT}`).replace(/\/+$/, ''),
    sites: parseSites(env.SITES),
    siteDir: env.SITE_DIR ?? join(env.DATA_DIR, 'site'),
    testHooks: testHooks(env),
  };
}
