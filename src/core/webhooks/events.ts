import { and, eq, isNull } from 'drizzle-orm';
import { z } from 'zod';
import type { Executor } from '../../db/client.js';
import { webhookDeliveries, webhookEndpoints } from '../../db/schema.js';
import type { Clock } from '../clock.js';
import type { JobSender } from '../jobs.js';
import { type OwnPost, ownPost } from '../posts/views.js';
import { newId } from '../secrets.js';

export const POST_EVENTS = ['post.published', 'post.rejected', 'post.review', 'post.removed'] as const;
export const EVENT_TYPES = [...POST_EVENTS, 'webhook.test'] as const;
export type PostEventType = (typeof POST_EVENTS)[number];
export type EventType = (typeof EVENT_TYPES)[number];

const timestamp = z.iso.datetime().describe('When the event happened (RFC 3339, UTC).');

/** The body of each event kind, as delivered; /asyncapi.json is generated from these. */
const postEvent = (type: PostEventType) =>
  z.strictObject({ type: z.literal(type), timestamp, data: z.strictObject({ post: ownPost }) });

/** The body of each event kind, as delivered; /asyncapi.json is generated from these. */
export const EVENT_PAYLOADS: Record<EventType, z.ZodType> = {
  'post.published': postEvent('post.published'),
  'post.rejected': postEvent('post.rejected'),
  'post.review': postEvent('post.review'),
  'post.removed': postEvent('post.removed'),
  'webhook.test': z.strictObject({
    type: z.literal('webhook.test'),
    timestamp,
    data: z.strictObject({ endpoint_id: z.string(), message: z.string() }),
  }),
};

export interface EventBody {
  type: EventType;
  timestamp: string;
  data: Record<string, unknown>;
}

/**
 * The outbox: an event is written, with one delivery row and one job per subscribed endpoint,
 * in the transaction of the state change that causes it. Nothing is announced that did not
 * happen, and nothing that happened is left unannounced.
 */
export class Events {
  constructor(
    private readonly clock: Clock,
    private readonly jobs: JobSender,
  ) {}

  async emitPost(tx: Executor, accountId: string, type: PostEventType, post: OwnPost): Promise<number> {
    const endpoints = await tx
      .select({ id: webhookEndpoints.id, events: webhookEndpoints.events })
      .from(webhookEndpoints)
      .where(
        and(
          eq(webhookEndpoints.accountId, accountId),
          isNull(webhookEndpoints.deletedAt),
          isNull(webhookEndpoints.disabledAt),
        ),
      );
    let n = 0;
    for (const ep of endpoints) {
      if (!ep.events.includes(type)) continue;
      await this.enqueue(tx, ep.id, { type, timestamp: this.clock.now().toISOString(), data: { post } });
      n++;
    }
    return n;
  }

  async enqueue(tx: Executor, endpointId: string, body: EventBody): Promise<string> {
    const id = newId('msg');
    await tx.insert(webhookDeliveries).values({
      id,
      endpointId,
      eventType: body.type,
      payload: JSON.stringify(body),
      status: 'pending',
      createdAt: this.clock.now(),
    });
    await this.jobs.send(tx, 'deliver-webhook', { delivery_id: id }, { retryLimit: 0 });
    return id;
  }
}
