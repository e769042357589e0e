import { describe, expect, it } from 'vitest';
import { judge, LocalModerator } from '../../src/core/moderation/moderator.js';
import {
  fingerprint,
  MINHASH_SIZE,
  mostSimilar,
  NEAR_DUPLICATE_THRESHOLD,
  shingles,
  similarity,
} from '../../src/core/moderation/near-duplicate.js';
import { prefilter } from '../../src/core/moderation/prefilter.js';
import { POLICY } from '../../src/core/policy/document.js';
import { story } from '../helpers/stories.js';

const stories = [...POLICY.quality_bar.passing, ...POLICY.abuse.flatMap((c) => c.non_violating)].filter(
  (t) => t.split(/\s+/).length >= 60,
);
const base = stories[0]!;

/** Replaces every n-th word with another word. */
function edit(text: string, every: number, by = 'otherwise'): string {
  let k = 0;
  return text
    .split(/(\s+)/)
    .map((w) => (/\w/.test(w) && ++k % every === 0 ? by : w))
    .join('');
}

describe('fingerprint', () => {
  it('is a versioned hex string of 128 16-bit minima, the same every time', () => {
    const fp = fingerprint(base);
    expect(fp).toMatch(new RegExp(`^mh1:[0-9a-f]{${MINHASH_SIZE * 4}}$`));
    expect(fingerprint(base)).toBe(fp);
  });

  it('ignores case, punctuation and spacing (word 5-shingles)', () => {
    expect(fingerprint(base.toUpperCase().replace(/[.,;:!?']/g, ' '))).toBe(fingerprint(base));
    expect(shingles('one two three four five six')).toEqual(
      new Set(['one two three four five', 'two three four five six']),
    );
    expect(shingles('too short')).toEqual(new Set(['too short']));
  });

  it('gives an empty text an empty fingerprint that matches nothing', () => {
    expect(fingerprint('  ...  ')).toBe('mh1:');
    expect(similarity(fingerprint(''), fingerprint(''))).toBe(0);
    expect(similarity(fingerprint(''), fingerprint(base))).toBe(0);
  });
});

describe('similarity', () => {
  it('is 1 for the same text, symmetric, and 0 for malformed or foreign fingerprints', () => {
    const a = fingerprint(base);
    const b = fingerprint(edit(base, 20));
    expect(similarity(a, a)).toBe(1);
    expect(similarity(a, b)).toBe(similarity(b, a));
    expect(similarity(a, 'mh1:zz')).toBe(0);
    expect(similarity(a, `mh0:${a.slice(4)}`)).toBe(0);
    expect(similarity(a, '')).toBe(0);
  });

  it('keeps distinct stories far below the threshold', () => {
    const fps = stories.map(fingerprint);
    let max = 0;
    for (let i = 0; i < fps.length; i++)
      for (let j = i + 1; j < fps.length; j++) max = Math.max(max, similarity(fps[i]!, fps[j]!));
    expect(max).toBeLessThan(0.15);
    expect(max).toBeLessThan(NEAR_DUPLICATE_THRESHOLD);
  });

  it('catches the same story with a few words or names changed', () => {
    for (const s of stories) {
      expect(similarity(fingerprint(s), fingerprint(edit(s, 30))), s.slice(0, 40)).toBeGreaterThanOrEqual(
        NEAR_DUPLICATE_THRESHOLD,
      );
    }
  });

  it('catches a story re-posted with a paragraph added', () => {
    const longer = `${base}\n\nAnd that, more or less, is how the town remembers it, though nobody agrees on the details.`;
    expect(similarity(fingerprint(base), fingerprint(longer))).toBeGreaterThanOrEqual(
      NEAR_DUPLICATE_THRESHOLD,
    );
  });

  it('does not call a heavily rewritten story a duplicate', () => {
    expect(similarity(fingerprint(base), fingerprint(edit(base, 4)))).toBeLessThan(NEAR_DUPLICATE_THRESHOLD);
  });

  it('estimates Jaccard similarity of the shingle sets within a few points', () => {
    for (const every of [8, 12, 20]) {
      const other = edit(base, every);
      const a = shingles(base);
      const b = shingles(other);
      const inter = [...a].filter((x) => b.has(x)).length;
      const jaccard = inter / (a.size + b.size - inter);
      expect(Math.abs(similarity(fingerprint(base), fingerprint(other)) - jaccard)).toBeLessThan(0.15);
    }
  });
});

describe('mostSimilar', () => {
  it('returns the best candidate, or null without candidates', () => {
    const fp = fingerprint(edit(base, 25));
    const candidates = stories.map((s, i) => ({ id: `post_${i}`, fingerprint: fingerprint(s) }));
    expect(mostSimilar(fp, candidates)).toMatchObject({ id: 'post_0' });
    expect(mostSimilar(fp, candidates)!.similarity).toBeGreaterThanOrEqual(NEAR_DUPLICATE_THRESHOLD);
    expect(mostSimilar(fp, [])).toBeNull();
  });
});

describe('near duplicates in the rules (prefilter nearDuplicate) and judge()', () => {
  const moderator = new LocalModerator();
  const input = (nearDuplicate?: { id: string; similarity: number }) => ({
    id: 'post_new',
    title: 'A story',
    body: base,
    prefilter: prefilter('A story', base, { nearDuplicate: nearDuplicate ?? null }),
  });
  const below = Math.round((NEAR_DUPLICATE_THRESHOLD - 0.001) * 1000) / 1000;

  it('publishes the original, and a post just below the threshold (N-1)', async () => {
    expect((await judge(moderator, input())).decision).toBe('publish');
    expect((await judge(moderator, input({ id: 'post_old', similarity: below }))).decision).toBe('publish');
    expect(input({ id: 'post_old', similarity: below }).prefilter.signals.map((s) => s.id)).not.toContain(
      'quality.duplicate',
    );
  });

  it('rejects at the threshold (N) as low_quality by the rules, naming the other post, without a strike', async () => {
    const i = input({ id: 'post_old', similarity: NEAR_DUPLICATE_THRESHOLD });
    expect(i.prefilter.hint).toBe('reject_low_quality');
    const v = await judge(moderator, i);
    expect(v).toMatchObject({
      decision: 'reject',
      category: 'low_quality',
      strike: false,
      source: 'prefilter',
    });
    expect(v.reason).toContain('post_old');
  });

  it('never asks the moderator about a duplicate', async () => {
    let asked = 0;
    const counting = {
      name: 'openai' as const,
      moderate: async () => (asked++, await moderator.moderate(input())),
    };
    await judge(counting, input({ id: 'post_old', similarity: 1 }));
    expect(asked).toBe(0);
    await judge(counting, input());
    expect(asked).toBe(1);
  });

  it('keeps story() outputs of the test helper far apart (so tests never trip the check)', () => {
    const fps = Array.from({ length: 60 }, () => fingerprint(story()));
    let max = 0;
    for (let i = 0; i < fps.length; i++)
      for (let j = i + 1; j < fps.length; j++) max = Math.max(max, similarity(fps[i]!, fps[j]!));
    expect(max).toBeLessThan(0.35);
  });
});
