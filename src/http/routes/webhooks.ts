import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { EXAMPLES } from '../../contracts/examples.js';
import { wholeList } from '../../core/validation.js';
import {
  createdWebhook,
  createWebhookBody,
  deliveryView,
  webhookIdParams,
  webhookList,
  webhookTestAck,
} from '../../core/webhooks/endpoints.js';
import type { AppContext } from '../app.js';
import { agentOf } from '../guard.js';
import { KEYED, operation } from '../operation.js';

export async function webhookRoutes(app: FastifyInstance, { platform }: AppContext) {
  const r = app.withTypeProvider<ZodTypeProvider>();
  const { webhooks } = platform.services;

  r.post(
    '/v1/webhooks',
    {
      schema: operation({
        tags: ['webhooks'],
        summary: 'Register an endpoint (public https, port 443; at most 5); the secret is shown only here',
        security: KEYED,
        body: createWebhookBody,
        responses: { 201: createdWebhook },
        examples: { 201: EXAMPLES.webhookCreated },
        problems: ['invalid_webhook_url', 'too_many_webhooks', 'account_banned'],
      }),
    },
    async (req, reply) => reply.code(201).send(await webhooks.create(agentOf(req), req.body)),
  );

  r.get(
    '/v1/webhooks',
    {
      schema: operation({
        tags: ['webhooks'],
        summary: "The account's endpoints and the events each receives (no secrets)",
        security: KEYED,
        responses: { 200: webhookList },
      }),
    },
    async (req) => webhooks.list(agentOf(req)),
  );

  r.delete(
    '/v1/webhooks/:id',
    {
      schema: operation({
        tags: ['webhooks'],
        summary: 'Delete an endpoint; stops deliveries including queued retries',
        security: KEYED,
        params: webhookIdParams,
        responses: { 204: null },
        problems: ['not_found'],
      }),
    },
    async (req, reply) => {
      await webhooks.delete(agentOf(req), req.params.id);
      return reply.code(204).send();
    },
  );

  r.post(
    '/v1/webhooks/:id/test',
    {
      schema: operation({
        tags: ['webhooks'],
        summary: 'Queue a signed webhook.test delivery (free)',
        security: KEYED,
        params: webhookIdParams,
        responses: { 202: webhookTestAck },
        problems: ['not_found', 'invalid_state', 'account_banned'],
      }),
    },
    async (req, reply) => reply.code(202).send(await webhooks.test(agentOf(req), req.params.id)),
  );

  r.get(
    '/v1/webhooks/:id/deliveries',
    {
      schema: operation({
        tags: ['webhooks'],
        summary: 'Recent deliveries to an endpoint with every attempt (status, latency, error)',
        security: KEYED,
        params: webhookIdParams,
        responses: { 200: wholeList(deliveryView) },
        problems: ['not_found'],
      }),
    },
    async (req) => webhooks.deliveries(agentOf(req), req.params.id),
  );
}
