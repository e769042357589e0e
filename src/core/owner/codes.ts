import { z } from 'zod';
import { secondsToUtcMidnight } from '../clock.js';
import type { Deps } from '../context.js';
import { consume, type DailyScope, giveBack } from '../limits/daily.js';
import { isMailCapReached, MAIL_RETRY_SECONDS, type MailKind } from '../mail/mailer.js';
import { Problem } from '../problems.js';
import { hashToken, newCode, safeEqual } from '../secrets.js';

export const CODE_TTL_MS = 10 * 60 * 1000;
export const MAX_CODE_ATTEMPTS = 5;
/** The subject of the code mail: the code is only in the body. */
export const CODE_SUBJECT = 'Your agentpress sign-in code';

/** The code from the mail as a sign-in request carries it (owners and staff alike). */
export const signInCode = z.string().regex(/^\d{6}$/, 'code is the six digits from the e-mail');
/** The answer to a code request: the (masked) address the code went to, and when it expires. */
export const codeSent = z.object({ sent_to: z.string(), expires_at: z.string() });

/**
 * The e-mailed six-digit code, as owners (account page) and staff (/admin) receive it: the
 * address's daily mail cap is checked before anything changes, then the sender's daily count of
 * codes is taken, the new code's hash stored (replacing the last one), and the mail sent; a mail
 * that is not delivered gives its count back and answers 503 (or the cap's 429) with Retry-After.
 */
export async function sendSignInCode(
  deps: Deps,
  opts: {
    kind: Extract<MailKind, 'owner_code' | 'staff_code'>;
    to: string;
    /** Codes per subject per UTC day, and what counts them. */
    cap: { scope: DailyScope; subject: string; perDay: number; unit: string };
    /** The sentence after the code: why it was sent (user-chosen text goes through quoted()). */
    context: string;
    /** Stores the code's hash and expiry as the one live code (a conditional upsert). */
    store: (codeHash: string, expiresAt: Date) => Promise<void>;
  },
): Promise<{ expires_at: string }> {
  const { db, clock, mailer, log } = deps;
  const now = clock.now();
  // Past the address's daily mail cap nothing changes: the last code sent stays the live one.
  await mailer.check?.(opts.to);
  const { scope, subject, perDay, unit } = opts.cap;
  if ((await consume(db, scope, subject, now, perDay)) === null)
    throw new Problem('rate_limited', {
      detail: `At most ${perDay} codes per ${unit} per UTC day. Use the last code sent, or try again after 00:00 UTC.`,
      headers: { 'retry-after': String(secondsToUtcMidnight(now)) },
    });
  const code = newCode();
  const expiresAt = new Date(now.getTime() + CODE_TTL_MS);
  await opts.store(hashToken(code), expiresAt);
  try {
    await mailer.send({
      kind: opts.kind,
      to: opts.to,
      // Never the code: a subject is shown in notifications and lists, and may be logged.
      subject: CODE_SUBJECT,
      // The code comes first: nothing a user chose (a quoted name) precedes it.
      text: [
        `Your one-time code is ${code}. It expires in ${CODE_TTL_MS / 60_000} minutes.`,
        '',
        opts.context,
        '',
        'If that was not you, ignore this message: nothing happens without the code.',
      ].join('\n'),
    });
  } catch (err) {
    await giveBack(db, scope, subject, now); // not delivered: not counted
    if (isMailCapReached(err)) throw err; // 429 with Retry-After: the address had its mail today
    log.warn({ err }, `${opts.kind}: mail not sent`);
    throw new Problem('service_unavailable', {
      detail: 'The code could not be e-mailed just now. Request a new code in a minute.',
      headers: { 'retry-after': String(MAIL_RETRY_SECONDS) },
      cause: err,
    });
  }
  return { expires_at: expiresAt.toISOString() };
}

/** A stored code (owner_challenges, staff_challenges). */
export interface CodeChallenge {
  codeHash: string;
  attempts: number;
  expiresAt: Date;
  usedAt: Date | null;
}

/**
 * The rule of a code check, after the caller spent one attempt in a conditional UPDATE (live,
 * unused, under MAX_CODE_ATTEMPTS; so concurrent guesses cannot get more tries): no row spent
 * means too many attempts, a used code or none; a wrong code is invalid_code. Answers the
 * challenge when the code matches.
 */
export async function checkCode(
  code: string,
  now: Date,
  spent: CodeChallenge | undefined,
  current: () => Promise<CodeChallenge | undefined>,
  noLiveCode: string,
): Promise<CodeChallenge> {
  if (!spent) {
    const c = await current();
    if (c && !c.usedAt && c.expiresAt > now && c.attempts >= MAX_CODE_ATTEMPTS)
      throw new Problem('too_many_attempts');
    throw new Problem('invalid_code', { detail: c?.usedAt ? 'This code was already used.' : noLiveCode });
  }
  if (!safeEqual(spent.codeHash, hashToken(code))) throw new Problem('invalid_code');
  return spent;
}
