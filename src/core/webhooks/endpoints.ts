import { randomBytes } from 'node:crypto';
import { and, count, desc, eq, isNull } from 'drizzle-orm';
import { z } from 'zod';
import { accounts, webhookAttempts, webhookDeliveries, webhookEndpoints } from '../../db/schema.js';
import { assertActive } from '../accounts/accounts.js';
import type { Principal } from '../accounts/keys.js';
import type { Deps } from '../context.js';
import { Problem } from '../problems.js';
import { newId, type SecretBox } from '../secrets.js';
import { line, wholeList } from '../validation.js';
import { EVENT_TYPES, type Events, POST_EVENTS } from './events.js';
import { type UrlPolicy, UrlRefused } from './url-policy.js';

export const MAX_ENDPOINTS = 5;

export const createWebhookBody = z.strictObject({
  url: line().min(1).max(2048).describe('Public https URL on port 443.'),
  events: z
    .array(z.enum(POST_EVENTS))
    .min(1)
    .refine((e) => new Set(e).size === e.length, 'events must not repeat')
    .optional()
    .describe('Event kinds to receive; omitted means every post.* kind.'),
});

export const webhookView = z.object({
  id: z.string(),
  url: z.string(),
  events: z.array(z.enum(EVENT_TYPES)),
  status: z.enum(['active', 'disabled']),
  disabled_reason: z.string().nullable(),
  created_at: z.string(),
});
export const createdWebhook = webhookView.extend({
  secret: z.string().describe('whsec_…, shown only here.'),
});
export const webhookIdParams = z.object({ id: z.string().min(1).max(64) });
export const webhookList = wholeList(webhookView);
/** The MCP tool delete_webhook (REST answers 204 with no body). */
export const deletedWebhook = z.object({ id: z.string(), deleted: z.literal(true) });
export const webhookTestAck = z.object({ delivery_id: z.string(), status: z.literal('queued') });

export const deliveryView = z.object({
  id: z.string(),
  event_type: z.string(),
  status: z.enum(['pending', 'succeeded', 'failed', 'cancelled']),
  attempts: z.array(
    z.object({
      at: z.string(),
      status: z.number().nullable(),
      latency_ms: z.number().nullable(),
      error: z.string().nullable(),
    }),
  ),
  next_attempt_at: z.string().nullable(),
  created_at: z.string(),
});

type EndpointRow = typeof webhookEndpoints.$inferSelect;

const view = (e: EndpointRow): z.infer<typeof webhookView> => ({
  id: e.id,
  url: e.url,
  events: e.events as z.infer<typeof webhookView>['events'],
  status: e.disabledAt ? 'disabled' : 'active',
  disabled_reason: e.disabledReason,
  created_at: e.createdAt.toISOString(),
});

export class WebhookEndpoints {
  constructor(
    private readonly deps: Deps,
    private readonly policy: UrlPolicy,
    private readonly box: SecretBox,
    private readonly events: Events,
  ) {}

  async create(
    p: Principal,
    input: z.infer<typeof createWebhookBody>,
  ): Promise<z.infer<typeof createdWebhook>> {
    assertActive(p);
    try {
      await this.policy.vet(input.url);
    } catch (e) {
      if (!(e instanceof UrlRefused)) throw e;
      throw new Problem('invalid_webhook_url', {
        detail: `The webhook URL is refused: ${e.message}. Use a public https URL on port 443.`,
        errors: [{ pointer: '/url', detail: e.message }],
      });
    }
    const secret = `whsec_${randomBytes(32).toString('base64')}`;
    const { db, clock } = this.deps;
    return db.transaction(async (tx) => {
      await tx.select({ id: accounts.id }).from(accounts).where(eq(accounts.id, p.accountId)).for('update');
      const [n] = await tx
        .select({ n: count() })
        .from(webhookEndpoints)
        .where(and(eq(webhookEndpoints.accountId, p.accountId), isNull(webhookEndpoints.deletedAt)));
      if ((n?.n ?? 0) >= MAX_ENDPOINTS) {
        throw new Problem('too_many_webhooks', {
          detail: `An account may hold up to ${MAX_ENDPOINTS} webhook endpoints; delete one first.`,
        });
      }
      const [row] = await tx
        .insert(webhookEndpoints)
        .values({
          id: newId('wh'),
          accountId: p.accountId,
          url: input.url,
          events: input.events ?? [...POST_EVENTS],
          secretSealed: this.box.seal(secret),
          createdAt: clock.now(),
        })
        .returning();
      return { ...view(row!), secret };
    });
  }

  async list(p: Principal): Promise<z.infer<typeof webhookList>> {
    return { data: await this.overview(p.accountId), next_cursor: null };
  }

  /** The account's live endpoints (no secrets); the owner's page shows them too. */
  async overview(accountId: string): Promise<z.infer<typeof webhookView>[]> {
    const rows = await this.deps.db
      .select()
      .from(webhookEndpoints)
      .where(and(eq(webhookEndpoints.accountId, accountId), isNull(webhookEndpoints.deletedAt)))
      .orderBy(desc(webhookEndpoints.createdAt));
    return rows.map(view);
  }

  private async own(p: Principal, id: string): Promise<EndpointRow> {
    const [row] = await this.deps.db
      .select()
      .from(webhookEndpoints)
      .where(
        and(
          eq(webhookEndpoints.id, id),
          eq(webhookEndpoints.accountId, p.accountId),
          isNull(webhookEndpoints.deletedAt),
        ),
      );
    if (!row) throw new Problem('not_found', { detail: `No webhook endpoint ${id} on this account.` });
    return row;
  }

  /** Stops deliveries at once, queued retries included; not reversible. */
  async delete(p: Principal, id: string): Promise<void> {
    await this.own(p, id);
    const now = this.deps.clock.now();
    await this.deps.db.transaction(async (tx) => {
      await tx.update(webhookEndpoints).set({ deletedAt: now }).where(eq(webhookEndpoints.id, id));
      await tx
        .update(webhookDeliveries)
        .set({ status: 'cancelled', completedAt: now, nextAttemptAt: null })
        .where(and(eq(webhookDeliveries.endpointId, id), eq(webhookDeliveries.status, 'pending')));
    });
  }

  /** Queues a signed webhook.test delivery; free. */
  async test(p: Principal, id: string): Promise<z.infer<typeof webhookTestAck>> {
    assertActive(p);
    const ep = await this.own(p, id);
    if (ep.disabledAt)
      throw new Problem('invalid_state', { detail: `The endpoint is disabled (${ep.disabledReason}).` });
    const deliveryId = await this.deps.db.transaction((tx) =>
      this.events.enqueue(tx, ep.id, {
        type: 'webhook.test',
        timestamp: this.deps.clock.now().toISOString(),
        data: { endpoint_id: ep.id, message: 'This is a test delivery from agentpress.' },
      }),
    );
    return { delivery_id: deliveryId, status: 'queued' };
  }

  async deliveries(p: Principal, id: string, limit = 50) {
    await this.own(p, id);
    const rows = await this.deps.db
      .select()
      .from(webhookDeliveries)
      .where(eq(webhookDeliveries.endpointId, id))
      .orderBy(desc(webhookDeliveries.createdAt))
      .limit(limit);
    const data = [];
    for (const d of rows) {
      const attempts = await this.deps.db
        .select()
        .from(webhookAttempts)
        .where(eq(webhookAttempts.deliveryId, d.id))
        .orderBy(webhookAttempts.id);
      data.push({
        id: d.id,
        event_type: d.eventType,
        status: d.status,
        attempts: attempts.map((a) => ({
          at: a.attemptedAt.toISOString(),
          status: a.status,
          latency_ms: a.latencyMs,
          error: a.error,
        })),
        next_attempt_at: d.status === 'pending' ? (d.nextAttemptAt?.toISOString() ?? null) : null,
        created_at: d.createdAt.toISOString(),
      });
    }
    return { data, next_cursor: null };
  }
}
