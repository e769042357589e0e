import { and, eq, isNull, lt, ne } from 'drizzle-orm';
import { accounts } from '../../db/schema.js';
import type { Deps } from '../context.js';
import type { OwnerNotices } from '../owner/notices.js';
import { PRICES } from '../pricing.js';
import type { AutoRecharge } from './auto-recharge.js';

/**
 * What happens after a charge has committed: the auto-recharge (if on and under the threshold),
 * then, if the balance still cannot pay for a post, the low-balance e-mail, sent once until a
 * credit lets the balance pay again (ledger.post re-arms it). Failures here are logged and never
 * fail the charge that already happened.
 */
export class BalanceWatch {
  constructor(
    private readonly deps: Deps,
    private readonly autoRecharge: AutoRecharge,
    private readonly notices: OwnerNotices,
  ) {}

  async afterDebit(accountId: string): Promise<void> {
    try {
      await this.autoRecharge.attempt(accountId);
    } catch (err) {
      this.deps.log.error({ err }, 'auto-recharge failed');
    }
    try {
      await this.lowBalance(accountId);
    } catch (err) {
      this.deps.log.error({ err }, 'low-balance notice failed');
    }
  }

  private async lowBalance(accountId: string): Promise<void> {
    const { db, clock } = this.deps;
    // The conditional UPDATE claims the notice: concurrent charges send it once.
    const [claimed] = await db
      .update(accounts)
      .set({ lowBalanceNoticeAt: clock.now() })
      .where(
        and(
          eq(accounts.id, accountId),
          isNull(accounts.lowBalanceNoticeAt),
          lt(accounts.balance, PRICES.post),
          ne(accounts.status, 'deleted'),
        ),
      )
      .returning();
    if (!claimed) return;
    const sent = await this.notices.lowBalance(claimed, claimed.balance);
    if (!sent)
      await db
        .update(accounts)
        .set({ lowBalanceNoticeAt: null })
        .where(and(eq(accounts.id, accountId), eq(accounts.lowBalanceNoticeAt, claimed.lowBalanceNoticeAt!)));
  }
}
