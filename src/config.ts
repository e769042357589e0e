import { isIP } from 'node:net';
import { join } from 'node:path';
import { z } from 'zod';
import type { LifecycleConfig } from './core/moderation/lifecycle.js';
import { MODERATOR_PROFILE_NAMES, type ModeratorProfileName } from './core/moderation/profiles/types.js';
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
  STRIPE_SECRET_KEY: optionalString,
  STRIPE_WEBHOOK_SECRET: optionalString,
  STRIPE_API_BASE: optionalUrl(['http', 'https'], 'the Stripe API address'),
  MODERATOR: z.enum(['local', 'openai']).default('local'),
  MODERATOR_START_SECONDS: z.coerce.number().min(0).default(2),
  MODERATOR_DECISION_SECONDS: z.coerce.number().min(0).max(60).default(1),
  MODERATOR_URL: optionalString,
  MODERATOR_MODEL: optionalString,
  MODERATOR_API_KEY: optionalString,
  /** How MODERATOR=openai asks the model and reads its answer (src/core/moderation/profiles/). */
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
  ACCOUNT_CREATIONS_PER_IP: z.coerce.number().int().min(1).default(60),
  ACCOUNT_CREATION_WINDOW_SECONDS: z.coerce.number().int().min(1).max(86_400).default(3600),
  MAIL_PER_ADDRESS_PER_DAY: z.coerce.number().int().min(1).default(10),
  SEARCH_FREE_PER_ACCOUNT_PER_DAY: z.coerce.number().int().min(1).default(2000),
  TRUST_PROXY: trustProxy,
  SITES: optionalString,
  SITE_DIR: optionalString,
  SITE_REBUILD_DELAY_SECONDS: z.coerce.number().min(0).max(3600).default(3),
  LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
  METRICS_TOKEN: optionalString,
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

/** Every setting; the moderator's model-server settings are the ones core's lifecycle reads. */
export interface Config extends LifecycleConfig {
  port: number;
  host: string;
  baseUrl: string;
  dataDir: string;
  databaseUrl: string | undefined;
  redisUrl: string | undefined;
  adminToken: string | undefined;
  secretKey: string | undefined;
  smtpUrl: string | undefined;
  mailFrom: string;
  payments: 'test' | 'stripe';
  /** PAYMENTS=stripe: the secret API key, the webhook signing secret, and optionally another API address. */
  stripeSecretKey: string | undefined;
  stripeWebhookSecret: string | undefined;
  stripeApiBase: string | undefined;
  moderatorDecisionSeconds: number;
  moderatorModel: string | undefined;
  /** MODERATOR_PROFILE: the model family behind MODERATOR=openai (default json). */
  moderatorProfile: ModeratorProfileName;
  webhookAllowTargets: string[];
  platformRate: number;
  platformBurst: number;
  /** POST /v1/accounts: at most this many sign-ups from one client address (IPv6: its /64)... */
  accountCreationsPerIp: number;
  /** ...per fixed window of this many seconds (429 rate_limited with Retry-After to the window's end). */
  accountCreationWindowSeconds: number;
  /** Mail of every kind the service sends to one address per UTC day. */
  mailPerAddressPerDay: number;
  /**
   * Free keyed searches of one account per UTC day, all its keys together (default 20 keys x 100),
   * so revoking and creating keys cannot reset the allowance; each key still has its own 100.
   */
  searchFreePerAccountPerDay: number;
  /** As fastify's `trustProxy`: a flag, or a comma list of addresses, ranges and keywords. */
  trustProxy: boolean | string | undefined;
  sites: SiteConfig[];
  /** Where the static site is built (one folder per site kind); default DATA_DIR/site. */
  siteDir: string;
  /** A change waits this long for others to join one incremental rebuild. */
  siteRebuildDelaySeconds: number;
  logLevel: Env['LOG_LEVEL'];
  /** Bearer token that lets a scraper outside loopback read /metrics; unset: loopback only. */
  metricsToken: string | undefined;
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

const TEST_HOOK_NAMES = [
  'TEST_CLOCK_OFFSET_MS',
  'TEST_WEBHOOK_RETRY_SCHEDULE_S',
  'TEST_SWEEP_INTERVAL_MS',
  'TEST_JOB_POLL_MS',
] as const;

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
  return {
    port: env.PORT,
    host: env.HOST,
    baseUrl: (env.BASE_URL ?? `http://localhost:${env.PORT}`).replace(/\/+$/, ''),
    dataDir: env.DATA_DIR,
    databaseUrl: env.DATABASE_URL,
    redisUrl: env.REDIS_URL,
    adminToken: env.ADMIN_TOKEN,
    secretKey: env.SECRET_KEY,
    smtpUrl: env.SMTP_URL,
    mailFrom: env.MAIL_FROM,
    payments: env.PAYMENTS,
    stripeSecretKey: env.STRIPE_SECRET_KEY,
    stripeWebhookSecret: env.STRIPE_WEBHOOK_SECRET,
    stripeApiBase: env.STRIPE_API_BASE,
    moderator: env.MODERATOR,
    moderatorStartSeconds: env.MODERATOR_START_SECONDS,
    moderatorDecisionSeconds: env.MODERATOR_DECISION_SECONDS,
    moderatorUrl: env.MODERATOR_URL,
    moderatorModel: env.MODERATOR_MODEL,
    moderatorApiKey: env.MODERATOR_API_KEY,
    moderatorProfile: env.MODERATOR_PROFILE,
    moderatorIdleSeconds: env.MODERATOR_IDLE_SECONDS,
    moderatorStartCommand: env.MODERATOR_START_COMMAND,
    moderatorStartUrl: env.MODERATOR_START_URL,
    moderatorStopCommand: env.MODERATOR_STOP_COMMAND,
    moderatorStopUrl: env.MODERATOR_STOP_URL,
    moderatorHealthUrl: env.MODERATOR_HEALTH_URL,
    moderatorStartTimeoutSeconds: env.MODERATOR_START_TIMEOUT_SECONDS,
    moderatorStartRetrySeconds: env.MODERATOR_START_RETRY_SECONDS,
    moderatorProbeSeconds: env.MODERATOR_PROBE_SECONDS,
    webhookAllowTargets: env.WEBHOOK_ALLOW_TARGETS,
    platformRate: env.PLATFORM_RATE,
    platformBurst: env.PLATFORM_BURST,
    accountCreationsPerIp: env.ACCOUNT_CREATIONS_PER_IP,
    accountCreationWindowSeconds: env.ACCOUNT_CREATION_WINDOW_SECONDS,
    mailPerAddressPerDay: env.MAIL_PER_ADDRESS_PER_DAY,
    searchFreePerAccountPerDay: env.SEARCH_FREE_PER_ACCOUNT_PER_DAY,
    trustProxy: env.TRUST_PROXY,
    sites: parseSites(env.SITES),
    siteDir: env.SITE_DIR ?? join(env.DATA_DIR, 'site'),
    siteRebuildDelaySeconds: env.SITE_REBUILD_DELAY_SECONDS,
    logLevel: env.LOG_LEVEL,
    metricsToken: env.METRICS_TOKEN,
    testHooks: testHooks(env),
  };
}
