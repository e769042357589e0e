import type { FastifyInstance, FastifyReply } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { confirmDeletionBody, deletionResult } from '../../core/accounts/deletion.js';
import { accountView, deleteAccountResponse } from '../../core/accounts/schemas.js';
import { autoRechargeBody, autoRechargeSettings } from '../../core/billing/auto-recharge.js';
import { cardBody, cardSetupView } from '../../core/billing/cards.js';
import { ledgerPage, ledgerQuery } from '../../core/billing/history.js';
import { topUpBody, topUpView } from '../../core/billing/top-ups.js';
import { codeSent, signInCode } from '../../core/owner/codes.js';
import { wholeList } from '../../core/validation.js';
import type { AppContext } from '../app.js';
import { ownerOf } from '../guard.js';
import { OWNER, operation, PUBLIC } from '../operation.js';

export const sessionBody = z.strictObject({
  token: z.string().min(1).max(200).describe('The token query parameter of account_url'),
  code: signInCode.optional(),
});

/**
 * A payment step's answer (a top-up, saving a card): 201 when it settled at once, 202 with
 * checkout_url while the owner finishes it on the provider's page (Stripe Checkout).
 */
function paymentAnswer(reply: FastifyReply, view: object) {
  return reply.code('checkout_url' in view ? 202 : 201).send(view);
}

export async function manageRoutes(app: FastifyInstance, { platform }: AppContext) {
  const r = app.withTypeProvider<ZodTypeProvider>();
  const { ownerSessions, keys, topUps, accounts, cards, autoRecharge, history, deletion } = platform.services;
  /** Where the provider's page sends the owner back. */
  const returnUrl = `${platform.config.baseUrl}/account`;

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
          202: codeSent,
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
    async (req) => accounts.view(ownerOf(req)),
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
        responses: { 200: wholeList(keyView) },
      }),
    },
    async (req) => ({ data: await keys.list(ownerOf(req)), next_cursor: null }),
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
    async (req, reply) => reply.code(201).send(await keys.createForOwner(ownerOf(req))),
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
      await keys.revoke(ownerOf(req), req.params.id);
      return reply.code(204).send();
    },
  );

  r.post(
    '/v1/manage/top-ups',
    {
      schema: operation({
        tags: ['owner'],
        summary:
          'Add money to the balance: 201 when settled (test provider, or the card on file); 202 with checkout_url when the owner pays on Stripe Checkout',
        security: OWNER,
        body: topUpBody,
        responses: { 201: topUpView, 202: topUpView },
        problems: ['payment_failed', 'not_found'],
      }),
    },
    async (req, reply) => paymentAnswer(reply, await topUps.create(ownerOf(req), req.body, returnUrl)),
  );

  r.get(
    '/v1/manage/ledger',
    {
      schema: operation({
        tags: ['owner'],
        summary: 'Ledger history, newest first: every charge, refund, top-up and recharge',
        security: OWNER,
        querystring: ledgerQuery,
        responses: { 200: ledgerPage },
      }),
    },
    async (req) => history.list(ownerOf(req), req.query),
  );

  r.post(
    '/v1/manage/card',
    {
      schema: operation({
        tags: ['owner'],
        summary:
          'Save a card: 201 with brand and last4 (test provider, from a test card number); 202 with checkout_url (Stripe Checkout in setup mode)',
        security: OWNER,
        body: cardBody,
        responses: { 201: cardSetupView, 202: cardSetupView },
        problems: ['card_declined', 'not_found'],
      }),
    },
    async (req, reply) => paymentAnswer(reply, await cards.setup(ownerOf(req), req.body, returnUrl)),
  );

  r.delete(
    '/v1/manage/card',
    {
      schema: operation({
        tags: ['owner'],
        summary: 'Forget the card on file; auto-recharge turns off with it',
        security: OWNER,
        responses: { 204: null },
      }),
    },
    async (req, reply) => {
      await cards.remove(ownerOf(req));
      return reply.code(204).send();
    },
  );

  r.put(
    '/v1/manage/auto-recharge',
    {
      schema: operation({
        tags: ['owner'],
        summary: 'Auto-recharge settings; turning it on needs a card (409 card_required)',
        security: OWNER,
        body: autoRechargeBody,
        responses: { 200: autoRechargeSettings },
        problems: ['card_required', 'not_found'],
      }),
    },
    async (req) => autoRecharge.configure(ownerOf(req), req.body),
  );

  r.post(
    '/v1/manage/deletion',
    {
      schema: operation({
        tags: ['owner'],
        summary:
          'Request deletion on the page (the same as DELETE /v1/account by the agent); confirm or cancel next',
        security: OWNER,
        body: z.strictObject({}).nullish(),
        responses: { 202: deleteAccountResponse },
      }),
    },
    async (req, reply) => reply.code(202).send(await deletion.request(ownerOf(req))),
  );

  r.post(
    '/v1/manage/deletion/cancel',
    {
      schema: operation({
        tags: ['owner'],
        summary: 'Cancel a requested deletion (409 invalid_state when none is pending)',
        security: OWNER,
        body: z.strictObject({}).nullish(),
        responses: { 200: z.object({ status: z.literal('active') }) },
        problems: ['invalid_state'],
      }),
    },
    async (req) => {
      await deletion.cancel(ownerOf(req));
      return { status: 'active' as const };
    },
  );

  r.post(
    '/v1/manage/deletion/confirm',
    {
      schema: operation({
        tags: ['owner'],
        summary:
          'Delete the account for good: keys stop working, data is erased, posts stay up; {refund: true} returns the unused balance to the card',
        security: OWNER,
        body: confirmDeletionBody,
        responses: { 200: deletionResult },
        problems: ['invalid_state', 'not_found'],
      }),
    },
    async (req) => deletion.confirm(ownerOf(req), req.body),
  );
}
