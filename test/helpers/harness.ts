import { randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { inject } from 'vitest';
import { loadConfig } from '../../src/config.js';
import type { Clock } from '../../src/core/clock.js';
import type { Mailer } from '../../src/core/mail/mailer.js';
import type { PaymentProvider } from '../../src/core/payments/provider.js';
import type { Resolver } from '../../src/core/webhooks/url-policy.js';
import { type Database, openDatabase } from '../../src/db/client.js';
import { type App, buildApp } from '../../src/http/app.js';
import { createPlatform, type Platform, type PlatformOptions } from '../../src/platform.js';
import { TestClock } from './clock.js';
import { ContractValidator, contractStats, enforceContract, writeContractStats } from './contract.js';
import { cloneDatabasePrefix, withDatabase } from './global-setup.js';

export const ADMIN_TOKEN = 'test-admin-token-0123456789abcdef';
export const BASE_URL = 'http://agentpress.test';

/** A fresh database cloned from the migrated template: PGlite snapshot or PostgreSQL TEMPLATE. */
export async function openTestDatabase(): Promise<Database> {
  const url = process.env.DATABASE_URL;
  if (url) {
    const template = inject('templateDatabase');
    const name = `${cloneDatabasePrefix(template)}${randomBytes(6).toString('hex')}`;
    const admin = new pg.Client({ connectionString: url });
    await admin.connect();
    try {
      await admin.query(`CREATE DATABASE ${name} TEMPLATE ${template}`);
    } finally {
      await admin.end();
    }
    return openDatabase({ databaseUrl: withDatabase(url, name), poolSize: 10 });
  }
  const snapshot = new Blob([readFileSync(inject('templateSnapshot'))]);
  return openDatabase({ pgliteSnapshot: snapshot });
}

export interface Reply {
  status: number;
  headers: Record<string, string | string[] | number | undefined>;
  text: string;
  // biome-ignore lint/suspicious/noExplicitAny: test replies are inspected freely
  json: any;
}

export interface CallOptions {
  key?: string;
  body?: unknown;
  raw?: string;
  headers?: Record<string, string>;
  ip?: string;
  /**
   * Skip the check against /openapi.json. Only for a test that deliberately sends what the
   * contract cannot describe (an unknown path, a method the path does not take).
   */
  unchecked?: boolean;
}

export interface TestEnv {
  platform: Platform;
  app: App;
  clock: TestClock;
  call(method: string, path: string, opts?: CallOptions): Promise<Reply>;
  /** The contract checker built from this app's /openapi.json. */
  contract(): ContractValidator;
  close(): Promise<void>;
}

export interface TestEnvOptions {
  clock?: TestClock;
  env?: Record<string, string>;
  mailer?: Mailer;
  /** A payment provider a test controls (default: as PAYMENTS selects). */
  payments?: PaymentProvider;
  /** DNS for webhook URLs (a fake that tests control). */
  resolver?: Resolver;
  webhookTimeoutMs?: number;
  /** An already open database (a restart test reopens the same data); default: a fresh clone. */
  database?: Database;
  /** Redis key prefix of the platform ceiling, so parallel runs sharing one Redis do not collide. */
  ceilingKeyPrefix?: string;
  /** Where the platform logs (default: errors to the console, the rest dropped). */
  log?: PlatformOptions['log'];
}

export async function startTestEnv(opts: TestEnvOptions = {}): Promise<TestEnv> {
  const clock = opts.clock ?? new TestClock();
  const config = loadConfig({
    DATA_DIR: mkdtempSync(join(tmpdir(), 'agentpress-data-')),
    ADMIN_TOKEN,
    BASE_URL,
    MODERATOR_START_SECONDS: '0',
    MODERATOR_DECISION_SECONDS: '0',
    // The platform ceiling has its own tests; elsewhere it must not shape results.
    PLATFORM_RATE: '1000000',
    PLATFORM_BURST: '1000000',
    // Sign-ups per IP and mail per address have their own tests (test/api/abuse-limits.test.ts);
    // elsewhere a suite signs up many accounts from one address and mails one address often.
    ACCOUNT_CREATIONS_PER_IP: '1000000',
    MAIL_PER_ADDRESS_PER_DAY: '1000000',
    LOG_LEVEL: 'silent',
    ...opts.env,
  });
  const database = opts.database ?? (await openTestDatabase());
  const platform = await createPlatform(config, {
    clock: clock as Clock,
    database,
    statusCacheMs: 0,
    ...(opts.mailer ? { mailer: opts.mailer } : {}),
    ...(opts.payments ? { payments: opts.payments } : {}),
    ...(opts.resolver ? { resolver: opts.resolver } : {}),
    ...(opts.webhookTimeoutMs ? { webhookTimeoutMs: opts.webhookTimeoutMs } : {}),
    log: opts.log ?? { info() {}, warn() {}, error: (o) => console.error(o) },
  });
  const app = await buildApp(platform, {
    logger: false,
    ...(opts.ceilingKeyPrefix ? { ceilingKeyPrefix: opts.ceilingKeyPrefix } : {}),
  });
  await app.ready();
  let validator: ContractValidator | undefined;
  const contract = () => {
    validator ??= new ContractValidator(app.swagger() as unknown as Record<string, unknown>);
    return validator;
  };
  return {
    platform,
    app,
    clock,
    contract,
    async call(method, path, o = {}) {
      const headers: Record<string, string> = {
        accept: 'application/json',
        host: new URL(BASE_URL).host,
        ...o.headers,
      };
      if (o.key) headers.authorization = `Bearer ${o.key}`;
      let payload: string | undefined;
      if (o.raw !== undefined) payload = o.raw;
      else if (o.body !== undefined) {
        payload = JSON.stringify(o.body);
        headers['content-type'] ??= 'application/json';
      }
      const res = await app.inject({
        method: method as 'GET',
        url: path,
        headers,
        ...(payload !== undefined ? { payload } : {}),
        ...(o.ip ? { remoteAddress: o.ip } : {}),
      });
      let json: unknown;
      try {
        json = res.body ? JSON.parse(res.body) : undefined;
      } catch {
        json = undefined;
      }
      if (o.unchecked) contractStats.unchecked++;
      else
        enforceContract(contract(), {
          method,
          url: path,
          status: res.statusCode,
          headers: res.headers,
          body: res.body,
        });
      return { status: res.statusCode, headers: res.headers, text: res.body, json };
    },
    async close() {
      writeContractStats(inject('contractStatsDir'));
      await app.close();
      await platform.close();
    },
  };
}

/** Starts `env`'s app on a free loopback port and answers its base URL, `http://127.0.0.1:PORT`. */
export async function listen(env: TestEnv): Promise<string> {
  await env.app.listen({ port: 0, host: '127.0.0.1' });
  return `http://127.0.0.1:${(env.app.server.address() as AddressInfo).port}`;
}

/**
 * `fetch` for tests that talk to a listening server over real HTTP: the reply is read like
 * `env.call`'s and checked against the contract of `env` (the app behind `base`).
 */
export async function fetchReply(
  env: TestEnv,
  url: string,
  init: RequestInit & { unchecked?: boolean } = {},
): Promise<Reply> {
  const res = await fetch(url, init);
  const text = await res.text();
  const headers: Reply['headers'] = {};
  res.headers.forEach((v, k) => {
    headers[k] = v;
  });
  const u = new URL(url);
  if (init.unchecked) contractStats.unchecked++;
  else
    enforceContract(env.contract(), {
      method: init.method ?? 'GET',
      url: `${u.pathname}${u.search}`,
      status: res.status,
      headers,
      body: text,
    });
  let json: unknown;
  try {
    json = text ? JSON.parse(text) : undefined;
  } catch {
    json = undefined;
  }
  return { status: res.status, headers, text, json };
}
