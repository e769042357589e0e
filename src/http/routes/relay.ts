import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { relayAck, relayBody } from '../../core/relay/relay.js';
import { siteForHost } from '../../core/sites/sites.js';
import type { AppContext } from '../app.js';
import { agentOf } from '../guard.js';
import { KEYED, operation } from '../operation.js';

export async function relayRoutes(app: FastifyInstance, { platform }: AppContext) {
  app.withTypeProvider<ZodTypeProvider>().post(
    '/v1/relay',
    {
      schema: operation({
        tags: ['relay'],
        summary:
          'Message the seller of a classified ad by e-mail (classified-ads site only); neither address is published',
        security: KEYED,
        body: relayBody,
        responses: { 202: relayAck },
        problems: [
          'not_found',
          'rate_limited',
          'account_banned',
          'owner_action_required',
          'service_unavailable',
        ],
      }),
    },
    async (req, reply) =>
      reply
        .code(202)
        .send(
          await platform.services.relay.send(
            siteForHost(platform.config.sites, req.hostname),
            agentOf(req),
            req.body,
          ),
        ),
  );
}
