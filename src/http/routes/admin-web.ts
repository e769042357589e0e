import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { decisionBody, removeBody } from '../../core/moderation/staff.js';
import { isProblem } from '../../core/problems.js';
import { STAFF_SESSION_TTL_MS } from '../../core/staff/sessions.js';
import { parseOrThrow } from '../../core/validation.js';
import { adminPage, adminSignInPage } from '../../web/admin-page.js';
import type { AppContext } from '../app.js';
import { ADMIN_COOKIE } from '../auth.js';
import { FORM_PAGE } from '../guard.js';
import { html } from './web.js';

type Form = Record<string, string | undefined>;

/** The staff console: the review queue and reports, deciding through the same core as /v1/admin. */
export async function adminWebRoutes(app: FastifyInstance, { platform }: AppContext) {
  const { staff, reports, staffSessions } = platform.services;
  const secure = platform.config.baseUrl.startsWith('https:');
  const render = async (reply: FastifyReply, extra: { notice?: string; error?: string } = {}) =>
    html(reply, adminPage({ review: await staff.reviewQueue(), reports: await reports.list(), ...extra }));
  /** Declared access of the console (enforced by the guard; CSRF-checked on POST). */
  const staffPage = {
    config: {
      access: 'staff-page' as const,
      denied: (req: FastifyRequest, reply: FastifyReply) =>
        req.method === 'GET'
          ? html(reply, adminSignInPage())
          : html(reply, adminSignInPage('Sign in first.'), 401),
    },
  };

  app.get('/admin', staffPage, async (_req, reply) => render(reply));

  app.post<{ Body: Form }>('/admin/sign-in', FORM_PAGE, async (req, reply) => {
    try {
      const s = await staffSessions.signIn(req.body.token ?? '', req.ip);
      reply.setCookie(ADMIN_COOKIE, s.session, {
        path: '/admin',
        httpOnly: true,
        sameSite: 'strict',
        secure,
        // Relative, so the browser judges it by its own clock.
        maxAge: Math.floor(STAFF_SESSION_TTL_MS / 1000),
      });
      return reply.redirect('/admin', 303);
    } catch (e) {
      if (isProblem(e) && (e.status === 401 || e.status === 429)) {
        for (const [k, v] of Object.entries(e.headers)) reply.header(k, v);
        return html(reply, adminSignInPage(e.detail), e.status);
      }
      throw e;
    }
  });

  app.post('/admin/sign-out', FORM_PAGE, async (req, reply) => {
    const session = req.cookies[ADMIN_COOKIE];
    if (session) await staffSessions.end(session);
    reply.clearCookie(ADMIN_COOKIE, { path: '/admin' });
    return reply.redirect('/admin', 303);
  });

  const action =
    (run: (id: string, body: Form) => Promise<string>) =>
    async (req: FastifyRequest<{ Params: { id: string }; Body: Form }>, reply: FastifyReply) => {
      try {
        return render(reply, { notice: await run(req.params.id, req.body ?? {}) });
      } catch (e) {
        if (isProblem(e)) return render(reply, { error: e.errors?.[0]?.detail ?? e.detail });
        throw e;
      }
    };

  app.post<{ Params: { id: string }; Body: Form }>(
    '/admin/posts/:id/decision',
    staffPage,
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
    staffPage,
    action(async (id, body) => {
      await staff.remove(id, parseOrThrow(removeBody, { reason: body.reason }).reason);
      return `${id} was removed.`;
    }),
  );
}
