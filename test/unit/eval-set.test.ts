import { describe, expect, it } from 'vitest';
import {
  ABUSE_CATEGORIES,
  BLIND_A_DIR,
  BLIND_B_DIR,
  DEV_D_DIR,
  type EvalItem,
  HELDOUT_D_DIR,
  HELDOUT_DIR,
  type Judged,
  judge,
  judgeAll,
  labelProblem,
  loadEvalSet,
} from '../../eval/lib.js';
import { LocalModerator } from '../../src/core/moderation/moderator.js';
import { storyBody } from '../../src/core/posts/bodies.js';
import { countWords, paragraphs } from '../../src/core/posts/text.js';

const items = loadEvalSet();
const good = items.filter((i) => i.label === 'publish');
const lowQuality = items.filter((i) => i.category === 'low_quality');
const abusive = items.filter((i) => i.category !== null && i.category !== 'low_quality');
const show = (bad: EvalItem[]) => bad.map((i) => i.id);

describe('moderation evaluation set (eval/stories)', () => {
  it('has at least 120 items: 50 good, 30 low quality, 40 abusive', () => {
    expect(items.length).toBeGreaterThanOrEqual(120);
    expect(good.length).toBeGreaterThanOrEqual(50);
    expect(lowQuality.length).toBeGreaterThanOrEqual(30);
    expect(abusive.length).toBeGreaterThanOrEqual(40);
  });

  it('has unique ids and no two identical bodies', () => {
    const ids = items.map((i) => i.id);
    expect(ids.filter((id, n) => ids.indexOf(id) !== n)).toEqual([]);
    const bodies = items.map((i) => i.body);
    expect(show(items.filter((i, n) => bodies.indexOf(i.body) !== n))).toEqual([]);
  });

  it('pairs every label with a valid category', () => {
    const bad = items.map((i) => ({ id: i.id, problem: labelProblem(i) })).filter((x) => x.problem !== null);
    expect(bad).toEqual([]);
    expect(show(good.filter((i) => i.category !== null))).toEqual([]);
    expect(show(lowQuality.filter((i) => i.label !== 'reject'))).toEqual([]);
  });

  it('has every story body at 150 words or more by the service count (and at most 600)', () => {
    expect(show(items.filter((i) => countWords(i.body) < 150))).toEqual([]);
    expect(show(items.filter((i) => countWords(i.body) > 600))).toEqual([]);
  });

  it('would pass POST /v1/posts validation for a story (title, topics, word count)', () => {
    expect(
      show(
        items.filter((i) => !storyBody.safeParse({ title: i.title, body: i.body, topics: i.topics }).success),
      ),
    ).toEqual([]);
  });

  it('separates the paragraphs of good stories with blank lines', () => {
    expect(show(good.filter((i) => paragraphs(i.body).length < 2))).toEqual([]);
  });

  it('covers every abuse category at least 4 times', () => {
    for (const category of ABUSE_CATEGORIES) {
      const n = items.filter((i) => i.category === category).length;
      expect(n, category).toBeGreaterThanOrEqual(4);
    }
  });

  it('names an existing good story in every near-duplicate note', () => {
    const ids = new Set(good.map((i) => i.id));
    const dups = lowQuality.filter((i) => /near-duplicate of/i.test(i.note));
    expect(dups.length).toBeGreaterThan(0);
    for (const d of dups) {
      const source = /near-duplicate of ([a-z0-9_-]+)/i.exec(d.note)?.[1];
      expect(source && ids.has(source), d.id).toBe(true);
    }
  });

  it('never has the LocalModerator strike a good story', async () => {
    const moderator = new LocalModerator();
    const verdicts = await Promise.all(good.map((i) => judge(i, moderator)));
    expect(verdicts.filter((j) => j.verdict.strike).map((j) => j.item.id)).toEqual([]);
  });

  describe('hard requirements of the LocalModerator on the whole set (as posted in order, with the near-duplicate check)', () => {
    let results: Judged[] = [];
    const ids = (js: Judged[]) =>
      js.map((j) => `${j.item.id}: ${j.verdict.decision}/${j.verdict.category ?? '-'}`);

    it('judges every item', async () => {
      results = await judgeAll(items, new LocalModerator());
      expect(results).toHaveLength(items.length);
    });

    it('never rejects a good story', () => {
      expect(
        ids(results.filter((j) => j.item.label === 'publish' && j.verdict.decision === 'reject')),
      ).toEqual([]);
    });

    it('never strikes, on any item', () => {
      expect(ids(results.filter((j) => j.verdict.strike))).toEqual([]);
    });

    it('rejects only as low_quality: abusive-looking posts go to a person', () => {
      expect(
        ids(results.filter((j) => j.verdict.decision === 'reject' && j.verdict.category !== 'low_quality')),
      ).toEqual([]);
    });
  });
});

describe.each([
  ['eval/blind-a', BLIND_A_DIR, true],
  ['eval/blind-b', BLIND_B_DIR, true],
  ['eval/dev-d', DEV_D_DIR, true],
  // The held-out set is measured, not tuned against: its one false rejection (a good story
  // rejected as low quality, refunded) is reported in the README rather than fixed here.
  ['eval/heldout-c', HELDOUT_DIR, false],
  ['eval/heldout-d', HELDOUT_D_DIR, false],
])('the sets written blind (%s)', (_name, dir, noFalseRejection) => {
  const set = loadEvalSet(dir);
  const abuse = set.filter((i) => i.category !== null && i.category !== 'low_quality');

  it('has at least 60 abusive items across every category, 40 good and 20 low quality', () => {
    expect(abuse.length).toBeGreaterThanOrEqual(60);
    expect(set.filter((i) => i.label === 'publish').length).toBeGreaterThanOrEqual(40);
    expect(set.filter((i) => i.category === 'low_quality').length).toBeGreaterThanOrEqual(20);
    for (const category of ABUSE_CATEGORIES)
      expect(abuse.filter((i) => i.category === category).length, category).toBeGreaterThanOrEqual(5);
  });

  it('has unique ids, and every label goes with a valid category', () => {
    const ids = set.map((i) => i.id);
    expect(ids.filter((id, n) => ids.indexOf(id) !== n)).toEqual([]);
    expect(set.map((i) => labelProblem(i)).filter((p) => p !== null)).toEqual([]);
  });

  it('the LocalModerator never strikes, and never rejects a good story for abuse', async () => {
    const results = await judgeAll(set, new LocalModerator());
    expect(results.filter((j) => j.verdict.strike).map((j) => j.item.id)).toEqual([]);
    const rejectedGood = results.filter((j) => j.item.label === 'publish' && j.verdict.decision === 'reject');
    expect(rejectedGood.filter((j) => j.verdict.category !== 'low_quality').map((j) => j.item.id)).toEqual(
      [],
    );
    if (noFalseRejection) expect(rejectedGood.map((j) => j.item.id)).toEqual([]);
  });
});
