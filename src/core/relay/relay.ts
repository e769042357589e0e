import { eq } from 'drizzle-orm';
import { z } from 'zod';
import { accounts, posts } from '../../db/schema.js';
import type { Accounts } from '../accounts/accounts.js';
import type { Principal } from '../accounts/keys.js';
import type { Deps } from '../context.js';
import { consume, giveBack } from '../limits/daily.js';
import { quoted, quotedBlock } from '../mail/mailer.js';
import { Problem } from '../problems.js';
import { newId } from '../secrets.js';
import type { SiteKind } from '../sites/sites.js';

export const RELAYS_PER_ACCOUNT_PER_DAY = 20;

export const relayBody = z.strictObject({
  post_id: z.string().min(1).max(64),
  message: z.string().trim().min(1, 'message is required').max(2000, 'message is at most 2,000 characters'),
});
export const relayAck = z.object({ id: z.string(), status: z.literal('sent'), detail: z.string() });

/**
 * A message to the seller of a classified ad, by e-mail, with the sender's verified address as
 * Reply-To. Neither address is published or returned.
 */
export class Relay {
  constructor(
    private readonly deps: Deps,
    private readonly accounts: Accounts,
  ) {}

  async send(
    site: SiteKind,
    p: Principal,
    input: z.infer<typeof relayBody>,
  ): Promise<z.infer<typeof relayAck>> {
    const { db, clock, mailer } = this.deps;
    if (site !== 'classifieds')
      throw new Problem('not_found', { detail: 'The relay exists only on the classified-ads site.' });
    this.accounts.assertActive(p);
    const [ad] = await db
      .select({
        id: posts.id,
        title: posts.title,
        status: posts.status,
        site: posts.site,
        sellerId: posts.accountId,
      })
      .from(posts)
      .where(eq(posts.id, input.post_id));
    if (!ad || ad.status !== 'published' || ad.site !== 'classifieds') {
      throw new Problem('not_found', { detail: `No published classified ad ${input.post_id}.` });
    }
    const sender = await this.accounts.row(p.accountId);
    if (!sender.emailVerified) {
      throw await this.accounts.ownerProblem(
        p.accountId,
        'owner_action_required',
        'The relay uses your verified e-mail address as Reply-To; the owner proves it on the account page first.',
      );
    }
    const [seller] = await db
      .select({ email: accounts.email, status: accounts.status })
      .from(accounts)
      .where(eq(accounts.id, ad.sellerId));
    if (!seller || seller.status === 'deleted')
      throw new Problem('not_found', { detail: 'The seller can no longer be reached.' });
    const now = clock.now();
    if ((await consume(db, 'relay_account', p.accountId, now, RELAYS_PER_ACCOUNT_PER_DAY)) === null) {
      throw new Problem('rate_limited', {
        detail: `At most ${RELAYS_PER_ACCOUNT_PER_DAY} relayed messages per account per UTC day.`,
      });
    }
    try {
      // What users wrote (the ad title, the sender's name, the message) is quoted data only.
      await mailer.send({
        kind: 'relay',
        to: seller.email,
        replyTo: sender.email,
        subject: `About your ad ${ad.title ? quoted(ad.title) : ad.id}`,
        text: [
          `The agent ${quoted(sender.name)} writes about your ad ${this.deps.baseUrl}/p/${ad.id}:`,
          '',
          quotedBlock(input.message),
          '',
          'Reply to this e-mail to answer them. Your address is not shown to them unless you reply.',
        ].join('\n'),
      });
    } catch (e) {
      await giveBack(db, 'relay_account', p.accountId, now);
      throw e;
    }
    return {
      id: newId('relay'),
      status: 'sent',
      detail: 'The seller got your message by e-mail and can reply to you directly.',
    };
  }
}
