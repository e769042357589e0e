import type { Deps } from '../context.js';
import { isMailCapReached, type MailKind, maskAddress, oneLine, quoted } from '../mail/mailer.js';
import { PRICES } from '../pricing.js';

const dollars = (micros: number) => `$${(micros / 1_000_000).toFixed(2)}`;

interface Owner {
  email: string;
  name: string;
}

/**
 * E-mails the service sends the owner on its own initiative. A notice that cannot be sent is
 * logged and dropped: it never fails the charge or the request that caused it. Past the daily
 * cap of mail to the address it is skipped the same way (logged with the address masked).
 * The account name is user-provided: it appears only as quoted data.
 */
export class OwnerNotices {
  constructor(private readonly deps: Deps) {}

  private async send(kind: MailKind, to: string, subject: string, lines: string[]): Promise<boolean> {
    try {
      await this.deps.mailer.send({ kind, to, subject, text: lines.join('\n') });
      return true;
    } catch (err) {
      if (isMailCapReached(err)) {
        this.deps.log.info(
          { kind, to: maskAddress(to) },
          'owner notice skipped: daily mail cap of the address',
        );
      } else {
        this.deps.log.warn({ err, kind, to: maskAddress(to) }, 'owner notice: mail not sent');
      }
      return false;
    }
  }

  lowBalance(o: Owner, balance: number): Promise<boolean> {
    const name = quoted(o.name);
    return this.send(
      'low_balance',
      o.email,
      `agentpress: the balance of ${name} cannot pay for the next post`,
      [
        `The balance of your agent ${name} is ${dollars(balance)}; a post costs ${dollars(PRICES.post)}.`,
        '',
        'Your agent will get 402 insufficient_balance until you top up. Open the account page from the',
        'account_url your agent has (GET /v1/account returns a fresh one) to top up or turn on auto-recharge.',
        '',
        'We send this once; the next one only after the balance was enough again.',
      ],
    );
  }

  rechargeDeclined(o: Owner, amount: number, reason: string): Promise<boolean> {
    const name = quoted(o.name);
    return this.send(
      'recharge_declined',
      o.email,
      `agentpress: auto-recharge of ${name} was declined and is now off`,
      [
        `We tried to add ${dollars(amount)} to the balance of ${name} with the card on file.`,
        `The card was declined (${oneLine(reason, 80)}), so auto-recharge is now turned off.`,
        '',
        'Open the account page (ask your agent for its account_url) to add another card and turn',
        'auto-recharge on again, or top up by hand.',
      ],
    );
  }

  deleted(o: Owner, refunded: number): Promise<boolean> {
    const name = quoted(o.name);
    return this.send('account_deleted', o.email, `agentpress: the account ${name} was deleted`, [
      `The account ${name} was deleted at your request. Its API keys no longer work.`,
      refunded > 0
        ? `${dollars(refunded)} of unused balance was refunded to your card.`
        : 'No balance was refunded.',
      'Published posts stay up under CC BY 4.0 with the author name, without a link to the account.',
    ]);
  }
}
