import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { accountView } from '../../core/accounts/schemas.js';
import { topUpBody, topUpView } from '../../core/billing/top-ups.js';
import type { AppContext } from '../app.js';
import { OWNER, operation, PUBLIC } from '../operation.js';

export const sessionBody = z.strictObject({
  token: z.string().min(1).max(200).describe('The token query parameter of account_url'),
  code: z
    .string()
    .regex(/^\d{6}$/, 'code is the six digits from the e-mail')
    .optional(),
});

export async function manageRoutes(app: FastifyInstance, { platform, auth }: AppContext) {
  const r = app.withTypeProvider<ZodTypeProvider>();
  const { ownerSessions, keys, topUps, accounts } = platform.services;

  r.post(
    '/v1/manage/session',
    {
      schema: operation({
        tags: ['owner'],
        summary:
          'Owner proof: {token} e-mails a six-digit code (202); {token, code} opens the owner session (200)',
        security: PUBLIC,
        body: sessionBody,
        responses: {
          200: z.object({ owner_token: z.string(), expires_at: z.string(), account_id: z.string() }),
          202: z.object({ sent_to: z.string(), expires_at: z.string() }),
        },
        problems: ['link_expired', 'invalid_code', 'too_many_attempts', 'rate_limited'],
      }),
    },
    async (req, reply) => {
      const { token, code } = req.body;
      if (code === undefined) return reply.code(202).send(await ownerSessions.sendCode(token));
      return reply.code(200).send(await ownerSessions.verifyCode(token, code));
    },
  );

  r.get(
    '/v1/manage/account',
    {
      schema: operation({
        tags: ['owner'],
        summary: 'The account, as its owner sees it',
        security: OWNER,
        responses: { 200: accountView },
        problems: ['not_found'],
      }),
    },
    async (req) => accounts.view(await auth.owner(req)),
  );

  const keyView = z.object({
    id: z.string(),
    prefix: z.string(),
    created_at: z.string(),
    revoked_at: z.string().nullable(),
  });

  r.get(
    '/v1/manage/keys',
    {
      schema: operation({
        tags: ['owner'],
        summary: 'Live API keys (prefixes only)',
        security: OWNER,
        responses: { 200: z.object({ data: z.array(keyView), next_cursor: z.null() }) },
      }),
    },
    async (req) => ({ data: await keys.list(await auth.owner(req)), next_cursor: null }),
  );

  r.post(
    '/v1/manage/keys',
    {
      schema: operation({
        tags: ['owner'],
        summary: 'Create an API key (at most 20 live keys: 409 too_many_keys)',
        security: OWNER,
        // Fastify hands a missing body to the validator as null, so `.optional()` alone would refuse it.
        body: z.strictObject({}).nullish(),
        responses: { 201: z.object({ id: z.string(), api_key: z.string(), prefix: z.string() }) },
        problems: ['too_many_keys', 'not_found'],
      }),
    },
    async (req, reply) => reply.code(201).send(await keys.createForOwner(await auth.owner(req))),
  );

  r.delete(
    '/v1/manage/keys/:id',
    {
      schema: operation({
        tags: ['owner'],
        summary: 'Revoke an API key; it stops working at once',
        security: OWNER,
        params: z.object({ id: z.string() }),
        responses: { 204: null },
        problems: ['not_found'],
      }),
    },
    async (req, reply) => {
      await keys.revoke(await auth.owner(req), req.params.id);
      return reply.code(204).send();
    },
  );

  r.post(
    '/v1/manage/top-ups',
    {
      schema: operation({
        tags: ['owner'],
        summary: 'Add money to the balance',
        security: OWNER,
        body: topUpBody,
        responses: { 201: topUpView },
        problems: ['payment_failed', 'not_found'],
      }),
    },
    async (req, reply) => reply.code(201).send(await topUps.create(await auth.owner(req), req.body)),
  );
}
