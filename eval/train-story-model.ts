/**
 * Trains the story score (src/core/moderation/story-score.ts) on the development sets and
 * measures how well the whole local moderator generalises.
 *
 *   npx tsx eval/train-story-model.ts            # leave-one-set-out figures, then train on every
 *                                                # development set and write story-model.json
 *   npx tsx eval/train-story-model.ts -- --dry   # figures only
 *
 * Development sets only: eval/stories, blind-a, blind-b and dev-d (when present). The held-out
 * sets are never read here.
 *
 * Model: logistic regression (L2) over the weak signals (each one's maximum over paragraphs) and
 * word unigrams and bigrams seen in at least two training texts, abusive stories against good
 * ones (low-quality texts are the quality rules' business). Threshold: the lowest score at which
 * the moderator as a whole (rules, classifier and the score) sends at most GOOD_REVIEW_BUDGET of
 * the training sets' good stories to review, measured on out-of-fold scores (5-fold
 * cross-validation inside the training sets), so the threshold is never set on scores the model
 * was fitted to.
 *
 * Leave-one-set-out: for each development set, the model and threshold come from the other sets
 * alone and the set is then judged. Two variants are printed: the whole moderator, whose triage
 * rules were written after reading the misses of every development set but dev-d (so it is
 * optimistic there), and the moderator without the triage rules (prefilter, policy classifier
 * and the story score), which is an honest out-of-set estimate of what the learnt parts add.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { LocalModerator } from '../src/core/moderation/moderator.js';
import {
  firedSignals,
  logit,
  SIGNAL_IDS,
  type StoryFeatures,
  type StoryModel,
  storyFeatures,
} from '../src/core/moderation/story-score.js';
import {
  BLIND_A_DIR,
  BLIND_B_DIR,
  DEV_D_DIR,
  type EvalItem,
  type Judged,
  judgeAll,
  loadEvalSet,
  STORIES_DIR,
} from './lib.js';

const MODEL_PATH = join(
  dirname(fileURLToPath(import.meta.url)),
  '..',
  'src',
  'core',
  'moderation',
  'story-model.json',
);
/** Share of good stories the moderator as a whole may send to review (triage errs toward a person). */
const GOOD_REVIEW_BUDGET = 0.18;
const L2 = Number(process.env.STORY_L2 ?? 0.3);
const MIN_DF = Number(process.env.STORY_MIN_DF ?? 4);
const EPOCHS = 400;
const LR = 0.5;

interface Row {
  set: string;
  item: EvalItem;
  f: StoryFeatures;
  /** 1: abusive, 0: good, null: low quality (not trained on). */
  y: 0 | 1 | null;
  /** The moderator's decision without the story score (with and without the triage rules). */
  base: Judged['verdict']['decision'];
  baseCategory: string | undefined;
  bare: Judged['verdict']['decision'];
}

const isAbuse = (i: EvalItem) => i.category !== null && i.category !== 'low_quality';

async function load(): Promise<Row[]> {
  const sets: [string, string][] = [
    ['stories', STORIES_DIR],
    ['blind-a', BLIND_A_DIR],
    ['blind-b', BLIND_B_DIR],
  ];
  if (existsSync(DEV_D_DIR)) sets.push(['dev-d', DEV_D_DIR]);
  const rows: Row[] = [];
  for (const [set, dir] of sets) {
    const items = loadEvalSet(dir);
    const base = await judgeAll(items, new LocalModerator({ storyModel: null }));
    const bare = await judgeAll(items, new LocalModerator({ storyModel: null, triage: false }));
    items.forEach((item, n) => {
      rows.push({
        set,
        item,
        f: storyFeatures(item.title, item.body),
        y: isAbuse(item) ? 1 : item.label === 'publish' ? 0 : null,
        base: base[n]!.verdict.decision,
        baseCategory: base[n]!.verdict.category,
        bare: bare[n]!.verdict.decision,
      });
    });
  }
  return rows;
}

/** Logistic regression by full-batch gradient descent (Adagrad steps), classes weighted equally. */
function train(rows: readonly Row[], trainedOn: string[]): StoryModel {
  const data = rows.filter((r): r is Row & { y: 0 | 1 } => r.y !== null);
  const df = new Map<string, number>();
  for (const r of data) for (const g of r.f.ngrams) df.set(g, (df.get(g) ?? 0) + 1);
  const vocab = new Map<string, number>();
  for (const [g, n] of df) if (n >= MIN_DF) vocab.set(g, vocab.size);
  const S = SIGNAL_IDS.length;
  const dim = 1 + S + vocab.size;
  const w = new Float64Array(dim);
  const g2 = new Float64Array(dim).fill(1e-8);
  const pos = data.filter((r) => r.y === 1).length;
  const neg = data.length - pos;
  const cw = { 1: data.length / (2 * Math.max(1, pos)), 0: data.length / (2 * Math.max(1, neg)) };
  const idx = data.map((r) =>
    r.f.ngrams.map((g) => vocab.get(g)).filter((i): i is number => i !== undefined),
  );
  for (let epoch = 0; epoch < EPOCHS; epoch++) {
    const grad = new Float64Array(dim);
    data.forEach((r, n) => {
      let z = w[0]!;
      for (let k = 0; k < S; k++) z += w[1 + k]! * r.f.signals[k]!;
      for (const i of idx[n]!) z += w[1 + S + i]! * r.f.ngramValue;
      const p = 1 / (1 + Math.exp(-z));
      const e = (p - r.y) * cw[r.y];
      grad[0]! += e;
      for (let k = 0; k < S; k++) grad[1 + k]! += e * r.f.signals[k]!;
      for (const i of idx[n]!) grad[1 + S + i]! += e * r.f.ngramValue;
    });
    for (let j = 0; j < dim; j++) {
      const gj = grad[j]! / data.length + (j === 0 ? 0 : (L2 * w[j]!) / data.length);
      g2[j]! += gj * gj;
      w[j]! -= (LR * gj) / Math.sqrt(g2[j]!);
    }
  }
  const r4 = (x: number) => Math.round(x * 1e4) / 1e4;
  const signals = Object.fromEntries(SIGNAL_IDS.map((id, k) => [id, r4(w[1 + k]!)]));
  const ngrams: Record<string, number> = {};
  for (const [g, i] of vocab) {
    const v = r4(w[1 + S + i]!);
    if (Math.abs(v) >= 0.002) ngrams[g] = v;
  }
  return { version: 1, trainedOn, bias: r4(w[0]!), signals, ngrams, threshold: 0.5, hard: hardSignals(rows) };
}

/** Share of good stories a signal may fire on and still send a story to review on its own. */
const HARD_GOOD_SHARE = 0.01;

/** Signals (at value 1 or 0.5) that fire on at most 1 % of good stories and on at least 3 abusive ones. */
function hardSignals(rows: readonly Row[]): Record<string, number> {
  const good = rows.filter((r) => r.y === 0);
  const bad = rows.filter((r) => r.y === 1);
  const hard: Record<string, number> = {};
  SIGNAL_IDS.forEach((id, k) => {
    for (const v of [0.5, 1]) {
      const g = good.filter((r) => r.f.signals[k]! >= v).length;
      const b = bad.filter((r) => r.f.signals[k]! >= v).length;
      if (g <= HARD_GOOD_SHARE * good.length && b >= 3) {
        hard[id] = v;
        break;
      }
    }
  });
  return hard;
}

const prob = (m: StoryModel, f: StoryFeatures) => 1 / (1 + Math.exp(-logit(m, f)));

/** Out-of-fold scores: each row scored by a model trained without its fold. */
function outOfFold(rows: readonly Row[], folds = 5): number[] {
  const out = new Array<number>(rows.length).fill(0);
  for (let k = 0; k < folds; k++) {
    const fit = rows.filter((_, n) => n % folds !== k);
    const m = train(fit, []);
    rows.forEach((r, n) => {
      if (n % folds === k) out[n] = prob(m, r.f);
    });
  }
  return out;
}

/**
 * The lowest threshold at which the moderator sends at most the budget of good stories to review
 * (those the rest already reviews count against it).
 */
function chooseThreshold(
  rows: readonly Row[],
  scores: readonly number[],
  which: 'base' | 'bare',
  hard: Record<string, number>,
): number {
  const good = rows.map((r, n) => ({ r, s: scores[n]! })).filter((x) => x.r.y === 0);
  const open = (r: Row) => r[which] === 'publish' && firedSignals(r.f.signals, hard).length === 0;
  const already = good.filter((x) => !open(x.r)).length;
  const room = Math.floor(GOOD_REVIEW_BUDGET * good.length) - already;
  const candidates = good
    .filter((x) => open(x.r))
    .map((x) => x.s)
    .sort((a, b) => b - a);
  if (room < 0) return 1;
  // Review from just above the (room+1)-th highest good score.
  const cut = candidates[room];
  return cut === undefined ? 0 : Math.min(1, cut + 1e-6);
}

interface Figures {
  abusivePublished: number;
  abusive: number;
  goodPublished: number;
  good: number;
  lqRejected: number;
  lq: number;
}

function figures(
  rows: readonly Row[],
  scores: readonly number[],
  t: number,
  which: 'base' | 'bare',
  hard: Record<string, number> = {},
): Figures {
  const f: Figures = { abusivePublished: 0, abusive: 0, goodPublished: 0, good: 0, lqRejected: 0, lq: 0 };
  rows.forEach((r, n) => {
    const d =
      r[which] === 'publish' && (scores[n]! >= t || firedSignals(r.f.signals, hard).length)
        ? 'review'
        : r[which];
    if (r.y === 1) {
      f.abusive++;
      if (d === 'publish') f.abusivePublished++;
    } else if (r.y === 0) {
      f.good++;
      if (d === 'publish') f.goodPublished++;
    } else {
      f.lq++;
      if (d === 'reject') f.lqRejected++;
    }
  });
  return f;
}

const show = (f: Figures) =>
  `abusive published ${f.abusivePublished}/${f.abusive}, good published ${f.goodPublished}/${f.good} (${((100 * f.goodPublished) / Math.max(1, f.good)).toFixed(1)}%), LQ rejected ${f.lqRejected}/${f.lq}`;

async function main(): Promise<void> {
  const rows = await load();
  const sets = [...new Set(rows.map((r) => r.set))];
  console.log(
    `Development sets: ${sets.map((s) => `${s} ${rows.filter((r) => r.set === s).length}`).join(', ')}`,
  );
  for (const which of ['base', 'bare'] as const) {
    console.log('');
    console.log(
      which === 'base'
        ? 'Leave-one-set-out, whole moderator (triage rules were written on the misses of stories, blind-a, blind-b)'
        : 'Leave-one-set-out, without the triage rules (prefilter, policy classifier, story score)',
    );
    const total: Figures = {
      abusivePublished: 0,
      abusive: 0,
      goodPublished: 0,
      good: 0,
      lqRejected: 0,
      lq: 0,
    };
    const none: Figures = { ...total };
    for (const held of sets) {
      const fit = rows.filter((r) => r.set !== held);
      const test = rows.filter((r) => r.set === held);
      const oof = outOfFold(fit);
      const m = train(fit, []);
      const t = chooseThreshold(fit, oof, which, m.hard);
      const scores = test.map((r) => prob(m, r.f));
      const f = figures(test, scores, t, which, m.hard);
      const f0 = figures(test, scores, 2, which);
      for (const k of Object.keys(total) as (keyof Figures)[]) {
        total[k] += f[k];
        none[k] += f0[k];
      }
      console.log(
        `  ${held.padEnd(8)} threshold ${t.toFixed(3)}: ${show(f)}   (without the score: ${show(f0)}); hard: ${Object.keys(m.hard).join(', ')}`,
      );
    }
    console.log(`  ${'all'.padEnd(8)}                  ${show(total)}   (without the score: ${show(none)})`);
  }
  // The shipped model: every development set; threshold from out-of-fold scores.
  const oof = outOfFold(rows);
  const trained = train(rows, sets);
  const t = chooseThreshold(rows, oof, 'base', trained.hard);
  const model = { ...trained, threshold: Math.round(t * 1e4) / 1e4 };
  console.log('');
  console.log(`Shipped model: trained on ${sets.join(', ')}; threshold ${model.threshold} (out-of-fold)`);
  console.log(`  out-of-fold on all development sets: ${show(figures(rows, oof, t, 'base', model.hard))}`);
  console.log(
    `  hard signals: ${Object.entries(model.hard)
      .map(([id, v]) => `${id} >= ${v}`)
      .join(', ')}`,
  );
  console.log(
    `  signal weights: ${SIGNAL_IDS.map((id) => `${id} ${model.signals[id]}`).join(', ')}; ${Object.keys(model.ngrams).length} n-grams`,
  );
  if (!process.argv.includes('--dry')) {
    writeFileSync(MODEL_PATH, `${JSON.stringify(model)}\n`);
    execFileSync('npx', ['biome', 'format', '--write', MODEL_PATH], { stdio: 'ignore' });
    console.log(`  written to ${MODEL_PATH}`);
  }
}

main().catch((err: unknown) => {
  console.error(err);
  process.exitCode = 1;
});
