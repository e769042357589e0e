import { and, desc, eq, gt, inArray, isNotNull, lte, ne, or, sql } from 'drizzle-orm';
import { z } from 'zod';
import type { Executor } from '../../db/client.js';
import { accounts, posts, reports, reviewClaims } from '../../db/schema.js';
import type { Clock } from '../clock.js';
import type { RejectionCategory } from '../moderation/moderator.js';
import { POLICY } from '../policy/document.js';
import { Problem } from '../problems.js';
import type { Actor } from './audit.js';

/** How long opening an item holds it for its reviewer (renewed by opening it again). */
export const CLAIM_TTL_MS = 10 * 60 * 1000;

/** Abuse categories first (the policy's order), low_quality last: it refunds and never strikes. */
const decisionCategories: RejectionCategory[] = [...POLICY.abuse.map((c) => c.id), 'low_quality'];
export const DECISION_CATEGORIES = decisionCategories as [RejectionCategory, ...RejectionCategory[]];

export const claimView = z.object({
  post_id: z.string(),
  claimed_by: z.string().describe('"admin-token" or a staff member id'),
  claimed_by_label: z.string(),
  expires_at: z.string(),
});
export type ClaimView = z.infer<typeof claimView>;

/**
 * Takes (or renews) the claim on a post for `actor`, in the caller's transaction: free, expired
 * (by the injected clock) or already the actor's. One conditional upsert, so of two reviewers
 * racing for an item exactly one holds it; the other gets review_claimed.
 */
export async function takeClaim(
  tx: Executor,
  clock: Clock,
  actor: Actor,
  postId: string,
  /** The post's status as the caller read it: for the refusal's wording. */
  status = 'review',
): Promise<ClaimView> {
  const now = clock.now();
  const expiresAt = new Date(now.getTime() + CLAIM_TTL_MS);
  const [row] = await tx
    .insert(reviewClaims)
    .values({ postId, actor: actor.id, actorLabel: actor.label, claimedAt: now, expiresAt })
    .onConflictDoUpdate({
      target: reviewClaims.postId,
      set: { actor: actor.id, actorLabel: actor.label, claimedAt: now, expiresAt },
      setWhere: or(eq(reviewClaims.actor, actor.id), lte(reviewClaims.expiresAt, now)),
    })
    .returning();
  if (row) return claimOf(row);
  const [held] = await tx.select().from(reviewClaims).where(eq(reviewClaims.postId, postId));
  throw new Problem('review_claimed', {
    detail: !held
      ? 'Another reviewer is reviewing this post.'
      : status === 'review'
        ? `${held.actorLabel} is reviewing this post until ${held.expiresAt.toISOString()}.`
        : `${held.actorLabel} has decided this post: it is ${status} now.`,
  });
}

const claimOf = (r: typeof reviewClaims.$inferSelect): ClaimView => ({
  post_id: r.postId,
  claimed_by: r.actor,
  claimed_by_label: r.actorLabel,
  expires_at: r.expiresAt.toISOString(),
});

/** The live claims on these posts, by post id. */
export async function liveClaims(
  exec: Executor,
  clock: Clock,
  postIds: string[],
): Promise<Map<string, ClaimView>> {
  if (postIds.length === 0) return new Map();
  const rows = await exec
    .select()
    .from(reviewClaims)
    .where(and(inArray(reviewClaims.postId, postIds), gt(reviewClaims.expiresAt, clock.now())));
  return new Map(rows.map((r) => [r.postId, claimOf(r)]));
}

// ---------------------------------------------------------------------------------------------
// What the reviewer sees: the flagged paragraph and quoted evidence, the preset category.

export const evidenceView = z.object({
  suspected_category: z.string().nullable(),
  preset_category: z.string().nullable().describe('The category the decision form starts at'),
  flagged_paragraphs: z.array(z.number().int()).describe('0-based indices into paragraphs'),
  quotes: z.array(z.string()),
  paragraphs: z
    .array(z.array(z.object({ text: z.string(), mark: z.boolean() })))
    .describe('The body by paragraph, each split into segments; mark: the segment is quoted evidence'),
});
export type EvidenceView = z.infer<typeof evidenceView>;

interface ModerationRecord {
  category?: string;
  details?: {
    triage?: { paragraph?: number; excerpt?: string }[];
    classifier?: { worst?: { from?: number; to?: number } | null };
    evidence?: { quote?: string }[];
  };
}

const ABUSE = new Set<string>(POLICY.abuse.map((c) => c.id));
export const splitParagraphs = (body: string) => body.split(/\n\s*\n/).map((p) => p.trim());

/**
 * Reads the moderation record on a post (src/core/moderation: the verdict with its details) into
 * what the reviewer is shown. The preset category is the suspected one when it is a category a
 * person can decide; a suspected abuse is never preset to low_quality, and with no suspicion
 * nothing is preset (the reviewer must pick).
 */
export function evidenceOf(body: string, moderation: Record<string, unknown> | null): EvidenceView {
  const m = (moderation ?? {}) as ModerationRecord;
  const paragraphs = splitParagraphs(body);
  const flagged = new Set<number>();
  const quotes: string[] = [];
  for (const t of m.details?.triage ?? []) {
    if (typeof t.paragraph === 'number') flagged.add(t.paragraph);
    // The triage excerpt is the paragraph's opening words, cut with an ellipsis when long.
    if (typeof t.excerpt === 'string') quotes.push(t.excerpt.replace(/…$/, ''));
  }
  const worst = m.details?.classifier?.worst;
  if (worst && typeof worst.from === 'number' && typeof worst.to === 'number')
    for (let i = worst.from; i <= worst.to && i < paragraphs.length; i++) flagged.add(i);
  for (const e of m.details?.evidence ?? []) if (typeof e.quote === 'string') quotes.push(e.quote);
  const usable = [...new Set(quotes.map((q) => q.trim()).filter((q) => q.length >= 3))];
  const segments = paragraphs.map((p, i) => {
    const marked = markQuotes(p, usable);
    if (marked.some((s) => s.mark)) flagged.add(i);
    return marked;
  });
  const suspected = typeof m.category === 'string' ? m.category : null;
  const preset =
    suspected && ABUSE.has(suspected) ? suspected : suspected === 'low_quality' ? 'low_quality' : null;
  return {
    suspected_category: suspected,
    preset_category: preset,
    flagged_paragraphs: [...flagged].filter((i) => i < paragraphs.length).sort((a, b) => a - b),
    quotes: usable,
    paragraphs: segments,
  };
}

/** Splits a paragraph into segments, marking every occurrence of a quote (whitespace-insensitive). */
export function markQuotes(paragraph: string, quotes: string[]): { text: string; mark: boolean }[] {
  const ranges: [number, number][] = [];
  for (const q of quotes) {
    const pattern = q
      .split(/\s+/)
      .map((w) => w.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'))
      .join('\\s+');
    for (const m of paragraph.matchAll(new RegExp(pattern, 'g')))
      ranges.push([m.index, m.index + m[0].length]);
  }
  ranges.sort((a, b) => a[0] - b[0]);
  const merged: [number, number][] = [];
  for (const r of ranges) {
    const last = merged[merged.length - 1];
    if (last && r[0] <= last[1]) last[1] = Math.max(last[1], r[1]);
    else merged.push([...r]);
  }
  const out: { text: string; mark: boolean }[] = [];
  let at = 0;
  for (const [from, to] of merged) {
    if (from > at) out.push({ text: paragraph.slice(at, from), mark: false });
    out.push({ text: paragraph.slice(from, to), mark: true });
    at = to;
  }
  if (at < paragraph.length || out.length === 0) out.push({ text: paragraph.slice(at), mark: false });
  return out;
}

// ---------------------------------------------------------------------------------------------
// The author's history.

export const authorHistory = z.object({
  account_id: z.string(),
  status: z.string(),
  strikes: z.number().int(),
  verdicts: z.array(
    z.object({
      post_id: z.string(),
      title: z.string().nullable(),
      status: z.string(),
      category: z.string().nullable(),
      decided_at: z.string().nullable(),
    }),
  ),
  reports: z.object({
    total: z.number().int(),
    recent: z.array(
      z.object({
        id: z.string(),
        post_id: z.string(),
        category: z.string(),
        status: z.string(),
        created_at: z.string(),
      }),
    ),
  }),
});
export type AuthorHistory = z.infer<typeof authorHistory>;

export const HISTORY_ITEMS = 10;

/** The author's strikes and status, earlier verdicts (newest first) and reports against their posts. */
export async function historyOf(
  exec: Executor,
  accountId: string,
  exceptPost: string,
): Promise<AuthorHistory> {
  const [acct] = await exec
    .select({ status: accounts.status, strikes: accounts.strikes })
    .from(accounts)
    .where(eq(accounts.id, accountId));
  const verdicts = await exec
    .select({
      id: posts.id,
      title: posts.title,
      status: posts.status,
      category: posts.rejectionCategory,
      decidedAt: posts.decidedAt,
    })
    .from(posts)
    .where(and(eq(posts.accountId, accountId), ne(posts.id, exceptPost), isNotNull(posts.decidedAt)))
    .orderBy(desc(posts.decidedAt))
    .limit(HISTORY_ITEMS);
  const own = exec.select({ id: posts.id }).from(posts).where(eq(posts.accountId, accountId));
  const [{ total } = { total: 0 }] = await exec
    .select({ total: sql<number>`count(*)::int` })
    .from(reports)
    .where(inArray(reports.postId, own));
  const recent = await exec
    .select()
    .from(reports)
    .where(inArray(reports.postId, own))
    .orderBy(desc(reports.createdAt))
    .limit(HISTORY_ITEMS);
  return {
    account_id: accountId,
    status: acct?.status ?? 'deleted',
    strikes: acct?.strikes ?? 0,
    verdicts: verdicts.map((v) => ({
      post_id: v.id,
      title: v.title,
      status: v.status,
      category: v.category,
      decided_at: v.decidedAt?.toISOString() ?? null,
    })),
    reports: {
      total: Number(total),
      recent: recent.map((r) => ({
        id: r.id,
        post_id: r.postId,
        category: r.category,
        status: r.status,
        created_at: r.createdAt.toISOString(),
      })),
    },
  };
}
