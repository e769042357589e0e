import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import type { AppContext } from '../app.js';
import { operation, PUBLIC } from '../operation.js';

/**
 * Stripe's signed webhook. The signature covers the exact bytes, so this route (in its own
 * encapsulated plugin) takes the body as a raw Buffer instead of parsed JSON.
 */
export async function stripeRoutes(app: FastifyInstance, { platform }: AppContext) {
  const { stripeEvents } = platform.services;
  app.removeAllContentTypeParsers();
  app.addContentTypeParser('*', { parseAs: 'buffer' }, (_req, body, done) => done(null, body));
  app.withTypeProvider<ZodTypeProvider>().post(
    '/v1/stripe/webhook',
    {
      schema: operation({
        tags: ['payments'],
        summary:
          'Stripe events, verified with the stripe-signature header (PAYMENTS=stripe); each event id is applied once',
        security: PUBLIC,
        responses: {
          200: z.object({
            received: z.literal(true),
            applied: z.boolean().describe('false for a replay of an event already applied'),
            type: z.string(),
          }),
        },
        problems: ['invalid_signature', 'not_found'],
      }),
    },
    async (req) => {
      const raw = Buffer.isBuffer(req.body) ? req.body : Buffer.from('');
      const sig = req.headers['stripe-signature'];
      return stripeEvents.handle(raw, typeof sig === 'string' ? sig : undefined);
    },
  );
}
