import type { FastifyInstance, FastifyReply } from 'fastify';
import {
  apisDocument,
  asyncApiDocument,
  errorEntry,
  errorsDocument,
  llmsTxt,
  rateLimitsDocument,
} from '../../contracts/documents.js';
import { openApiDocument } from '../../contracts/openapi.js';
import { Problem } from '../../core/problems.js';
import { errorPage } from '../../web/site-pages.js';
import type { AppContext } from '../app.js';
import { sendCached } from './site.js';

/** Machine-readable contracts at the site root, generated from the code at start-up. Never rate limited. */
export async function contractRoutes(app: FastifyInstance, { platform }: AppContext) {
  const { baseUrl } = platform.config;
  const json = (reply: FastifyReply, body: unknown, type = 'application/json') =>
    reply
      .type(`${type}; charset=utf-8`)
      .header('cache-control', 'public, max-age=300')
      .header('access-control-allow-origin', '*')
      .send(body);

  const cached = <T>(make: () => T) => {
    let v: T | undefined;
    return () => {
      v ??= make();
      return v;
    };
  };
  const openapi = cached(() => openApiDocument(app));
  const asyncapi = cached(() => asyncApiDocument(baseUrl));
  const errors = cached(() => errorsDocument(baseUrl));
  const limits = cached(() => rateLimitsDocument(platform.config));

  app.get('/openapi.json', { schema: { hide: true } }, async (_req, reply) => json(reply, openapi()));
  app.get('/asyncapi.json', { schema: { hide: true } }, async (_req, reply) => json(reply, asyncapi()));
  app.get('/errors.json', { schema: { hide: true } }, async (_req, reply) => json(reply, errors()));
  app.get<{ Params: { code: string } }>('/errors/:code', { schema: { hide: true } }, async (req, reply) => {
    const entry = errorEntry(baseUrl, req.params.code);
    if (!entry)
      throw new Problem('not_found', { detail: `No error code ${req.params.code}; see /errors.json.` });
    return json(reply, entry);
  });
  app.get('/rate-limits.json', { schema: { hide: true } }, async (_req, reply) => json(reply, limits()));
  app.get('/apis.json', { schema: { hide: true } }, async (_req, reply) =>
    json(reply, apisDocument(baseUrl)),
  );
  app.get('/llms.txt', { schema: { hide: true } }, async (_req, reply) =>
    reply
      .type('text/plain; charset=utf-8')
      .header('cache-control', 'public, max-age=300')
      .send(llmsTxt(baseUrl)),
  );
}
