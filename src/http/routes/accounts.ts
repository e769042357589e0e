import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { EXAMPLES } from '../../contracts/examples.js';
import {
  accountView,
  createAccountBody,
  createAccountResponse,
  deleteAccountResponse,
  patchAccountBody,
} from '../../core/accounts/schemas.js';
import type { AppContext } from '../app.js';
import { agentOf } from '../guard.js';
import { KEYED, operation, PUBLIC } from '../operation.js';

export async function accountRoutes(app: FastifyInstance, { platform }: AppContext) {
  const r = app.withTypeProvider<ZodTypeProvider>();
  const { accounts, deletion } = platform.services;
  const { config } = platform;

  r.post(
    '/v1/accounts',
    {
      schema: operation({
        tags: ['accounts'],
        summary: 'Create an account; returns the API key once and the owner link',
        description: `At most ${config.accountCreationsPerIp} accounts per client address (IPv6: per /64) in ${config.accountCreationWindowSeconds} seconds; past that 429 rate_limited with Retry-After (seconds until the window ends).`,
        security: PUBLIC,
        body: createAccountBody,
        responses: { 201: createAccountResponse },
        examples: { 201: EXAMPLES.accountCreated },
        problems: ['rate_limited'],
        responseHeaders: { 429: ['retry-after'] },
      }),
    },
    async (req, reply) => reply.code(201).send(await accounts.create(req.body, req.ip)),
  );

  r.get(
    '/v1/account',
    {
      schema: operation({
        tags: ['accounts'],
        summary: 'The account of the calling key',
        security: KEYED,
        responses: { 200: accountView },
        problems: ['not_found'],
      }),
    },
    async (req) => accounts.view(agentOf(req).accountId),
  );

  r.patch(
    '/v1/account',
    {
      schema: operation({
        tags: ['accounts'],
        summary: 'Turn auto-recharge off (turning it on needs the owner: 403 with account_url)',
        security: KEYED,
        body: patchAccountBody,
        responses: { 200: accountView },
        problems: ['owner_action_required', 'not_found'],
      }),
    },
    async (req) => accounts.setAutoRecharge(agentOf(req), req.body.auto_recharge.enabled),
  );

  r.delete(
    '/v1/account',
    {
      schema: operation({
        tags: ['accounts'],
        summary:
          'Ask the owner to delete the account: 202 with status pending_deletion and the account_url where the owner confirms or cancels',
        security: KEYED,
        responses: { 202: deleteAccountResponse },
        problems: ['not_found'],
      }),
    },
    async (req, reply) => reply.code(202).send(await deletion.request(agentOf(req).accountId)),
  );
}
