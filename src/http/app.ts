import { randomBytes } from 'node:crypto';
import cookie from '@fastify/cookie';
import Fastify, { type FastifyInstance } from 'fastify';
import { serializerCompiler, validatorCompiler, type ZodTypeProvider } from 'fastify-type-provider-zod';
import { registerOpenApi } from '../contracts/openapi.js';
import { Problem } from '../core/problems.js';
import type { Platform } from '../platform.js';
import { Auth } from './auth.js';
import { BODY_LIMIT } from './body-limit.js';
import { PlatformCeiling } from './ceiling.js';
import { errorHandler, sendProblem } from './errors.js';
import { accountRoutes } from './routes/accounts.js';
import { adminRoutes } from './routes/admin.js';
import { contractRoutes } from './routes/contracts.js';
import { manageRoutes } from './routes/manage.js';
import { mcpRoutes } from './routes/mcp.js';
import { metaRoutes } from './routes/meta.js';
import { postRoutes } from './routes/posts.js';
import { relayRoutes } from './routes/relay.js';
import { reportRoutes } from './routes/reports.js';
import { searchRoutes } from './routes/search.js';
import { siteRoutes } from './routes/site.js';
import { stripeRoutes } from './routes/stripe.js';
import { webRoutes } from './routes/web.js';
import { webhookRoutes } from './routes/webhooks.js';

export { BODY_LIMIT };

export type App = FastifyInstance;

export interface AppContext {
  platform: Platform;
  auth: Auth;
}

export interface BuildAppOptions {
  logger?: boolean;
  /** Redis key prefix of the platform ceiling (tests use one per run). */
  ceilingKeyPrefix?: string;
}

export async function buildApp(platform: Platform, opts: BuildAppOptions = {}): Promise<App> {
  const { config } = platform;
  const app = Fastify({
    logger:
      opts.logger === false
        ? false
        : {
            level: config.logLevel,
            redact: ['req.headers.authorization', 'req.headers.cookie', 'res.headers["set-cookie"]'],
          },
    bodyLimit: BODY_LIMIT,
    trustProxy: config.trustProxy ?? false,
    genReqId: () => `req_${randomBytes(9).toString('base64url')}`,
    requestIdHeader: false,
    routerOptions: { ignoreTrailingSlash: true },
  }).withTypeProvider<ZodTypeProvider>();

  app.setValidatorCompiler(validatorCompiler);
  app.setSerializerCompiler(serializerCompiler);
  app.setErrorHandler(errorHandler(config.baseUrl));
  app.setNotFoundHandler((req, reply) =>
    sendProblem(
      reply,
      new Problem('not_found', { detail: `No route ${req.method} ${req.url.split('?')[0]}.` }),
      config.baseUrl,
    ),
  );
  app.addHook('onSend', async (req, reply) => {
    reply.header('x-request-id', req.id);
    if (!reply.hasHeader('cache-control')) reply.header('cache-control', 'no-store');
    reply.header('x-content-type-options', 'nosniff');
  });
  await app.register(cookie);
  const ceiling = new PlatformCeiling({
    rate: config.platformRate,
    burst: config.platformBurst,
    redisUrl: config.redisUrl,
    clock: platform.deps.clock,
    keyPrefix: opts.ceilingKeyPrefix,
  });
  ceiling.register(app);
  app.addHook('onClose', () => ceiling.close());

  await registerOpenApi(app, config);
  const ctx: AppContext = { platform, auth: new Auth(platform.services, platform.adminToken) };
  await app.register(async (api) => {
    // The API speaks JSON only: anything else is 415 unsupported_media_type.
    api.removeContentTypeParser('text/plain');
    await metaRoutes(api, ctx);
    await accountRoutes(api, ctx);
    await manageRoutes(api, ctx);
    await adminRoutes(api, ctx);
    await postRoutes(api, ctx);
    await reportRoutes(api, ctx);
    await relayRoutes(api, ctx);
    await webhookRoutes(api, ctx);
    await searchRoutes(api, ctx);
    await mcpRoutes(api, ctx);
  });
  await app.register(async (stripe) => stripeRoutes(stripe, ctx));
  await app.register(async (site) => siteRoutes(site, ctx));
  await app.register(async (contracts) => contractRoutes(contracts, ctx));
  await app.register(async (web) => webRoutes(web, ctx));
  return app;
}
