import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { clientSubject, creationWindow } from '../../src/core/accounts/accounts.js';
import { maskAddress, oneLine, quoted, quotedBlock } from '../../src/core/mail/mailer.js';

describe('quoted(): user-provided text in a mail is quoted data on one line', () => {
  it('CR/LF and other controls cannot start a line or a header', () => {
    expect(quoted('Evil\r\nSubject: pwned\r\n\r\nBody')).toBe('"Evil Subject: pwned Body"');
    expect(quoted('a\u2028b\u2029c\u0085d\u000be\u000cf\tg')).toBe('"a b c d e f g"');
    expect(quoted('\u202egnp.exe\u200b\u0000\u001b[31mred')).toBe('"gnp.exe [31mred"');
  });

  it('quotes and backslashes are escaped, so the data cannot close its quotes', () => {
    expect(quoted('He said "hi" \\o/')).toBe('"He said \\"hi\\" \\\\o/"');
  });

  it('is cut to a length, whole characters only', () => {
    expect(quoted('x'.repeat(200))).toBe(`"${'x'.repeat(119)}…"`);
    expect(oneLine('😀'.repeat(10), 5)).toBe('😀😀😀😀…');
  });

  it('for any text: one line, no controls, and the inside unescapes to the cleaned text', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'binary', maxLength: 200 }), (s) => {
        const q = quoted(s, 500);
        expect(q).not.toMatch(/[\p{Cc}\p{Cf}\p{Cs}\p{Zl}\p{Zp}]/u);
        expect(q.startsWith('"') && q.endsWith('"')).toBe(true);
        const inside = q.slice(1, -1);
        expect(inside).not.toMatch(/(^|[^\\])(\\\\)*"/); // every " inside is escaped
        expect(inside.replace(/\\(["\\])/g, '$1')).toBe(oneLine(s, 500));
      }),
    );
  });
});

describe('quotedBlock(): a multi-line message, every line marked as quoted', () => {
  it('prefixes each line with "> " and normalises line breaks', () => {
    expect(quotedBlock('Hello\r\nIs it\rstill\u2028there?')).toBe('> Hello\n> Is it\n> still\n> there?');
  });

  it('keeps at most two blank lines and no leading or trailing ones; removes controls', () => {
    expect(quotedBlock('\n\na\n\n\n\n\nb\u0007\u202e\n\n')).toBe('> a\n>\n>\n> b');
  });

  it('for any text, every line starts with ">"', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'binary', maxLength: 300 }), (s) => {
        const block = quotedBlock(s);
        if (block === '') return;
        for (const line of block.split('\n')) expect(line).toMatch(/^>( |$)/);
        expect(block).not.toMatch(/[\r\u2028\u2029\u0085\p{Cf}]/u);
      }),
    );
  });
});

describe('maskAddress()', () => {
  it('shows the first character and the domain only', () => {
    expect(maskAddress('owner@example.com')).toBe('o****@example.com');
    expect(maskAddress('a@example.com')).toBe('a*@example.com');
  });
});

describe('sign-up windows and client subjects', () => {
  it('IPv4 as is, IPv4-mapped IPv6 as IPv4, IPv6 by its /64', () => {
    expect(clientSubject('192.0.2.7')).toBe('192.0.2.7');
    expect(clientSubject('::ffff:192.0.2.7')).toBe('192.0.2.7');
    expect(clientSubject('2001:db8:1:2:3:4:5:6')).toBe('2001:db8:1:2::/64');
    expect(clientSubject('2001:0db8:0001:0002::9')).toBe('2001:db8:1:2::/64');
  });

  it('a fixed window: its start and the seconds left (at least 1)', () => {
    const at = new Date('2030-01-02T10:25:00.500Z');
    const w = creationWindow(at, 3600);
    expect(w.start.toISOString()).toBe('2030-01-02T10:00:00.000Z');
    expect(w.retryAfter).toBe(35 * 60);
    expect(creationWindow(new Date('2030-01-02T10:59:59.999Z'), 3600).retryAfter).toBe(1);
  });
});
