import { isIP } from 'node:net';
import { and, eq, isNull, lte, or, sql } from 'drizzle-orm';
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
  readonly #signers = new Map<string, Webhook>();

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

  /** A signer per sealed secret: opening the secret and importing the key once, not per attempt. */
  #signer(sealed: string): Webhook {
    let signer = this.#signers.get(sealed);
    if (!signer) {
      if (this.#signers.size >= 1_000) this.#signers.clear();
      signer = new Webhook(this.box.open(sealed));
      this.#signers.set(sealed, signer);
    }
    return signer;
  }

  /** One attempt of one delivery, if it is due; claims it with a lease so two workers never send the same attempt. */
  async deliver(deliveryId: string): Promise<Outcome> {
    const { db, clock } = this.deps;
    const now = clock.now();
    // One statement claims the delivery and reads its endpoint.
    const [d] = await db
      .update(webhookDeliveries)
      .set({ nextAttemptAt: new Date(now.getTime() + LEASE_MS) })
      .from(webhookEndpoints)
      .where(
        and(
          eq(webhookDeliveries.id, deliveryId),
          eq(webhookDeliveries.status, 'pending'),
          or(isNull(webhookDeliveries.nextAttemptAt), lte(webhookDeliveries.nextAttemptAt, now)),
          eq(webhookEndpoints.id, webhookDeliveries.endpointId),
        ),
      )
      .returning({
        id: webhookDeliveries.id,
        payload: webhookDeliveries.payload,
        attempts: webhookDeliveries.attempts,
        endpointId: webhookEndpoints.id,
        url: webhookEndpoints.url,
        secretSealed: webhookEndpoints.secretSealed,
        gone: sql<boolean>`(${webhookEndpoints.deletedAt} IS NOT NULL OR ${webhookEndpoints.disabledAt} IS NOT NULL)`,
      });
    if (!d) return 'skipped';
    if (d.gone) {
      await db
        .update(webhookDeliveries)
        .set({ status: 'cancelled', completedAt: now, nextAttemptAt: null })
        .where(eq(webhookDeliveries.id, d.id));
      return 'cancelled';
    }
    const ep = { id: d.endpointId, url: d.url };

    // Every attempt is signed afresh: receivers reject timestamps older than five minutes.
    const sentAt = clock.now();
    const signature = this.#signer(d.secretSealed).sign(d.id, sentAt, d.payload);
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

    if (ok) {
      // The common case in one statement (no transaction round trips): the attempt and the outcome.
      await db.execute(sql`
        WITH attempt AS (
          INSERT INTO webhook_attempts (delivery_id, attempted_at, status, latency_ms, error)
          VALUES (${d.id}, ${sentAt}, ${status}, ${latency}, NULL)
        )
        UPDATE webhook_deliveries
        SET status = 'succeeded', attempts = ${attempt}, last_status = ${status}, last_error = NULL,
            completed_at = ${done}, next_attempt_at = NULL
        WHERE id = ${d.id}`);
      return 'succeeded';
    }
    return db.transaction(async (tx) => {
      await tx
        .insert(webhookAttempts)
        .values({ deliveryId: d.id, attemptedAt: sentAt, status, latencyMs: latency, error });
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
        { delivery_id: d.id, endpoint_id: ep.id },
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
