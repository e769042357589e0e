import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { listOutbox } from '../../core/mail/mailer.js';
import { decisionBody, removeBody } from '../../core/moderation/staff.js';
import { postIdParams } from '../../core/posts/schemas.js';
import { ownPost } from '../../core/posts/views.js';
import type { AppContext } from '../app.js';

const staff = [{ adminToken: [] }];

/** /v1/admin/*: what the /admin console does, as JSON, for tools and tests. */
export async function adminRoutes(app: FastifyInstance, { platform, auth }: AppContext) {
  const r = app.withTypeProvider<ZodTypeProvider>();
  const s = platform.services;
  r.addHook('onRequest', async (req) => {
    if (req.url.startsWith('/v1/admin/')) auth.admin(req);
  });

  r.get(
    '/v1/admin/outbox',
    {
      schema: {
        tags: ['staff'],
        summary: 'Mail kept by the outbox transport, newest first',
        security: staff,
        querystring: z.object({
          to: z.string().optional(),
          limit: z.coerce.number().int().min(1).max(100).default(50),
        }),
      },
    },
    async (req) => ({ data: await listOutbox(platform.database.db, req.query.to, req.query.limit) }),
  );

  r.get(
    '/v1/admin/review',
    { schema: { tags: ['staff'], summary: 'Posts waiting for a person', security: staff } },
    async () => ({
      data: await s.staff.reviewQueue(),
      next_cursor: null,
    }),
  );

  r.post(
    '/v1/admin/posts/:id/decision',
    {
      schema: {
        tags: ['staff'],
        summary: 'Decide a post in review: publish, or reject with a category (an abuse category strikes)',
        security: staff,
        params: postIdParams,
        body: decisionBody,
        response: { 200: ownPost },
      },
    },
    async (req) => s.staff.decide(req.params.id, req.body),
  );

  r.post(
    '/v1/admin/posts/:id/remove',
    {
      schema: {
        tags: ['staff'],
        summary: 'Remove a published post (event post.removed)',
        security: staff,
        params: postIdParams,
        body: removeBody,
        response: { 200: ownPost },
      },
    },
    async (req) => s.staff.remove(req.params.id, req.body.reason),
  );

  r.get(
    '/v1/admin/reports',
    { schema: { tags: ['staff'], summary: 'Reports, newest first', security: staff } },
    async () => ({
      data: await s.reports.list(),
      next_cursor: null,
    }),
  );
}
