import { eq } from 'drizzle-orm';
import { afterEach, expect } from 'vitest';
import { ledgerSum } from '../../src/core/billing/ledger.js';
import type { Db } from '../../src/db/client.js';
import { accounts } from '../../src/db/schema.js';
import { newAccount, ownerToken, type TestAccount } from './flows.js';
import type { TestEnv } from './harness.js';

export type OwnedAccount = TestAccount & { owner: string };

/** The money invariant: the sum of the account's ledger rows equals its balance. Answers the account row. */
export async function expectLedgerMatchesBalance(db: Db, accountId: string, message?: string) {
  const [row] = await db.select().from(accounts).where(eq(accounts.id, accountId));
  expect(await ledgerSum(db, accountId), message).toBe(row!.balance);
  return row!;
}

/**
 * Accounts with a proven owner for money tests, and the check every money test ends with: for
 * each account the test touched, the sum of its ledger rows equals its balance.
 */
export function moneyKit(getEnv: () => TestEnv) {
  const db = () => getEnv().platform.database.db;
  const row = async (id: string) => (await db().select().from(accounts).where(eq(accounts.id, id)))[0]!;
  const touched = new Set<string>();
  afterEach(async () => {
    for (const id of touched) await expectLedgerMatchesBalance(db(), id, `ledger of ${id}`);
    touched.clear();
  });
  return {
    db,
    row,
    async owned(): Promise<OwnedAccount> {
      const a = await newAccount(getEnv());
      touched.add(a.id);
      return { ...a, owner: await ownerToken(getEnv(), a) };
    },
    /** An owner route under /v1/manage, with the owner's token. */
    manage: (a: { owner: string }, method: string, path: string, body?: unknown) =>
      getEnv().call(method, `/v1/manage${path}`, { key: a.owner, ...(body === undefined ? {} : { body }) }),
  };
}
