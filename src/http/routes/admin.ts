import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { listOutbox } from '../../core/mail/mailer.js';
import type { AppContext } from '../app.js';

const staff = [{ adminToken: [] }];

export async function adminRoutes(app: FastifyInstance, { platform, auth }: AppContext) {
  const r = app.withTypeProvider<ZodTypeProvider>();
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
    async (req) => {
      auth.admin(req);
      return { data: await listOutbox(platform.database.db, req.query.to, req.query.limit) };
    },
  );
}
