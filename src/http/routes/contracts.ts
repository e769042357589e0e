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
import type { AppContext } from '../app.js';
import { sitePathServer } from './site.js';

/** True when an Accept header names text/html before any JSON type (what browsers send). */
export function prefersHtml(accept: string | undefined): boolean {
  if (!accept) return false;
  const html = accept.indexOf('text/html');
  const json = accept.search(/application\/([a-z.+-]*\+)?json/);
  return html >= 0 && (json < 0 || html < json);
}

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
  const sitePage = sitePathServer(platform);
  app.get<{ Params: { code: string } }>('/errors/:code', { schema: { hide: true } }, async (req, reply) => {
    const entry = errorEntry(baseUrl, req.params.code);
    if (!entry)
      throw new Problem('not_found', { detail: `No error code ${req.params.code}; see /errors.json.` });
    // A browser gets the page of the code (part of the built site); programs get the JSON entry.
    if (prefersHtml(req.headers.accept)) return sitePage(req, reply, `/errors/${req.params.code}`);
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
