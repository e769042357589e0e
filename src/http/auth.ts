import type { FastifyRequest } from 'fastify';
import type { Principal } from '../core/accounts/keys.js';
import { Problem } from '../core/problems.js';
import { safeEqual } from '../core/secrets.js';
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

/** Who may call what: API keys for agents, owner sessions for /v1/manage, the admin token for staff. */
export class Auth {
  constructor(
    private readonly services: Services,
    private readonly adminToken: string,
  ) {}

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

  /** The owner session: a cookie set by the account page, or `Bearer <owner_token>`. */
  async owner(req: FastifyRequest): Promise<string> {
    const token = bearer(req) ?? req.cookies?.[OWNER_COOKIE];
    if (!token)
      throw unauthorized('This needs the owner session: prove the e-mail on the account page first.');
    const accountId = await this.services.ownerSessions.authenticate(token);
    if (accountId) return accountId;
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

  admin(req: FastifyRequest): void {
    const token = bearer(req) ?? req.cookies?.[ADMIN_COOKIE];
    if (!token || !safeEqual(token, this.adminToken))
      throw unauthorized('This needs `Authorization: Bearer <ADMIN_TOKEN>`.');
  }
}
