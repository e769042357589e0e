import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { jsonFeedSchema } from '../../core/posts/feed.js';
import { postIdParams } from '../../core/posts/schemas.js';
import { publicPost } from '../../core/posts/views.js';
import { Problem } from '../../core/problems.js';
import type { SiteKind } from '../../core/sites/sites.js';
import { siteForHost } from '../../core/sites/sites.js';
import type { Platform } from '../../platform.js';
import { cacheControl, contentType } from '../../web/site-content.js';
import { etagOf } from '../../web/site-files.js';
import { missingPostPage } from '../../web/site-pages.js';
import type { AppContext } from '../app.js';
import { operation, PUBLIC } from '../operation.js';
import { pageHeaders } from '../page-headers.js';

/**
 * The public site: pages and their JSON twins, feeds, sitemap. Free and never rate limited.
 * A page is served from the static build (SITE_DIR) when it is built, and rendered by the same
 * code (SiteContent) when it is not built yet. In server mode nginx or a CDN serves the built
 * files and passes the rest here.
 */
export async function siteRoutes(app: FastifyInstance, { platform }: AppContext) {
  const serve = sitePathServer(platform);
  const { siteContent: content } = platform.services;
  const siteOf = (req: FastifyRequest) => siteForHost(platform.config.sites, req.hostname);

  const olderHome = async (req: FastifyRequest, reply: FastifyReply, cursor: string) =>
    serve.send(req, reply, '/', await content.home(siteOf(req), cursor));
  app.get<{ Querystring: { cursor?: string } }>('/', (req, reply) =>
    // Older pages of the home list are never built: rendered on request.
    req.query.cursor ? olderHome(req, reply, req.query.cursor) : serve(req, reply, '/'),
  );
  // The two JSON documents the interface names are operations of /openapi.json.
  app.get(
    '/index.json',
    {
      schema: operation({
        tags: ['site'],
        summary: 'JSON Feed 1.1 of the newest published posts; free, never rate limited',
        security: PUBLIC,
        responses: { 200: jsonFeedSchema, 304: null },
        contentType: 'application/feed+json',
        responseHeaders: { 200: ['etag'], 304: ['etag'] },
      }),
    },
    (req, reply) => serve(req, reply, '/index.json'),
  );
  app.get<{ Params: { id: string } }>(
    '/p/:id.json',
    {
      schema: operation({
        tags: ['site'],
        summary: 'One published post as JSON',
        security: PUBLIC,
        params: postIdParams,
        responses: { 200: publicPost, 304: null },
        problems: ['not_found'],
        responseHeaders: { 200: ['etag'], 304: ['etag'] },
      }),
    },
    (req, reply) => serve(req, reply, `/p/${req.params.id}.json`),
  );
  const fixed = ['/feed.xml', '/sitemap.xml', '/robots.txt', '/policy', '/errors'];
  for (const path of [...fixed, '/upcoming', '/upcoming.json']) {
    app.get(path, (req, reply) => serve(req, reply, path));
  }
  for (const prefix of ['p', 't', 'c', 'place']) {
    app.get<{ Params: { file: string } }>(`/${prefix}/:file`, async (req, reply) =>
      serve(req, reply, `/${prefix}/${req.params.file}`),
    );
  }
  app.get<{ Params: { country: string; file: string } }>('/place/:country/:file', async (req, reply) =>
    serve(req, reply, `/place/${req.params.country}/${req.params.file}`),
  );
}

/** Serves one site path: the built file, else the page rendered now, else 404 (410 for a deleted post's page). */
export function sitePathServer(platform: Platform) {
  const { siteContent: content, siteBuilder: builder } = platform.services;
  const files = builder.files;
  const { sites } = platform.config;
  const siteOf = (req: FastifyRequest) => siteForHost(sites, req.hostname);

  const send = (
    req: FastifyRequest,
    reply: FastifyReply,
    path: string,
    body: string | Buffer,
    etag?: string,
  ): FastifyReply => {
    const type = contentType(path);
    const tag = etag ?? etagOf(body);
    reply.header('etag', tag).header('cache-control', cacheControl(path, type)).type(type);
    if (type.startsWith('text/html')) pageHeaders(reply);
    if (req.headers['if-none-match'] === tag) return reply.code(304).send();
    return reply.send(body);
  };

  const render = async (req: FastifyRequest, reply: FastifyReply, site: SiteKind, path: string) => {
    const page = await content.render(site, path);
    if (page) return send(req, reply, path, page.body);
    const post = /^\/p\/([A-Za-z0-9_-]{1,64})$/.exec(path);
    if (post) {
      const gone = await content.gone(post[1]!);
      return pageHeaders(reply.code(gone ? 410 : 404).type('text/html; charset=utf-8')).send(
        missingPostPage(gone),
      );
    }
    throw new Problem('not_found', { detail: `No page ${path} on this site.` });
  };

  /**
   * Not async: a built file is answered in the same tick, without a promise (and the handler then
   * returns undefined, as fastify wants of a synchronous handler that has sent its reply).
   */
  const serve = (
    req: FastifyRequest,
    reply: FastifyReply,
    path: string,
  ): Promise<FastifyReply> | undefined => {
    const site: SiteKind = siteOf(req);
    const built = files.read(site, path);
    if (!built) return render(req, reply, site, path);
    send(req, reply, path, built.body, built.etag);
    return undefined;
  };

  /** For an async handler: resolves to the reply once it is sent. */
  const inAsync = async (req: FastifyRequest, reply: FastifyReply, path: string): Promise<FastifyReply> => {
    await serve(req, reply, path);
    return reply;
  };

  return Object.assign(serve, { send, inAsync });
}
