import { and, asc, eq, lt } from 'drizzle-orm';
import { postRevisions, posts } from '../../db/schema.js';
import type { Deps } from '../context.js';
import type { JobSender } from '../jobs.js';
import { eventRevisionOf, eventRevisionOfPost, type RevisionRow } from '../posts/revisions.js';
import { toOwn } from '../posts/views.js';
import type { SiteRebuilds } from '../sites/changes.js';
import type { SiteKind } from '../sites/sites.js';
import type { Events, PostEventType } from '../webhooks/events.js';
import { nearestEarlierPost } from './duplicates.js';
import type { ModelLifecycle } from './lifecycle.js';
import { judge, type Moderator } from './moderator.js';
import { prefilter } from './prefilter.js';
import { applyEditVerdict, applyVerdict } from './verdicts.js';

/** The `moderate` job: wait for the model, judge the post, apply the verdict once. */
export class ModerationService {
  constructor(
    private readonly deps: Deps,
    private readonly lifecycle: ModelLifecycle,
    private readonly moderator: Moderator,
    private readonly jobs: JobSender,
    private readonly events: Events,
    /** Runs after a fine commits: auto-recharge and the low-balance e-mail. */
    private readonly watch?: { afterDebit(accountId: string): Promise<void> },
    private readonly site?: SiteRebuilds,
  ) {}

  /** Safety net run by the sweep: every queued post reaches a verdict, even if its job was lost. */
  async runDue(limit = 50): Promise<number> {
    const { db } = this.deps;
    // Only posts whose job had a fair chance (a minute), so the sweep does not race the workers.
    const before = new Date(this.deps.clock.now().getTime() - 60_000);
    const queued = await db
      .select({ id: posts.id })
      .from(posts)
      .where(and(eq(posts.status, 'queued'), lt(posts.createdAt, before)))
      .orderBy(asc(posts.createdAt))
      .limit(limit);
    const edits = await db
      .select({ id: postRevisions.postId })
      .from(postRevisions)
      .where(and(eq(postRevisions.status, 'queued'), lt(postRevisions.createdAt, before)))
      .orderBy(asc(postRevisions.createdAt))
      .limit(limit);
    const due = [...queued, ...edits];
    // Asked only when something waits: asking wakes an idle model (a real server would start).
    if (due.length === 0 || (await this.lifecycle.readyIn(db)) > 0) return 0;
    let n = 0;
    for (const { id } of due) if ((await this.handle(id)) === 'done') n++;
    return n;
  }

  /**
   * The job of a post: its own verdict while it is queued, otherwise that of its queued edit (a
   * post has at most one edit waiting, so the post id names it). Edits go through the same
   * prefilter, near-duplicate check, moderator and verdict rules as posts.
   */
  async handle(postId: string): Promise<'done' | 'deferred' | 'skipped'> {
    const { db } = this.deps;
    const [row] = await db.select().from(posts).where(eq(posts.id, postId));
    if (!row) return 'skipped';
    if (row.status === 'queued') return this.moderatePost(postId);
    const [edit] = await db
      .select()
      .from(postRevisions)
      .where(and(eq(postRevisions.postId, postId), eq(postRevisions.status, 'queued')));
    return edit ? this.moderateEdit(edit) : 'skipped';
  }

  /** The model is still starting: come back when it is ready instead of holding a worker. */
  private async deferred(postId: string): Promise<boolean> {
    const { db } = this.deps;
    const wait = await this.lifecycle.readyIn(db);
    if (wait <= 0) return false;
    await this.jobs.send(
      db,
      'moderate',
      { post_id: postId },
      { startAfter: new Date(Date.now() + wait * 1000) },
    );
    return true;
  }

  private async moderateEdit(rev: RevisionRow): Promise<'done' | 'deferred' | 'skipped'> {
    const { db, clock } = this.deps;
    if (await this.deferred(rev.postId)) return 'deferred';
    const started = clock.now().getTime();
    const site = rev.site as SiteKind;
    // Compared with every other post (not its own: an edit of a story is not a copy of it).
    const nearDuplicate = await nearestEarlierPost(db, {
      site,
      accountId: rev.accountId,
      fingerprint: rev.fingerprint,
      before: rev.createdAt,
      otherThan: rev.postId,
    });
    const pf = prefilter(rev.title, rev.body, { site, nearDuplicate });
    const verdict = await judge(this.moderator, {
      id: rev.postId,
      title: rev.title,
      body: rev.body,
      prefilter: pf,
      site,
    });
    const fined = await db.transaction(async (tx) => {
      await tx
        .update(postRevisions)
        .set({ prefilter: pf as unknown as Record<string, unknown> })
        .where(eq(postRevisions.id, rev.id));
      const applied = await applyEditVerdict(tx, clock, rev.id, verdict);
      if (!applied) return null;
      await this.lifecycle.recordDecision(tx, (clock.now().getTime() - started) / 1000);
      if (applied.revision.status === 'published') {
        // The pages the old text was on (its topics may differ) and those of the new one.
        await this.site?.postChanged(tx, applied.before);
        await this.site?.postChanged(tx, applied.post);
      }
      await this.events.emitPost(
        tx,
        applied.post.accountId,
        eventFor(applied.revision.status),
        toOwn(applied.post, this.deps.baseUrl),
        { revision: eventRevisionOf(applied.revision) },
      );
      return applied.revision.status === 'rejected' && applied.revision.rejectionCategory !== 'low_quality'
        ? applied.post.accountId
        : null;
    });
    if (fined) await this.watch?.afterDebit(fined);
    return 'done';
  }

  private async moderatePost(postId: string): Promise<'done' | 'deferred' | 'skipped'> {
    const { db, clock } = this.deps;
    const [row] = await db.select().from(posts).where(eq(posts.id, postId));
    if (row?.status !== 'queued') return 'skipped';
    if (await this.deferred(postId)) return 'deferred';
    const started = clock.now().getTime();
    const site = row.site as SiteKind;
    const nearDuplicate = await nearestEarlierPost(db, {
      site,
      accountId: row.accountId,
      fingerprint: row.fingerprint,
      before: row.createdAt,
      excludeId: row.id,
    });
    const pf = prefilter(row.title, row.body, { site, nearDuplicate });
    const verdict = await judge(this.moderator, {
      id: row.id,
      title: row.title,
      body: row.body,
      prefilter: pf,
      site,
    });
    const fined = await db.transaction(async (tx) => {
      await tx
        .update(posts)
        .set({ prefilter: pf as unknown as Record<string, unknown> })
        .where(eq(posts.id, postId));
      const applied = await applyVerdict(tx, clock, postId, verdict);
      if (!applied) return null;
      await this.lifecycle.recordDecision(tx, (clock.now().getTime() - started) / 1000);
      if (applied.post.status === 'published') await this.site?.postChanged(tx, applied.post);
      await this.events.emitPost(
        tx,
        applied.post.accountId,
        eventFor(applied.post.status),
        toOwn(applied.post, this.deps.baseUrl),
        { revision: eventRevisionOfPost(applied.post) },
      );
      return applied.post.status === 'rejected' && applied.post.rejectionCategory !== 'low_quality'
        ? applied.post.accountId
        : null;
    });
    if (fined) await this.watch?.afterDebit(fined);
    return 'done';
  }
}

export function eventFor(status: string): PostEventType {
  if (status === 'published') return 'post.published';
  if (status === 'review') return 'post.review';
  if (status === 'removed') return 'post.removed';
  return 'post.rejected';
}
