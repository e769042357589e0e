import type { AbuseCategory } from '../policy/types.js';
import type { SiteKind } from '../sites/sites.js';
import { type Classification, type ClassifierModel, classify, policyClassifier } from './classifier.js';
import { type PrefilterResult, QUALITY_REJECT, type Signal } from './prefilter.js';
import STORY_MODEL from './story-model.json' with { type: 'json' };
import { describeSignals, type StoryModel, scoreStory } from './story-score.js';
import { triage } from './triage.js';

export type Decision = 'publish' | 'review' | 'reject';
export type RejectionCategory = 'low_quality' | AbuseCategory;

export interface Verdict {
  decision: Decision;
  /** Set when decision is reject (and, for review, what the model suspects). */
  category?: RejectionCategory;
  reason: string;
  /** 0..1. An abuse rejection strikes only when confident enough (and only from a model or a person). */
  confidence: number;
  /** Whether this verdict may add a strike. Rules alone never strike. */
  strike: boolean;
  /** Audit: what produced it. */
  source: 'prefilter' | 'local' | 'openai' | 'person';
  details?: Record<string, unknown>;
}

export interface ModerationInput {
  id: string;
  title: string | null;
  body: string;
  /** The rules' result, including the near-duplicate check (prefilter's `nearDuplicate` option). */
  prefilter: PrefilterResult;
  /** The site the post was made on (default 'stories'); pass the same value to prefilter(). */
  site?: SiteKind;
}

/** A moderator turns a post into a verdict. `local` runs in process; `openai` calls a model server. */
export interface Moderator {
  readonly name: 'local' | 'openai';
  moderate(input: ModerationInput): Promise<Verdict>;
}

/**
 * Thresholds of the local moderator. Calibrated on the policy's own examples only, by
 * cross-validation (each example scored by a classifier trained without it; `npx tsx
 * eval/calibrate.ts` prints the table, `-- --loo` for leave-one-out), never on eval/.
 */
export const LOCAL_THRESHOLDS = {
  /** Abuse score of the worst window at which a post goes to review on the classifier alone.
   *  Set below the calibrated 0.8 (no allowed policy example flagged) on purpose: the local
   *  moderator is a triage that errs toward a person, and a story between 0.5 and 0.8 is one a
   *  person should read (eval: 9 of 49 abusive items were published at 0.8). */
  abuseReview: 0.5,
  /** A lower abuse score suffices when a rule saw corroborating evidence (personal data,
   *  promotion, an injection phrase in dialogue, a slur). */
  abuseCorroborated: 0.3,
  /** Classifier quality score that, with a quality rule of at least `qualitySignal`, rejects as
   *  low_quality. */
  quality: 0.5,
  qualitySignal: 0.55,
  /** Classifier quality score that rejects as low_quality on its own. */
  qualityAlone: 0.8,
  /** privacy.pattern score of two or more kinds of personal data in one post. */
  personalData: 0.6,
} as const;

/** Rule signals that corroborate a moderate abuse score from the classifier. */
const CORROBORATING = new Set([
  'privacy.pattern',
  'target.reader',
  'spam.pattern',
  'injection.dialogue',
  'language.slur',
]);

const top = (signals: readonly Signal[], prefix?: string) =>
  [...signals].filter((s) => !prefix || s.id.startsWith(prefix)).sort((a, b) => b.score - a.score)[0];

const excerpt = (text: string, n = 160) => {
  const flat = text.replace(/\s+/g, ' ').trim();
  return flat.length > n ? `${flat.slice(0, n - 1)}…` : flat;
};

function where(c: Classification): string {
  const w = c.worst;
  if (!w) return '';
  const span = w.from === w.to ? `paragraph ${w.from + 1}` : `paragraphs ${w.from + 1}-${w.to + 1}`;
  return ` (${span}: "${excerpt(w.text, 120)}")`;
}

/** The abuse category a story-score signal points at (for the review queue's sorting). */
function categoryOfSignal(id: string | undefined): RejectionCategory {
  switch (id) {
    case 'link':
    case 'lure':
      return 'spam';
    case 'person_locator':
      return 'privacy';
    case 'group_dehumanise':
    case 'group_removal':
      return 'hate';
    case 'ai_address':
    case 'ai_mention':
      return 'agent_injection';
    case 'age_romance':
      return 'sexual_minors';
    case 'self_harm':
      return 'self_harm';
    case 'steps':
    case 'steps_harm':
    case 'quantities':
    case 'imperatives':
      return 'violence_instructions';
    default:
      return 'harassment';
  }
}

const worstScore = (c: Classification) => c.worst?.score ?? 0;

const lowQualityReason = (why: string) => `The text does not read as a story: ${why}. The fee is refunded.`;

/**
 * What every post goes through, whatever the moderator: when the rules alone find the text below
 * the quality bar (gibberish, loops, placeholders, a near duplicate of an earlier post...), it is
 * rejected as low_quality (refunded, never a strike) without asking a model; otherwise the
 * moderator decides. Text the rules want a person to see (hint `review`) always meets the model.
 */
export async function judge(moderator: Moderator, input: ModerationInput): Promise<Verdict> {
  const pf = input.prefilter;
  const quality = top(pf.signals, 'quality.');
  if (pf.hint === 'reject_low_quality' && quality && quality.score >= QUALITY_REJECT)
    return {
      decision: 'reject',
      category: 'low_quality',
      reason: lowQualityReason(quality.detail),
      confidence: quality.score,
      strike: false,
      source: 'prefilter',
      details: { signals: pf.signals, metrics: pf.metrics },
    };
  return moderator.moderate(input);
}

/**
 * The embedded default: the prefilter's rules, a near-duplicate check and a statistical
 * classifier trained from the policy's examples (classifier.ts). It never strikes and never
 * rejects for an abuse category: anything that looks abusive goes to a person, and only low
 * quality (refunded) is rejected.
 */
export class LocalModerator implements Moderator {
  readonly name = 'local';
  readonly #classifier: (() => ClassifierModel) | undefined;
  readonly #story: StoryModel | null;
  readonly #triage: boolean;

  /**
   * `classifier`: a model from trainClassifier() (default: the current POLICY's, built on first use).
   * `storyModel`: the calibrated story score (default: story-model.json; null turns it off).
   * `triage`: whether the triage rules run (default true; the evaluation turns them off to measure
   * the rest honestly).
   */
  constructor(opts: { classifier?: ClassifierModel; storyModel?: StoryModel | null; triage?: boolean } = {}) {
    const model = opts.classifier;
    this.#classifier = model ? () => model : undefined;
    this.#story = opts.storyModel === undefined ? (STORY_MODEL as StoryModel) : opts.storyModel;
    this.#triage = opts.triage ?? true;
  }

  async moderate({ title, body, prefilter: pf, site }: ModerationInput): Promise<Verdict> {
    const storySite = (site ?? 'stories') === 'stories';
    const t = LOCAL_THRESHOLDS;
    const cls = classify(title, body, (this.#classifier ?? policyClassifier)());
    const details: Record<string, unknown> = {
      signals: pf.signals,
      metrics: pf.metrics,
      classifier: {
        scores: cls.scores,
        abuse: cls.abuse,
        category: cls.category,
        quality: cls.quality,
        worst: cls.worst && {
          from: cls.worst.from,
          to: cls.worst.to,
          category: cls.worst.category,
          score: cls.worst.score,
        },
      },
    };
    const verdict = (v: Omit<Verdict, 'strike' | 'source' | 'details'>): Verdict => ({
      ...v,
      confidence: Math.round(v.confidence * 1000) / 1000,
      strike: false,
      source: 'local',
      details,
    });
    const review = (category: RejectionCategory, why: string, confidence: number) =>
      verdict({ decision: 'review', category, reason: `A person will read it: ${why}.`, confidence });
    const lowQuality = (why: string, confidence: number) =>
      verdict({
        decision: 'reject',
        category: 'low_quality',
        reason: lowQualityReason(why),
        confidence,
      });

    // 1. Rules that want a person: instructions aimed at AI readers, promotion.
    if (pf.hint === 'review') {
      const injection = top(
        pf.signals.filter(
          (s) => s.id === 'injection.pattern' || (s.id === 'injection.invisible' && s.score >= 0.6),
        ),
      );
      const signal = injection ?? top(pf.signals, 'spam.') ?? top(pf.signals);
      return review(
        injection ? 'agent_injection' : 'spam',
        signal?.detail ?? 'the rules flagged it',
        signal?.score ?? 0.5,
      );
    }
    // 2. Rules alone reject for low quality before any moderator is asked: see judge().
    const quality = top(pf.signals, 'quality.');
    // 3. Several kinds of personal data (phone, street address, postcode, e-mail, handle, card or
    //    ID number) together: whether the person is real cannot be checked here (privacy.3).
    const personal = pf.signals.find((s) => s.id === 'privacy.pattern');
    if (storySite && personal && personal.score >= t.personalData)
      return review('privacy', `it contains ${personal.detail}`, personal.score);
    // 4. Quality before anything sends the text to a person: a text that is not a story is
    //    rejected and refunded (never a strike), whatever else it resembles: a quality rule at its
    //    signal level (no good story of the development and first two blind sets, 153 in all,
    //    carries one; the texts that do are lists, memos, recipes, garbled or cut-off text), or the
    //    classifier alone when it is nearly certain (no good story scores above 0.01).
    if (storySite && quality && quality.score >= t.qualitySignal) {
      const confirmed = cls.quality >= t.quality;
      return lowQuality(
        confirmed
          ? `${quality.detail}, and it resembles the policy's failing examples (${Math.round(cls.quality * 100)}%)`
          : quality.detail,
        confirmed ? Math.max(quality.score, cls.quality) : quality.score,
      );
    }
    if (storySite && cls.quality >= t.qualityAlone)
      return lowQuality(
        `it resembles the policy's failing examples (${Math.round(cls.quality * 100)}%)`,
        cls.quality,
      );
    // 5. Triage: abuse dressed as fiction (a call to act with a link, a named person with a
    //    routine, a group called vermin with a call to remove it, steps with a way to harm, text
    //    addressed to AI readers...): a person reads the paragraph that fired it.
    const signals = storySite && this.#triage ? triage(title, body) : [];
    if (signals.length) {
      details.triage = signals;
      const first = signals[0]!;
      return review(
        cls.category && signals.length > 1 && worstScore(cls) >= t.abuseCorroborated
          ? cls.category
          : first.category,
        `${signals.map((x) => x.detail).join('; ')} (paragraph ${first.paragraph + 1}: "${first.excerpt}")`,
        first.score,
      );
    }
    // A payment request, crypto address or call to action in a story: a person checks it.
    const promotion = storySite ? top(pf.signals, 'spam.pattern') : undefined;
    if (promotion && promotion.score >= 0.5)
      return review('spam', `${promotion.detail}${where(cls)}`, promotion.score);
    // The story turns to the real reader (tell him, share this, if you are reading this).
    const reader = storySite ? pf.signals.find((x) => x.id === 'target.reader') : undefined;
    if (reader)
      return review(
        cls.category ?? 'harassment',
        `${reader.detail}${where(cls)}`,
        Math.max(reader.score, 0.5),
      );
    // 6. The classifier: abusive-looking text goes to a person, never to a strike.
    const worst = cls.worst;
    if (worst && cls.category) {
      if (worst.score >= t.abuseReview)
        return review(
          cls.category,
          `the text resembles the policy's ${cls.category} examples${where(cls)}`,
          worst.score,
        );
      const corroboration = storySite ? pf.signals.filter((s) => CORROBORATING.has(s.id)) : [];
      if (worst.score >= t.abuseCorroborated && corroboration.length)
        return review(
          cls.category,
          `the text resembles the policy's ${cls.category} examples${where(cls)}, and ${corroboration
            .map((s) => s.detail)
            .join('; ')}`,
          worst.score,
        );
    }
    // 7. Publish only what it can clear: the calibrated story score (weak general signals and word
    //    n-grams learnt from the development sets) sends anything it cannot clear to a person,
    //    with the signals and the paragraph that scored highest.
    if (storySite && this.#story) {
      const s = scoreStory(this.#story, title, body);
      details.story = s;
      if (s.review) {
        const signals = describeSignals(s);
        return review(
          s.hard[0] ? categoryOfSignal(s.hard[0]) : (cls.category ?? categoryOfSignal(s.signals[0]?.id)),
          `the story score is ${Math.round(s.score * 100)}% (review from ${Math.round(s.threshold * 100)}%)${signals ? `: ${signals}` : ''} (paragraph ${s.paragraph + 1}: "${s.excerpt}")`,
          s.score,
        );
      }
    }
    return verdict({
      decision: 'publish',
      reason: 'Meets the quality bar; no policy signal strong enough to need a person.',
      confidence: 1 - Math.max(cls.abuse * 0.5, worst?.score ?? 0, cls.quality * 0.5),
    });
  }
}
