import { and, count, desc, eq, isNull } from 'drizzle-orm';
import type { Executor } from '../../db/client.js';
import { accounts, apiKeys } from '../../db/schema.js';
import type { Deps } from '../context.js';
import { Problem } from '../problems.js';
import { hashToken, newId, newToken } from '../secrets.js';

export const MAX_KEYS = 20;
export const KEY_PREFIX = 'ap_key';

export interface Principal {
  accountId: string;
  keyId: string;
  status: (typeof accounts.$inferSelect)['status'];
  name: string;
}

export interface KeyView {
  id: string;
  prefix: string;
  created_at: string;
  revoked_at: string | null;
}

/** API keys: random, shown once, stored as a SHA-256 hash with a short visible prefix. */
export class Keys {
  constructor(private readonly deps: Deps) {}

  /** Creates a key under the account's row lock so the 20-key limit holds under concurrency. */
  async create(exec: Executor, accountId: string): Promise<{ id: string; api_key: string; prefix: string }> {
    const [locked] = await exec
      .select({ id: accounts.id })
      .from(accounts)
      .where(eq(accounts.id, accountId))
      .for('update');
    if (!locked) throw new Problem('not_found');
    const [live] = await exec
      .select({ n: count() })
      .from(apiKeys)
      .where(and(eq(apiKeys.accountId, accountId), isNull(apiKeys.revokedAt)));
    if ((live?.n ?? 0) >= MAX_KEYS) {
      throw new Problem('too_many_keys', {
        detail: `This account already holds ${MAX_KEYS} keys; revoke one first.`,
      });
    }
    const apiKey = newToken(KEY_PREFIX);
    const id = newId('key');
    const prefix = apiKey.slice(0, KEY_PREFIX.length + 7);
    await exec
      .insert(apiKeys)
      .values({ id, accountId, prefix, hash: hashToken(apiKey), createdAt: this.deps.clock.now() });
    return { id, api_key: apiKey, prefix };
  }

  async createForOwner(accountId: string) {
    return this.deps.db.transaction((tx) => this.create(tx, accountId));
  }

  async list(accountId: string): Promise<KeyView[]> {
    const rows = await this.deps.db
      .select()
      .from(apiKeys)
      .where(and(eq(apiKeys.accountId, accountId), isNull(apiKeys.revokedAt)))
      .orderBy(desc(apiKeys.createdAt), desc(apiKeys.id));
    return rows.map((k) => ({
      id: k.id,
      prefix: k.prefix,
      created_at: k.createdAt.toISOString(),
      revoked_at: k.revokedAt?.toISOString() ?? null,
    }));
  }

  async revoke(accountId: string, keyId: string): Promise<void> {
    const rows = await this.deps.db
      .update(apiKeys)
      .set({ revokedAt: this.deps.clock.now() })
      .where(and(eq(apiKeys.id, keyId), eq(apiKeys.accountId, accountId), isNull(apiKeys.revokedAt)))
      .returning({ id: apiKeys.id });
    if (rows.length === 0)
      throw new Problem('not_found', { detail: `No live key ${keyId} on this account.` });
  }

  /** The principal behind a bearer token, or null for an unknown, revoked or deleted-account key. */
  async authenticate(token: string): Promise<Principal | null> {
    if (!token.startsWith(`${KEY_PREFIX}_`)) return null;
    const [row] = await this.deps.db
      .select({
        keyId: apiKeys.id,
        accountId: apiKeys.accountId,
        status: accounts.status,
        name: accounts.name,
      })
      .from(apiKeys)
      .innerJoin(accounts, eq(accounts.id, apiKeys.accountId))
      .where(and(eq(apiKeys.hash, hashToken(token)), isNull(apiKeys.revokedAt)))
      .limit(1);
    if (!row || row.status === 'deleted') return null;
    return row;
  }
}
