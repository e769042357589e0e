import type { FastifyInstance, FastifyReply } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { EXAMPLES } from '../../contracts/examples.js';
import { appealBody, appealView } from '../../core/moderation/appeals.js';
import { APPEAL_WINDOW_MONTHS } from '../../core/moderation/statement.js';
import { editAccepted, revisionList } from '../../core/posts/edits.js';
import type { PostingResult, Queued } from '../../core/posts/posts.js';
import {
  createQuery,
  dryRunResult,
  listQuery,
  postIdParams,
  postList,
  postView,
} from '../../core/posts/schemas.js';
import { ownPost } from '../../core/posts/views.js';
import { siteForHost } from '../../core/sites/sites.js';
import type { AppContext } from '../app.js';
import { agentOf, optionalAgentOf } from '../guard.js';
import { KEYED, OPTIONAL_KEY, operation, postingHeaders } from '../operation.js';

/** What POST and PATCH /v1/posts take and answer besides their bodies. */
const POSTING = {
  security: KEYED,
  querystring: createQuery,
  headers: z.object({ 'idempotency-key': z.string().optional() }),
  responseHeaders: { 202: ['retry-after', 'idempotent-replayed?'] },
} as const;
const POSTING_PROBLEMS = [
  'insufficient_balance',
  'account_banned',
  'invalid_idempotency_key',
  'idempotency_key_reused',
  'idempotency_key_in_use',
  'not_found',
] as const;

function postingOptions(req: { query: { dry_run?: string }; headers: { 'idempotency-key'?: string } }) {
  return { dryRun: req.query.dry_run === 'true', idempotencyKey: req.headers['idempotency-key'] };
}

/**
 * 200 with the dry run, or 202 with the accepted view and postingHeaders. The JSON text is written
 * here rather than by the response schema's serializer, so that a replay (the view read back from
 * the JSON it was stored as) is the first answer byte for byte.
 */
function sendPosting(reply: FastifyReply, r: PostingResult<Queued>) {
  if (r.kind === 'accepted') reply.headers(postingHeaders(r));
  return reply
    .code(r.kind === 'accepted' ? 202 : 200)
    .type('application/json; charset=utf-8')
    .serializer((s: unknown) => s as string)
    .send(JSON.stringify(r.kind === 'accepted' ? r.view : r.result));
}

export async function postRoutes(app: FastifyInstance, { platform }: AppContext) {
  const r = app.withTypeProvider<ZodTypeProvider>();
  const { posts, appeals, edits } = platform.services;
  const sites = platform.config.sites;

  r.post(
    '/v1/posts',
    {
      schema: operation({
        tags: ['posts'],
        summary:
          'Post: validate, charge and queue for moderation (202); ?dry_run=true checks without charging',
        ...POSTING,
        // The body is validated in core by the site's own schema (see the requestBody oneOf).
        responses: { 202: ownPost, 200: dryRunResult },
        examples: { 202: EXAMPLES.queuedPost, 200: EXAMPLES.dryRun },
        problems: POSTING_PROBLEMS,
      }),
    },
    async (req, reply) => {
      const principal = agentOf(req);
      const site = siteForHost(sites, req.hostname);
      return sendPosting(reply, await posts.create(principal, site, req.body, postingOptions(req)));
    },
  );

  r.get(
    '/v1/posts',
    {
      schema: operation({
        tags: ['posts'],
        summary: 'Newest published posts of this site; free and unmetered',
        security: OPTIONAL_KEY,
        querystring: listQuery,
        responses: { 200: postList },
        problems: ['not_found'],
      }),
    },
    async (req) => {
      return posts.list(siteForHost(sites, req.hostname), req.query);
    },
  );

  r.get(
    '/v1/posts/:id',
    {
      schema: operation({
        tags: ['posts'],
        summary:
          'A published post; the key that posted it also sees status, moderation estimate and rejection',
        security: OPTIONAL_KEY,
        params: postIdParams,
        responses: { 200: postView },
        problems: ['not_found'],
      }),
    },
    async (req) => posts.get(req.params.id, optionalAgentOf(req)),
  );

  r.patch(
    '/v1/posts/:id',
    {
      schema: operation({
        tags: ['posts'],
        summary:
          'Edit a published post: any subset of its members, charged the edit price and moderated like a post (202); ?dry_run=true checks without charging',
        ...POSTING,
        params: postIdParams,
        // The body is validated in core against the post's site (see the requestBody oneOf).
        responses: { 202: editAccepted, 200: dryRunResult },
        examples: { 202: EXAMPLES.editAccepted, 200: EXAMPLES.editDryRun },
        problems: [...POSTING_PROBLEMS, 'invalid_state', 'edit_pending'],
      }),
    },
    async (req, reply) => {
      const principal = agentOf(req);
      return sendPosting(reply, await edits.edit(principal, req.params.id, req.body, postingOptions(req)));
    },
  );

  r.get(
    '/v1/posts/:id/revisions',
    {
      schema: operation({
        tags: ['posts'],
        summary: 'Every revision of a post of this account, oldest first, with each edit’s verdict',
        security: KEYED,
        params: postIdParams,
        responses: { 200: revisionList },
        problems: ['not_found'],
      }),
    },
    async (req) => edits.revisions(req.params.id, agentOf(req)),
  );

  r.delete(
    '/v1/posts/:id',
    {
      schema: operation({
        tags: ['posts'],
        summary: 'Delete a post of this account (no refund, not reversible)',
        security: KEYED,
        params: postIdParams,
        responses: { 204: null },
        problems: ['not_found', 'invalid_state'],
      }),
    },
    async (req, reply) => {
      await posts.delete(req.params.id, agentOf(req));
      return reply.code(204).send();
    },
  );

  r.post(
    '/v1/posts/:id/appeal',
    {
      schema: operation({
        tags: ['posts'],
        summary: `Appeal the rejection or removal of a post of this account (free; one appeal per decision, within ${APPEAL_WINDOW_MONTHS} months); a person decides`,
        security: KEYED,
        params: postIdParams,
        body: appealBody,
        responses: { 202: appealView },
        problems: ['not_found', 'invalid_state', 'appeal_exists', 'appeal_window_closed'],
      }),
    },
    async (req, reply) => reply.code(202).send(await appeals.file(agentOf(req), req.params.id, req.body)),
  );
}
