import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { outboxMessage } from '../../core/mail/mailer.js';
import {
  appealDecisionBody,
  appealIdParams,
  appealItem,
  appealQueueQuery,
} from '../../core/moderation/appeals.js';
import { decisionBody, removeBody, reviewDetail, reviewItem } from '../../core/moderation/staff.js';
import { codeSent, signInCode } from '../../core/owner/codes.js';
import { postIdParams } from '../../core/posts/schemas.js';
import { ownPost } from '../../core/posts/views.js';
import { dismissBody, reportIdParams, reportView } from '../../core/reports/reports.js';
import { auditQuery, auditView } from '../../core/staff/audit.js';
import {
  inviteBody,
  STAFF_ROLES,
  staffIdParams,
  staffUpdateBody,
  staffView,
} from '../../core/staff/members.js';
import { CLAIM_TTL_MS, claimView } from '../../core/staff/review.js';
import { pageOf, wholeList } from '../../core/validation.js';
import type { AppContext } from '../app.js';
import { staffOf } from '../guard.js';
import { operation, PUBLIC, STAFF, STAFF_ADMIN } from '../operation.js';

export const staffSessionBody = z.strictObject({
  email: z.email().max(254),
  code: signInCode.optional(),
});

/** /v1/admin/*: what the /admin console does, as JSON, for tools and tests. */
export async function adminRoutes(app: FastifyInstance, { platform }: AppContext) {
  const r = app.withTypeProvider<ZodTypeProvider>();
  const s = platform.services;

  r.post(
    '/v1/staff/session',
    {
      schema: operation({
        tags: ['staff'],
        summary:
          'Staff sign-in: {email} e-mails a six-digit code (202, the same answer for an address not on the staff); {email, code} opens a staff session (200) whose token is a Bearer for /v1/admin/*',
        security: PUBLIC,
        body: staffSessionBody,
        responses: {
          200: z.object({
            staff_token: z.string(),
            expires_at: z.string(),
            staff_id: z.string(),
            role: z.enum(STAFF_ROLES),
          }),
          202: codeSent,
        },
        problems: ['invalid_code', 'too_many_attempts', 'rate_limited'],
      }),
    },
    async (req, reply) => {
      const { email, code } = req.body;
      if (code === undefined) return reply.code(202).send(await s.staffSessions.sendCode(email));
      const opened = await s.staffSessions.verifyCode(email, code);
      return reply.code(200).send({
        staff_token: opened.session,
        expires_at: opened.expires_at,
        staff_id: opened.actor.id,
        role: opened.actor.role,
      });
    },
  );

  r.get(
    '/v1/admin/outbox',
    {
      schema: operation({
        tags: ['staff'],
        summary: 'Mail kept by the outbox transport, newest first',
        security: STAFF,
        querystring: z.object({
          to: z.string().optional(),
          limit: z.coerce.number().int().min(1).max(100).default(50),
        }),
        responses: { 200: z.object({ data: z.array(outboxMessage) }) },
      }),
    },
    async (req) => ({ data: await platform.services.outbox.list(req.query.to, req.query.limit) }),
  );

  r.get(
    '/v1/admin/review',
    {
      schema: operation({
        tags: ['staff'],
        summary: 'Posts waiting for a person, with who is reviewing each now',
        security: STAFF,
        responses: { 200: wholeList(reviewItem) },
      }),
    },
    async () => ({
      data: await s.staff.reviewQueue(),
      next_cursor: null,
    }),
  );

  r.get(
    '/v1/admin/review/:id',
    {
      schema: operation({
        tags: ['staff'],
        summary:
          'One post in review as the reviewer opens it: the flagged paragraphs and quoted evidence, the preset category, the author history',
        security: STAFF,
        params: postIdParams,
        responses: { 200: reviewDetail },
        problems: ['not_found', 'invalid_state'],
      }),
    },
    async (req) => s.staff.reviewDetail(req.params.id),
  );

  r.post(
    '/v1/admin/review/:id/claim',
    {
      schema: operation({
        tags: ['staff'],
        summary: `Claim a post in review for ${CLAIM_TTL_MS / 60_000} minutes (renewed by claiming again); while claimed, only its holder may decide it`,
        security: STAFF,
        params: postIdParams,
        responses: { 200: claimView },
        problems: ['not_found', 'invalid_state', 'review_claimed'],
      }),
    },
    async (req) => s.staff.claim(staffOf(req), req.params.id),
  );

  r.post(
    '/v1/admin/posts/:id/decision',
    {
      schema: operation({
        tags: ['staff'],
        summary:
          'Decide a post in review: publish, or reject with a category (an abuse category strikes). Takes the claim; refused while another reviewer holds it',
        security: STAFF,
        params: postIdParams,
        body: decisionBody,
        responses: { 200: ownPost },
        problems: ['not_found', 'invalid_state', 'review_claimed'],
      }),
    },
    async (req) => s.staff.decide(staffOf(req), req.params.id, req.body),
  );

  r.post(
    '/v1/admin/posts/:id/remove',
    {
      schema: operation({
        tags: ['staff'],
        summary: 'Remove a published post (event post.removed); its open reports are resolved',
        security: STAFF,
        params: postIdParams,
        body: removeBody,
        responses: { 200: ownPost },
        problems: ['not_found', 'invalid_state'],
      }),
    },
    async (req) => s.staff.remove(staffOf(req), req.params.id, req.body.reason, req.body.category),
  );

  r.get(
    '/v1/admin/reports',
    {
      schema: operation({
        tags: ['staff'],
        summary: 'Reports, newest first',
        security: STAFF,
        responses: { 200: wholeList(reportView) },
      }),
    },
    async () => ({
      data: await s.reports.list(),
      next_cursor: null,
    }),
  );

  r.post(
    '/v1/admin/reports/:id/dismiss',
    {
      schema: operation({
        tags: ['staff'],
        summary:
          'Resolve a report with no action (the post is within the policy); the reporter reads the outcome',
        security: STAFF,
        params: reportIdParams,
        body: dismissBody,
        responses: { 200: reportView },
        problems: ['not_found', 'invalid_state'],
      }),
    },
    async (req) => s.reports.dismiss(staffOf(req), req.params.id, req.body.reason),
  );

  r.get(
    '/v1/admin/appeals',
    {
      schema: operation({
        tags: ['staff'],
        summary: 'Appeals with the post and its statement of reasons (default: pending, oldest first)',
        security: STAFF,
        querystring: appealQueueQuery,
        responses: { 200: wholeList(appealItem) },
      }),
    },
    async (req) => ({ data: await s.appeals.queue(req.query.status), next_cursor: null }),
  );

  r.post(
    '/v1/admin/appeals/:appeal_id/decision',
    {
      schema: operation({
        tags: ['staff'],
        summary:
          'Decide an appeal: uphold (nothing changes) or reverse (publish or restore the post, refund the fine, remove the strike, lift a ban below three)',
        security: STAFF,
        params: appealIdParams,
        body: appealDecisionBody,
        responses: { 200: appealItem },
        problems: ['not_found', 'invalid_state'],
      }),
    },
    async (req) => s.appeals.decide(req.params.appeal_id, req.body, staffOf(req)),
  );

  r.get(
    '/v1/admin/audit',
    {
      schema: operation({
        tags: ['staff'],
        summary:
          'The audit log, newest first: who decided, removed, struck, resolved or changed what, and when',
        security: STAFF,
        querystring: auditQuery,
        responses: { 200: pageOf(auditView) },
      }),
    },
    async (req) => s.audit.list(req.query),
  );

  r.get(
    '/v1/admin/staff',
    {
      schema: operation({
        tags: ['staff'],
        summary: 'Staff members (admin only)',
        security: STAFF_ADMIN,
        responses: { 200: wholeList(staffView) },
        problems: ['forbidden'],
      }),
    },
    async () => ({ data: await s.staffMembers.list(), next_cursor: null }),
  );

  r.post(
    '/v1/admin/staff',
    {
      schema: operation({
        tags: ['staff'],
        summary: 'Invite a staff member by e-mail (admin only); they sign in at /admin with an e-mailed code',
        security: STAFF_ADMIN,
        body: inviteBody,
        responses: { 201: staffView },
        problems: ['forbidden', 'already_staff'],
      }),
    },
    async (req, reply) => reply.code(201).send(await s.staffMembers.invite(staffOf(req), req.body)),
  );

  r.patch(
    '/v1/admin/staff/:id',
    {
      schema: operation({
        tags: ['staff'],
        summary: 'Change a staff member role, or disable (signs them out) or re-enable them (admin only)',
        security: STAFF_ADMIN,
        params: staffIdParams,
        body: staffUpdateBody,
        responses: { 200: staffView },
        problems: ['forbidden', 'not_found', 'invalid_state'],
      }),
    },
    async (req) => s.staffMembers.update(staffOf(req), req.params.id, req.body),
  );
}
