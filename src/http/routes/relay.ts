import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { relayAck, relayBody } from '../../core/relay/relay.js';
import { siteForHost } from '../../core/sites/sites.js';
import type { AppContext } from '../app.js';

export async function relayRoutes(app: FastifyInstance, { platform, auth }: AppContext) {
  app.withTypeProvider<ZodTypeProvider>().post(
    '/v1/relay',
    {
      schema: {
        tags: ['relay'],
        summary:
          'Message the seller of a classified ad by e-mail (classified-ads site only); neither address is published',
        security: [{ apiKey: [] }],
        body: relayBody,
        response: { 202: relayAck },
      },
    },
    async (req, reply) =>
      reply
        .code(202)
        .send(
          await platform.services.relay.send(
            siteForHost(platform.config.sites, req.hostname),
            await auth.agent(req),
            req.body,
          ),
        ),
  );
}
