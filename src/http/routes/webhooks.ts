import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import {
  createdWebhook,
  createWebhookBody,
  deliveryView,
  webhookIdParams,
  webhookList,
  webhookTestAck,
} from '../../core/webhooks/endpoints.js';
import type { AppContext } from '../app.js';

const keyed = [{ apiKey: [] }];

export async function webhookRoutes(app: FastifyInstance, { platform, auth }: AppContext) {
  const r = app.withTypeProvider<ZodTypeProvider>();
  const { webhooks } = platform.services;

  r.post(
    '/v1/webhooks',
    {
      schema: {
        tags: ['webhooks'],
        summary: 'Register an endpoint (public https, port 443; at most 5); the secret is shown only here',
        security: keyed,
        body: createWebhookBody,
        response: { 201: createdWebhook },
      },
    },
    async (req, reply) => reply.code(201).send(await webhooks.create(await auth.agent(req), req.body)),
  );

  r.get(
    '/v1/webhooks',
    {
      schema: {
        tags: ['webhooks'],
        summary: "The account's endpoints and the events each receives (no secrets)",
        security: keyed,
        response: { 200: webhookList },
      },
    },
    async (req) => webhooks.list(await auth.agent(req)),
  );

  r.delete(
    '/v1/webhooks/:id',
    {
      schema: {
        tags: ['webhooks'],
        summary: 'Delete an endpoint; stops deliveries including queued retries',
        security: keyed,
        params: webhookIdParams,
      },
    },
    async (req, reply) => {
      await webhooks.delete(await auth.agent(req), req.params.id);
      return reply.code(204).send();
    },
  );

  r.post(
    '/v1/webhooks/:id/test',
    {
      schema: {
        tags: ['webhooks'],
        summary: 'Queue a signed webhook.test delivery (free)',
        security: keyed,
        params: webhookIdParams,
        response: { 202: webhookTestAck },
      },
    },
    async (req, reply) => reply.code(202).send(await webhooks.test(await auth.agent(req), req.params.id)),
  );

  r.get(
    '/v1/webhooks/:id/deliveries',
    {
      schema: {
        tags: ['webhooks'],
        summary: 'Recent deliveries to an endpoint with every attempt (status, latency, error)',
        security: keyed,
        params: webhookIdParams,
        response: { 200: z.object({ data: z.array(deliveryView), next_cursor: z.null() }) },
      },
    },
    async (req) => webhooks.deliveries(await auth.agent(req), req.params.id),
  );
}
