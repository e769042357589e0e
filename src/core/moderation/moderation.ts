import { and, asc, eq, lt } from 'drizzle-orm';
import type { Executor } from '../../db/client.js';
import { postRevisions, posts } from '../../db/schema.js';
import type { Deps } from '../context.js';
import type { JobSender } from '../jobs.js';
import type { RevisionRow } from '../posts/revisions.js';
import type { PostRow } from '../posts/views.js';
import type { SiteRebuilds } from '../sites/changes.js';
import type { SiteKind } from '../sites/sites.js';
import type { Events } from '../webhooks/events.js';
import { type Announcer, announceEdit, announcePost, fined } from './announce.js';
import { nearestEarlierPost } from './duplicates.js';
import type { ModelLifecycle } from './lifecycle.js';
import { judge, type Moderator, type Verdict } from './moderator.js';
import { type PrefilterResult, prefilter } from './prefilter.js';
import { decideEdit, decidePost } from './verdicts.js';

/** The `moderate` job: wait for the model, judge the post, apply the verdict once. */
export class ModerationService {
  readonly #announce: Announcer;

  constructor(
    private readonly deps: Deps,
    private readonly lifecycle: ModelLifecycle,
    private readonly moderator: Moderator,
    private readonly jobs: JobSender,
    events: Events,
    /** Runs after a fine commits: auto-recharge and the low-balance e-mail. */
    private readonly watch?: { afterDebit(accountId: string): Promise<void> },
    site?: SiteRebuilds,
  ) {
    this.#announce = { events, site, baseUrl: deps.baseUrl };
  }

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
    if (row.status === 'queued') return this.moderate(this.postText(row));
    const [edit] = await db
      .select()
      .from(postRevisions)
      .where(and(eq(postRevisions.postId, postId), eq(postRevisions.status, 'queued')));
    return edit ? this.moderate(this.editText(edit)) : 'skipped';
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

  /** A queued post: its verdict decides the post. */
  private postText(row: PostRow): Judged {
    return {
      postId: row.id,
      row,
      // Compared with every earlier post but itself.
      scope: { excludeId: row.id },
      apply: async (tx, pf, verdict) => {
        const applied = await decidePost(tx, this.deps.clock, row.id, verdict, 'queued', pf);
        if (!applied) return null;
        await announcePost(tx, this.#announce, applied.post);
        return { fined: fined(applied.post) };
      },
    };
  }

  /** A queued edit: its verdict decides the revision; published, it replaces the post's text. */
  private editText(rev: RevisionRow): Judged {
    return {
      postId: rev.postId,
      row: rev,
      // Compared with every other post (not its own: an edit of a story is not a copy of it).
      scope: { otherThan: rev.postId },
      apply: async (tx, pf, verdict) => {
        const applied = await decideEdit(tx, this.deps.clock, rev.id, verdict, 'queued', pf);
        if (!applied) return null;
        await announceEdit(tx, this.#announce, applied);
        return { fined: fined(applied.revision) };
      },
    };
  }

  /** One path for posts and edits: prefilter, near-duplicate check, the model, the verdict once. */
  private async moderate(j: Judged): Promise<'done' | 'deferred' | 'skipped'> {
    const { db, clock } = this.deps;
    if (await this.deferred(j.postId)) return 'deferred';
    const started = clock.now().getTime();
    const { row } = j;
    const site = row.site as SiteKind;
    const nearDuplicate = await nearestEarlierPost(db, {
      site,
      accountId: row.accountId,
      fingerprint: row.fingerprint,
      before: row.createdAt,
      ...j.scope,
    });
    const pf = prefilter(row.title, row.body, { site, nearDuplicate });
    const verdict = await judge(this.moderator, {
      id: j.postId,
      title: row.title,
      body: row.body,
      prefilter: pf,
      site,
    });
    const finedAccount = await db.transaction(async (tx) => {
      const applied = await j.apply(tx, pf, verdict);
      if (!applied) return null;
      await this.lifecycle.recordDecision(tx, (clock.now().getTime() - started) / 1000);
      return applied.fined ? row.accountId : null;
    });
    if (finedAccount) await this.watch?.afterDebit(finedAccount);
    return 'done';
  }
}

/** A text waiting for its verdict (a post or an edit) and how its verdict applies. */
interface Judged {
  postId: string;
  row: Pick<PostRow, 'site' | 'accountId' | 'title' | 'body' | 'fingerprint' | 'createdAt'>;
  scope: { excludeId: string } | { otherThan: string };
  /** Applies the verdict (with the prefilter's signals) once and announces it; null when already decided. */
  apply(tx: Executor, pf: PrefilterResult, verdict: Verdict): Promise<{ fined: boolean } | null>;
}
