import { createHash } from 'node:crypto';
import { and, eq, lt, or } from 'drizzle-orm';
import type { Db, Executor } from '../../db/client.js';
import { idempotencyKeys } from '../../db/schema.js';
import type { Clock } from '../clock.js';
import { Problem } from '../problems.js';

export const IDEMPOTENCY_TTL_MS = 24 * 60 * 60 * 1000;
/** A claim older than this is from a process that died mid-request; it may be taken over. */
export const STALE_CLAIM_MS = 60 * 1000;
const KEY_SHAPE = /^[\x21-\x7e]{8,128}$/;

/** `replay`: the view the first request answered, as complete() stored it. */
export type Claim = { kind: 'claimed' } | { kind: 'replay'; view: unknown };

export function checkIdempotencyKey(key: string): void {
  if (!KEY_SHAPE.test(key)) {
    throw new Problem('invalid_idempotency_key', {
      detail: 'Idempotency-Key must be 8 to 128 printable ASCII characters without spaces, such as a UUID.',
    });
  }
}

/** Canonical JSON (sorted keys) so that the same body in another key order is the same request. */
export function requestHash(parts: unknown): string {
  return createHash('sha256').update(canonical(parts)).digest('hex');
}

function canonical(v: unknown): string {
  if (Array.isArray(v)) return `[${v.map(canonical).join(',')}]`;
  if (v && typeof v === 'object') {
    const o = v as Record<string, unknown>;
    return `{${Object.keys(o)
      .sort()
      .filter((k) => o[k] !== undefined)
      .map((k) => `${JSON.stringify(k)}:${canonical(o[k])}`)
      .join(',')}}`;
  }
  return JSON.stringify(v) ?? 'null';
}

/**
 * Idempotency-Key, scoped to the account, kept 24 hours. A key is claimed before the work
 * starts (so concurrent retries see 409), and its answer is stored in the same transaction
 * that charges and queues, so a charge never exists without the answer that replays it.
 *
 * The answer is the accepted view, kept as its JSON text in response_body: read back and
 * rendered again it is the first answer byte for byte (JSON.stringify of what JSON.parse read
 * from JSON.stringify's text is that text). response_status and response_headers are left empty;
 * records written before the view was kept in domain terms hold 202 and a Retry-After there, which
 * the faces render again from the view's moderation estimate.
 */
export class Idempotency {
  constructor(
    private readonly db: Db,
    private readonly clock: Clock,
  ) {}

  async claim(accountId: string, key: string, hash: string): Promise<Claim> {
    const now = this.clock.now();
    const expiresAt = new Date(now.getTime() + IDEMPOTENCY_TTL_MS);
    const inserted = await this.db
      .insert(idempotencyKeys)
      .values({ accountId, key, requestHash: hash, state: 'in_flight', createdAt: now, expiresAt })
      .onConflictDoNothing()
      .returning({ key: idempotencyKeys.key });
    if (inserted.length > 0) return { kind: 'claimed' };

    // Take over an expired record or a stale claim left by a crashed request.
    const taken = await this.db
      .update(idempotencyKeys)
      .set({
        requestHash: hash,
        state: 'in_flight',
        createdAt: now,
        expiresAt,
        responseStatus: null,
        responseBody: null,
        responseHeaders: null,
      })
      .where(
        and(
          eq(idempotencyKeys.accountId, accountId),
          eq(idempotencyKeys.key, key),
          or(
            lt(idempotencyKeys.expiresAt, now),
            and(
              eq(idempotencyKeys.state, 'in_flight'),
              lt(idempotencyKeys.createdAt, new Date(now.getTime() - STALE_CLAIM_MS)),
            ),
          ),
        ),
      )
      .returning({ key: idempotencyKeys.key });
    if (taken.length > 0) return { kind: 'claimed' };

    const [row] = await this.db
      .select()
      .from(idempotencyKeys)
      .where(and(eq(idempotencyKeys.accountId, accountId), eq(idempotencyKeys.key, key)));
    if (!row) return this.claim(accountId, key, hash); // released between our insert and select
    if (row.requestHash !== hash) {
      throw new Problem('idempotency_key_reused', {
        detail:
          'This Idempotency-Key was used with a different body in the last 24 hours; use a new key for a new post.',
      });
    }
    if (row.state === 'in_flight') {
      throw new Problem('idempotency_key_in_use', {
        detail:
          'The first request with this Idempotency-Key is still running; repeat it in a moment to get its response.',
        headers: { 'retry-after': '1' },
      });
    }
    if (row.responseBody === null) throw new Error('a done idempotency record without its answer');
    return { kind: 'replay', view: JSON.parse(row.responseBody) };
  }

  /** Stores the answer's view; call inside the transaction that did the work. */
  async complete(tx: Executor, accountId: string, key: string, view: unknown): Promise<void> {
    await tx
      .update(idempotencyKeys)
      .set({ state: 'done', responseBody: JSON.stringify(view) })
      .where(and(eq(idempotencyKeys.accountId, accountId), eq(idempotencyKeys.key, key)));
  }

  /** The request failed without effect: forget the claim so a corrected retry can run. */
  async release(accountId: string, key: string): Promise<void> {
    await this.db
      .delete(idempotencyKeys)
      .where(
        and(
          eq(idempotencyKeys.accountId, accountId),
          eq(idempotencyKeys.key, key),
          eq(idempotencyKeys.state, 'in_flight'),
        ),
      );
  }

  /**
   * Releases the claim of a request that failed. When the database itself is what failed (an
   * outage), the release is retried in the background for up to the stale-claim window, so the
   * agent's retry with the same key is served once the database is back instead of meeting
   * `idempotency_key_in_use` for a minute. Only an `in_flight` claim is deleted: if the failed
   * transaction did commit after all, its completed record stays and the retry replays it.
   */
  async releaseSoon(accountId: string, key: string): Promise<void> {
    const until = Date.now() + STALE_CLAIM_MS;
    const attempt = async (): Promise<void> => {
      try {
        await this.release(accountId, key);
      } catch {
        if (Date.now() < until) setTimeout(() => void attempt(), 1000).unref();
      }
    };
    await attempt();
  }

  async sweep(): Promise<number> {
    const r = await this.db
      .delete(idempotencyKeys)
      .where(lt(idempotencyKeys.expiresAt, this.clock.now()))
      .returning({ k: idempotencyKeys.key });
    return r.length;
  }
}
