import { and, eq, gt, isNull, or, sql } from 'drizzle-orm';
import { z } from 'zod';
import { posts } from '../../db/schema.js';
import type { Accounts } from '../accounts/accounts.js';
import { MAX_KEYS, type Principal } from '../accounts/keys.js';
import { post as ledgerPost } from '../billing/ledger.js';
import { secondsToUtcMidnight } from '../clock.js';
import type { Deps } from '../context.js';
import { consume, giveBack } from '../limits/daily.js';
import { topicSlug } from '../posts/bodies.js';
import { type PublicPost, publicPost, toPublic } from '../posts/views.js';
import { PRICES } from '../pricing.js';
import { Problem } from '../problems.js';
import { countryCode, subdivisionCode } from '../sites/place.js';
import type { SiteKind } from '../sites/sites.js';
import { invalidCursor, line, pageOf } from '../validation.js';

export const searchQuery = z.strictObject({
  q: line().trim().min(1, 'q is the text to search for').max(200),
  state: subdivisionCode.optional(),
  country: countryCode.optional(),
  topic: topicSlug.optional(),
  limit: z.coerce.number().int().min(1).max(100).default(20),
  cursor: z.string().max(40).optional(),
});
export type SearchQuery = z.infer<typeof searchQuery>;

/** GET /v1/search and the MCP tool search_posts. */
export const searchResponse = pageOf(publicPost.extend({ rank: z.number() })).extend({
  charged: z.number().int().describe('micro-dollars this search cost (0 within the free allowance)'),
});

export const WINDOW_SECONDS = 86_400;

/**
 * Free keyed searches of one account per UTC day, all its keys together: as many as the most
 * keys it may hold could use, so revoking and creating keys cannot reset the allowance.
 */
export const FREE_SEARCHES_PER_ACCOUNT_PER_DAY = MAX_KEYS * PRICES.free_searches_per_day;

export interface SearchLimits {
  /** Free keyed searches per account per UTC day (SEARCH_FREE_PER_ACCOUNT_PER_DAY). */
  freePerAccount: number;
}

export interface Allowance {
  /** The daily allowance of the policy: 100 with a key, 20 per IP without. */
  limit: number;
  /** With a key: the smaller of what the key and what its account have left today. */
  remaining: number;
  resetSeconds: number;
}

export interface SearchResult {
  data: (PublicPost & { rank: number })[];
  next_cursor: string | null;
  /** What this search cost: 0 while the free allowance lasts, then the search price. */
  charged: number;
  allowance: Allowance;
}

/** A keyed search: free or paid (with what is left free), or refused because the balance cannot pay. */
type Metered = { charged: number; remaining: number } | { unpaid: 'key' | 'account' };

/** The RateLimit headers (IETF draft, structured fields) for an allowance. */
export function rateLimitHeaders(a: Allowance): Record<string, string> {
  return {
    'ratelimit-policy': `"search";q=${a.limit};w=${WINDOW_SECONDS}`,
    ratelimit: `"search";r=${a.remaining};t=${a.resetSeconds}`,
  };
}

/**
 * Search is the one read that costs money. Allowances are counted per UTC day in the database
 * (shared by every process and site, and with the MCP search_posts tool): 100 free per API key
 * and at most FREE_SEARCHES_PER_ACCOUNT_PER_DAY free for all the keys of an account together,
 * then PRICES.search each from the balance; 20 per IP address without a key, then 429.
 */
export class Search {
  private readonly freePerAccount: number;

  constructor(
    private readonly deps: Deps,
    private readonly accounts: Accounts,
    /** Runs after a search fee commits: auto-recharge and the low-balance e-mail. */
    private readonly watch?: { afterDebit(accountId: string): Promise<void> },
    limits: Partial<SearchLimits> = {},
  ) {
    this.freePerAccount = limits.freePerAccount ?? FREE_SEARCHES_PER_ACCOUNT_PER_DAY;
  }

  async search(
    site: SiteKind,
    query: SearchQuery,
    caller: { principal?: Principal | undefined; ip: string },
  ): Promise<SearchResult> {
    const { db, clock } = this.deps;
    const now = clock.now();
    const resetSeconds = secondsToUtcMidnight(now);
    let charged = 0;
    let allowance: Allowance;
    if (caller.principal) {
      const p = caller.principal;
      this.accounts.assertActive(p);
      const limit = PRICES.free_searches_per_day;
      const perAccount = this.freePerAccount;
      // One transaction takes a unit of the key's allowance, then one of the account's (always in
      // this order, so concurrent searches of one account queue on the account's counter and
      // never deadlock); each upsert only counts while under its limit, so neither is exceeded.
      const metered = await db.transaction(async (tx): Promise<Metered> => {
        const byKey = await consume(tx, 'search_key', p.keyId, now, limit);
        if (byKey !== null) {
          const byAccount = await consume(tx, 'search_account', p.accountId, now, perAccount);
          if (byAccount !== null)
            return { charged: 0, remaining: Math.min(limit - byKey, perAccount - byAccount) };
          // The account's free searches are used: this one is paid, so the key keeps its unit.
          await giveBack(tx, 'search_key', p.keyId, now);
        }
        const balance = await ledgerPost(tx, {
          accountId: p.accountId,
          kind: 'search_fee',
          amount: -PRICES.search,
          memo: 'search',
          at: now,
        });
        if (balance === null) return { unpaid: byKey === null ? 'key' : 'account' };
        return { charged: PRICES.search, remaining: 0 };
      });
      allowance = { limit, remaining: 'unpaid' in metered ? 0 : metered.remaining, resetSeconds };
      if ('unpaid' in metered) {
        const used =
          metered.unpaid === 'account'
            ? `The ${perAccount} free searches of today of this account (all its keys together) are used`
            : `The ${limit} free searches of today of this key are used`;
        const problem = await this.accounts.ownerProblem(
          p.accountId,
          'insufficient_balance',
          `${used} and a search costs ${PRICES.search} micro-dollars, which the balance cannot pay. Give account_url to your human to top up, or wait until 00:00 UTC.`,
        );
        Object.assign(problem.headers, rateLimitHeaders(allowance));
        throw problem;
      }
      charged = metered.charged;
      if (charged > 0) await this.watch?.afterDebit(p.accountId);
    } else {
      const limit = PRICES.free_keyless_searches_per_day;
      const n = await consume(db, 'search_ip', caller.ip, now, limit);
      allowance = { limit, remaining: n === null ? 0 : limit - n, resetSeconds };
      if (n === null) {
        throw new Problem('search_allowance_exhausted', {
          detail: `Searches without a key are limited to ${limit} per IP address per UTC day. Retry after 00:00 UTC, or search with an API key (${PRICES.free_searches_per_day} free per day).`,
          headers: { 'retry-after': String(resetSeconds), ...rateLimitHeaders(allowance) },
        });
      }
    }
    return { ...(await this.query(site, query)), charged, allowance };
  }

  /** Ranked full-text search over published posts of a site (websearch syntax: "quotes", or, -not). */
  async query(
    site: SiteKind,
    q: SearchQuery,
  ): Promise<{ data: (PublicPost & { rank: number })[]; next_cursor: string | null }> {
    const { db, clock, baseUrl } = this.deps;
    const offset = q.cursor ? decodeOffset(q.cursor) : 0;
    const tsq = sql`websearch_to_tsquery('english', ${q.q})`;
    const rank = sql<number>`ts_rank_cd(posts.search, ${tsq})`;
    const rows = await db
      .select({ post: posts, rank })
      .from(posts)
      .where(
        and(
          eq(posts.site, site),
          eq(posts.status, 'published'),
          sql`posts.search @@ ${tsq}`,
          or(isNull(posts.visibleUntil), gt(posts.visibleUntil, clock.now())),
          q.state ? eq(posts.state, q.state) : undefined,
          q.country ? eq(posts.country, q.country) : undefined,
          q.topic ? sql`${posts.topics} @> ${JSON.stringify([q.topic])}::jsonb` : undefined,
        ),
      )
      .orderBy(sql`${rank} desc`, sql`${posts.publishedAt} desc`, posts.id)
      .limit(q.limit + 1)
      .offset(offset);
    const page = rows.slice(0, q.limit);
    return {
      data: page.map((r) => ({ ...toPublic(r.post, baseUrl), rank: Math.round(Number(r.rank) * 1e4) / 1e4 })),
      next_cursor: rows.length > q.limit ? Buffer.from(`o:${offset + q.limit}`).toString('base64url') : null,
    };
  }
}

function decodeOffset(cursor: string): number {
  const m = /^o:(\d{1,6})$/.exec(Buffer.from(cursor, 'base64url').toString());
  if (!m) {
    throw invalidCursor();
  }
  return Number(m[1]);
}
