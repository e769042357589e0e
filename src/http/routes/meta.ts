import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { POLICY } from '../../core/policy/document.js';
import { pricingDocument } from '../../core/pricing.js';
import type { AppContext } from '../app.js';

export async function metaRoutes(app: FastifyInstance, { platform }: AppContext) {
  const r = app.withTypeProvider<ZodTypeProvider>();
  r.get(
    '/v1/status',
    { schema: { tags: ['meta'], summary: 'Is the API up, is the model running, how many posts wait' } },
    async () => platform.services.status.current(),
  );
  r.get('/v1/pricing', { schema: { tags: ['meta'], summary: 'Prices in micro-dollars' } }, async () =>
    pricingDocument(),
  );
  r.get(
    '/v1/policy',
    { schema: { tags: ['meta'], summary: 'The versioned moderation policy' } },
    async () => POLICY,
  );
}
