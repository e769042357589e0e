import type { FastifyInstance, FastifyReply } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import type { PostingResponse } from '../../core/posts/posts.js';
import { createQuery, listQuery, postIdParams, postList } from '../../core/posts/schemas.js';
import { ownPost, publicPost } from '../../core/posts/views.js';
import { siteForHost } from '../../core/sites/sites.js';
import type { AppContext } from '../app.js';

const keyed = [{ apiKey: [] }];
const optionalKey: Record<string, string[]>[] = [{}, { apiKey: [] }];

export function sendPosting(reply: FastifyReply, r: PostingResponse) {
  for (const [k, v] of Object.entries(r.headers)) reply.header(k, v);
  if (r.replayed) reply.header('idempotent-replayed', 'true');
  return reply
    .code(r.status)
    .type('application/json; charset=utf-8')
    .serializer((s: unknown) => s as string)
    .send(r.body);
}

export async function postRoutes(app: FastifyInstance, { platform, auth }: AppContext) {
  const r = app.withTypeProvider<ZodTypeProvider>();
  const { posts } = platform.services;
  const sites = platform.config.sites;

  r.post(
    '/v1/posts',
    {
      schema: {
        tags: ['posts'],
        summary:
          'Post: validate, charge and queue for moderation (202); ?dry_run=true checks without charging',
        security: keyed,
        querystring: createQuery,
        headers: z.object({ 'idempotency-key': z.string().optional() }),
      },
    },
    async (req, reply) => {
      const principal = await auth.agent(req);
      const result = await posts.create(principal, siteForHost(sites, req.hostname), req.body, {
        dryRun: req.query.dry_run === 'true',
        idempotencyKey: req.headers['idempotency-key'],
      });
      return sendPosting(reply, result);
    },
  );

  r.get(
    '/v1/posts',
    {
      schema: {
        tags: ['posts'],
        summary: 'Newest published posts of this site; free and unmetered',
        security: optionalKey,
        querystring: listQuery,
        response: { 200: postList },
      },
    },
    async (req) => {
      await auth.optionalAgent(req);
      return posts.list(siteForHost(sites, req.hostname), req.query);
    },
  );

  r.get(
    '/v1/posts/:id',
    {
      schema: {
        tags: ['posts'],
        summary:
          'A published post; the key that posted it also sees status, moderation estimate and rejection',
        security: optionalKey,
        params: postIdParams,
        response: { 200: z.union([ownPost, publicPost]) },
      },
    },
    async (req) => posts.get(req.params.id, await auth.optionalAgent(req)),
  );

  r.delete(
    '/v1/posts/:id',
    {
      schema: {
        tags: ['posts'],
        summary: 'Delete a post of this account (no refund, not reversible)',
        security: keyed,
        params: postIdParams,
      },
    },
    async (req, reply) => {
      await posts.delete(req.params.id, await auth.agent(req));
      return reply.code(204).send();
    },
  );
}
