import { desc, eq } from 'drizzle-orm';
import nodemailer from 'nodemailer';
import { z } from 'zod';
import type { Db } from '../../db/client.js';
import { mailOutbox } from '../../db/schema.js';
import { type Clock, secondsToUtcMidnight } from '../clock.js';
import { consume, giveBack, used } from '../limits/daily.js';
import { Problem } from '../problems.js';
import { newId } from '../secrets.js';

export const MAIL_RETRY_SECONDS = 60;

/** What a mail is for: the one thing about it (with the masked address and the id) that is logged. */
export type MailKind =
  | 'owner_code'
  | 'staff_code'
  | 'staff_invite'
  | 'low_balance'
  | 'recharge_declined'
  | 'account_deleted'
  | 'relay';

export interface Mail {
  kind: MailKind;
  to: string;
  subject: string;
  text: string;
  replyTo?: string;
}

export interface Mailer {
  readonly kind: 'outbox' | 'smtp';
  send(mail: Mail): Promise<void>;
  /**
   * Throws the problem `send` would throw for `to` when the address has had its mail for today,
   * without taking a unit: a request checks before it changes anything (a new code replaces the
   * last one). Mailers without a cap do not have it.
   */
  check?(to: string): Promise<void>;
}

/** An address for a log line or an answer: the first character of the local part and the domain. */
export function maskAddress(email: string): string {
  const at = email.lastIndexOf('@');
  const local = at < 0 ? email : email.slice(0, at);
  const domain = at < 0 ? '' : email.slice(at + 1);
  return `${local.slice(0, 1)}${'*'.repeat(Math.max(1, local.length - 1))}@${domain}`;
}

/**
 * Control characters (C0, DEL, C1), format characters (bidi overrides, zero-width marks), lone
 * surrogates and the Unicode line and paragraph separators: none of these reaches a mail the
 * service writes.
 */
const UNSAFE_IN_MAIL = /[\p{Cc}\p{Cf}\p{Cs}\p{Zl}\p{Zp}]/gu;

/** Text on one line for a mail: control and format characters become spaces, white space runs one. */
export function oneLine(text: string, max = 120): string {
  const one = text.replace(UNSAFE_IN_MAIL, ' ').replace(/\s+/g, ' ').trim();
  const chars = [...one];
  return chars.length > max ? `${chars.slice(0, max - 1).join('')}…` : one;
}

/**
 * User-provided text (an account name, an ad title) as quoted data in a mail: `oneLine` inside
 * double quotes, with `"` and `\` escaped. It can neither start a new line of the mail nor a
 * header (in a subject), nor end its quotes early and pass for the service's own words.
 */
export function quoted(text: string, max = 120): string {
  return `"${oneLine(text, max).replace(/[\\"]/g, '\\$&')}"`;
}

/**
 * A user's multi-line message (the relay) as a quoted block: every line starts with "> ", so no
 * line of it can pass for the service's text; control and format characters are removed, and
 * at most two blank lines in a row are kept.
 */
export function quotedBlock(text: string): string {
  const lines = text
    .replace(/\r\n?|[\u2028\u2029\v\f\u0085]/g, '\n')
    .split('\n')
    .map((l) => l.replace(UNSAFE_IN_MAIL, ' ').replace(/\s+$/, ''));
  const kept: string[] = [];
  let blank = 0;
  for (const l of lines) {
    blank = l.trim() === '' ? blank + 1 : 0;
    if (blank <= 2) kept.push(l.trim() === '' ? '>' : `> ${l}`);
  }
  while (kept.length > 0 && kept[kept.length - 1] === '>') kept.pop();
  while (kept.length > 0 && kept[0] === '>') kept.shift();
  return kept.join('\n');
}

type Log = (msg: string) => void;

let lastMs = 0;
let seq = 0;
/**
 * Outbox ids sort in the order this process wrote them: the outbox is listed newest first by
 * created_at, and mails written within one tick of the clock (a test clock that stands still, a
 * code requested twice in a millisecond) are ordered by id, so a random id would shuffle them.
 */
export function outboxId(): string {
  const ms = Math.max(Date.now(), lastMs);
  seq = ms === lastMs ? seq + 1 : 0;
  lastMs = ms;
  return `mail_${ms.toString(36).padStart(9, '0')}${seq.toString(36).padStart(4, '0')}${newId('').slice(1)}`;
}

/**
 * Embedded default: mail is kept in the database (GET /v1/admin/outbox) and announced in the log
 * by its id, kind and masked address only: never the subject or the text (they may hold a
 * one-time code or what a user wrote), nor the full address.
 */
export class OutboxMailer implements Mailer {
  readonly kind = 'outbox';
  constructor(
    private readonly db: Db,
    private readonly clock: Clock,
    private readonly log: Log,
  ) {}

  async send(mail: Mail): Promise<void> {
    const id = outboxId();
    await this.db.insert(mailOutbox).values({
      id,
      to: mail.to.toLowerCase(),
      subject: mail.subject,
      text: mail.text,
      replyTo: mail.replyTo ?? null,
      createdAt: this.clock.now(),
    });
    this.log(`mail ${id} (${mail.kind}) to ${maskAddress(mail.to)}: read it at GET /v1/admin/outbox`);
  }
}

export class SmtpMailer implements Mailer {
  readonly kind = 'smtp';
  readonly #transport: nodemailer.Transporter;
  constructor(
    url: string,
    private readonly from: string,
  ) {
    this.#transport = nodemailer.createTransport(url);
  }

  /** A refused or unreachable mail server is a 503 with Retry-After, never a 500 with its reply. */
  async send(mail: Mail): Promise<void> {
    try {
      await this.#transport.sendMail({
        from: this.from,
        to: mail.to,
        subject: mail.subject,
        text: mail.text,
        ...(mail.replyTo ? { replyTo: mail.replyTo } : {}),
      });
    } catch (err) {
      throw new Problem('service_unavailable', {
        detail: 'The e-mail could not be sent just now. Try again in a minute.',
        headers: { 'retry-after': String(MAIL_RETRY_SECONDS) },
        cause: err,
      });
    }
  }
}

/**
 * The daily cap of mail to one address, for every kind the service sends (owner codes, notices,
 * relayed messages), counted per lower-cased address and UTC day in the database, so a request
 * that can make the service write to any address (a sign-up names it) cannot flood an inbox.
 * Past the cap `send` throws 429 rate_limited with Retry-After until 00:00 UTC; a send that
 * fails gives its unit back.
 */
export class CappedMailer implements Mailer {
  readonly kind: Mailer['kind'];
  constructor(
    private readonly inner: Mailer,
    private readonly db: Db,
    private readonly clock: Clock,
    readonly perAddressPerDay: number,
  ) {
    this.kind = inner.kind;
  }

  async check(to: string): Promise<void> {
    const now = this.clock.now();
    if ((await used(this.db, 'mail_address', normalAddress(to), now)) >= this.perAddressPerDay)
      throw this.#capReached(now);
  }

  async send(mail: Mail): Promise<void> {
    const now = this.clock.now();
    const subject = normalAddress(mail.to);
    if ((await consume(this.db, 'mail_address', subject, now, this.perAddressPerDay)) === null)
      throw this.#capReached(now);
    try {
      await this.inner.send(mail);
    } catch (err) {
      await giveBack(this.db, 'mail_address', subject, now);
      throw err;
    }
  }

  #capReached(now: Date): MailCapReached {
    return new MailCapReached(this.perAddressPerDay, secondsToUtcMidnight(now));
  }
}

/** The cap's refusal: a request answers it as is; a notice sent in the background skips the mail. */
export class MailCapReached extends Problem {
  constructor(perDay: number, retryAfterSeconds: number) {
    super('rate_limited', {
      detail: `This e-mail address has had its mail for today: the service sends at most ${perDay} e-mails to one address per UTC day. Try again after 00:00 UTC.`,
      headers: { 'retry-after': String(retryAfterSeconds) },
    });
  }
}

export function isMailCapReached(e: unknown): e is MailCapReached {
  return e instanceof MailCapReached;
}

/** One address, one count: compared in lower case without surrounding space. */
export function normalAddress(to: string): string {
  return to.trim().toLowerCase();
}

/** GET /v1/admin/outbox items. */
export const outboxMessage = z.object({
  id: z.string(),
  to: z.string(),
  subject: z.string(),
  text: z.string(),
  reply_to: z.string().nullable(),
  created_at: z.string(),
});

export async function listOutbox(
  db: Db,
  to: string | undefined,
  limit = 50,
): Promise<z.infer<typeof outboxMessage>[]> {
  const rows = await db
    .select()
    .from(mailOutbox)
    .where(to ? eq(mailOutbox.to, to.toLowerCase()) : undefined)
    .orderBy(desc(mailOutbox.createdAt), desc(mailOutbox.id))
    .limit(limit);
  return rows.map((r) => ({
    id: r.id,
    to: r.to,
    subject: r.subject,
    text: r.text,
    reply_to: r.replyTo,
    created_at: r.createdAt.toISOString(),
  }));
}

/** The mail the outbox transport kept, for staff (GET /v1/admin/outbox): the faces never see the database. */
export class Outbox {
  constructor(private readonly db: Db) {}

  list(to: string | undefined, limit?: number): Promise<z.infer<typeof outboxMessage>[]> {
    return listOutbox(this.db, to, limit);
  }
}
