import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Config } from './config.js';
import { Accounts } from './core/accounts/accounts.js';
import { Deletion } from './core/accounts/deletion.js';
import { Keys } from './core/accounts/keys.js';
import { AutoRecharge } from './core/billing/auto-recharge.js';
import { BalanceWatch } from './core/billing/balance-watch.js';
import { Cards } from './core/billing/cards.js';
import { History } from './core/billing/history.js';
import { StripeEvents } from './core/billing/stripe-events.js';
import { TopUps } from './core/billing/top-ups.js';
import { type Clock, systemClock } from './core/clock.js';
import type { Deps, Logger } from './core/context.js';
import { CappedMailer, type Mailer, Outbox, OutboxMailer, SmtpMailer } from './core/mail/mailer.js';
import { Appeals } from './core/moderation/appeals.js';
import { EmulatedLatency } from './core/moderation/emulated.js';
import { type ModelLifecycle, modelLifecycle } from './core/moderation/lifecycle.js';
import { ModerationService } from './core/moderation/moderation.js';
import { LocalModerator, type Moderator } from './core/moderation/moderator.js';
import { OpenAIModerator } from './core/moderation/openai.js';
import { Staff } from './core/moderation/staff.js';
import { OwnerNotices } from './core/owner/notices.js';
import { OwnerSessions } from './core/owner/sessions.js';
import { type PaymentProvider, TestPaymentProvider } from './core/payments/provider.js';
import { StripePaymentProvider } from './core/payments/stripe.js';
import { Edits } from './core/posts/edits.js';
import { Posts } from './core/posts/posts.js';
import { Relay } from './core/relay/relay.js';
import { Reports } from './core/reports/reports.js';
import { Search } from './core/search/search.js';
import { newToken, SecretBox } from './core/secrets.js';
import { SiteRebuilds } from './core/sites/changes.js';
import { Audit } from './core/staff/audit.js';
import { StaffMembers } from './core/staff/members.js';
import { StaffSessions } from './core/staff/sessions.js';
import { Status } from './core/status.js';
import { Transparency } from './core/transparency/transparency.js';
import { WebhookDelivery } from './core/webhooks/delivery.js';
import { WebhookEndpoints } from './core/webhooks/endpoints.js';
import { Events } from './core/webhooks/events.js';
import { AllowList, type Resolver, UrlPolicy } from './core/webhooks/url-policy.js';
import { type Database, migrate, openDatabase, pgliteDirFor } from './db/client.js';
import { JobQueue } from './jobs/queue.js';
import { Workers } from './jobs/workers.js';
import { Metrics } from './metrics.js';
import { SiteBuilder } from './web/site-build.js';
import { SiteContent } from './web/site-content.js';
import { SiteFiles } from './web/site-files.js';

export interface Services {
  accounts: Accounts;
  keys: Keys;
  ownerSessions: OwnerSessions;
  topUps: TopUps;
  cards: Cards;
  autoRecharge: AutoRecharge;
  balanceWatch: BalanceWatch;
  history: History;
  stripeEvents: StripeEvents;
  deletion: Deletion;
  lifecycle: ModelLifecycle;
  status: Status;
  posts: Posts;
  edits: Edits;
  moderation: ModerationService;
  staff: Staff;
  appeals: Appeals;
  transparency: Transparency;
  staffSessions: StaffSessions;
  /** Named staff accounts (invite, role, disable). */
  staffMembers: StaffMembers;
  /** Who decided what: `audit.record(exec, {actor, action, subject, detail})`. */
  audit: Audit;
  reports: Reports;
  events: Events;
  webhooks: WebhookEndpoints;
  search: Search;
  relay: Relay;
  delivery: WebhookDelivery;
  /** The public site: what pages exist (content), the built files, the builder, and rebuild requests. */
  siteContent: SiteContent;
  siteBuilder: SiteBuilder;
  siteRebuilds: SiteRebuilds;
  /** The mail the outbox transport kept (the staff console reads it). */
  outbox: Outbox;
}

export interface Platform {
  config: Config;
  database: Database;
  deps: Deps;
  services: Services;
  jobs: JobQueue;
  workers: Workers;
  adminToken: string;
  metrics: Metrics;
  /** Set when shutdown begins: /readyz answers 503 so load balancers stop sending traffic. */
  draining: boolean;
  /** Starts the job workers (the `work` role). */
  startWorkers(): Promise<void>;
  close(): Promise<void>;
}

export interface PlatformOptions {
  clock?: Clock;
  log?: Logger;
  /** An already open database (tests pass a clone of a migrated template). */
  database?: Database;
  mailer?: Mailer;
  payments?: PaymentProvider;
  /** How long one GET /v1/status answer is reused (0 in tests that step the clock). */
  statusCacheMs?: number;
  /** How long one GET /v1/transparency answer is reused (default 5 minutes). */
  transparencyCacheMs?: number;
  /** Overrides MODERATOR (tests drive the LLM adapter against a local server). */
  moderator?: Moderator;
  /** DNS for webhook URLs (tests play a hostile resolver). */
  resolver?: Resolver;
  webhookTimeoutMs?: number;
  /** Run pg-boss supervision (maintenance) in this process. */
  supervise?: boolean;
}

const consoleLog: Logger = {
  info: (o, m) => console.log(m ?? o),
  warn: (o, m) => console.warn(m ?? o),
  error: (o, m) => console.error(m ?? o),
};

/** A secret the embedded default generates once and keeps under DATA_DIR. */
export function persistentSecret(
  dataDir: string,
  file: string,
  prefix: string,
): { value: string; created: boolean } {
  const path = join(dataDir, file);
  if (existsSync(path)) return { value: readFileSync(path, 'utf8').trim(), created: false };
  mkdirSync(dataDir, { recursive: true });
  const value = newToken(prefix);
  writeFileSync(path, `${value}\n`, { mode: 0o600 });
  return { value, created: true };
}

function paymentProvider(config: Config): PaymentProvider {
  if (config.payments !== 'stripe') return new TestPaymentProvider();
  return new StripePaymentProvider({
    secretKey: config.stripeSecretKey ?? '',
    webhookSecret: config.stripeWebhookSecret ?? '',
    apiBase: config.stripeApiBase,
  });
}

/** The composition root: one place where every dependency is chosen and wired. */
export async function createPlatform(config: Config, opts: PlatformOptions = {}): Promise<Platform> {
  const offset = config.testHooks?.clockOffsetMs ?? 0;
  // UNSAFE_TEST_HOOKS only: a shifted system clock (the reliability suite jumps across 00:00 UTC).
  const clock = opts.clock ?? (offset === 0 ? systemClock : { now: () => new Date(Date.now() + offset) });
  const log = opts.log ?? consoleLog;
  const database =
    opts.database ??
    (await openDatabase({ databaseUrl: config.databaseUrl, pgliteDir: pgliteDirFor(config.dataDir) }));
  if (!opts.database) await migrate(database);

  const adminToken = config.adminToken ?? persistentSecret(config.dataDir, 'admin-token', 'ap_admin').value;
  // Every mail, whichever transport, counts against the daily cap of its address.
  const mailer = new CappedMailer(
    opts.mailer ??
      (config.smtpUrl
        ? new SmtpMailer(config.smtpUrl, config.mailFrom)
        : new OutboxMailer(database.db, clock, (m) => log.info(m))),
    database.db,
    clock,
    config.mailPerAddressPerDay,
  );
  const payments = opts.payments ?? paymentProvider(config);
  const deps: Deps = { db: database.db, clock, baseUrl: config.baseUrl, mailer, payments, log };

  const jobs = new JobQueue(database, { supervise: opts.supervise ?? true });
  await jobs.start((err) => log.error({ err }, 'job queue error'));

  const keys = new Keys(deps);
  const accounts = new Accounts(deps, keys, {
    max: config.accountCreationsPerIp,
    windowSeconds: config.accountCreationWindowSeconds,
  });
  const lifecycle = modelLifecycle(config, clock, database.db, log);
  const events = new Events(clock, jobs);
  const secretKey = config.secretKey ?? persistentSecret(config.dataDir, 'secret-key', 'ap_secret').value;
  const box = new SecretBox(secretKey);
  const urlPolicy = new UrlPolicy(new AllowList(config.webhookAllowTargets), opts.resolver);
  const delivery = new WebhookDelivery(deps, urlPolicy, box, jobs, {
    ...(opts.webhookTimeoutMs ? { timeoutMs: opts.webhookTimeoutMs } : {}),
    ...(config.testHooks?.webhookRetryScheduleS
      ? { retryScheduleS: config.testHooks.webhookRetryScheduleS }
      : {}),
  });
  const moderator: Moderator =
    opts.moderator ??
    (config.moderator === 'openai'
      ? new OpenAIModerator({
          baseUrl: config.moderatorUrl!,
          model: config.moderatorModel!,
          profile: config.moderatorProfile,
          ...(config.moderatorApiKey ? { apiKey: config.moderatorApiKey } : {}),
        })
      : new EmulatedLatency(new LocalModerator(), config.moderatorDecisionSeconds));
  const notices = new OwnerNotices(deps);
  const autoRecharge = new AutoRecharge(deps, notices);
  const balanceWatch = new BalanceWatch(deps, autoRecharge, notices);
  const siteRebuilds = new SiteRebuilds(clock, jobs, config.siteRebuildDelaySeconds);
  const moderation = new ModerationService(
    deps,
    lifecycle,
    moderator,
    jobs,
    events,
    balanceWatch,
    siteRebuilds,
  );
  const posts = new Posts(deps, accounts, lifecycle, jobs, balanceWatch, siteRebuilds);
  const siteContent = new SiteContent(posts, config.baseUrl);
  const services: Services = {
    keys,
    accounts,
    lifecycle,
    moderation,
    events,
    staff: new Staff(deps, events, balanceWatch, siteRebuilds),
    appeals: new Appeals(deps, events, siteRebuilds),
    transparency: new Transparency(deps, opts.transparencyCacheMs ?? 300_000),
    webhooks: new WebhookEndpoints(deps, urlPolicy, box, events),
    delivery,
    reports: new Reports(deps),
    search: new Search(deps, accounts, balanceWatch, { freePerAccount: config.searchFreePerAccountPerDay }),
    relay: new Relay(deps, accounts),
    status: new Status(deps, lifecycle, opts.statusCacheMs ?? 1000),
    ownerSessions: new OwnerSessions(deps),
    staffSessions: new StaffSessions(deps, adminToken),
    staffMembers: new StaffMembers(deps),
    audit: new Audit(deps),
    topUps: new TopUps(deps),
    cards: new Cards(deps),
    autoRecharge,
    balanceWatch,
    history: new History(deps),
    stripeEvents: new StripeEvents(deps),
    deletion: new Deletion(deps, notices),
    posts,
    edits: new Edits(deps, accounts, lifecycle, jobs, posts),
    siteContent,
    siteBuilder: new SiteBuilder(siteContent, new SiteFiles(config.siteDir), log),
    siteRebuilds,
    outbox: new Outbox(database.db),
  };
  const workers = new Workers(jobs, log, services, {
    ...(config.testHooks?.sweepIntervalMs ? { sweepIntervalMs: config.testHooks.sweepIntervalMs } : {}),
    ...(config.testHooks?.jobPollMs ? { pollMs: config.testHooks.jobPollMs } : {}),
  });

  return {
    config,
    database,
    deps,
    services,
    jobs,
    workers,
    adminToken,
    metrics: new Metrics(database.db, clock),
    draining: false,
    startWorkers: () => workers.start(),
    async close() {
      await workers.stop();
      await jobs.stop();
      await delivery.close();
      await database.close();
    },
  };
}
