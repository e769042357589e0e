import { sql } from 'drizzle-orm';
import { type Executor, queryRows } from '../../db/client.js';
import type { Clock } from '../clock.js';
import type { JobSender } from '../jobs.js';
import type { PostRow } from '../posts/views.js';
import type { SiteKind } from './sites.js';

/** What a post contributes to the site: enough to know which pages list it. */
export type SitePost = Pick<PostRow, 'id' | 'site' | 'topics' | 'fields' | 'country' | 'state'>;

/** Paths (URL paths, no host) of the lists every published post appears on. */
export const SHARED_PATHS = ['/', '/index.json', '/feed.xml', '/sitemap.xml'] as const;

/** The sibling site's own list of a post, if it has one: events by start time, ads by category, messages by place. */
export function siblingListPaths(p: SitePost): string[] {
  switch (p.site as SiteKind) {
    case 'events':
      return ['/upcoming', '/upcoming.json'];
    case 'classifieds': {
      const category = p.fields.category;
      return typeof category === 'string' ? [`/c/${category}`, `/c/${category}.json`] : [];
    }
    case 'messages': {
      if (!p.country) return [];
      const paths = [`/place/${p.country}`, `/place/${p.country}.json`];
      if (p.state) paths.push(`/place/${p.country}/${p.state}`, `/place/${p.country}/${p.state}.json`);
      return paths;
    }
    default:
      return [];
  }
}

/**
 * Every path a change to this post touches: its page and JSON twin, the home page, the feeds and
 * the sitemap, its topic pages and their twins, and the sibling site's list it belongs to.
 */
export function pathsForPost(p: SitePost): string[] {
  return [
    `/p/${p.id}`,
    `/p/${p.id}.json`,
    ...SHARED_PATHS,
    ...p.topics.flatMap((t) => [`/t/${t}`, `/t/${t}.json`]),
    ...siblingListPaths(p),
  ];
}

export const SITE_REBUILD_JOB = 'site-rebuild' as const;

/**
 * Asks for an incremental site rebuild in the transaction of the change that causes it (outbox):
 * the pages of a published post appear, and those of a deleted or removed one disappear, on the
 * next rebuild and never before the change commits.
 *
 * Debounced per site: the first change schedules a `site-rebuild` job `delaySeconds` later (the
 * queue's `short` policy keeps at most one waiting job per singleton key); later changes merge
 * their paths into that waiting job, so a burst of changes costs one rebuild.
 */
export class SiteRebuilds {
  constructor(
    private readonly clock: Clock,
    private readonly jobs: JobSender,
    private readonly delaySeconds: number,
  ) {}

  /** A post was published, deleted or removed. A published post that expires also rebuilds when it does. */
  async postChanged(tx: Executor, row: SitePost & Pick<PostRow, 'status' | 'visibleUntil'>): Promise<void> {
    const paths = pathsForPost(row);
    await this.request(tx, row.site as SiteKind, paths);
    if (row.status === 'published' && row.visibleUntil && row.visibleUntil > this.clock.now()) {
      // An expired ad or an ended event leaves the lists: rebuild them at that moment.
      await this.jobs.send(
        tx,
        SITE_REBUILD_JOB,
        { site: row.site as SiteKind, paths },
        { startAfter: row.visibleUntil, singletonKey: `expire:${row.id}`, ...RETRIES },
      );
    }
  }

  /** Adds `paths` to the site's waiting rebuild, or schedules one `delaySeconds` from now. */
  async request(tx: Executor, site: SiteKind, paths: string[]): Promise<void> {
    const key = `site:${site}`;
    const unique = [...new Set(paths)];
    // Two rounds at most: the waiting job can start between our insert and our merge.
    for (let attempt = 0; attempt < 3; attempt++) {
      const startAfter = new Date(this.clock.now().getTime() + this.delaySeconds * 1000);
      const id = await this.jobs.send(
        tx,
        SITE_REBUILD_JOB,
        { site, paths: unique },
        { startAfter, singletonKey: key, ...RETRIES },
      );
      if (id) return;
      const merged = await queryRows<{ id: string }>(
        tx,
        sql`update pgboss.job
               set data = jsonb_build_object(
                 'site', data->'site',
                 'paths', (select jsonb_agg(distinct p) from jsonb_array_elements_text(
                            coalesce(data->'paths', '[]'::jsonb) || ${JSON.stringify(unique)}::jsonb) as p))
             where name = ${SITE_REBUILD_JOB} and singleton_key = ${key} and state = 'created'
             returning id`,
      );
      if (merged.length > 0) return;
    }
    throw new Error(`could not schedule a site rebuild for ${site}`);
  }
}

/** A failed build (a full disk, say) is retried with backoff; nothing half-written is ever served. */
const RETRIES = { retryLimit: 10, retryDelay: 5, retryBackoff: true } as const;
