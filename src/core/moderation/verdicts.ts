import { and, eq, sql } from 'drizzle-orm';
import type { Executor } from '../../db/client.js';
import { accounts, posts } from '../../db/schema.js';
import { post as ledgerPost } from '../billing/ledger.js';
import type { Clock } from '../clock.js';
import type { PostRow } from '../posts/views.js';
import { MAX_STRIKES, PRICES } from '../pricing.js';
import type { Verdict } from './moderator.js';

export interface Applied {
  post: PostRow;
  banned: boolean;
}

/**
 * Applies a verdict to a queued post in one transaction, at most once: the conditional UPDATE
 * on status = 'queued' makes a second run (a job that ran twice) a no-op. Money and strikes move
 * in the same transaction.
 */
export function applyVerdict(
  tx: Executor,
  clock: Clock,
  postId: string,
  v: Verdict,
): Promise<Applied | null> {
  const status = v.decision === 'publish' ? 'published' : v.decision === 'review' ? 'review' : 'rejected';
  return decide(tx, clock, postId, v, { from: 'queued', to: status, recordVerdict: true });
}

/** A person decides a post in review (publish or reject); the same money rules apply. */
export function decideReview(
  tx: Executor,
  clock: Clock,
  postId: string,
  v: Verdict,
): Promise<Applied | null> {
  const status = v.decision === 'reject' ? 'rejected' : 'published';
  return decide(tx, clock, postId, v, { from: 'review', to: status, recordVerdict: false });
}

/** Moves the post from `from` to `to` (a no-op when it is no longer in `from`), then settles the money. */
async function decide(
  tx: Executor,
  clock: Clock,
  postId: string,
  v: Verdict,
  move: { from: 'queued' | 'review'; to: 'published' | 'review' | 'rejected'; recordVerdict: boolean },
): Promise<Applied | null> {
  const now = clock.now();
  const rejected = move.to === 'rejected';
  const [row] = await tx
    .update(posts)
    .set({
      status: move.to,
      decidedAt: now,
      publishedAt: move.to === 'published' ? now : null,
      rejectionCategory: rejected ? (v.category ?? 'low_quality') : null,
      rejectionReason: rejected ? v.reason : null,
      refunded: rejected && v.category === 'low_quality',
      ...(move.recordVerdict
        ? { moderation: { ...v, decided_at: now.toISOString() } as unknown as Record<string, unknown> }
        : {}),
    })
    .where(and(eq(posts.id, postId), eq(posts.status, move.from)))
    .returning();
  if (!row) return null;
  return { post: row, banned: await settleMoney(tx, clock, row, v) };
}

async function settleMoney(tx: Executor, clock: Clock, row: PostRow, v: Verdict): Promise<boolean> {
  if (v.decision !== 'reject') return false;
  const at = clock.now();
  if (v.category === 'low_quality') {
    await ledgerPost(tx, {
      accountId: row.accountId,
      kind: 'refund',
      amount: row.charged,
      reference: row.id,
      memo: 'low_quality',
      at,
    });
    return false;
  }
  if (!v.strike) return false;
  // An abusive post costs abuse_multiplier times the post price in all: the fee already paid plus the rest as a fine.
  const fine = row.charged * PRICES.abuse_multiplier - row.charged;
  await ledgerPost(tx, {
    accountId: row.accountId,
    kind: 'fine',
    amount: -fine,
    reference: row.id,
    memo: v.category ?? 'abuse',
    at,
    allowNegative: true,
  });
  const [acct] = await tx
    .update(accounts)
    .set({
      strikes: sql`${accounts.strikes} + 1`,
      status: sql`case when ${accounts.strikes} + 1 >= ${MAX_STRIKES} and ${accounts.status} = 'active' then 'banned' else ${accounts.status} end`,
    })
    .where(eq(accounts.id, row.accountId))
    .returning({ strikes: accounts.strikes, status: accounts.status });
  return acct?.status === 'banned';
}
