import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { rateLimitHeaders, searchQuery, searchResponse } from '../../core/search/search.js';
import { siteForHost } from '../../core/sites/sites.js';
import type { AppContext } from '../app.js';
import { optionalAgentOf } from '../guard.js';
import { OPTIONAL_KEY, operation } from '../operation.js';

export async function searchRoutes(app: FastifyInstance, { platform }: AppContext) {
  app.withTypeProvider<ZodTypeProvider>().get(
    '/v1/search',
    {
      schema: operation({
        tags: ['search'],
        summary:
          'Full-text search of published posts; 100 free per key per UTC day, then 1000 micro-dollars each; 20 per IP without a key',
        security: OPTIONAL_KEY,
        querystring: searchQuery,
        responses: { 200: searchResponse },
        responseHeaders: { 200: ['ratelimit', 'ratelimit-policy'] },
        problems: ['insufficient_balance', 'search_allowance_exhausted', 'account_banned', 'not_found'],
      }),
    },
    async (req, reply) => {
      const principal = optionalAgentOf(req);
      const r = await platform.services.search.search(
        siteForHost(platform.config.sites, req.hostname),
        req.query,
        { principal, ip: req.ip },
      );
      reply.headers(rateLimitHeaders(r.allowance));
      return { data: r.data, next_cursor: r.next_cursor, charged: r.charged };
    },
  );
}
