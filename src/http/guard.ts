import type { FastifyInstance, FastifyReply, FastifyRequest, RouteOptions } from 'fastify';
import type { Principal } from '../core/accounts/keys.js';
import { Problem } from '../core/problems.js';
import type { Actor } from '../core/staff/audit.js';
import type { Auth } from './auth.js';

/**
 * Who made the request, as the route's declaration required it. Set by the guard before any
 * handler runs; a handler reads it (through the helpers below) and never looks at a header,
 * a cookie or the URL to decide access.
 */
export type RequestPrincipal =
  | { kind: 'public' }
  | { kind: 'agent'; agent: Principal }
  | { kind: 'owner'; accountId: string; via: 'bearer' | 'cookie' }
  | { kind: 'staff'; via: 'bearer' | 'cookie'; actor: Actor };

/**
 * How a route is reached. API routes declare it with operation({ security }) (the OpenAPI
 * security requirement); pages declare `config: { access }`.
 */
export type Access =
  | 'public'
  | 'agent?'
  | 'agent'
  | 'owner'
  | 'staff'
  | 'staff-admin'
  | 'page'
  | 'owner-page'
  | 'owner-page?'
  | 'staff-page';

/** What a page that needs a session answers without one (a sign-in page, a 401 page). */
type Denied = (req: FastifyRequest, reply: FastifyReply) => unknown;

/** The access of a form page: anyone may post it, from this site only (CSRF). */
export const FORM_PAGE = { config: { access: 'page' as const } };

declare module 'fastify' {
  interface FastifyRequest {
    principal: RequestPrincipal;
  }
  interface FastifyContextConfig {
    access?: Access;
    /** The route checks the text of its body itself (MCP tool arguments): see clean-input.ts. */
    bodyTextCheckedBy?: 'mcp';
    denied?: Denied;
  }
}

type Security = Record<string, string[]>[];

/** Reads the OpenAPI security requirement a route declared into the access it needs. */
export function accessOf(security: Security | undefined): Access | undefined {
  if (!security) return undefined;
  if (security.length === 0) return 'public';
  const schemes = security.map((s) => Object.keys(s));
  const optional = schemes.some((k) => k.length === 0);
  const named = new Set(schemes.flat());
  if (named.size !== 1) throw new Error(`guard: unsupported security ${JSON.stringify(security)}`);
  const [scheme] = [...named];
  if (scheme === 'apiKey') return optional ? 'agent?' : 'agent';
  if (optional) throw new Error(`guard: only the API key may be optional (${scheme})`);
  if (scheme === 'ownerSession') return 'owner';
  if (scheme === 'adminToken')
    return security.some((s) => s.adminToken?.includes('admin')) ? 'staff-admin' : 'staff';
  throw new Error(`guard: unknown security scheme ${scheme}`);
}

const PUBLIC_PRINCIPAL: RequestPrincipal = Object.freeze({ kind: 'public' });
const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

/** Paths whose every route must declare who may call it (a route cannot forget its guard). */
const DECLARED_PREFIXES = ['/v1/', '/mcp', '/admin', '/account'];

/**
 * The one place access is enforced. Every route's declaration installs its guard when the route
 * is registered (fastify's onRoute), so a route cannot be added without one under the API and the
 * account and staff pages, and no code compares the URL: what is checked is the matched route.
 *
 * Cookie-authenticated writes also pass the CSRF rule (same-origin `Origin` or
 * `Sec-Fetch-Site: same-origin`), since a browser attaches cookies to a cross-site form post.
 */
export function installGuard(app: FastifyInstance, auth: Auth, baseUrl: string): void {
  app.decorateRequest('principal', null as never);
  const ownOrigin = new URL(baseUrl).origin;

  app.addHook('onRoute', (route: RouteOptions) => {
    const declared = accessOf((route.schema as { security?: Security } | undefined)?.security);
    const access = declared ?? route.config?.access;
    const path = route.url;
    if (!access) {
      if (DECLARED_PREFIXES.some((p) => path === p || path.startsWith(p)))
        throw new Error(`guard: ${String(route.method)} ${path} declares no access`);
      return;
    }
    const guard = guardFor(access, auth, ownOrigin, route.config?.denied);
    const existing = route.onRequest;
    route.onRequest = existing ? [guard, ...(Array.isArray(existing) ? existing : [existing])] : [guard];
  });
}

type Hook = (req: FastifyRequest, reply: FastifyReply) => Promise<unknown>;

function guardFor(access: Access, auth: Auth, ownOrigin: string, denied: Denied | undefined): Hook {
  const csrf = (req: FastifyRequest) => {
    if (!SAFE_METHODS.has(req.method)) assertSameOrigin(req, ownOrigin);
  };
  switch (access) {
    case 'public':
      return async (req) => {
        req.principal = PUBLIC_PRINCIPAL;
      };
    case 'agent?':
      return async (req) => {
        const agent = await auth.optionalAgent(req);
        req.principal = agent ? { kind: 'agent', agent } : PUBLIC_PRINCIPAL;
      };
    case 'agent':
      return async (req) => {
        req.principal = { kind: 'agent', agent: await auth.agent(req) };
      };
    case 'owner':
      return async (req) => {
        const owner = await auth.owner(req);
        if (owner.via === 'cookie') csrf(req);
        req.principal = { kind: 'owner', ...owner };
      };
    case 'staff':
    case 'staff-admin':
      return async (req) => {
        const actor = await auth.staff(req);
        if (access === 'staff-admin' && actor.role !== 'admin')
          throw new Problem('forbidden', { detail: 'Only an admin may do this; your role is moderator.' });
        req.principal = { kind: 'staff', via: 'bearer', actor };
      };
    case 'page':
      return async (req) => {
        csrf(req);
        req.principal = PUBLIC_PRINCIPAL;
      };
    case 'owner-page':
    case 'owner-page?':
      return async (req, reply) => {
        csrf(req);
        const accountId = await auth.ownerFromCookie(req);
        if (accountId) req.principal = { kind: 'owner', accountId, via: 'cookie' };
        else if (access === 'owner-page?') req.principal = PUBLIC_PRINCIPAL;
        else return deny(req, reply, denied);
      };
    case 'staff-page':
      return async (req, reply) => {
        csrf(req);
        const actor = await auth.staffFromCookie(req);
        if (!actor) return deny(req, reply, denied);
        req.principal = { kind: 'staff', via: 'cookie', actor };
      };
  }
}

async function deny(req: FastifyRequest, reply: FastifyReply, denied: Denied | undefined) {
  if (!denied) throw new Problem('unauthorized', { detail: 'Sign in first.' });
  await denied(req, reply);
  return reply;
}

/**
 * CSRF: a write carried by a cookie must come from this site. Browsers send `Origin` on every
 * cross-origin POST (and `Sec-Fetch-Site`); a request with neither is refused too, since no
 * browser form sends one without them and a client that is not a browser can use the Bearer form.
 */
export function assertSameOrigin(req: FastifyRequest, ownOrigin: string): void {
  const site = req.headers['sec-fetch-site'];
  if (site === 'same-origin') return;
  const origin = req.headers.origin;
  if (
    typeof origin === 'string' &&
    origin !== 'null' &&
    (origin === ownOrigin || origin === requestOrigin(req))
  )
    return;
  throw new Problem('forbidden', {
    detail:
      'A cookie-authenticated write must come from this site (same-origin Origin or Sec-Fetch-Site). Use the page, or send the owner token as a Bearer header.',
  });
}

/** The origin the browser addressed (scheme and Host header), for a service reached under several names. */
function requestOrigin(req: FastifyRequest): string | undefined {
  const host = req.headers.host;
  return host ? `${req.protocol}://${host}` : undefined;
}

/** The request's principal when it is of `kind`, else undefined. */
function principalOf<K extends RequestPrincipal['kind']>(
  req: FastifyRequest,
  kind: K,
): Extract<RequestPrincipal, { kind: K }> | undefined {
  const p = req.principal;
  return p?.kind === kind ? (p as Extract<RequestPrincipal, { kind: K }>) : undefined;
}

/** The principal the route's declared access guarantees; without it the route forgot that declaration (a bug). */
function declaredPrincipal<K extends RequestPrincipal['kind']>(
  req: FastifyRequest,
  kind: K,
  helper: string,
  access: string,
): Extract<RequestPrincipal, { kind: K }> {
  const p = principalOf(req, kind);
  if (!p) throw new Error(`${helper}: the route does not declare ${access}`);
  return p;
}

/** The owner of a page that also answers without a session (the account page's sign-in). */
export function optionalOwnerOf(req: FastifyRequest): string | undefined {
  return principalOf(req, 'owner')?.accountId;
}

export function agentOf(req: FastifyRequest): Principal {
  return declaredPrincipal(req, 'agent', 'agentOf', 'an API key').agent;
}

export function optionalAgentOf(req: FastifyRequest): Principal | undefined {
  return principalOf(req, 'agent')?.agent;
}

/** The staff member (or "admin-token") a staff route or console page acts for. */
export function staffOf(req: FastifyRequest): Actor {
  return declaredPrincipal(req, 'staff', 'staffOf', 'staff access').actor;
}

export function ownerOf(req: FastifyRequest): string {
  return declaredPrincipal(req, 'owner', 'ownerOf', 'an owner session').accountId;
}
