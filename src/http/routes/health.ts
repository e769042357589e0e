import type { FastifyInstance, FastifyRequest } from 'fastify';
import { z } from 'zod';
import { databaseReadiness } from '../../core/database.js';
import { Problem } from '../../core/problems.js';
import { safeEqual } from '../../core/secrets.js';
import type { AppContext } from '../app.js';
import { sendProblem } from '../errors.js';
import { operation, PUBLIC } from '../operation.js';

/**
 * Operational endpoints for load balancers and scrapers: /healthz (the process is alive), /readyz (database reachable, migrations
 * current, not shutting down) and /metrics (Prometheus; METRICS_TOKEN bearer or loopback only).
 */
export async function healthRoutes(app: FastifyInstance, { platform }: AppContext) {
  const { baseUrl, metricsToken } = platform.config;

  app.get(
    '/healthz',
    {
      schema: operation({
        tags: ['operations'],
        summary: 'The process is alive (liveness)',
        security: PUBLIC,
        responses: { 200: z.object({ status: z.literal('ok') }) },
      }),
    },
    async (_req, reply) => reply.header('cache-control', 'no-store').send({ status: 'ok' }),
  );

  app.get(
    '/readyz',
    {
      schema: operation({
        tags: ['operations'],
        summary: 'Database reachable, migrations current, not shutting down (readiness)',
        security: PUBLIC,
        responses: { 200: z.object({ status: z.literal('ready'), detail: z.string() }) },
        problems: ['service_unavailable'],
      }),
    },
    async (_req, reply) => {
      const check = platform.draining
        ? { ok: false, detail: 'shutting down' }
        : await databaseReadiness(platform.database);
      if (check.ok) return reply.send({ status: 'ready', detail: check.detail });
      return sendProblem(
        reply,
        new Problem('service_unavailable', {
          detail: `Not ready: ${check.detail}.`,
          headers: { 'retry-after': '2' },
        }),
        baseUrl,
      );
    },
  );

  app.get(
    '/metrics',
    {
      schema: operation({
        tags: ['operations'],
        summary: 'Prometheus metrics (loopback, or Authorization: Bearer METRICS_TOKEN)',
        security: PUBLIC,
        responses: { 200: z.string() },
        contentType: 'text/plain',
        problems: ['forbidden'],
      }),
    },
    async (req, reply) => {
      if (!metricsAllowed(req, metricsToken)) {
        return sendProblem(
          reply,
          new Problem('forbidden', {
            detail: metricsToken
              ? 'Send Authorization: Bearer <METRICS_TOKEN>, or scrape from the same host.'
              : 'Metrics are served to loopback only; set METRICS_TOKEN to scrape from elsewhere.',
          }),
          baseUrl,
        );
      }
      const { contentType, body } = await platform.metrics.render();
      return reply.type(contentType).send(body);
    },
  );
}

const LOOPBACK = /^(127\.\d+\.\d+\.\d+|::1|::ffff:127\.\d+\.\d+\.\d+)$/;

/** A matching bearer token, or a direct loopback connection that no proxy forwarded. */
export function metricsAllowed(req: FastifyRequest, token: string | undefined): boolean {
  const auth = req.headers.authorization;
  if (token && typeof auth === 'string' && auth.startsWith('Bearer ')) {
    return safeEqual(auth.slice(7).trim(), token);
  }
  const forwarded = req.headers['x-forwarded-for'] !== undefined || req.headers.forwarded !== undefined;
  const socket = req.socket.remoteAddress ?? '';
  return !forwarded && LOOPBACK.test(socket) && LOOPBACK.test(req.ip);
}
