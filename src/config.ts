import { z } from 'zod';

/**
 * Every setting of the service, read from the environment in one place.
 * All are optional: with none set, `npm start` runs the embedded default
 * (PGlite under ./data, test payments, outbox mail, the local moderator).
 */
const optionalString = z
  .string()
  .optional()
  .transform((v) => (v === undefined || v.trim() === '' ? undefined : v.trim()));

const envSchema = z.object({
  PORT: z.coerce.number().int().min(0).max(65535).default(8080),
  HOST: z.string().default('127.0.0.1'),
  BASE_URL: optionalString,
  DATA_DIR: z.string().default('./data'),
  DATABASE_URL: optionalString,
  REDIS_URL: optionalString,
  ADMIN_TOKEN: optionalString,
  SECRET_KEY: optionalString,
  SMTP_URL: optionalString,
  MAIL_FROM: z.string().default('agentpress <no-reply@agentpress.local>'),
  PAYMENTS: z.enum(['test', 'stripe']).default('test'),
  MODERATOR: z.enum(['local', 'openai']).default('local'),
  MODERATOR_START_SECONDS: z.coerce.number().min(0).default(2),
  MODERATOR_IDLE_SECONDS: z.coerce.number().min(1).default(600),
  WEBHOOK_ALLOW_TARGETS: z.string().default(''),
  PLATFORM_RATE: z.coerce.number().int().min(1).default(100),
  PLATFORM_BURST: z.coerce.number().int().min(1).default(200),
  TRUST_PROXY: optionalString,
  SITES: optionalString,
  LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
});

export type Env = z.infer<typeof envSchema>;

export interface SiteConfig {
  /** Host name (without port) that selects this site; '*' matches any host. */
  host: string;
  kind: SiteKind;
}

export type SiteKind = 'stories' | 'messages' | 'classifieds' | 'events';

export interface Config {
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
  moderator: 'local' | 'openai';
  moderatorStartSeconds: number;
  moderatorIdleSeconds: number;
  webhookAllowTargets: string[];
  platformRate: number;
  platformBurst: number;
  trustProxy: string | undefined;
  sites: SiteConfig[];
  logLevel: Env['LOG_LEVEL'];
}

const SITE_KINDS: readonly SiteKind[] = ['stories', 'messages', 'classifieds', 'events'];

/** `SITES=stories.example=stories,ads.example=classifieds`; default: one stories site on any host. */
export function parseSites(value: string | undefined): SiteConfig[] {
  if (!value) return [{ host: '*', kind: 'stories' }];
  return value.split(',').map((pair) => {
    const [host, kind] = pair.split('=').map((s) => s.trim());
    if (!host || !kind || !SITE_KINDS.includes(kind as SiteKind)) {
      throw new Error(`SITES: expected host=kind with kind one of ${SITE_KINDS.join('|')}, got "${pair}"`);
    }
    return { host: host.toLowerCase(), kind: kind as SiteKind };
  });
}

export function loadConfig(source: Record<string, string | undefined> = process.env): Config {
  const parsed = envSchema.safeParse(source);
  if (!parsed.success) {
    const lines = parsed.error.issues.map((i) => `  ${i.path.join('.')}: ${i.message}`);
    throw new Error(`Invalid configuration:\n${lines.join('\n')}`);
  }
  const env = parsed.data;
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
    moderator: env.MODERATOR,
    moderatorStartSeconds: env.MODERATOR_START_SECONDS,
    moderatorIdleSeconds: env.MODERATOR_IDLE_SECONDS,
    webhookAllowTargets: env.WEBHOOK_ALLOW_TARGETS.split(',')
      .map((s) => s.trim())
      .filter(Boolean),
    platformRate: env.PLATFORM_RATE,
    platformBurst: env.PLATFORM_BURST,
    trustProxy: env.TRUST_PROXY,
    sites: parseSites(env.SITES),
    logLevel: env.LOG_LEVEL,
  };
}
