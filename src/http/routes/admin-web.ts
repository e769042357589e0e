import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { decisionBody, removeBody } from '../../core/moderation/staff.js';
import { isProblem } from '../../core/problems.js';
import { safeEqual } from '../../core/secrets.js';
import { parseOrThrow } from '../../core/validation.js';
import { adminPage, adminSignInPage } from '../../web/admin-page.js';
import type { AppContext } from '../app.js';
import { ADMIN_COOKIE } from '../auth.js';
import { html } from './web.js';

type Form = Record<string, string | undefined>;

/** The staff console: the review queue and reports, deciding through the same core as /v1/admin. */
export async function adminWebRoutes(app: FastifyInstance, { platform }: AppContext) {
  const { staff, reports } = platform.services;
  const secure = platform.config.baseUrl.startsWith('https:');
  const signedIn = (req: FastifyRequest) => {
    const t = req.cookies[ADMIN_COOKIE];
    return !!t && safeEqual(t, platform.adminToken);
  };
  const render = async (reply: FastifyReply, extra: { notice?: string; error?: string } = {}) =>
    html(reply, adminPage({ review: await staff.reviewQueue(), reports: await reports.list(), ...extra }));

  app.get('/admin', async (req, reply) => (signedIn(req) ? render(reply) : html(reply, adminSignInPage())));

  app.post<{ Body: Form }>('/admin/sign-in', async (req, reply) => {
    if (!safeEqual(req.body.token ?? '', platform.adminToken))
      return html(reply, adminSignInPage('Wrong token.'), 401);
    reply.setCookie(ADMIN_COOKIE, platform.adminToken, {
      path: '/',
      httpOnly: true,
      sameSite: 'strict',
      secure,
    });
    return reply.redirect('/admin', 303);
  });

  const action =
    (run: (id: string, body: Form) => Promise<string>) =>
    async (req: FastifyRequest<{ Params: { id: string }; Body: Form }>, reply: FastifyReply) => {
      if (!signedIn(req)) return html(reply, adminSignInPage('Sign in first.'), 401);
      try {
        return render(reply, { notice: await run(req.params.id, req.body ?? {}) });
      } catch (e) {
        if (isProblem(e)) return render(reply, { error: e.errors?.[0]?.detail ?? e.detail });
        throw e;
      }
    };

  app.post<{ Params: { id: string }; Body: Form }>(
    '/admin/posts/:id/decision',
    action(async (id, body) => {
      const input = parseOrThrow(decisionBody, {
        decision: body.decision,
        reason: body.reason,
        ...(body.decision === 'reject' ? { category: body.category } : {}),
      });
      const post = await staff.decide(id, input);
      return `${id} is now ${post.status}.`;
    }),
  );
  app.post<{ Params: { id: string }; Body: Form }>(
    '/admin/posts/:id/remove',
    action(async (id, body) => {
      await staff.remove(id, parseOrThrow(removeBody, { reason: body.reason }).reason);
      return `${id} was removed.`;
    }),
  );
}
