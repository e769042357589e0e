import { and, desc, eq, lt } from 'drizzle-orm';
import { z } from 'zod';
import { ledger } from '../../db/schema.js';
import type { Deps } from '../context.js';
import { idPage, invalidCursor, pageOf } from '../validation.js';

export const ledgerQuery = z.object({
  limit: z.coerce.number().int().min(1).max(100).default(20),
  cursor: z.string().max(40).optional(),
});

export const ledgerEntryView = z.object({
  id: z.string(),
  kind: z.string(),
  amount: z.number().int().describe('signed micro-dollars'),
  balance_after: z.number().int(),
  reference: z.string().nullable(),
  memo: z.string().nullable(),
  created_at: z.string(),
});
export const ledgerPage = pageOf(ledgerEntryView);
export type LedgerPage = z.infer<typeof ledgerPage>;

/** The account's ledger, newest first, as the owner reads it. */
export class History {
  constructor(private readonly deps: Deps) {}

  async list(accountId: string, q: { limit: number; cursor?: string | undefined }): Promise<LedgerPage> {
    let before: number | undefined;
    if (q.cursor !== undefined) {
      before = Number(q.cursor);
      if (!Number.isSafeInteger(before) || before <= 0) throw invalidCursor();
    }
    const rows = await this.deps.db
      .select()
      .from(ledger)
      .where(and(eq(ledger.accountId, accountId), before ? lt(ledger.id, before) : undefined))
      .orderBy(desc(ledger.id))
      .limit(q.limit + 1);
    return idPage(rows, q.limit, (r) => ({
      id: String(r.id),
      kind: r.kind,
      amount: r.amount,
      balance_after: r.balanceAfter,
      reference: r.reference,
      memo: r.memo,
      created_at: r.createdAt.toISOString(),
    }));
  }
}
