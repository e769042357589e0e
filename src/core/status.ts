import { count, eq } from 'drizzle-orm';
import { posts } from '../db/schema.js';
import type { Deps } from './context.js';
import type { ModelLifecycle } from './moderation/lifecycle.js';

export interface StatusView {
  api: 'up';
  moderation: { model: 'idle' | 'starting' | 'running'; queued: number };
  time: string;
}

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
    const model = await this.lifecycle.state(db);
    return { api: 'up', moderation: { model, queued: q?.n ?? 0 }, time: clock.now().toISOString() };
  }
}
