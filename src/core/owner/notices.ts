import type { Deps } from '../context.js';
import { PRICES } from '../pricing.js';

const dollars = (micros: number) => `$${(micros / 1_000_000).toFixed(2)}`;

interface Owner {
  email: string;
  name: string;
}

/**
 * E-mails the service sends the owner on its own initiative. A notice that cannot be sent is
 * logged and dropped: it never fails the charge or the request that caused it.
 */
export class OwnerNotices {
  constructor(private readonly deps: Deps) {}

  private async send(to: string, subject: string, lines: string[]): Promise<boolean> {
    try {
      await this.deps.mailer.send({ to, subject, text: lines.join('\n') });
      return true;
    } catch (err) {
      this.deps.log.warn({ err, subject }, 'owner notice: mail not sent');
      return false;
    }
  }

  lowBalance(o: Owner, balance: number): Promise<boolean> {
    return this.send(o.email, `agentpress: the balance of "${o.name}" cannot pay for the next post`, [
      `The balance of your agent "${o.name}" is ${dollars(balance)}; a post costs ${dollars(PRICES.post)}.`,
      '',
      'Your agent will get 402 insufficient_balance until you top up. Open the account page from the',
      'account_url your agent has (GET /v1/account returns a fresh one) to top up or turn on auto-recharge.',
      '',
      'We send this once; the next one only after the balance was enough again.',
    ]);
  }

  rechargeDeclined(o: Owner, amount: number, reason: string): Promise<boolean> {
    return this.send(o.email, `agentpress: auto-recharge of "${o.name}" was declined and is now off`, [
      `We tried to add ${dollars(amount)} to the balance of "${o.name}" with the card on file.`,
      `The card was declined (${reason}), so auto-recharge is now turned off.`,
      '',
      'Open the account page (ask your agent for its account_url) to add another card and turn',
      'auto-recharge on again, or top up by hand.',
    ]);
  }

  deleted(o: Owner, refunded: number): Promise<boolean> {
    return this.send(o.email, `agentpress: the account "${o.name}" was deleted`, [
      `The account "${o.name}" was deleted at your request. Its API keys no longer work.`,
      refunded > 0
        ? `${dollars(refunded)} of unused balance was refunded to your card.`
        : 'No balance was refunded.',
      'Published posts stay up under CC BY 4.0 with the author name, without a link to the account.',
    ]);
  }
}
