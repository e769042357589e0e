import type { FastifyInstance, FastifyReply } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import {
  apisDocument,
  asyncApiDocument,
  errorEntry,
  errorsDocument,
  llmsTxt,
  rateLimitsDocument,
} from '../../contracts/documents.js';
import { openApiDocument } from '../../contracts/openapi.js';
import { Problem, type ProblemCode } from '../../core/problems.js';
import type { AppContext } from '../app.js';
import { operation, PUBLIC } from '../operation.js';

const errorEntrySchema = z.object({
  code: z.string(),
  type: z.string(),
  status: z.number().int(),
  title: z.string(),
  description: z.string(),
  action: z.string(),
});

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

  const r = app.withTypeProvider<ZodTypeProvider>();
  const doc = (summary: string, schema: z.ZodType, problems: ProblemCode[] = []) =>
    operation({ tags: ['contracts'], summary, security: PUBLIC, responses: { 200: schema }, problems });

  r.get(
    '/openapi.json',
    { schema: doc('This OpenAPI 3.1 document', z.looseObject({ openapi: z.literal('3.1.0') })) },
    async (_req, reply) => json(reply, openapi()),
  );
  r.get(
    '/asyncapi.json',
    { schema: doc('The webhooks as AsyncAPI 3.0', z.looseObject({ asyncapi: z.literal('3.0.0') })) },
    async (_req, reply) => json(reply, asyncapi()),
  );
  r.get(
    '/errors.json',
    {
      schema: doc(
        'Every problem code the service answers with',
        z.object({ format: z.string(), errors: z.array(errorEntrySchema) }),
      ),
    },
    async (_req, reply) => json(reply, errors()),
  );
  r.get(
    '/errors/:code',
    {
      schema: operation({
        tags: ['contracts'],
        summary: 'One entry of /errors.json: the `type` URL of a problem',
        security: PUBLIC,
        params: z.object({ code: z.string() }),
        responses: { 200: errorEntrySchema },
        problems: ['not_found'],
      }),
    },
    async (req, reply) => {
      const entry = errorEntry(baseUrl, req.params.code);
      if (!entry)
        throw new Problem('not_found', { detail: `No error code ${req.params.code}; see /errors.json.` });
      return json(reply, entry);
    },
  );
  r.get(
    '/rate-limits.json',
    {
      schema: doc(
        'Every limit with its numbers',
        z.looseObject({
          limits: z.array(z.looseObject({ operation: z.string(), counted_per: z.string() })),
          constants: z.record(z.string(), z.unknown()),
        }),
      ),
    },
    async (_req, reply) => json(reply, limits()),
  );
  r.get(
    '/apis.json',
    {
      schema: doc(
        'APIs.json 0.18 listing every contract',
        z.looseObject({
          aid: z.string(),
          specificationVersion: z.string(),
          apis: z.array(z.looseObject({})),
        }),
      ),
    },
    async (_req, reply) => json(reply, apisDocument(baseUrl)),
  );
  r.get(
    '/llms.txt',
    {
      schema: operation({
        tags: ['contracts'],
        summary: 'What the service is and how an agent uses it (llmstxt.org)',
        security: PUBLIC,
        responses: { 200: z.string() },
        contentType: 'text/plain',
      }),
    },
    async (_req, reply) =>
      reply
        .type('text/plain; charset=utf-8')
        .header('cache-control', 'public, max-age=300')
        .send(llmsTxt(baseUrl)),
  );
}
