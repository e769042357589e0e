import { sql } from 'drizzle-orm';
import { type Executor, queryRows } from '../../db/client.js';
import { dailyCounters } from '../../db/schema.js';
import { utcDayStart } from '../clock.js';

export type DailyScope =
  | 'search_key'
  /** Free keyed searches of all the account's keys together: rotating keys cannot reset it. */
  | 'search_account'
  | 'search_ip'
  | 'report_ip'
  | 'relay_account'
  | 'owner_code_account'
  | 'staff_sign_in_ip'
  /** Sign-in codes e-mailed to one staff member. */
  | 'staff_code'
  /** Sign-ups per client address (an IPv6 /64); the subject carries the window, see accounts.ts. */
  | 'account_create_ip'
  /** Mail the service sends to one (lower-cased) address, every kind together. */
  | 'mail_address';

export function dayKey(at: Date): string {
  return utcDayStart(at).toISOString().slice(0, 10);
}

/**
 * Takes one unit of a daily allowance atomically: the upsert only increments while the count is
 * under the limit, so concurrent callers in any number of processes never exceed it.
 * Returns the count after this use, or null when the allowance was already used up.
 */
export async function consume(
  exec: Executor,
  scope: DailyScope,
  subject: string,
  at: Date,
  limit: number,
): Promise<number | null> {
  const rows = await queryRows<{ count: number }>(
    exec,
    sql`insert into ${dailyCounters} (scope, subject, day, count) values (${scope}, ${subject}, ${dayKey(at)}, 1)
        on conflict (scope, subject, day) do update set count = ${dailyCounters.count} + 1
        where ${dailyCounters.count} < ${limit}
        returning count`,
  );
  const n = rows[0]?.count;
  return n === undefined ? null : Number(n);
}

/** How many units were used today. */
export async function used(exec: Executor, scope: DailyScope, subject: string, at: Date): Promise<number> {
  const rows = await queryRows<{ count: number }>(
    exec,
    sql`select count from ${dailyCounters} where scope = ${scope} and subject = ${subject} and day = ${dayKey(at)}`,
  );
  return Number(rows[0]?.count ?? 0);
}

/** Gives a unit back (an operation that consumed it failed without effect). */
export async function giveBack(exec: Executor, scope: DailyScope, subject: string, at: Date): Promise<void> {
  await exec.execute(
    sql`update ${dailyCounters} set count = greatest(0, count - 1) where scope = ${scope} and subject = ${subject} and day = ${dayKey(at)}`,
  );
}
