import { execFileSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import type { Posts } from '../../src/core/posts/posts.js';
import type { PublicPost } from '../../src/core/posts/views.js';
import {
  assertText,
  asText,
  forbiddenCharacter,
  isText,
  line,
  ONE_LINE_MESSAGE,
  textErrors,
} from '../../src/core/validation.js';
import { SiteContent, xml } from '../../src/web/site-content.js';

const ch = (cp: number) => String.fromCodePoint(cp);

describe('the character rule (XML 1.0 Char)', () => {
  it('at its edges', () => {
    const cases: [string, string, boolean][] = [
      ['U+0000 NUL', '\u0000', false],
      ['U+0001', '\u0001', false],
      ['U+0008', '\u0008', false],
      ['U+0009 tab', '\u0009', true],
      ['U+000A LF', '\n', true],
      ['U+000B', '\u000b', false],
      ['U+000C', '\u000c', false],
      ['U+000D CR', '\r', true],
      ['U+001F', '\u001f', false],
      ['U+0020', ' ', true],
      ['U+007F DEL', '\u007f', true],
      ['U+0085 NEL', '\u0085', true],
      ['U+D7FF', '\ud7ff', true],
      ['lone U+D800', '\ud800', false],
      ['lone U+DBFF', 'a\udbffb', false],
      ['lone U+DC00', '\udc00', false],
      ['reversed pair', '\ude00\ud83d', false],
      ['U+E000', '\ue000', true],
      ['U+FFFD', '\ufffd', true],
      ['U+FFFE', '\ufffe', false],
      ['U+FFFF', '\uffff', false],
      ['U+10000', ch(0x10000), true],
      ['astral emoji', '🦀', true],
      ['U+10FFFF', ch(0x10ffff), true],
      ['empty', '', true],
    ];
    for (const [name, s, ok] of cases) expect(isText(s), name).toBe(ok);
  });

  it('names the first offending character', () => {
    expect(forbiddenCharacter('ok \u0000 \u0001')).toBe('U+0000');
    expect(forbiddenCharacter('x\ud800')).toBe('U+D800');
    expect(forbiddenCharacter('\uffff')).toBe('U+FFFF');
    expect(forbiddenCharacter('🦀\t\n')).toBeUndefined();
  });

  it('asText replaces each offender with U+FFFD and leaves text alone', () => {
    expect(asText('a\u0001b\uffffc\ud800d🦀\te')).toBe('a\ufffdb\ufffdc\ufffdd🦀\te');
    const clean = 'plain ✓ 🦀 \ue000 \ufffd\n';
    expect(asText(clean)).toBe(clean);
  });
});

describe('the walker', () => {
  it('reports strings at any depth and member names, at JSON Pointers, in document order', () => {
    const errors = textErrors({
      ok: 'fine',
      name: 'a\u0000',
      nested: { list: ['ok', 'b\ufffe', { 'k/~\u0001': 'v' }] },
      n: 1,
      t: true,
      z: null,
    });
    expect(errors.map((e) => e.pointer)).toEqual(['/name', '/nested/list/1', '/nested/list/2/k~1~0\u0001']);
    expect(errors[0]?.detail).toMatch(/^holds U\+0000/);
    expect(errors[2]?.detail).toMatch(/^the member name holds U\+0001/);
  });

  it('uses the prefix of the request part, and a bare body string points at the body', () => {
    expect(textErrors({ q: 'x\u0000' }, '/query')[0]?.pointer).toBe('/query/q');
    expect(textErrors({ id: '\u0000' }, '/params')[0]?.pointer).toBe('/params/id');
    expect(textErrors('\u0000')[0]?.pointer).toBe('');
    expect(textErrors(['\u0000'])[0]?.pointer).toBe('/0');
  });

  it('reads null-prototype objects (queries, forms) and skips a raw Buffer body', () => {
    const form = Object.assign(Object.create(null) as Record<string, string>, { reason: 'x\u0000' });
    expect(textErrors(form).map((e) => e.pointer)).toEqual(['/reason']);
    expect(textErrors(Buffer.from('\u0000'))).toEqual([]);
    expect(textErrors(undefined)).toEqual([]);
  });

  it('survives very deep nesting and caps the list', () => {
    let deep: unknown = '\u0000';
    for (let i = 0; i < 50_000; i++) deep = [deep];
    expect(textErrors(deep)).toHaveLength(1);
    const many = Object.fromEntries(Array.from({ length: 100 }, (_, i) => [`k${i}`, '\u0000']));
    expect(textErrors(many)).toHaveLength(20);
  });

  it('assertText throws the 422 validation problem', () => {
    expect(() => assertText({ a: 'ok' })).not.toThrow();
    try {
      assertText({ a: '\u0000' });
      expect.unreachable();
    } catch (e) {
      expect(e).toMatchObject({ code: 'validation_failed', status: 422, errors: [{ pointer: '/a' }] });
    }
  });
});

describe('one-line fields', () => {
  const name = line().trim().min(1).max(100);
  it('refuse C0 (tab, CR, LF), DEL, C1, U+2028 and U+2029', () => {
    for (const cp of [0x0, 0x9, 0xa, 0xd, 0x1b, 0x1f, 0x7f, 0x80, 0x85, 0x9f, 0x2028, 0x2029]) {
      const r = name.safeParse(`a${ch(cp)}b`);
      expect(r.success, `U+${cp.toString(16)}`).toBe(false);
      expect(r.error?.issues[0]?.message).toBe(ONE_LINE_MESSAGE);
    }
    // Checked as sent, before the trim.
    expect(name.safeParse('name\n').success).toBe(false);
  });

  it('accept everything else a name may hold', () => {
    for (const s of ['Ada', 'Ünïcödé', '🦀 crab', 'a\u00a0b', '\ue000', 'right-to-left \u05d0']) {
      expect(name.safeParse(s).success, s).toBe(true);
    }
    expect(name.parse('  padded  ')).toBe('padded');
  });
});

describe('the Atom feed', () => {
  const post = (over: Partial<PublicPost>): PublicPost =>
    ({
      id: 'post_a',
      site: 'stories',
      title: 'A title',
      body: 'A body.',
      topics: ['sea'],
      author: { name: 'An agent' },
      url: 'http://agentpress.test/p/post_a',
      json_url: 'http://agentpress.test/p/post_a.json',
      published_at: '2026-01-01T00:00:00.000Z',
      ...over,
    }) as PublicPost;

  async function atom(posts: PublicPost[]): Promise<string> {
    const list = async () => ({ data: posts, next_cursor: null });
    const content = new SiteContent({ list } as unknown as Posts, 'http://agentpress.test');
    const page = await content.render('stories', '/feed.xml');
    return page?.body ?? '';
  }

  it('never emits a character XML forbids, whatever a stored row holds', async () => {
    const text = await atom([
      post({ title: 'Bell\u0001tower \uffff', author: { name: 'Agent\uffff \u0000\u001b' } }),
      post({ id: 'post_b', title: null, body: `${'x'.repeat(79)}🦀 and \ud800 more` }),
    ]);
    expect(text).not.toMatch(/[^\t\n\r\u0020-\ud7ff\ue000-\ufffd\u{10000}-\u{10ffff}]/u);
    expect(text).toContain('<title type="text">Bell\ufffdtower \ufffd</title>');
    expect(text).toContain('<name>Agent\ufffd \ufffd\ufffd</name>');
    const root = parseXml(text);
    if (root !== undefined) expect(root).toBe('feed');
  });

  it('xml() escapes markup and replaces forbidden characters', () => {
    expect(xml(`<a href="x">&'\u0001</a>`)).toBe('&lt;a href=&quot;x&quot;&gt;&amp;&apos;\ufffd&lt;/a&gt;');
  });

  it('the old writer would have broken the feed (a real parser refuses U+0001)', () => {
    const root = parseXml('<?xml version="1.0"?><feed><title>a\u0001</title></feed>');
    // undefined: no python3 here; null: the parser refused it, as every feed reader would.
    expect([undefined, null]).toContain(root);
  });
});

/**
 * The root element's name as a real XML parser (Python's expat) reads it; null when the parser
 * refuses the document; undefined when python3 is not installed (no JS XML parser is a dependency).
 */
function parseXml(text: string): string | null | undefined {
  try {
    execFileSync('python3', ['--version'], { stdio: 'ignore' });
  } catch {
    return undefined;
  }
  try {
    return execFileSync(
      'python3',
      [
        '-c',
        'import sys, xml.dom.minidom as m; print(m.parseString(sys.stdin.buffer.read()).documentElement.localName)',
      ],
      { input: Buffer.from(text, 'utf8'), stdio: ['pipe', 'pipe', 'ignore'] },
    )
      .toString()
      .trim();
  } catch {
    return null;
  }
}
