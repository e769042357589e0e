import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { appealDecisionBody } from '../../core/moderation/appeals.js';
import { decisionBody, removeBody } from '../../core/moderation/staff.js';
import { isProblem, type Problem } from '../../core/problems.js';
import { dismissBody } from '../../core/reports/reports.js';
import { auditQuery } from '../../core/staff/audit.js';
import { inviteBody, staffUpdateBody } from '../../core/staff/members.js';
import { type OpenedSession, STAFF_SESSION_TTL_MS } from '../../core/staff/sessions.js';
import { parseOrThrow } from '../../core/validation.js';
import {
  adminCodePage,
  adminPage,
  adminSignInPage,
  auditPage,
  forbiddenPage,
  reviewItemPage,
  staffPage,
} from '../../web/admin-page.js';
import type { AppContext } from '../app.js';
import { ADMIN_COOKIE } from '../auth.js';
import { FORM_PAGE, staffOf } from '../guard.js';
import { html } from './web.js';

type Form = Record<string, string | undefined>;
type Req = FastifyRequest<{ Params: { id: string }; Body: Form; Querystring: Form }>;

const detailOf = (e: Problem) => e.errors?.[0]?.detail ?? e.detail;

/** The named fields of a posted form (a missing one undefined), for the schema the JSON API uses. */
const fields = (form: Form | undefined, names: readonly string[]) =>
  Object.fromEntries(names.map((name) => [name, form?.[name]]));

/**
 * The staff console: the review queue (each item opened with its evidence, the author's history
 * and a claim), reports, the audit log and staff management, deciding through the same core as
 * /v1/admin. Every page knows who is signed in (staffOf) and every action is recorded as theirs.
 */
export async function adminWebRoutes(app: FastifyInstance, { platform }: AppContext) {
  const { staff, reports, staffSessions, staffMembers, audit, appeals } = platform.services;
  const secure = platform.config.baseUrl.startsWith('https:');
  const render = async (
    req: FastifyRequest,
    reply: FastifyReply,
    extra: { notice?: string; error?: string } = {},
  ) =>
    html(
      reply,
      adminPage({
        actor: staffOf(req),
        review: await staff.reviewQueue(),
        reports: await reports.list(),
        appeals: await appeals.queue('pending'),
        ...extra,
      }),
    );
  /** Declared access of the console (enforced by the guard; CSRF-checked on POST). */
  const staffPageAccess = {
    config: {
      access: 'staff-page' as const,
      denied: (req: FastifyRequest, reply: FastifyReply) =>
        req.method === 'GET'
          ? html(reply, adminSignInPage())
          : html(reply, adminSignInPage('Sign in first.'), 401),
    },
  };
  const open = (reply: FastifyReply, s: OpenedSession) => {
    reply.setCookie(ADMIN_COOKIE, s.session, {
      path: '/admin',
      httpOnly: true,
      sameSite: 'strict',
      secure,
      // Relative, so the browser judges it by its own clock.
      maxAge: Math.floor(STAFF_SESSION_TTL_MS / 1000),
    });
    return reply.redirect('/admin', 303);
  };
  /** A sign-in problem the page answers itself (wrong token or code, limits); others propagate. */
  const signInError = (reply: FastifyReply, e: unknown, page: (detail: string) => string) => {
    if (isProblem(e) && [401, 422, 429, 503].includes(e.status)) {
      for (const [k, v] of Object.entries(e.headers)) reply.header(k, v);
      return html(reply, page(detailOf(e)), e.status);
    }
    throw e;
  };

  app.get('/admin', staffPageAccess, async (req, reply) => render(req, reply));

  app.post<{ Body: Form }>('/admin/sign-in', FORM_PAGE, async (req, reply) => {
    try {
      return open(reply, await staffSessions.signIn(req.body?.token ?? '', req.ip));
    } catch (e) {
      return signInError(reply, e, (d) => adminSignInPage(d));
    }
  });

  app.post<{ Body: Form }>('/admin/sign-in/code', FORM_PAGE, async (req, reply) => {
    const email = (req.body?.email ?? '').trim();
    try {
      const sent = await staffSessions.sendCode(email);
      return html(reply, adminCodePage({ email, sentTo: sent.sent_to }));
    } catch (e) {
      return signInError(reply, e, (d) => adminSignInPage(d));
    }
  });

  app.post<{ Body: Form }>('/admin/sign-in/verify', FORM_PAGE, async (req, reply) => {
    const email = (req.body?.email ?? '').trim();
    try {
      return open(reply, await staffSessions.verifyCode(email, (req.body?.code ?? '').trim()));
    } catch (e) {
      return signInError(reply, e, (d) => adminCodePage({ email, sentTo: email, error: d }));
    }
  });

  app.post('/admin/sign-out', FORM_PAGE, async (req, reply) => {
    const session = req.cookies[ADMIN_COOKIE];
    if (session) await staffSessions.end(session);
    reply.clearCookie(ADMIN_COOKIE, { path: '/admin' });
    return reply.redirect('/admin', 303);
  });

  /** A problem met on the way is shown on the queue; anything else propagates. */
  const onQueue = (req: FastifyRequest, reply: FastifyReply, e: unknown) => {
    if (isProblem(e)) return render(req, reply, { error: detailOf(e) });
    throw e;
  };

  /** A form action: its notice on the queue, or the problem's detail there. */
  const action = (run: (req: Req) => Promise<string>) => async (req: Req, reply: FastifyReply) => {
    try {
      return render(req, reply, { notice: await run(req) });
    } catch (e) {
      return onQueue(req, reply, e);
    }
  };

  // Opening an item claims it; the item page then shows it with its evidence and history.
  app.post('/admin/review/:id/open', staffPageAccess, async (req: Req, reply) => {
    try {
      await staff.claim(staffOf(req), req.params.id);
    } catch (e) {
      return onQueue(req, reply, e);
    }
    return reply.redirect(`/admin/review/${encodeURIComponent(req.params.id)}`, 303);
  });

  app.get('/admin/review/:id', staffPageAccess, async (req: Req, reply) => {
    try {
      return html(
        reply,
        reviewItemPage({ actor: staffOf(req), item: await staff.reviewDetail(req.params.id) }),
      );
    } catch (e) {
      return onQueue(req, reply, e);
    }
  });

  app.post(
    '/admin/posts/:id/decision',
    staffPageAccess,
    action(async (req) => {
      const body = req.body ?? {};
      const input = parseOrThrow(decisionBody, {
        decision: body.decision,
        reason: body.reason,
        ...(body.decision === 'reject' ? { category: body.category || undefined } : {}),
      });
      const post = await staff.decide(staffOf(req), req.params.id, input);
      return `${req.params.id} is now ${post.status}.`;
    }),
  );
  app.post(
    '/admin/posts/:id/remove',
    staffPageAccess,
    action(async (req) => {
      await staff.remove(
        staffOf(req),
        req.params.id,
        parseOrThrow(removeBody, fields(req.body, ['reason'])).reason,
      );
      return `${req.params.id} was removed.`;
    }),
  );
  app.post(
    '/admin/reports/:id/dismiss',
    staffPageAccess,
    action(async (req) => {
      const { reason } = parseOrThrow(dismissBody, fields(req.body, ['reason']));
      await reports.dismiss(staffOf(req), req.params.id, reason);
      return `Report ${req.params.id} was dismissed.`;
    }),
  );

  app.post(
    '/admin/appeals/:id/decision',
    staffPageAccess,
    action(async (req) => {
      const input = parseOrThrow(appealDecisionBody, fields(req.body, ['decision', 'reason']));
      const a = await appeals.decide(req.params.id, input, staffOf(req));
      return `Appeal ${req.params.id} ${a.status}; post ${a.post_id} is ${a.post.status}.`;
    }),
  );

  app.get('/admin/audit', staffPageAccess, async (req: Req, reply) => {
    const q = parseOrThrow(auditQuery, fields(req.query, ['cursor', 'limit']));
    const page = await audit.list(q);
    return html(
      reply,
      auditPage({ actor: staffOf(req), entries: page.data, next: page.next_cursor, limit: q.limit }),
    );
  });

  /** Staff management: admins only (a moderator sees a 403 page). */
  const adminOnly =
    (run: (req: Req) => Promise<{ notice?: string; error?: string }>) =>
    async (req: Req, reply: FastifyReply) => {
      const actor = staffOf(req);
      if (actor.role !== 'admin')
        return html(
          reply,
          forbiddenPage(actor, 'Only an admin manages the staff; your role is moderator.'),
          403,
        );
      let extra: { notice?: string; error?: string };
      try {
        extra = await run(req);
      } catch (e) {
        if (!isProblem(e)) throw e;
        extra = { error: detailOf(e) };
      }
      return html(reply, staffPage({ actor, staff: await staffMembers.list(), ...extra }));
    };
  app.get(
    '/admin/staff',
    staffPageAccess,
    adminOnly(async () => ({})),
  );
  app.post(
    '/admin/staff',
    staffPageAccess,
    adminOnly(async (req) => {
      const input = parseOrThrow(inviteBody, fields(req.body, ['email', 'name', 'role']));
      const m = await staffMembers.invite(staffOf(req), input);
      return { notice: `${m.email} was invited as ${m.role}.` };
    }),
  );
  app.post(
    '/admin/staff/:id',
    staffPageAccess,
    adminOnly(async (req) => {
      const input = parseOrThrow(staffUpdateBody, { disabled: req.body?.disabled === 'true' });
      const m = await staffMembers.update(staffOf(req), req.params.id, input);
      return { notice: `${m.email} is ${m.disabled_at ? 'disabled' : 'enabled'}.` };
    }),
  );
}
