import { eq } from 'drizzle-orm';
import ipaddr from 'ipaddr.js';
import { accounts } from '../../db/schema.js';
import type { Deps } from '../context.js';
import { consume, giveBack } from '../limits/daily.js';
import { issueLink, linkMembers } from '../owner/links.js';
import { Problem } from '../problems.js';
import { newId } from '../secrets.js';
import type { Keys, Principal } from './keys.js';
import type { AccountView, CreateAccountInput } from './schemas.js';

export type AccountRow = typeof accounts.$inferSelect;

/** Sign-ups from one client address: at most `max` per fixed window of `windowSeconds`. */
export interface CreationLimit {
  max: number;
  windowSeconds: number;
}

/**
 * The subject a sign-up is counted under: an IPv4 address, or the /64 of an IPv6 address (one
 * host commonly holds a whole /64, so counting single IPv6 addresses would count nothing).
 */
export function clientSubject(ip: string): string {
  if (!ipaddr.isValid(ip)) return ip;
  const addr = ipaddr.process(ip); // ::ffff:192.0.2.1 counts as 192.0.2.1
  if (addr.kind() === 'ipv4') return addr.toString();
  const parts = (addr as ipaddr.IPv6).parts.slice(0, 4);
  return `${parts.map((p) => p.toString(16)).join(':')}::/64`;
}

/** The fixed window `at` falls in: its start and the whole seconds left until it ends (at least 1). */
export function creationWindow(at: Date, windowSeconds: number): { start: Date; retryAfter: number } {
  const ms = windowSeconds * 1000;
  const start = Math.floor(at.getTime() / ms) * ms;
  return { start: new Date(start), retryAfter: Math.max(1, Math.ceil((start + ms - at.getTime()) / 1000)) };
}

export class Accounts {
  constructor(
    private readonly deps: Deps,
    private readonly keys: Keys,
    /** Sign-ups per client address (ACCOUNT_CREATIONS_PER_IP per ACCOUNT_CREATION_WINDOW_SECONDS). */
    private readonly creationLimit: CreationLimit,
  ) {}

  /**
   * Sign-up needs no key: the account, its first key and the owner's link in one transaction.
   * With the client's address, sign-ups from one address are limited per window (429 rate_limited
   * with Retry-After until the window ends); a sign-up that fails gives its unit back.
   */
  async create(input: CreateAccountInput, ip?: string) {
    const { db, clock } = this.deps;
    if (ip === undefined) return this.insert(input);
    const limit = this.creationLimit;
    const window = creationWindow(clock.now(), limit.windowSeconds);
    // The window's start is in the subject and names the day, so one window is one counter.
    const subject = `${clientSubject(ip)}@${window.start.toISOString()}`;
    if ((await consume(db, 'account_create_ip', subject, window.start, limit.max)) === null) {
      throw new Problem('rate_limited', {
        detail: `At most ${limit.max} accounts may be created from one address in ${describeSeconds(limit.windowSeconds)}. Try again in ${window.retryAfter} seconds (Retry-After).`,
        headers: { 'retry-after': String(window.retryAfter) },
      });
    }
    try {
      return await this.insert(input);
    } catch (err) {
      await giveBack(db, 'account_create_ip', subject, window.start);
      throw err;
    }
  }

  private async insert(input: CreateAccountInput) {
    const { db, clock, baseUrl } = this.deps;
    return db.transaction(async (tx) => {
      const id = newId('acct');
      await tx.insert(accounts).values({
        id,
        name: input.name,
        email: input.email.toLowerCase(),
        createdAt: clock.now(),
      });
      const key = await this.keys.create(tx, id);
      const link = await issueLink(tx, clock, baseUrl, id);
      return { id, api_key: key.api_key, ...linkMembers(link) };
    });
  }

  async row(accountId: string): Promise<AccountRow> {
    const [row] = await this.deps.db.select().from(accounts).where(eq(accounts.id, accountId));
    if (!row || row.status === 'deleted') throw new Problem('not_found');
    return row;
  }

  /** The account as the agent and the owner see it, with a fresh account_url. */
  async view(accountId: string): Promise<AccountView> {
    const row = await this.row(accountId);
    const link = await issueLink(this.deps.db, this.deps.clock, this.deps.baseUrl, accountId);
    return {
      id: row.id,
      name: row.name,
      email: row.email,
      email_verified: row.emailVerified,
      status:
        row.status === 'banned'
          ? 'banned'
          : row.status === 'active' && !row.deletionRequestedAt
            ? 'active'
            : 'pending_deletion',
      balance: row.balance,
      strikes: row.strikes,
      card_on_file: row.cardOnFile,
      auto_recharge: {
        enabled: row.autoRechargeEnabled,
        threshold: row.autoRechargeThreshold,
        amount: row.autoRechargeAmount,
      },
      ...linkMembers(link),
    };
  }

  /** What only the owner's page shows beyond the account view. */
  async ownerDetails(accountId: string) {
    const row = await this.row(accountId);
    return {
      card: row.cardOnFile ? { brand: row.cardBrand ?? 'card', last4: row.cardLast4 ?? '' } : null,
      autoRechargeDisabledReason: row.autoRechargeDisabledReason,
      deletionRequested: row.deletionRequestedAt !== null,
    };
  }

  /** A Problem that hands the owner a fresh link. */
  async ownerProblem(
    accountId: string,
    code: 'owner_action_required' | 'insufficient_balance',
    detail: string,
  ): Promise<Problem> {
    const link = await issueLink(this.deps.db, this.deps.clock, this.deps.baseUrl, accountId);
    return new Problem(code, {
      detail,
      accountUrl: link.url,
      extra: { account_url_expires_at: link.expiresAt.toISOString() },
    });
  }

  /** An agent may turn auto-recharge off, never on. */
  async setAutoRecharge(principal: Principal, enabled: boolean): Promise<AccountView> {
    if (enabled) {
      throw await this.ownerProblem(
        principal.accountId,
        'owner_action_required',
        'Only the owner can turn auto-recharge on, on the account page. Give account_url to your human.',
      );
    }
    await this.deps.db
      .update(accounts)
      .set({ autoRechargeEnabled: false })
      .where(eq(accounts.id, principal.accountId));
    return this.view(principal.accountId);
  }

  /** Agent operations that act (post, search, webhooks) need an account in good standing. */
  assertActive(principal: Principal): void {
    assertActive(principal);
  }
}

function describeSeconds(s: number): string {
  if (s % 3600 === 0) return s === 3600 ? 'an hour' : `${s / 3600} hours`;
  if (s % 60 === 0) return s === 60 ? 'a minute' : `${s / 60} minutes`;
  return `${s} seconds`;
}

/** Agent operations that act (post, search, webhooks) need an account in good standing. */
export function assertActive(principal: Principal): void {
  if (principal.status === 'banned') {
    throw new Problem('account_banned', { detail: 'This account reached three strikes and is banned.' });
  }
}
