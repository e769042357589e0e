import type { AddressInfo } from 'node:net';
import { SMTPServer } from 'smtp-server';

/** One message as the SMTP server received it: envelope, unfolded headers, decoded body. */
export interface CaughtMail {
  envelopeTo: string[];
  envelopeFrom: string;
  headers: Map<string, string>;
  body: string;
}

/** RFC 2047 encoded words (=?UTF-8?Q?...?= and =?UTF-8?B?...?=) in a header value. */
function decodeWords(value: string): string {
  return value
    .replace(/\?=\s+=\?/g, '?==?')
    .replace(/=\?UTF-8\?([QB])\?([^?]*)\?=/gi, (_, enc: string, text: string) =>
      enc.toUpperCase() === 'B'
        ? Buffer.from(text, 'base64').toString('utf8')
        : Buffer.from(
            text
              .replace(/_/g, ' ')
              .replace(/=([0-9A-F]{2})/gi, (_m, h: string) => String.fromCharCode(Number.parseInt(h, 16))),
            'latin1',
          ).toString('utf8'),
    );
}

function parseMessage(raw: string): { headers: Map<string, string>; body: string } {
  const split = raw.indexOf('\r\n\r\n');
  const head = raw.slice(0, split).replace(/\r\n[ \t]+/g, ' ');
  let body = raw.slice(split + 4);
  const headers = new Map<string, string>();
  for (const line of head.split('\r\n')) {
    const colon = line.indexOf(':');
    if (colon > 0)
      headers.set(line.slice(0, colon).trim().toLowerCase(), decodeWords(line.slice(colon + 1).trim()));
  }
  const encoding = (headers.get('content-transfer-encoding') ?? '7bit').toLowerCase();
  if (encoding === 'quoted-printable') {
    body = body
      .replace(/=\r\n/g, '')
      .replace(/=([0-9A-F]{2})/gi, (_, h: string) => String.fromCharCode(Number.parseInt(h, 16)));
  } else if (encoding === 'base64') {
    body = Buffer.from(body.replace(/\s+/g, ''), 'base64').toString('utf8');
  }
  return { headers, body };
}

/** A real SMTP server on a loopback port that keeps every message it accepts. */
export class MailCatcher {
  readonly received: CaughtMail[] = [];
  readonly #smtp = new SMTPServer({
    authOptional: true,
    disabledCommands: ['STARTTLS'],
    logger: false,
    onData: (stream, session, callback) => {
      const chunks: Buffer[] = [];
      stream.on('data', (c: Buffer) => chunks.push(c));
      stream.on('end', () => {
        this.received.push({
          envelopeTo: session.envelope.rcptTo.map((r) => r.address),
          envelopeFrom: session.envelope.mailFrom ? session.envelope.mailFrom.address : '',
          ...parseMessage(Buffer.concat(chunks).toString('utf8')),
        });
        callback();
      });
    },
  });
  url = '';

  async start(): Promise<void> {
    await new Promise<void>((resolve) => this.#smtp.listen(0, '127.0.0.1', resolve));
    this.url = `smtp://127.0.0.1:${(this.#smtp.server.address() as AddressInfo).port}`;
  }

  stop(): Promise<void> {
    return new Promise<void>((resolve) => this.#smtp.close(resolve));
  }

  to(address: string): CaughtMail[] {
    return this.received.filter((m) => m.envelopeTo.includes(address));
  }

  /** The newest six-digit code sent to this address. */
  latestCode(address: string): string {
    const mails = this.to(address);
    for (let i = mails.length - 1; i >= 0; i--) {
      const m = mails[i]!;
      const code = /\b(\d{6})\b/.exec(`${m.headers.get('subject')}\n${m.body}`)?.[1];
      if (code) return code;
    }
    throw new Error(`no code mailed to ${address}`);
  }
}
