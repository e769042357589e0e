import { count, eq } from 'drizzle-orm';
import { posts } from '../db/schema.js';
import type { Deps } from './context.js';
import type { ModelLifecycle } from './moderation/lifecycle.js';

export class Status {
  constructor(
    private readonly deps: Deps,
    private readonly lifecycle: ModelLifecycle,
  ) {}

  async current() {
    const { db, clock } = this.deps;
    const [q] = await db.select({ n: count() }).from(posts).where(eq(posts.status, 'queued'));
    const model = await this.lifecycle.state(db);
    return { api: 'up' as const, moderation: { model, queued: q?.n ?? 0 }, time: clock.now().toISOString() };
  }
}
