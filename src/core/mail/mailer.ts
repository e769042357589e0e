import { desc, eq } from 'drizzle-orm';
import nodemailer from 'nodemailer';
import { z } from 'zod';
import type { Db } from '../../db/client.js';
import { mailOutbox } from '../../db/schema.js';
import type { Clock } from '../clock.js';
import { Problem } from '../problems.js';
import { newId } from '../secrets.js';

export const MAIL_RETRY_SECONDS = 60;

export interface Mail {
  to: string;
  subject: string;
  text: string;
  replyTo?: string;
}

export interface Mailer {
  readonly kind: 'outbox' | 'smtp';
  send(mail: Mail): Promise<void>;
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

/** Embedded default: mail is kept in the database (GET /v1/admin/outbox) and announced in the log
 *  without its text, since the text may hold a one-time code. */
export class OutboxMailer implements Mailer {
  readonly kind = 'outbox';
  constructor(
    private readonly db: Db,
    private readonly clock: Clock,
    private readonly log: Log,
  ) {}

  async send(mail: Mail): Promise<void> {
    await this.db.insert(mailOutbox).values({
      id: outboxId(),
      to: mail.to.toLowerCase(),
      subject: mail.subject,
      text: mail.text,
      replyTo: mail.replyTo ?? null,
      createdAt: this.clock.now(),
    });
    this.log(
      `mail to ${mail.to}: "${mail.subject}" (read it at /v1/admin/outbox?to=${encodeURIComponent(mail.to)})`,
    );
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
