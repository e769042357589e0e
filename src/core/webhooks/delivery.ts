import { isIP } from 'node:net';
import { and, eq, isNull, lte, or } from 'drizzle-orm';
import { Webhook } from 'standardwebhooks';
import { Agent, buildConnector, request } from 'undici';
import { webhookAttempts, webhookDeliveries, webhookEndpoints } from '../../db/schema.js';
import type { Deps } from '../context.js';
import type { JobSender } from '../jobs.js';
import type { SecretBox } from '../secrets.js';
import type { UrlPolicy } from './url-policy.js';

/** Seconds to wait after each failed attempt: about a day in all (DESIGN.md). */
export const RETRY_SCHEDULE_S = [5, 300, 1800, 7200, 18000, 36000, 36000];
const LEASE_MS = 60_000;
const MAX_RETRY_AFTER_S = 36_000;

export type Outcome = 'succeeded' | 'retry' | 'failed' | 'cancelled' | 'skipped';

export interface DeliveryOptions {
  timeoutMs?: number;
  /** 0..1; jitter is ±10% of the delay. */
  random?: () => number;
  /** Seconds after each failed attempt (UNSAFE_TEST_HOOKS shortens it); default RETRY_SCHEDULE_S. */
  retryScheduleS?: readonly number[];
}

/**
 * Sends Standard Webhooks deliveries at least once. The connection goes only to an address that
 * was vetted in the same step that resolved it (the connector resolves, checks and dials), so a
 * DNS answer that changes between registration and delivery gets nowhere.
 */
export class WebhookDelivery {
  readonly #agent: Agent;
  readonly #timeoutMs: number;
  readonly #random: () => number;
  readonly #schedule: readonly number[];

  constructor(
    private readonly deps: Deps,
    private readonly policy: UrlPolicy,
    private readonly box: SecretBox,
    private readonly jobs: JobSender,
    opts: DeliveryOptions = {},
  ) {
    this.#timeoutMs = opts.timeoutMs ?? 15_000;
    this.#random = opts.random ?? Math.random;
    this.#schedule = opts.retryScheduleS ?? RETRY_SCHEDULE_S;
    const dial = buildConnector({ timeout: this.#timeoutMs });
    this.#agent = new Agent({
      headersTimeout: this.#timeoutMs,
      bodyTimeout: this.#timeoutMs,
      connect: (opts, callback) => {
        const url = new URL(`${opts.protocol}//${opts.host}`);
        this.policy
          .addressesOf(url)
          .then((addresses) => {
            const vetted = this.policy.vetAddresses(url, addresses);
            const address = vetted.addresses[0]!;
            const servername = isIP(opts.hostname.replace(/^\[|\]$/g, '')) ? undefined : opts.hostname;
            dial({ ...opts, hostname: address, ...(servername ? { servername } : {}) }, callback);
          })
          .catch((err: Error) => callback(err, null));
      },
    });
  }

  async close(): Promise<void> {
    await this.#agent.close();
  }

  /** One attempt of one delivery, if it is due; claims it with a lease so two workers never send the same attempt. */
  async deliver(deliveryId: string): Promise<Outcome> {
    const { db, clock } = this.deps;
    const now = clock.now();
    const [d] = await db
      .update(webhookDeliveries)
      .set({ nextAttemptAt: new Date(now.getTime() + LEASE_MS) })
      .where(
        and(
          eq(webhookDeliveries.id, deliveryId),
          eq(webhookDeliveries.status, 'pending'),
          or(isNull(webhookDeliveries.nextAttemptAt), lte(webhookDeliveries.nextAttemptAt, now)),
        ),
      )
      .returning();
    if (!d) return 'skipped';
    const [ep] = await db.select().from(webhookEndpoints).where(eq(webhookEndpoints.id, d.endpointId));
    if (!ep || ep.deletedAt || ep.disabledAt) {
      await db
        .update(webhookDeliveries)
        .set({ status: 'cancelled', completedAt: now, nextAttemptAt: null })
        .where(eq(webhookDeliveries.id, d.id));
      return 'cancelled';
    }

    // Every attempt is signed afresh: receivers reject timestamps older than five minutes.
    const sentAt = clock.now();
    const signature = new Webhook(this.box.open(ep.secretSealed)).sign(d.id, sentAt, d.payload);
    const started = performance.now();
    let status: number | null = null;
    let error: string | null = null;
    let retryAfter: number | null = null;
    try {
      const res = await request(ep.url, {
        method: 'POST',
        dispatcher: this.#agent,
        body: d.payload,
        headers: {
          'content-type': 'application/json',
          'user-agent': 'agentpress-webhooks/1',
          'webhook-id': d.id,
          'webhook-timestamp': String(Math.floor(sentAt.getTime() / 1000)),
          'webhook-signature': signature,
        },
        signal: AbortSignal.timeout(this.#timeoutMs),
      });
      status = res.statusCode;
      retryAfter = parseRetryAfter(res.headers['retry-after'], clock.now());
      await res.body.dump({ limit: 64 * 1024 }).catch(() => {});
      if (status >= 300 && status < 400) error = 'redirects are not followed';
    } catch (e) {
      error = e instanceof Error ? `${e.name}: ${e.message}` : String(e);
    }
    const latency = Math.round(performance.now() - started);
    const attempt = d.attempts + 1;
    const done = clock.now();
    const ok = status !== null && status >= 200 && status < 300;

    return db.transaction(async (tx) => {
      await tx
        .insert(webhookAttempts)
        .values({ deliveryId: d.id, attemptedAt: sentAt, status, latencyMs: latency, error });
      if (ok) {
        await tx
          .update(webhookDeliveries)
          .set({
            status: 'succeeded',
            attempts: attempt,
            lastStatus: status,
            lastError: null,
            completedAt: done,
            nextAttemptAt: null,
          })
          .where(eq(webhookDeliveries.id, d.id));
        return 'succeeded' as const;
      }
      if (status === 410) {
        // 410 Gone: the receiver asks us to stop. Disable the endpoint and drop what is queued for it.
        await tx
          .update(webhookEndpoints)
          .set({ disabledAt: done, disabledReason: 'the receiver answered 410 Gone' })
          .where(eq(webhookEndpoints.id, ep.id));
        await tx
          .update(webhookDeliveries)
          .set({ status: 'cancelled', completedAt: done, nextAttemptAt: null })
          .where(and(eq(webhookDeliveries.endpointId, ep.id), eq(webhookDeliveries.status, 'pending')));
        await tx
          .update(webhookDeliveries)
          .set({ status: 'failed', attempts: attempt, lastStatus: status, lastError: '410 Gone' })
          .where(eq(webhookDeliveries.id, d.id));
        return 'failed' as const;
      }
      const delayS = this.#schedule[attempt - 1];
      if (delayS === undefined) {
        await tx
          .update(webhookDeliveries)
          .set({
            status: 'failed',
            attempts: attempt,
            lastStatus: status,
            lastError: error,
            completedAt: done,
            nextAttemptAt: null,
          })
          .where(eq(webhookDeliveries.id, d.id));
        return 'failed' as const;
      }
      const jittered = delayS * (0.9 + 0.2 * this.#random());
      const waitS = Math.max(jittered, Math.min(retryAfter ?? 0, MAX_RETRY_AFTER_S));
      const next = new Date(done.getTime() + waitS * 1000);
      await tx
        .update(webhookDeliveries)
        .set({ attempts: attempt, lastStatus: status, lastError: error, nextAttemptAt: next })
        .where(eq(webhookDeliveries.id, d.id));
      await this.jobs.send(
        tx,
        'deliver-webhook',
        { delivery_id: d.id },
        { startAfter: new Date(Date.now() + waitS * 1000), retryLimit: 0 },
      );
      return 'retry' as const;
    });
  }

  /** Deliveries that are due by the clock (the sweep's safety net, and how tests step time). */
  async runDue(limit = 100): Promise<Record<Outcome, number>> {
    const { db, clock } = this.deps;
    const due = await db
      .select({ id: webhookDeliveries.id })
      .from(webhookDeliveries)
      .where(
        and(
          eq(webhookDeliveries.status, 'pending'),
          or(isNull(webhookDeliveries.nextAttemptAt), lte(webhookDeliveries.nextAttemptAt, clock.now())),
        ),
      )
      .limit(limit);
    const tally: Record<Outcome, number> = { succeeded: 0, retry: 0, failed: 0, cancelled: 0, skipped: 0 };
    await Promise.all(
      due.map(async ({ id }) => {
        tally[await this.deliver(id)]++;
      }),
    );
    return tally;
  }
}

function parseRetryAfter(v: string | string[] | undefined, now: Date): number | null {
  const s = Array.isArray(v) ? v[0] : v;
  if (!s) return null;
  if (/^\d+$/.test(s.trim())) return Number(s.trim());
  const at = Date.parse(s);
  return Number.isNaN(at) ? null : Math.max(0, (at - now.getTime()) / 1000);
}
