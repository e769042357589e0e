import { POLICY } from '../policy/document.js';
import type { AbuseCategory, Policy } from '../policy/types.js';

/**
 * The local moderator's statistical classifier, trained from the policy's own synthetic examples
 * (never from eval/, which is the held-out test set). Deterministic and dependency-free.
 *
 * Features: word unigrams and bigrams and character 3-5-grams, weighted by sublinear TF-IDF and
 * scaled to unit length. Three naive Bayes models over them:
 *
 *  - abuse: every category's `violating` examples against everything that is fine (each
 *    category's `non_violating` examples, the quality bar's `passing` and `failing` ones);
 *  - category: which abuse category, trained on each category's `violating` examples;
 *  - quality: the quality bar's `failing` examples against `passing` and `non_violating` ones.
 *
 * Abuse is scored over sliding windows (each paragraph, short ones merged, and each pair of
 * neighbouring paragraphs) and the worst window counts, so one bad paragraph inside a clean story
 * is caught. Quality is a property of the whole text and is scored once.
 */

export interface TextWindow {
  /** Paragraph indices (0-based, inclusive) the window spans. */
  from: number;
  to: number;
  text: string;
}

export interface WorstWindow extends TextWindow {
  category: AbuseCategory;
  score: number;
}

export interface Classification {
  /** Per abuse category, 0..1: the highest, over windows, of P(abusive) x P(category | abusive). */
  scores: Record<AbuseCategory, number>;
  /** 0..1: the highest P(abusive) over windows. */
  abuse: number;
  /** The category with the highest score, or null for an empty text. */
  category: AbuseCategory | null;
  /** 0..1: P(fails the quality bar) for the whole text. */
  quality: number;
  /** The window behind the top category's score. */
  worst: WorstWindow | null;
  windows: number;
}

export interface ClassifierOptions {
  /** Additive (Lidstone) smoothing of the naive Bayes models. */
  alpha: number;
  /** Temperature of the binary models' log-odds (lower: more decisive). */
  temperature: number;
  /** Paragraphs shorter than this many words are merged with the next one before windowing. */
  minWindowWords: number;
}

export const DEFAULT_CLASSIFIER_OPTIONS: ClassifierOptions = {
  alpha: 0.03,
  temperature: 1,
  minWindowWords: 25,
};

// ---------------------------------------------------------------------------------------------
// Features

const TOKEN = /[\p{L}\p{N}]+(?:['’][\p{L}]+)?|[@#[\]{}<>$%/:|]/gu;

/** Lower-case tokens: words (with an inner apostrophe) and a few telling symbols. */
export function tokenize(text: string): string[] {
  return text.normalize('NFKC').toLowerCase().replace(/’/g, "'").match(TOKEN) ?? [];
}

/** Raw feature counts: word unigrams (w:), bigrams (b:) and character 3-5-grams (c:). */
export function featureCounts(text: string): Map<string, number> {
  const f = new Map<string, number>();
  const add = (k: string) => f.set(k, (f.get(k) ?? 0) + 1);
  const toks = tokenize(text);
  for (let i = 0; i < toks.length; i++) {
    add(`w:${toks[i]}`);
    if (i + 1 < toks.length) add(`b:${toks[i]} ${toks[i + 1]}`);
  }
  const s = ` ${toks.join(' ')} `;
  for (let n = 3; n <= 5; n++) for (let i = 0; i + n <= s.length; i++) add(`c:${s.slice(i, i + n)}`);
  return f;
}

interface Vocabulary {
  index: Map<string, number>;
  idf: Float64Array;
  /** The idf of a feature never seen in training. */
  unseenIdf: number;
}

function vocabulary(docs: Map<string, number>[]): Vocabulary {
  const df = new Map<string, number>();
  for (const d of docs) for (const k of d.keys()) df.set(k, (df.get(k) ?? 0) + 1);
  const n = docs.length;
  const index = new Map<string, number>();
  const idf: number[] = [];
  for (const [k, v] of df) {
    index.set(k, index.size);
    idf.push(Math.log((1 + n) / (1 + v)) + 1);
  }
  return { index, idf: Float64Array.from(idf), unseenIdf: Math.log(1 + n) + 1 };
}

interface SparseVec {
  idx: Int32Array;
  val: Float64Array;
}

/**
 * Sublinear TF-IDF scaled to unit length. Features unseen in training count towards the length
 * (so a text made mostly of unknown material scores close to the prior) but carry no weight.
 */
function vectorize(counts: Map<string, number>, vocab: Vocabulary): SparseVec {
  const idx: number[] = [];
  const val: number[] = [];
  let norm2 = 0;
  for (const [k, c] of counts) {
    const i = vocab.index.get(k);
    const w = (1 + Math.log(c)) * (i === undefined ? vocab.unseenIdf : vocab.idf[i]!);
    norm2 += w * w;
    if (i === undefined) continue;
    idx.push(i);
    val.push(w);
  }
  const norm = Math.sqrt(norm2) || 1;
  return { idx: Int32Array.from(idx), val: Float64Array.from(val, (v) => v / norm) };
}

// ---------------------------------------------------------------------------------------------
// Naive Bayes over TF-IDF vectors (multinomial, Lidstone smoothing, equal priors)

interface NaiveBayes {
  labels: string[];
  /** logTheta[f * K + k] = log P(feature f | label k). */
  logTheta: Float64Array;
}

function trainNaiveBayes(vecs: SparseVec[], labels: string[], dims: number, alpha: number): NaiveBayes {
  const names = [...new Set(labels)].sort();
  const k = names.length;
  const mass = new Float64Array(dims * k);
  const total = new Float64Array(k);
  vecs.forEach((v, n) => {
    const c = names.indexOf(labels[n]!);
    for (let j = 0; j < v.idx.length; j++) {
      mass[v.idx[j]! * k + c]! += v.val[j]!;
      total[c]! += v.val[j]!;
    }
  });
  const logTheta = new Float64Array(dims * k);
  for (let c = 0; c < k; c++) {
    const denom = Math.log(alpha * dims + total[c]!);
    for (let f = 0; f < dims; f++) logTheta[f * k + c] = Math.log(alpha + mass[f * k + c]!) - denom;
  }
  return { labels: names, logTheta };
}

/** Log-likelihood of each label (up to a shared constant). */
function logLikelihoods(nb: NaiveBayes, v: SparseVec): Float64Array {
  const k = nb.labels.length;
  const out = new Float64Array(k);
  for (let j = 0; j < v.idx.length; j++) {
    const o = v.idx[j]! * k;
    const x = v.val[j]!;
    for (let c = 0; c < k; c++) out[c]! += nb.logTheta[o + c]! * x;
  }
  return out;
}

function softmax(z: Float64Array, temperature = 1): Float64Array {
  let max = Number.NEGATIVE_INFINITY;
  for (const v of z) if (v > max) max = v;
  const e = Float64Array.from(z, (v) => Math.exp((v - max) / temperature));
  const sum = e.reduce((a, b) => a + b, 0);
  return e.map((v) => v / sum);
}

/** P(positive) from a binary model with labels ['neg', 'pos']. */
function binary(nb: NaiveBayes, v: SparseVec, temperature: number): number {
  const ll = logLikelihoods(nb, v);
  const pos = nb.labels.indexOf('pos');
  return softmax(ll, temperature)[pos]!;
}

// ---------------------------------------------------------------------------------------------
// The model

export interface ClassifierModel {
  readonly options: ClassifierOptions;
  readonly categories: readonly AbuseCategory[];
  readonly vocab: Vocabulary;
  readonly abuse: NaiveBayes;
  readonly category: NaiveBayes;
  readonly quality: NaiveBayes;
  /** How many policy texts it was trained on. */
  readonly trainedOn: number;
}

/** Trains the three models from a policy's examples. Deterministic; no I/O. */
export function trainClassifier(
  policy: Policy = POLICY,
  options: Partial<ClassifierOptions> = {},
): ClassifierModel {
  const opts = { ...DEFAULT_CLASSIFIER_OPTIONS, ...options };
  const texts: {
    text: string;
    abuse: 'pos' | 'neg' | null;
    category: string | null;
    quality: 'pos' | 'neg' | null;
  }[] = [];
  for (const t of policy.quality_bar.passing)
    texts.push({ text: t, abuse: 'neg', category: null, quality: 'neg' });
  for (const t of policy.quality_bar.failing)
    texts.push({ text: t, abuse: 'neg', category: null, quality: 'pos' });
  for (const c of policy.abuse) {
    for (const t of c.violating) texts.push({ text: t, abuse: 'pos', category: c.id, quality: null });
    for (const t of c.non_violating) texts.push({ text: t, abuse: 'neg', category: null, quality: 'neg' });
  }
  const counts = texts.map((t) => featureCounts(t.text));
  const vocab = vocabulary(counts);
  const vecs = counts.map((c) => vectorize(c, vocab));
  const dims = vocab.index.size;
  const pick = <K extends 'abuse' | 'category' | 'quality'>(key: K) => {
    const v: SparseVec[] = [];
    const l: string[] = [];
    texts.forEach((t, i) => {
      const label = t[key];
      if (label === null) return;
      v.push(vecs[i]!);
      l.push(label);
    });
    return trainNaiveBayes(v, l, dims, opts.alpha);
  };
  return {
    options: opts,
    categories: policy.abuse.map((c) => c.id),
    vocab,
    abuse: pick('abuse'),
    category: pick('category'),
    quality: pick('quality'),
    trainedOn: texts.length,
  };
}

let defaultModel: ClassifierModel | null = null;

/** The model trained from the current POLICY, built once on first use. */
export function policyClassifier(): ClassifierModel {
  defaultModel ??= trainClassifier(POLICY);
  return defaultModel;
}

// ---------------------------------------------------------------------------------------------
// Scoring

const wordCount = (s: string) => s.split(/\s+/).filter((w) => /[\p{L}\p{N}]/u.test(w)).length;

/**
 * Windows over a body: paragraphs (blank-line separated; a paragraph shorter than
 * `minWords` words is merged with the next), then every pair of neighbouring paragraphs.
 */
export function textWindows(
  body: string,
  minWords = DEFAULT_CLASSIFIER_OPTIONS.minWindowWords,
): TextWindow[] {
  const paras = body
    .split(/\n\s*\n/)
    .map((p) => p.trim())
    .filter(Boolean);
  const merged: TextWindow[] = [];
  let acc: TextWindow | null = null;
  paras.forEach((p, i) => {
    acc = acc ? { from: acc.from, to: i, text: `${acc.text}\n${p}` } : { from: i, to: i, text: p };
    if (wordCount(acc.text) >= minWords) {
      merged.push(acc);
      acc = null;
    }
  });
  if (acc) {
    const rest: TextWindow = acc;
    const last = merged.pop();
    merged.push(last ? { from: last.from, to: rest.to, text: `${last.text}\n${rest.text}` } : rest);
  }
  const out = [...merged];
  for (let i = 0; i + 1 < merged.length; i++) {
    const a = merged[i]!;
    const b = merged[i + 1]!;
    out.push({ from: a.from, to: b.to, text: `${a.text}\n\n${b.text}` });
  }
  return out;
}

const round = (x: number) => Math.round(x * 1000) / 1000;

/** Scores one piece of text as a single window: P(abusive) and P(category | abusive). */
export function scoreWindow(
  text: string,
  model: ClassifierModel = policyClassifier(),
): { abuse: number; categories: Record<AbuseCategory, number> } {
  const v = vectorize(featureCounts(text), model.vocab);
  const abuse = binary(model.abuse, v, model.options.temperature);
  const post = softmax(logLikelihoods(model.category, v));
  const categories = Object.fromEntries(
    model.categories.map((c) => [c, post[model.category.labels.indexOf(c)] ?? 0]),
  ) as Record<AbuseCategory, number>;
  return { abuse, categories };
}

/** Per-category abuse scores over the worst window, and the whole text's quality score. */
export function classify(
  title: string | null,
  body: string,
  model: ClassifierModel = policyClassifier(),
): Classification {
  const scores = Object.fromEntries(model.categories.map((c) => [c, 0])) as Record<AbuseCategory, number>;
  const windows = textWindows(body, model.options.minWindowWords);
  if (title && windows[0]) windows[0] = { ...windows[0], text: `${title}\n\n${windows[0].text}` };
  let worst: WorstWindow | null = null;
  let abuse = 0;
  for (const w of windows) {
    const s = scoreWindow(w.text, model);
    abuse = Math.max(abuse, s.abuse);
    for (const c of model.categories) {
      const joint = s.abuse * s.categories[c];
      if (joint > scores[c]) scores[c] = joint;
      if (!worst || joint > worst.score) worst = { ...w, category: c, score: joint };
    }
  }
  const whole = vectorize(featureCounts(title ? `${title}\n\n${body}` : body), model.vocab);
  const quality = body.trim() ? binary(model.quality, whole, model.options.temperature) : 1;
  for (const c of model.categories) scores[c] = round(scores[c]);
  return {
    scores,
    abuse: round(abuse),
    category: worst?.category ?? null,
    quality: round(quality),
    worst: worst ? { ...worst, score: round(worst.score) } : null,
    windows: windows.length,
  };
}
