import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { confirmDeletionBody, deletionResult } from '../../core/accounts/deletion.js';
import { accountView, deleteAccountResponse } from '../../core/accounts/schemas.js';
import { autoRechargeBody, autoRechargeSettings } from '../../core/billing/auto-recharge.js';
import { cardBody, cardSetupView } from '../../core/billing/cards.js';
import { ledgerPage, ledgerQuery } from '../../core/billing/history.js';
import { topUpBody, topUpView } from '../../core/billing/top-ups.js';
import type { AppContext } from '../app.js';

const owner = [{ ownerSession: [] }];

export const sessionBody = z.strictObject({
  token: z.string().min(1).max(200).describe('The token query parameter of account_url'),
  code: z
    .string()
    .regex(/^\d{6}$/, 'code is the six digits from the e-mail')
    .optional(),
});

export async function manageRoutes(app: FastifyInstance, { platform, auth }: AppContext) {
  const r = app.withTypeProvider<ZodTypeProvider>();
  const { ownerSessions, keys, topUps, accounts, cards, autoRecharge, history, deletion } = platform.services;
  /** Where the provider's page sends the owner back. */
  const returnUrl = `${platform.config.baseUrl}/account`;

  r.post(
    '/v1/manage/session',
    {
      schema: {
        tags: ['owner'],
        summary:
          'Owner proof: {token} e-mails a six-digit code (202); {token, code} opens the owner session (200)',
        body: sessionBody,
        response: {
          200: z.object({ owner_token: z.string(), expires_at: z.string(), account_id: z.string() }),
          202: z.object({ sent_to: z.string(), expires_at: z.string() }),
        },
      },
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
      schema: {
        tags: ['owner'],
        summary: 'The account, as its owner sees it',
        security: owner,
        response: { 200: accountView },
      },
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
      schema: {
        tags: ['owner'],
        summary: 'Live API keys (prefixes only)',
        security: owner,
        response: { 200: z.object({ data: z.array(keyView), next_cursor: z.null() }) },
      },
    },
    async (req) => ({ data: await keys.list(await auth.owner(req)), next_cursor: null }),
  );

  r.post(
    '/v1/manage/keys',
    {
      schema: {
        tags: ['owner'],
        summary: 'Create an API key (at most 20 live keys: 409 too_many_keys)',
        security: owner,
        // Fastify hands a missing body to the validator as null, so `.optional()` alone would refuse it.
        body: z.strictObject({}).nullish(),
        response: { 201: z.object({ id: z.string(), api_key: z.string(), prefix: z.string() }) },
      },
    },
    async (req, reply) => reply.code(201).send(await keys.createForOwner(await auth.owner(req))),
  );

  r.delete(
    '/v1/manage/keys/:id',
    {
      schema: {
        tags: ['owner'],
        summary: 'Revoke an API key; it stops working at once',
        security: owner,
        params: z.object({ id: z.string() }),
      },
    },
    async (req, reply) => {
      await keys.revoke(await auth.owner(req), req.params.id);
      return reply.code(204).send();
    },
  );

  r.post(
    '/v1/manage/top-ups',
    {
      schema: {
        tags: ['owner'],
        summary:
          'Add money to the balance: 201 when settled (test provider, or the card on file); 202 with checkout_url when the owner pays on Stripe Checkout',
        security: owner,
        body: topUpBody,
        response: { 201: topUpView, 202: topUpView },
      },
    },
    async (req, reply) => {
      const t = await topUps.create(await auth.owner(req), req.body, returnUrl);
      return reply.code(t.status === 'pending' ? 202 : 201).send(t);
    },
  );

  r.get(
    '/v1/manage/ledger',
    {
      schema: {
        tags: ['owner'],
        summary: 'Ledger history, newest first: every charge, refund, top-up and recharge',
        security: owner,
        querystring: ledgerQuery,
        response: { 200: ledgerPage },
      },
    },
    async (req) => history.list(await auth.owner(req), req.query),
  );

  r.post(
    '/v1/manage/card',
    {
      schema: {
        tags: ['owner'],
        summary:
          'Save a card: 201 with brand and last4 (test provider, from a test card number); 202 with checkout_url (Stripe Checkout in setup mode)',
        security: owner,
        body: cardBody,
        response: { 201: cardSetupView, 202: cardSetupView },
      },
    },
    async (req, reply) => {
      const r = await cards.setup(await auth.owner(req), req.body, returnUrl);
      return reply.code(r.status === 'saved' ? 201 : 202).send(r);
    },
  );

  r.delete(
    '/v1/manage/card',
    {
      schema: {
        tags: ['owner'],
        summary: 'Forget the card on file; auto-recharge turns off with it',
        security: owner,
      },
    },
    async (req, reply) => {
      await cards.remove(await auth.owner(req));
      return reply.code(204).send();
    },
  );

  r.put(
    '/v1/manage/auto-recharge',
    {
      schema: {
        tags: ['owner'],
        summary: 'Auto-recharge settings; turning it on needs a card (409 card_required)',
        security: owner,
        body: autoRechargeBody,
        response: { 200: autoRechargeSettings },
      },
    },
    async (req) => autoRecharge.configure(await auth.owner(req), req.body),
  );

  r.post(
    '/v1/manage/deletion',
    {
      schema: {
        tags: ['owner'],
        summary:
          'Request deletion on the page (the same as DELETE /v1/account by the agent); confirm or cancel next',
        security: owner,
        body: z.strictObject({}).nullish(),
        response: { 202: deleteAccountResponse },
      },
    },
    async (req, reply) => reply.code(202).send(await deletion.request(await auth.owner(req))),
  );

  r.post(
    '/v1/manage/deletion/cancel',
    {
      schema: {
        tags: ['owner'],
        summary: 'Cancel a requested deletion (409 invalid_state when none is pending)',
        security: owner,
        body: z.strictObject({}).nullish(),
        response: { 200: z.object({ status: z.literal('active') }) },
      },
    },
    async (req) => {
      await deletion.cancel(await auth.owner(req));
      return { status: 'active' as const };
    },
  );

  r.post(
    '/v1/manage/deletion/confirm',
    {
      schema: {
        tags: ['owner'],
        summary:
          'Delete the account for good: keys stop working, data is erased, posts stay up; {refund: true} returns the unused balance to the card',
        security: owner,
        body: confirmDeletionBody,
        response: { 200: deletionResult },
      },
    },
    async (req) => deletion.confirm(await auth.owner(req), req.body),
  );
}
