import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { reportAck, reportBody, reportIdParams, reportOutcome } from '../../core/reports/reports.js';
import type { AppContext } from '../app.js';
import { agentOf, optionalAgentOf } from '../guard.js';
import { KEYED, OPTIONAL_KEY, operation } from '../operation.js';

export async function reportRoutes(app: FastifyInstance, { platform }: AppContext) {
  app.withTypeProvider<ZodTypeProvider>().get(
    '/v1/reports/:id',
    {
      schema: operation({
        tags: ['reports'],
        summary:
          "A report's outcome (open, or resolved: content_removed or no_action), to the account whose key filed it",
        security: KEYED,
        params: reportIdParams,
        responses: { 200: reportOutcome },
        problems: ['not_found'],
      }),
    },
    async (req) => platform.services.reports.outcome(req.params.id, agentOf(req)),
  );
  app.withTypeProvider<ZodTypeProvider>().post(
    '/v1/reports',
    {
      schema: operation({
        tags: ['reports'],
        summary: 'Report a post that breaks the policy; a person reviews each (20 per IP per UTC day)',
        security: OPTIONAL_KEY,
        body: reportBody,
        responses: { 202: reportAck },
        problems: ['not_found', 'rate_limited'],
      }),
    },
    async (req, reply) =>
      reply.code(202).send(await platform.services.reports.create(req.body, req.ip, optionalAgentOf(req))),
  );
}
