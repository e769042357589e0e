import { and, eq, gte, sql } from 'drizzle-orm';
import type { Executor } from '../../db/client.js';
import { accounts, ledger } from '../../db/schema.js';
import { PRICES } from '../pricing.js';

export type LedgerKind = (typeof ledger.$inferInsert)['kind'];

export interface LedgerEntry {
  accountId: string;
  kind: LedgerKind;
  /** Signed micro-dollars: positive credits the balance, negative debits it. */
  amount: number;
  reference?: string;
  memo?: string;
  at: Date;
  /** A debit that would take the balance below zero is refused (returns null) unless this is set. */
  allowNegative?: boolean;
}

/**
 * The only way money moves: the balance changes by a single conditional UPDATE (the row lock
 * serialises concurrent charges, and `balance + amount >= 0` makes overdraft impossible) and
 * the ledger row is written in the same transaction. Returns the new balance, or null when
 * the balance cannot pay.
 */
export async function post(tx: Executor, e: LedgerEntry): Promise<number | null> {
  const guard = e.amount < 0 && !e.allowNegative ? gte(accounts.balance, -e.amount) : sql`true`;
  const [row] = await tx
    .update(accounts)
    .set({
      balance: sql`${accounts.balance} + ${e.amount}`,
      // A credit that lets the balance pay for a post again re-arms the low-balance e-mail.
      ...(e.amount > 0
        ? {
            lowBalanceNoticeAt: sql`case when ${accounts.balance} + ${e.amount} >= ${PRICES.post} then null else ${accounts.lowBalanceNoticeAt} end`,
          }
        : {}),
    })
    .where(and(eq(accounts.id, e.accountId), guard))
    .returning({ balance: accounts.balance });
  if (!row) return null;
  await tx.insert(ledger).values({
    accountId: e.accountId,
    kind: e.kind,
    amount: e.amount,
    balanceAfter: row.balance,
    reference: e.reference ?? null,
    memo: e.memo ?? null,
    createdAt: e.at,
  });
  return row.balance;
}

/** Sum of the ledger for an account; equals the balance at all times. */
export async function ledgerSum(exec: Executor, accountId: string): Promise<number> {
  const [row] = await exec
    .select({ sum: sql<string>`coalesce(sum(${ledger.amount}), 0)` })
    .from(ledger)
    .where(eq(ledger.accountId, accountId));
  return Number(row?.sum ?? 0);
}
