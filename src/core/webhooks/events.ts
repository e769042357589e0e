import { and, eq, isNull } from 'drizzle-orm';
import { z } from 'zod';
import type { Executor } from '../../db/client.js';
import { webhookDeliveries, webhookEndpoints } from '../../db/schema.js';
import type { Clock } from '../clock.js';
import type { JobSender } from '../jobs.js';
import { type EventRevision, eventRevision } from '../posts/revisions.js';
import { type AppealSummary, appealSummary, type OwnPost, ownPost } from '../posts/views.js';
import { newId } from '../secrets.js';

export const POST_EVENTS = [
  'post.published',
  'post.rejected',
  'post.review',
  'post.removed',
  'post.appeal_decided',
] as const;
export const EVENT_TYPES = [...POST_EVENTS, 'webhook.test'] as const;
export type PostEventType = (typeof POST_EVENTS)[number];
export type EventType = (typeof EVENT_TYPES)[number];

const timestamp = z.iso.datetime().describe('When the event happened (RFC 3339, UTC).');

/** The body of each event kind, as delivered; /asyncapi.json is generated from these. */
const postEvent = (type: PostEventType) =>
  z.strictObject({
    type: z.literal(type),
    timestamp,
    data: z.strictObject({ post: ownPost, revision: eventRevision }),
  });

/** The body of each event kind, as delivered; /asyncapi.json is generated from these. */
export const EVENT_PAYLOADS: Record<EventType, z.ZodType> = {
  'post.published': postEvent('post.published'),
  'post.rejected': postEvent('post.rejected'),
  'post.review': postEvent('post.review'),
  'post.removed': postEvent('post.removed'),
  'post.appeal_decided': z
    .strictObject({
      type: z.literal('post.appeal_decided'),
      timestamp,
      data: z.strictObject({ post: ownPost, appeal: appealSummary }),
    })
    .describe(
      'A person decided an appeal: upheld (nothing changes) or reversed (the post is published again, fine and strike undone).',
    ),
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

  /**
   * `extra` joins `post` in `data`: `revision` (the revision the event decides: 1 for the post as
   * posted, 2 and up for edits) on post.published/rejected/review/removed, `appeal` on
   * post.appeal_decided.
   */
  async emitPost(
    tx: Executor,
    accountId: string,
    type: PostEventType,
    post: OwnPost,
    extra: { revision: EventRevision } | { appeal: AppealSummary },
  ): Promise<number> {
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
      await this.enqueue(tx, ep.id, {
        type,
        timestamp: this.clock.now().toISOString(),
        data: { post, ...extra },
      });
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
    await this.jobs.send(
      tx,
      'deliver-webhook',
      { delivery_id: id, endpoint_id: endpointId },
      { retryLimit: 0 },
    );
    return id;
  }
}
