import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { transparencyReport } from '../../core/transparency/transparency.js';
import { transparencyPage } from '../../web/transparency-page.js';
import type { AppContext } from '../app.js';
import { operation, PUBLIC } from '../operation.js';
import { html } from './web.js';

/** Public, and the same for everyone: shared caches may keep it five minutes. */
const CACHE = 'public, max-age=300';

/** The transparency report as JSON and as a page. */
export async function transparencyRoutes(app: FastifyInstance, { platform }: AppContext) {
  const { transparency } = platform.services;
  app.withTypeProvider<ZodTypeProvider>().get(
    '/v1/transparency',
    {
      schema: operation({
        tags: ['transparency'],
        summary:
          'Per month: decisions by outcome and category, automated or by a person, time to decision, reports, appeals, strikes and bans; public, cached 5 minutes',
        security: PUBLIC,
        responses: { 200: transparencyReport },
      }),
    },
    async (_req, reply) => reply.header('cache-control', CACHE).send(await transparency.report()),
  );
  app.get('/transparency', async (_req, reply) =>
    html(reply.header('cache-control', CACHE), transparencyPage(await transparency.report())),
  );
}
