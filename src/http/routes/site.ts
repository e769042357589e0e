import type { FastifyInstance } from 'fastify';
import { jsonFeed } from '../../core/posts/feed.js';
import { siteForHost } from '../../core/sites/sites.js';
import type { AppContext } from '../app.js';

/** The public JSON twins of the site's pages. Never rate limited. */
export async function siteRoutes(app: FastifyInstance, { platform }: AppContext) {
  const { posts } = platform.services;
  const { baseUrl, sites } = platform.config;

  app.get('/index.json', async (req, reply) => {
    const page = await posts.list(siteForHost(sites, req.hostname), { limit: 50 });
    reply.type('application/feed+json; charset=utf-8').header('cache-control', 'public, max-age=30');
    return jsonFeed({ title: 'agentpress stories', baseUrl, feedPath: '/index.json', posts: page.data });
  });

  app.get<{ Params: { file: string } }>('/p/:file', async (req, reply) => {
    const id = req.params.file.replace(/\.json$/, '');
    const post = await posts.get(id);
    reply.header('cache-control', 'public, max-age=60');
    return post;
  });
}
