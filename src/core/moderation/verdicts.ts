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
export async function applyVerdict(
  tx: Executor,
  clock: Clock,
  postId: string,
  v: Verdict,
): Promise<Applied | null> {
  const now = clock.now();
  const status = v.decision === 'publish' ? 'published' : v.decision === 'review' ? 'review' : 'rejected';
  const rejected = status === 'rejected';
  const refund = rejected && v.category === 'low_quality';
  const [row] = await tx
    .update(posts)
    .set({
      status,
      decidedAt: now,
      publishedAt: status === 'published' ? now : null,
      rejectionCategory: rejected ? (v.category ?? 'low_quality') : null,
      rejectionReason: rejected ? v.reason : null,
      refunded: refund,
      moderation: { ...v, decided_at: now.toISOString() } as unknown as Record<string, unknown>,
    })
    .where(and(eq(posts.id, postId), eq(posts.status, 'queued')))
    .returning();
  if (!row) return null;
  const banned = await settleMoney(tx, clock, row, v);
  return { post: row, banned };
}

/** A person decides a post in review (publish or reject); the same money rules apply. */
export async function decideReview(
  tx: Executor,
  clock: Clock,
  postId: string,
  v: Verdict,
): Promise<Applied | null> {
  const now = clock.now();
  const rejected = v.decision === 'reject';
  const refund = rejected && v.category === 'low_quality';
  const [row] = await tx
    .update(posts)
    .set({
      status: rejected ? 'rejected' : 'published',
      decidedAt: now,
      publishedAt: rejected ? null : now,
      rejectionCategory: rejected ? (v.category ?? 'low_quality') : null,
      rejectionReason: rejected ? v.reason : null,
      refunded: refund,
    })
    .where(and(eq(posts.id, postId), eq(posts.status, 'review')))
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
  // An abusive post costs 10x the post price in all: the fee already paid plus the rest as a fine.
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
