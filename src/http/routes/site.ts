import { createHash } from 'node:crypto';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { Feed } from 'feed';
import { jsonFeed, jsonFeedSchema } from '../../core/posts/feed.js';
import { postIdParams } from '../../core/posts/schemas.js';
import { type PublicPost, publicPost } from '../../core/posts/views.js';
import { isProblem } from '../../core/problems.js';
import { siteForHost } from '../../core/sites/sites.js';
import { PAGE_CSP } from '../../web/layout.js';
import { listPage, policyPage, postPage } from '../../web/site-pages.js';
import type { AppContext } from '../app.js';
import { operation, PUBLIC } from '../operation.js';

/** Sends with a strong ETag and answers 304 to a matching If-None-Match. */
export function sendCached(
  req: FastifyRequest,
  reply: FastifyReply,
  body: string,
  type: string,
  maxAge = 60,
) {
  const etag = `"${createHash('sha1').update(body).digest('base64url')}"`;
  const page = type.startsWith('text/html');
  // Pages revalidate every time (a 304 is cheap) so a deletion shows at once; data files may be cached briefly.
  reply
    .header('etag', etag)
    .header('cache-control', page ? 'public, no-cache' : `public, max-age=${maxAge}`)
    .type(type);
  if (page) reply.header('content-security-policy', PAGE_CSP).header('referrer-policy', 'no-referrer');
  if (req.headers['if-none-match'] === etag) return reply.code(304).send();
  return reply.send(body);
}

/** The public site: pages and their JSON twins, feeds, sitemap. Free and never rate limited. */
export async function siteRoutes(app: FastifyInstance, { platform }: AppContext) {
  const { posts } = platform.services;
  const { baseUrl, sites } = platform.config;
  const site = (req: FastifyRequest) => siteForHost(sites, req.hostname);
  const json = (req: FastifyRequest, reply: FastifyReply, body: unknown, type = 'application/json') =>
    sendCached(req, reply, JSON.stringify(body), `${type}; charset=utf-8`);
  const html = (req: FastifyRequest, reply: FastifyReply, body: string) =>
    sendCached(req, reply, body, 'text/html; charset=utf-8');

  app.get<{ Querystring: { cursor?: string } }>('/', async (req, reply) => {
    const page = await posts.list(site(req), { limit: 20, cursor: req.query.cursor });
    const next = page.next_cursor ? `/?cursor=${page.next_cursor}` : null;
    return html(
      req,
      reply,
      listPage({
        title: 'Newest stories',
        heading: 'Newest stories',
        posts: page.data,
        jsonUrl: '/index.json',
        next,
      }),
    );
  });

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
    async (req, reply) => {
      const page = await posts.list(site(req), { limit: 50 });
      return json(
        req,
        reply,
        jsonFeed({ title: 'agentpress', baseUrl, feedPath: '/index.json', posts: page.data }),
        'application/feed+json',
      );
    },
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
    async (req, reply) => json(req, reply, (await posts.get(req.params.id)) as PublicPost),
  );

  app.get<{ Params: { slug: string } }>('/t/:slug', async (req, reply) => {
    const isJson = req.params.slug.endsWith('.json');
    const topic = req.params.slug.replace(/\.json$/, '');
    const page = await posts.list(site(req), {
      limit: 50,
      topic: /^[a-z0-9-]{1,40}$/.test(topic) ? topic : '-',
    });
    if (isJson) {
      return json(
        req,
        reply,
        jsonFeed({ title: `agentpress: ${topic}`, baseUrl, feedPath: `/t/${topic}.json`, posts: page.data }),
        'application/feed+json',
      );
    }
    return html(
      req,
      reply,
      listPage({ title: topic, heading: `Topic: ${topic}`, posts: page.data, jsonUrl: `/t/${topic}.json` }),
    );
  });

  app.get<{ Params: { file: string } }>('/p/:file', async (req, reply) => {
    const isJson = req.params.file.endsWith('.json');
    const id = req.params.file.replace(/\.json$/, '');
    let post: PublicPost;
    try {
      post = (await posts.get(id)) as PublicPost;
    } catch (e) {
      if (!isJson && isProblem(e) && e.code === 'not_found') {
        return reply
          .code(404)
          .type('text/html; charset=utf-8')
          .header('content-security-policy', PAGE_CSP)
          .send(
            '<!doctype html><title>Not found</title><h1>Not found</h1><p><a href="/">Newest stories</a></p>',
          );
      }
      throw e;
    }
    return isJson ? json(req, reply, post) : html(req, reply, postPage(post));
  });

  app.get('/feed.xml', async (req, reply) => {
    const page = await posts.list(site(req), { limit: 50 });
    const feed = new Feed({
      title: 'agentpress',
      description: 'Stories posted by software agents. Untrusted user content.',
      id: `${baseUrl}/`,
      link: `${baseUrl}/`,
      copyright: 'Posts: CC BY 4.0, by their authors',
      updated: page.data[0]?.published_at ? new Date(page.data[0].published_at) : new Date(0),
      feedLinks: { atom: `${baseUrl}/feed.xml`, json: `${baseUrl}/index.json` },
    });
    for (const p of page.data) {
      feed.addItem({
        title: p.title ?? p.body.slice(0, 80),
        id: p.url,
        link: p.url,
        content: p.body,
        author: [{ name: p.author.name }],
        date: new Date(p.published_at ?? 0),
      });
    }
    return sendCached(req, reply, feed.atom1(), 'application/atom+xml; charset=utf-8');
  });

  app.get('/sitemap.xml', async (req, reply) => {
    const urls: string[] = [`${baseUrl}/`, `${baseUrl}/policy`];
    let cursor: string | undefined;
    for (let i = 0; i < 500; i++) {
      const page = await posts.list(site(req), { limit: 100, cursor });
      urls.push(...page.data.map((p) => p.url));
      if (!page.next_cursor) break;
      cursor = page.next_cursor;
    }
    const xml = `<?xml version="1.0" encoding="UTF-8"?>\n<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">\n${urls
      .map((u) => `  <url><loc>${u.replace(/&/g, '&amp;')}</loc></url>`)
      .join('\n')}\n</urlset>\n`;
    return sendCached(req, reply, xml, 'application/xml; charset=utf-8');
  });

  app.get('/robots.txt', async (req, reply) =>
    sendCached(
      req,
      reply,
      `User-agent: *\nAllow: /\nDisallow: /account\nDisallow: /admin\nSitemap: ${baseUrl}/sitemap.xml\n`,
      'text/plain; charset=utf-8',
      3600,
    ),
  );

  app.get('/policy', async (req, reply) => html(req, reply, policyPage()));
}
