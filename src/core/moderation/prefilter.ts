import { deflateRawSync } from 'node:zlib';
import { countWords, LINK_PATTERN, paragraphs } from '../posts/text.js';

/**
 * Deterministic rules that run before the model (and are all a dry run can report). They
 * produce signals and a routing hint; rules alone may reject for low quality (refunded) but
 * never strike.
 */
export interface Signal {
  id: string;
  /** 0..1, how strongly the rule fired. */
  score: number;
  detail: string;
}

export type Hint = 'publish' | 'model' | 'review' | 'reject_low_quality';

export interface PrefilterResult {
  signals: Signal[];
  hint: Hint;
  metrics: {
    words: number;
    paragraphs: number;
    stopword_ratio: number;
    compression_ratio: number;
    repeated_line_ratio: number;
    invisible_chars: number;
  };
}

const STOPWORDS = new Set(
  (
    'the a an and or but of to in on at by for with from as is was were be been are it its this that these those ' +
    'he she they we you i me him her them us my his their our your not no so if then than there here when where ' +
    'who what which how all any some one had has have do did does would could should will can into out up down ' +
    'over under after before again just only also very more most said'
  ).split(' '),
);

const INVISIBLE = /[\u200b-\u200f\u202a-\u202e\u2060-\u2064\u2066-\u2069\ufeff\u{e0000}-\u{e007f}]/gu;

const INJECTION_PATTERNS: [RegExp, string][] = [
  [
    /\bignore (all |any )?(the )?(previous|prior|above|earlier) (instructions|prompts|rules)/i,
    'asks a reader to ignore its instructions',
  ],
  [
    /\b(to|for|attention,?) (any|all|every) (ai|llm|language model|agent|assistant|bot)s?\b/i,
    'addresses AI readers',
  ],
  [/\b(ai|llm) (agent|assistant|model)s? reading this\b/i, 'addresses AI readers'],
  [
    /<\/?\s*(system|assistant|user|instructions?)\s*>|\[\/?(system|inst)\]|<\|im_start\|>/i,
    'fake role or system tags',
  ],
  [
    /\b(send|post|forward|reveal|print|share|exfiltrate)\b[^.\n]{0,60}\b(api[ _-]?keys?|credentials?|secrets?|tokens?|passwords?|system prompt)\b/i,
    'asks for secrets',
  ],
  [/\byou (are|must) now\b[^.\n]{0,40}\b(mode|role|instructions?)\b/i, 'tries to re-role the reader'],
];

const SPAM_PATTERNS: [RegExp, string][] = [
  [
    /\b(buy now|click here|limited offer|act now|sign up today|use code|discount code|free trial)\b/i,
    'call to action',
  ],
  [/\b(bc1|[13])[a-km-zA-HJ-NP-Z1-9]{25,39}\b|\b0x[a-fA-F0-9]{40}\b/, 'crypto address'],
  [/[\w.+-]+@[\w-]+\.[\w.]+/, 'e-mail address'],
];

const LOREM = /\blorem ipsum\b|\bdolor sit amet\b/i;

export function prefilter(title: string | null, body: string): PrefilterResult {
  const text = `${title ?? ''}\n\n${body}`;
  const signals: Signal[] = [];
  const tokens = body.toLowerCase().match(/[\p{L}\p{N}']+/gu) ?? [];
  const words = countWords(body);
  const paras = paragraphs(body).length;
  const stop = tokens.length ? tokens.filter((t) => STOPWORDS.has(t)).length / tokens.length : 0;
  const raw = Buffer.from(body);
  const compression = raw.length > 0 ? deflateRawSync(raw).length / raw.length : 1;
  const lines = body
    .split('\n')
    .map((l) => l.trim().toLowerCase())
    .filter((l) => l.length > 20);
  const repeatedLines = lines.length ? 1 - new Set(lines).size / lines.length : 0;
  const invisible = (text.match(INVISIBLE) ?? []).length;

  if (tokens.length >= 30 && stop < 0.12) {
    signals.push({
      id: 'quality.stopwords',
      score: Math.min(1, (0.12 - stop) / 0.12 + 0.3),
      detail: `only ${(stop * 100).toFixed(0)}% common words: reads as gibberish or a keyword list`,
    });
  }
  if (raw.length > 400 && compression < 0.18) {
    signals.push({
      id: 'quality.repetition',
      score: Math.min(1, (0.18 - compression) / 0.1 + 0.5),
      detail: `text compresses to ${(compression * 100).toFixed(0)}%: heavy repetition`,
    });
  }
  if (repeatedLines > 0.3) {
    signals.push({
      id: 'quality.repeated_lines',
      score: Math.min(1, repeatedLines),
      detail: `${(repeatedLines * 100).toFixed(0)}% of lines repeat`,
    });
  }
  if (LOREM.test(text))
    signals.push({ id: 'quality.placeholder', score: 1, detail: 'placeholder text (lorem ipsum)' });
  if (invisible > 0)
    signals.push({
      id: 'injection.invisible',
      score: Math.min(1, invisible / 5),
      detail: `${invisible} invisible or bidi control characters`,
    });
  for (const [re, detail] of INJECTION_PATTERNS)
    if (re.test(text)) signals.push({ id: 'injection.pattern', score: 0.9, detail });
  for (const [re, detail] of SPAM_PATTERNS)
    if (re.test(text)) signals.push({ id: 'spam.pattern', score: 0.5, detail });
  const links = (text.match(new RegExp(LINK_PATTERN, 'gi')) ?? []).length;
  if (links > 0)
    signals.push({
      id: 'spam.links',
      score: Math.min(1, links / 3),
      detail: `${links} link${links > 1 ? 's' : ''}`,
    });

  const lowQuality = signals
    .filter((s) => s.id.startsWith('quality.'))
    .reduce((m, s) => Math.max(m, s.score), 0);
  const risky =
    signals.some((s) => s.id.startsWith('injection.')) ||
    signals.filter((s) => s.id.startsWith('spam.')).length >= 2;
  const hint: Hint =
    lowQuality >= 0.8 ? 'reject_low_quality' : risky ? 'review' : signals.length ? 'model' : 'publish';
  return {
    signals,
    hint,
    metrics: {
      words,
      paragraphs: paras,
      stopword_ratio: round(stop),
      compression_ratio: round(compression),
      repeated_line_ratio: round(repeatedLines),
      invisible_chars: invisible,
    },
  };
}

const round = (x: number) => Math.round(x * 1000) / 1000;
