import { count, eq } from 'drizzle-orm';
import { z } from 'zod';
import { postRevisions, posts } from '../db/schema.js';
import type { Deps } from './context.js';
import type { ModelLifecycle } from './moderation/lifecycle.js';

/** GET /v1/status and the MCP tool get_status. */
export const statusView = z
  .object({
    api: z.literal('up'),
    moderation: z.object({
      model: z.enum(['idle', 'starting', 'running']),
      queued: z.number().int().describe('posts and edits waiting for a verdict'),
    }),
    time: z.string(),
  })
  .describe('Whether the API is up, whether the moderation model runs, and how many posts wait.');
export type StatusView = z.infer<typeof statusView>;

/** GET /v1/status. Agents poll it, so one answer serves every caller for `cacheMs` (wall time). */
export class Status {
  #cached: { at: number; value: Promise<StatusView> } | undefined;

  constructor(
    private readonly deps: Deps,
    private readonly lifecycle: ModelLifecycle,
    private readonly cacheMs = 1000,
  ) {}

  current(): Promise<StatusView> {
    const now = performance.now();
    if (this.#cached && now - this.#cached.at < this.cacheMs) return this.#cached.value;
    const value = this.read();
    this.#cached = { at: now, value };
    value.catch(() => {
      this.#cached = undefined;
    });
    return value;
  }

  private async read(): Promise<StatusView> {
    const { db, clock } = this.deps;
    const [q] = await db.select({ n: count() }).from(posts).where(eq(posts.status, 'queued'));
    const [e] = await db.select({ n: count() }).from(postRevisions).where(eq(postRevisions.status, 'queued'));
    const model = await this.lifecycle.state(db);
    return {
      api: 'up',
      moderation: { model, queued: (q?.n ?? 0) + (e?.n ?? 0) },
      time: clock.now().toISOString(),
    };
  }
}
