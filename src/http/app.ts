import cookie from '@fastify/cookie';
import Fastify, { type FastifyInstance } from 'fastify';
import { serializerCompiler, validatorCompiler, type ZodTypeProvider } from 'fastify-type-provider-zod';
import { registerOpenApi } from '../contracts/openapi.js';
import { Problem } from '../core/problems.js';
import { PINO_REDACT_PATHS, redactUrl, requestIdGenerator } from '../log.js';
import type { Platform } from '../platform.js';
import { Auth } from './auth.js';
import { BODY_LIMIT } from './body-limit.js';
import { refuseNonCanonicalPaths } from './canonical-path.js';
import { PlatformCeiling } from './ceiling.js';
import { refuseUnfitText } from './clean-input.js';
import { errorHandler, sendProblem } from './errors.js';
import { installGuard } from './guard.js';
import { accountRoutes } from './routes/accounts.js';
import { adminRoutes } from './routes/admin.js';
import { contractRoutes } from './routes/contracts.js';
import { healthRoutes } from './routes/health.js';
import { manageRoutes } from './routes/manage.js';
import { mcpRoutes } from './routes/mcp.js';
import { metaRoutes } from './routes/meta.js';
import { postRoutes } from './routes/posts.js';
import { relayRoutes } from './routes/relay.js';
import { reportRoutes } from './routes/reports.js';
import { searchRoutes } from './routes/search.js';
import { siteRoutes } from './routes/site.js';
import { stripeRoutes } from './routes/stripe.js';
import { transparencyRoutes } from './routes/transparency.js';
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
            redact: { paths: PINO_REDACT_PATHS, censor: '[redacted]' },
            serializers: {
              // The query string may hold an account link token: log the URL with it redacted.
              req: (req) => ({
                method: req.method,
                url: redactUrl(req.url),
                ...(req.ip ? { remoteAddress: req.ip } : {}),
              }),
            },
          },
    bodyLimit: BODY_LIMIT,
    trustProxy: config.trustProxy ?? false,
    genReqId: requestIdGenerator(config.trustProxy),
    requestIdHeader: false,
    // While draining, new requests get our own 503 problem (below), not fastify's plain one.
    return503OnClosing: false,
    // Router-level failures (a malformed %-escape, a path segment over 100 characters) are
    // problems too: no id is that long, so the path names no resource.
    frameworkErrors: (err, _req, reply) =>
      sendProblem(
        reply,
        new Problem('not_found', {
          detail:
            err.code === 'FST_ERR_MAX_PARAM_LENGTH'
              ? 'A path segment is longer than any id (100 characters at most).'
              : 'The path is malformed (check its %-escapes).',
        }),
        config.baseUrl,
      ),
    routerOptions: { ignoreTrailingSlash: true },
  }).withTypeProvider<ZodTypeProvider>();

  app.setValidatorCompiler(validatorCompiler);
  app.setSerializerCompiler(serializerCompiler);
  app.setErrorHandler(errorHandler(config.baseUrl));
  app.addHook('preValidation', refuseUnfitText);
  app.setNotFoundHandler((req, reply) =>
    sendProblem(
      reply,
      new Problem('not_found', { detail: `No route ${req.method} ${req.url.split('?')[0]}.` }),
      config.baseUrl,
    ),
  );
  refuseNonCanonicalPaths(app, config.baseUrl);
  // The hooks every request passes through are callback-style (no promise per request): they are
  // most of what a request to a built page costs (bench/read.ts).
  app.addHook('onSend', (req, reply, payload, done) => {
    reply.header('x-request-id', req.id);
    // Draining: a keep-alive connection closes after this answer, so shutdown does not wait for it.
    if (platform.draining) reply.header('connection', 'close');
    if (!reply.hasHeader('cache-control')) reply.header('cache-control', 'no-store');
    reply.header('x-content-type-options', 'nosniff');
    done(null, payload);
  });
  app.addHook('onRequest', (req, reply, done) => {
    if (!platform.draining || req.url === '/healthz' || req.url === '/readyz') return done();
    reply.header('connection', 'close');
    sendProblem(
      reply,
      new Problem('service_unavailable', {
        detail: 'This process is shutting down; retry the request (another process will answer it).',
        headers: { 'retry-after': '1' },
      }),
      config.baseUrl,
    );
  });
  app.addHook('onResponse', (req, reply, done) => {
    const route = req.routeOptions.url ?? 'unmatched';
    platform.metrics.observeRequest(req.method, route, reply.statusCode, reply.elapsedTime / 1000);
    done();
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

  const auth = new Auth(platform.services);
  // Before any route: each route's declared access installs its guard as the route is added.
  installGuard(app, auth, config.baseUrl);
  await registerOpenApi(app, config);
  const ctx: AppContext = { platform, auth };
  await app.register(async (ops) => healthRoutes(ops, ctx));
  await app.register(async (api) => {
    // The API speaks JSON only: anything else is 415 unsupported_media_type.
    api.removeContentTypeParser('text/plain');
    await metaRoutes(api, ctx);
    await accountRoutes(api, ctx);
    await manageRoutes(api, ctx);
    await adminRoutes(api, ctx);
    await postRoutes(api, ctx);
    await reportRoutes(api, ctx);
    await transparencyRoutes(api, ctx);
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
