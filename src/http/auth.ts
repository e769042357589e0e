import type { FastifyRequest } from 'fastify';
import type { Principal } from '../core/accounts/keys.js';
import { Problem } from '../core/problems.js';
import type { Actor } from '../core/staff/audit.js';
import type { Services } from '../platform.js';

export const OWNER_COOKIE = 'ap_owner';
export const ADMIN_COOKIE = 'ap_admin';

export function bearer(req: FastifyRequest): string | undefined {
  const h = req.headers.authorization;
  if (!h) return undefined;
  const m = /^Bearer\s+(\S+)\s*$/i.exec(h);
  return m ? m[1] : '';
}

const unauthorized = (detail: string) => new Problem('unauthorized', { detail });

/**
 * How each kind of caller proves who it is: API keys for agents, owner sessions for /v1/manage
 * and the account page, the admin token (API) or a staff session (console) for staff. The guard
 * (src/http/guard.ts) calls these from the route's declaration; handlers never do.
 */
export class Auth {
  constructor(private readonly services: Services) {}

  async agent(req: FastifyRequest): Promise<Principal> {
    const token = bearer(req);
    if (token === undefined) throw unauthorized('This operation needs `Authorization: Bearer <API_KEY>`.');
    const p = await this.services.keys.authenticate(token);
    if (!p) throw unauthorized('The API key is unknown or revoked.');
    return p;
  }

  /** Keyless calls are allowed; a key that is sent must be valid. */
  async optionalAgent(req: FastifyRequest): Promise<Principal | undefined> {
    return bearer(req) === undefined ? undefined : this.agent(req);
  }

  /** The owner session: `Bearer <owner_token>`, or the cookie set by the account page. */
  async owner(req: FastifyRequest): Promise<{ accountId: string; via: 'bearer' | 'cookie' }> {
    const header = bearer(req);
    const token = header ?? req.cookies?.[OWNER_COOKIE];
    if (!token)
      throw unauthorized('This needs the owner session: prove the e-mail on the account page first.');
    const accountId = await this.services.ownerSessions.authenticate(token);
    if (accountId) return { accountId, via: header === undefined ? 'cookie' : 'bearer' };
    const agent = await this.services.keys.authenticate(token);
    if (agent) {
      throw await this.services.accounts.ownerProblem(
        agent.accountId,
        'owner_action_required',
        'API keys cannot manage the account; the owner does this on the account page (account_url).',
      );
    }
    throw unauthorized('The owner session is unknown or expired; open a fresh account_url.');
  }

  /** The account page's session cookie, or null. */
  async ownerFromCookie(req: FastifyRequest): Promise<string | null> {
    const token = req.cookies?.[OWNER_COOKIE];
    return token ? this.services.ownerSessions.authenticate(token) : null;
  }

  /**
   * /v1/admin/*: `Bearer <ADMIN_TOKEN>` (acts as "admin-token") or `Bearer <staff session token>`
   * from POST /v1/staff/session (acts as that member). The console's cookie is for its pages.
   */
  async staff(req: FastifyRequest): Promise<Actor> {
    const token = bearer(req);
    const actor = token ? await this.services.staffSessions.authenticateBearer(token) : null;
    if (!actor)
      throw unauthorized('This needs `Authorization: Bearer <ADMIN_TOKEN>` or a staff session token.');
    return actor;
  }

  /** The console's session cookie: who is signed in, or null. */
  async staffFromCookie(req: FastifyRequest): Promise<Actor | null> {
    const session = req.cookies?.[ADMIN_COOKIE];
    return session ? this.services.staffSessions.authenticate(session) : null;
  }
}
