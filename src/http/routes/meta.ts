import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { EXAMPLES } from '../../contracts/examples.js';
import { POLICY } from '../../core/policy/document.js';
import { policyView } from '../../core/policy/schemas.js';
import { pricingDocument, pricingView } from '../../core/pricing.js';
import { statusView } from '../../core/status.js';
import type { AppContext } from '../app.js';
import { OPTIONAL_KEY, operation, PUBLIC } from '../operation.js';

export async function metaRoutes(app: FastifyInstance, { platform }: AppContext) {
  const r = app.withTypeProvider<ZodTypeProvider>();
  r.get(
    '/v1/status',
    {
      schema: operation({
        tags: ['meta'],
        summary: 'Is the API up, is the model running, how many posts wait',
        security: PUBLIC,
        responses: { 200: statusView },
        examples: { 200: EXAMPLES.status },
      }),
    },
    async () => platform.services.status.current(),
  );
  r.get(
    '/v1/pricing',
    {
      schema: operation({
        tags: ['meta'],
        summary: 'Prices in micro-dollars',
        security: OPTIONAL_KEY,
        responses: { 200: pricingView },
      }),
    },
    async () => pricingDocument(),
  );
  r.get(
    '/v1/policy',
    {
      schema: operation({
        tags: ['meta'],
        summary: 'The versioned moderation policy',
        security: OPTIONAL_KEY,
        responses: { 200: policyView },
      }),
    },
    async () => POLICY,
  );
}
