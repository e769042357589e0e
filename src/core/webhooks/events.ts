import { and, eq, isNull } from 'drizzle-orm';
import type { Executor } from '../../db/client.js';
import { webhookDeliveries, webhookEndpoints } from '../../db/schema.js';
import type { JobQueue } from '../../jobs/queue.js';
import type { Clock } from '../clock.js';
import type { OwnPost } from '../posts/views.js';
import { newId } from '../secrets.js';

export const POST_EVENTS = ['post.published', 'post.rejected', 'post.review', 'post.removed'] as const;
export const EVENT_TYPES = [...POST_EVENTS, 'webhook.test'] as const;
export type PostEventType = (typeof POST_EVENTS)[number];
export type EventType = (typeof EVENT_TYPES)[number];

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
    private readonly jobs: JobQueue,
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
