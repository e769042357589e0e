import type { Executor } from '../../db/client.js';
import { eventRevisionOf, eventRevisionOfPost } from '../posts/revisions.js';
import { type PostRow, toOwn } from '../posts/views.js';
import type { SiteRebuilds } from '../sites/changes.js';
import type { Events, PostEventType } from '../webhooks/events.js';
import type { AppliedEdit } from './verdicts.js';

/** What announcing a decision needs: the events outbox, the site's rebuild queue, the base URL. */
export interface Announcer {
  readonly events: Events;
  readonly site?: SiteRebuilds | undefined;
  readonly baseUrl: string;
}

export function eventFor(status: string): PostEventType {
  if (status === 'published') return 'post.published';
  if (status === 'review') return 'post.review';
  if (status === 'removed') return 'post.removed';
  return 'post.rejected';
}

/**
 * A decision on a post itself (the model's, a person's, a removal, a reversal), in the caller's
 * transaction: its post.* event with the revision it decides, and a rebuild of its pages when it
 * is on the site now or just left it.
 */
export async function announcePost(tx: Executor, a: Announcer, post: PostRow): Promise<void> {
  await a.events.emitPost(tx, post.accountId, eventFor(post.status), toOwn(post, a.baseUrl), {
    revision: eventRevisionOfPost(post),
  });
  if (post.status === 'published' || post.status === 'removed') await a.site?.postChanged(tx, post);
}

/**
 * A decision on an edit: the post.* event names the edit's revision (`post` is what the public
 * sees now); a published edit rebuilds the pages of the old text (its topics may differ) and of
 * the new one.
 */
export async function announceEdit(tx: Executor, a: Announcer, applied: AppliedEdit): Promise<void> {
  await a.events.emitPost(
    tx,
    applied.post.accountId,
    eventFor(applied.revision.status),
    toOwn(applied.post, a.baseUrl),
    { revision: eventRevisionOf(applied.revision) },
  );
  if (applied.revision.status === 'published') {
    await a.site?.postChanged(tx, applied.before);
    await a.site?.postChanged(tx, applied.post);
  }
}

/** A rejection that fined the account (abuse, not low quality): its balance watch runs after commit. */
export function fined(d: { status: string; rejectionCategory: string | null }): boolean {
  return d.status === 'rejected' && d.rejectionCategory !== 'low_quality';
}
