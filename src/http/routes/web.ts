import { readFileSync } from 'node:fs';
import formbody from '@fastify/formbody';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { isProblem } from '../../core/problems.js';
import { accountPage, linkExpiredPage, proveOwnerPage } from '../../web/account-page.js';
import { PAGE_CSP } from '../../web/layout.js';
import type { AppContext } from '../app.js';
import { OWNER_COOKIE } from '../auth.js';
import { adminWebRoutes } from './admin-web.js';

const css = readFileSync(new URL('../../web/assets/site.css', import.meta.url));

export function html(reply: FastifyReply, body: string, status = 200) {
  return reply
    .code(status)
    .type('text/html; charset=utf-8')
    .header('content-security-policy', PAGE_CSP)
    .header('referrer-policy', 'no-referrer')
    .header('x-frame-options', 'DENY')
    .send(body);
}

type Form = Record<string, string | undefined>;

export function formFields(body: unknown): Form {
  const out: Form = {};
  if (body === null || typeof body !== 'object' || Array.isArray(body)) return out;
  for (const [k, v] of Object.entries(body)) if (typeof v === 'string') out[k] = v;
  return out;
}

/** The account page: server-rendered forms, no scripts; every action goes through core. */
export async function webRoutes(app: FastifyInstance, ctx: AppContext) {
  const { platform } = ctx;
  await app.register(formbody);
  // A form is flat strings; anything else that arrives (no body, JSON, arrays) is read as an empty
  // or string-only form, so a handler never meets a value it cannot read.
  app.addHook('preValidation', async (req) => {
    if (req.method === 'POST') req.body = formFields(req.body);
  });
  await adminWebRoutes(app, ctx);
  const { ownerSessions, accounts, keys, topUps } = platform.services;
  const secure = platform.config.baseUrl.startsWith('https:');

  app.get('/assets/site.css', async (_req, reply) =>
    reply.type('text/css; charset=utf-8').header('cache-control', 'public, max-age=3600').send(css),
  );

  const ownerOf = async (req: FastifyRequest) => {
    const token = req.cookies[OWNER_COOKIE];
    return token ? ownerSessions.authenticate(token) : null;
  };

  const dashboard = async (
    reply: FastifyReply,
    accountId: string,
    extra: { newKey?: string; notice?: string; error?: string } = {},
  ) =>
    html(
      reply,
      accountPage({ account: await accounts.view(accountId), keys: await keys.list(accountId), ...extra }),
    );

  app.get<{ Querystring: { token?: string } }>('/account', async (req, reply) => {
    const owner = await ownerOf(req);
    const token = req.query.token;
    if (!token) return owner ? dashboard(reply, owner) : html(reply, linkExpiredPage(), 401);
    return html(reply, proveOwnerPage({ token }));
  });

  app.post<{ Body: Form }>('/account/code', async (req, reply) => {
    const token = req.body.token ?? '';
    try {
      const sent = await ownerSessions.sendCode(token);
      return html(reply, proveOwnerPage({ token, sentTo: sent.sent_to }));
    } catch (e) {
      if (isProblem(e) && e.code === 'link_expired') return html(reply, linkExpiredPage(), 401);
      throw e;
    }
  });

  app.post<{ Body: Form }>('/account/verify', async (req, reply) => {
    const token = req.body.token ?? '';
    try {
      const s = await ownerSessions.verifyCode(token, (req.body.code ?? '').trim());
      reply.setCookie(OWNER_COOKIE, s.owner_token, {
        path: '/',
        httpOnly: true,
        sameSite: 'strict',
        secure,
        expires: new Date(s.expires_at),
      });
      return reply.redirect('/account', 303);
    } catch (e) {
      if (isProblem(e) && e.code === 'link_expired') return html(reply, linkExpiredPage(), 401);
      if (isProblem(e))
        return html(reply, proveOwnerPage({ token, sentTo: 'your address', error: e.detail }), e.status);
      throw e;
    }
  });

  const ownerAction =
    (handler: (accountId: string, body: Form) => Promise<{ newKey?: string; notice?: string }>) =>
    async (req: FastifyRequest<{ Body: Form }>, reply: FastifyReply) => {
      const owner = await ownerOf(req);
      if (!owner) return html(reply, linkExpiredPage(), 401);
      try {
        return dashboard(reply, owner, await handler(owner, req.body ?? {}));
      } catch (e) {
        if (isProblem(e)) return dashboard(reply, owner, { error: e.detail });
        throw e;
      }
    };

  app.post<{ Body: Form }>(
    '/account/top-up',
    ownerAction(async (id, body) => {
      const t = await topUps.create(id, { amount: Number(body.amount) });
      return { notice: `Added $${(t.amount / 1_000_000).toFixed(2)}.` };
    }),
  );
  app.post<{ Body: Form }>(
    '/account/keys',
    ownerAction(async (id) => ({ newKey: (await keys.createForOwner(id)).api_key })),
  );
  app.post<{ Body: Form }>(
    '/account/keys/revoke',
    ownerAction(async (id, body) => {
      await keys.revoke(id, body.id ?? '');
      return { notice: 'The key was revoked.' };
    }),
  );
  app.post('/account/sign-out', async (req, reply) => {
    const token = req.cookies[OWNER_COOKIE];
    if (token) await ownerSessions.end(token);
    reply.clearCookie(OWNER_COOKIE, { path: '/' });
    return reply.redirect('/', 303);
  });
}
