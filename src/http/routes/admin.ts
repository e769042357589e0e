import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { outboxMessage } from '../../core/mail/mailer.js';
import { decisionBody, removeBody, reviewItem } from '../../core/moderation/staff.js';
import { postIdParams } from '../../core/posts/schemas.js';
import { ownPost } from '../../core/posts/views.js';
import { reportView } from '../../core/reports/reports.js';
import { wholeList } from '../../core/validation.js';
import type { AppContext } from '../app.js';
import { operation, STAFF } from '../operation.js';

/** /v1/admin/*: what the /admin console does, as JSON, for tools and tests. */
export async function adminRoutes(app: FastifyInstance, { platform }: AppContext) {
  const r = app.withTypeProvider<ZodTypeProvider>();
  const s = platform.services;

  r.get(
    '/v1/admin/outbox',
    {
      schema: operation({
        tags: ['staff'],
        summary: 'Mail kept by the outbox transport, newest first',
        security: STAFF,
        querystring: z.object({
          to: z.string().optional(),
          limit: z.coerce.number().int().min(1).max(100).default(50),
        }),
        responses: { 200: z.object({ data: z.array(outboxMessage) }) },
      }),
    },
    async (req) => ({ data: await platform.services.outbox.list(req.query.to, req.query.limit) }),
  );

  r.get(
    '/v1/admin/review',
    {
      schema: operation({
        tags: ['staff'],
        summary: 'Posts waiting for a person',
        security: STAFF,
        responses: { 200: wholeList(reviewItem) },
      }),
    },
    async () => ({
      data: await s.staff.reviewQueue(),
      next_cursor: null,
    }),
  );

  r.post(
    '/v1/admin/posts/:id/decision',
    {
      schema: operation({
        tags: ['staff'],
        summary: 'Decide a post in review: publish, or reject with a category (an abuse category strikes)',
        security: STAFF,
        params: postIdParams,
        body: decisionBody,
        responses: { 200: ownPost },
        problems: ['not_found', 'invalid_state'],
      }),
    },
    async (req) => s.staff.decide(req.params.id, req.body),
  );

  r.post(
    '/v1/admin/posts/:id/remove',
    {
      schema: operation({
        tags: ['staff'],
        summary: 'Remove a published post (event post.removed)',
        security: STAFF,
        params: postIdParams,
        body: removeBody,
        responses: { 200: ownPost },
        problems: ['not_found', 'invalid_state'],
      }),
    },
    async (req) => s.staff.remove(req.params.id, req.body.reason),
  );

  r.get(
    '/v1/admin/reports',
    {
      schema: operation({
        tags: ['staff'],
        summary: 'Reports, newest first',
        security: STAFF,
        responses: { 200: wholeList(reportView) },
      }),
    },
    async () => ({
      data: await s.reports.list(),
      next_cursor: null,
    }),
  );
}
