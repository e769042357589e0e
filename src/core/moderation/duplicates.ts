import { and, desc, eq, inArray, isNotNull, lt, lte, ne, or } from 'drizzle-orm';
import type { Executor } from '../../db/client.js';
import { posts } from '../../db/schema.js';
import { countWords } from '../posts/text.js';
import type { SiteKind } from '../sites/sites.js';
import { fingerprint, mostSimilar } from './near-duplicate.js';

/** Texts shorter than this are not compared: too few five-word sequences to tell copies apart. */
export const NEAR_DUPLICATE_MIN_WORDS = 30;
/** How many recent posts of the site, and of the author, a new post is compared with. */
export const CORPUS_WINDOW = 1000;
export const AUTHOR_WINDOW = 200;

/** Statuses of earlier posts that count: still live or waiting. A rejected or removed post does
 *  not, so re-posting it meets the model (and a person) again instead of a refunded rejection. */
const COMPARED = ['queued', 'published', 'review'] as const;

/** The fingerprint stored with a post (posts.fingerprint), or null when the text is too short. */
export function postFingerprint(body: string): string | null {
  return countWords(body) >= NEAR_DUPLICATE_MIN_WORDS ? fingerprint(body) : null;
}

/**
 * The most similar earlier post of the same site: among the site's most recent posts and the
 * author's own, created before `before` (for a stored post, `excludeId`: ties broken by id, so
 * of two identical posts queued in the same millisecond exactly one is the duplicate). Null when
 * nothing was compared. Of equally similar posts the oldest is named (the original). An edit
 * (`otherThan`: its post) compares with every other post created before the edit.
 */
export async function nearestEarlierPost(
  db: Executor,
  q: {
    site: SiteKind;
    accountId: string;
    fingerprint: string | null;
    before: Date;
    excludeId?: string;
    /** An edit: the post being edited is left out (an edit is not a copy of its own post). */
    otherThan?: string;
  },
): Promise<{ id: string; similarity: number } | null> {
  if (!q.fingerprint) return null;
  // A stored post compares with those created before it (same instant: the lower id first); a
  // dry run with everything stored so far.
  const earlier = q.excludeId
    ? or(lt(posts.createdAt, q.before), and(eq(posts.createdAt, q.before), lt(posts.id, q.excludeId)))
    : lte(posts.createdAt, q.before);
  const base = and(
    eq(posts.site, q.site),
    inArray(posts.status, [...COMPARED]),
    isNotNull(posts.fingerprint),
    earlier,
    q.otherThan ? ne(posts.id, q.otherThan) : undefined,
  );
  const cols = { id: posts.id, fingerprint: posts.fingerprint, createdAt: posts.createdAt };
  const corpus = await db
    .select(cols)
    .from(posts)
    .where(base)
    .orderBy(desc(posts.createdAt))
    .limit(CORPUS_WINDOW);
  const own = await db
    .select(cols)
    .from(posts)
    .where(and(base, eq(posts.accountId, q.accountId)))
    .orderBy(desc(posts.createdAt))
    .limit(AUTHOR_WINDOW);
  // Oldest first, so that of equally similar posts the original is named, not an earlier copy.
  const candidates = [...corpus, ...own]
    .sort((x, y) => x.createdAt.getTime() - y.createdAt.getTime() || (x.id < y.id ? -1 : 1))
    .flatMap((c) => (c.fingerprint ? [{ id: c.id, fingerprint: c.fingerprint }] : []));
  return mostSimilar(q.fingerprint, candidates);
}
