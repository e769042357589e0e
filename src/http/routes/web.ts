import { readFileSync } from 'node:fs';
import formbody from '@fastify/formbody';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { SESSION_TTL_MS } from '../../core/owner/sessions.js';
import { PRICES } from '../../core/pricing.js';
import { isProblem } from '../../core/problems.js';
import { accountDeletedPage, accountPage, linkExpiredPage, proveOwnerPage } from '../../web/account-page.js';
import type { AppContext } from '../app.js';
import { OWNER_COOKIE } from '../auth.js';
import { FORM_PAGE, optionalOwnerOf, ownerOf } from '../guard.js';
import { pageHeaders } from '../page-headers.js';
import { adminWebRoutes } from './admin-web.js';

const css = readFileSync(new URL('../../web/assets/site.css', import.meta.url));

export function html(reply: FastifyReply, body: string, status = 200) {
  return pageHeaders(reply.code(status).type('text/html; charset=utf-8')).send(body);
}

type Form = Record<string, string | undefined>;
const SESSION_TTL_SECONDS = Math.floor(SESSION_TTL_MS / 1000);
interface Outcome {
  newKey?: string;
  notice?: string;
  error?: string;
  checkoutUrl?: string;
}

/** Dollars typed on the page ("5", "5.00") to whole-cent micro-dollars; NaN when it is not a number. */
const micros = (dollars: string | undefined) => Math.round(Number(dollars ?? '') * 100) * 10_000;

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
  const { ownerSessions, accounts, keys, topUps, cards, autoRecharge, history, deletion, webhooks, appeals } =
    platform.services;
  const returnUrl = `${platform.config.baseUrl}/account`;
  const secure = platform.config.baseUrl.startsWith('https:');

  app.get('/assets/site.css', async (_req, reply) =>
    reply.type('text/css; charset=utf-8').header('cache-control', 'public, max-age=3600').send(css),
  );

  /** Declared access of the account pages (enforced by the guard; CSRF-checked on POST). */
  const ownerPage = {
    config: {
      access: 'owner-page' as const,
      denied: (_req: FastifyRequest, reply: FastifyReply) => html(reply, linkExpiredPage(), 401),
    },
  };

  const dashboard = async (reply: FastifyReply, accountId: string, extra: Outcome = {}) =>
    html(
      reply,
      accountPage({
        account: await accounts.view(accountId),
        keys: await keys.list(accountId),
        ...(await accounts.ownerDetails(accountId)),
        ledger: (await history.list(accountId, { limit: 20 })).data,
        webhooks: await webhooks.overview(accountId),
        appeals: await appeals.ofAccount(accountId),
        topUpAmounts: PRICES.top_up_amounts,
        payments: platform.deps.payments.name,
        ...extra,
      }),
    );

  app.get<{ Querystring: { token?: string } }>(
    '/account',
    { config: { access: 'owner-page?' } },
    async (req, reply) => {
      const owner = optionalOwnerOf(req);
      const token = req.query.token;
      if (!token) return owner ? dashboard(reply, owner) : html(reply, linkExpiredPage(), 401);
      return html(reply, proveOwnerPage({ token }));
    },
  );

  app.post<{ Body: Form }>('/account/code', FORM_PAGE, async (req, reply) => {
    const token = req.body.token ?? '';
    try {
      const sent = await ownerSessions.sendCode(token);
      return html(reply, proveOwnerPage({ token, sentTo: sent.sent_to }));
    } catch (e) {
      if (isProblem(e) && e.code === 'link_expired') return html(reply, linkExpiredPage(), 401);
      throw e;
    }
  });

  app.post<{ Body: Form }>('/account/verify', FORM_PAGE, async (req, reply) => {
    const token = req.body.token ?? '';
    try {
      const s = await ownerSessions.verifyCode(token, (req.body.code ?? '').trim());
      reply.setCookie(OWNER_COOKIE, s.owner_token, {
        path: '/',
        httpOnly: true,
        sameSite: 'strict',
        secure,
        // Relative, so the browser judges it by its own clock (not the server's injected one).
        maxAge: SESSION_TTL_SECONDS,
      });
      return reply.redirect('/account', 303);
    } catch (e) {
      if (isProblem(e) && e.code === 'link_expired') return html(reply, linkExpiredPage(), 401);
      if (isProblem(e))
        return html(reply, proveOwnerPage({ token, sentTo: 'your address', error: e.detail }), e.status);
      throw e;
    }
  });

  const ownerAction = (path: string, handler: (accountId: string, body: Form) => Promise<Outcome>) =>
    app.post<{ Body: Form }>(path, ownerPage, async (req, reply) => {
      const owner = ownerOf(req);
      try {
        return dashboard(reply, owner, await handler(owner, req.body ?? {}));
      } catch (e) {
        if (isProblem(e)) return dashboard(reply, owner, { error: e.detail });
        throw e;
      }
    });

  ownerAction('/account/top-up', async (id, body) => {
    const t = await topUps.create(id, { amount: Number(body.amount) }, returnUrl);
    if (t.checkout_url) return { checkoutUrl: t.checkout_url, notice: 'Pay on the payment page to finish.' };
    return { notice: `Added $${(t.amount / 1_000_000).toFixed(2)}.` };
  });
  ownerAction('/account/card', async (id, body) => {
    const card = body.card?.replace(/[\s-]/g, '');
    const r = await cards.setup(id, card ? { card } : {}, returnUrl);
    if (r.status === 'redirect')
      return { checkoutUrl: r.checkout_url, notice: 'Enter the card on the payment page.' };
    return { notice: `Saved the ${r.card.brand} card ending in ${r.card.last4}.` };
  });
  ownerAction('/account/card/remove', async (id) => {
    await cards.remove(id);
    return { notice: 'The card was removed; auto-recharge is off.' };
  });
  ownerAction('/account/auto-recharge', async (id, body) => {
    const s = await autoRecharge.configure(id, {
      enabled: body.enabled === 'on',
      threshold: micros(body.threshold),
      amount: Number(body.amount),
    });
    return { notice: s.enabled ? 'Auto-recharge is on.' : 'Auto-recharge is off.' };
  });
  ownerAction('/account/deletion', async (id) => {
    await deletion.request(id);
    return { notice: 'Deletion requested: confirm below, or keep the account.' };
  });
  ownerAction('/account/deletion/cancel', async (id) => {
    await deletion.cancel(id);
    return { notice: 'The account stays: deletion was cancelled.' };
  });
  app.post<{ Body: Form }>('/account/deletion/confirm', ownerPage, async (req, reply) => {
    const owner = ownerOf(req);
    try {
      const result = await deletion.confirm(owner, { refund: req.body?.refund === 'on' });
      reply.clearCookie(OWNER_COOKIE, { path: '/' });
      return html(reply, accountDeletedPage(result));
    } catch (e) {
      if (isProblem(e)) return dashboard(reply, owner, { error: e.detail });
      throw e;
    }
  });
  ownerAction('/account/keys', async (id) => ({ newKey: (await keys.createForOwner(id)).api_key }));
  ownerAction('/account/keys/revoke', async (id, body) => {
    await keys.revoke(id, body.id ?? '');
    return { notice: 'The key was revoked.' };
  });
  app.post('/account/sign-out', FORM_PAGE, async (req, reply) => {
    const token = req.cookies[OWNER_COOKIE];
    if (token) await ownerSessions.end(token);
    reply.clearCookie(OWNER_COOKIE, { path: '/' });
    return reply.redirect('/', 303);
  });
}
