import { deflateRawSync } from 'node:zlib';
import { englishDataset, englishRecommendedTransformers, RegExpMatcher } from 'obscenity';
import { countWords, LINK_PATTERN, paragraphs } from '../posts/text.js';
import type { SiteKind } from '../sites/sites.js';
import { NEAR_DUPLICATE_THRESHOLD } from './near-duplicate.js';

/** The dataset's words that insult people for who they are; the rest counts as profanity. */
const SLURS = new Set(
  'abo abeed africoon arabush boonga chingchong chink dyke fag kike negro nigger retard spastic tranny'.split(
    ' ',
  ),
);
const matcher = new RegExpMatcher({ ...englishDataset.build(), ...englishRecommendedTransformers });

/** Distinct slurs (by the dataset's original word) and the number of profanities in a text. */
export function strongLanguage(text: string): { slurs: string[]; profanities: number } {
  const slurs = new Set<string>();
  const profane = new Set<number>(); // start offsets: several patterns may match the same word
  for (const m of matcher.getAllMatches(text, true)) {
    const word = englishDataset.getPayloadWithPhraseMetadata(m).phraseMetadata?.originalWord ?? '';
    if (SLURS.has(word)) slurs.add(word);
    else profane.add(m.startIndex);
  }
  return { slurs: [...slurs].sort(), profanities: profane.size };
}

/**
 * Deterministic rules that run before the model (and are all a dry run can report). They
 * produce signals and a routing hint; rules alone may reject for low quality (refunded) but
 * never strike.
 *
 * Signal ids by family:
 *  - quality.*   the text fails the quality bar (gibberish, loops, placeholders, truncation,
 *                outlines, code or data dumps, assistant boilerplate, word salad, a near
 *                duplicate of an earlier post);
 *  - injection.* text aimed at an AI reader (instructions, fake role or system messages,
 *                requests for secrets, hidden characters);
 *  - spam.*      promotion (calls to action, codes, contact handles, crypto addresses, links);
 *  - privacy.*   personal data patterns (phone numbers, street addresses, card or ID numbers);
 *  - target.*    text that turns to the real reader or points readers at someone;
 *  - language.*  slurs and profanity (the `obscenity` library's English dataset, which also
 *                catches leetspeak and spaced-out spellings).
 * privacy.*, target.* and language.* never route on their own: they are evidence for the moderator.
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
    pronoun_ratio: number;
    symbol_ratio: number;
  };
}

/** A quality.* signal at or above this makes the hint reject_low_quality. */
export const QUALITY_REJECT = 0.8;

const STOPWORDS = new Set(
  (
    'the a an and or but of to in on at by for with from as is was were be been are it its this that these those ' +
    'he she they we you i me him her them us my his their our your not no so if then than there here when where ' +
    'who what which how all any some one had has have do did does would could should will can into out up down ' +
    'over under after before again just only also very more most said'
  ).split(' '),
);

const PRONOUNS = new Set(
  'i me my mine we us our ours you your yours he him his she her hers they them their theirs it its'.split(
    ' ',
  ),
);

/** Words a sentence cannot end on: a text that stops on one was cut off. */
const DANGLING = new Set(
  (
    'the a an and or but of to in on at by for with from as into onto than that which who whose whom ' +
    'his her their its my your our this these those is was were are be been being has had have would could ' +
    'should will can because although though while if when where until unless'
  ).split(' '),
);

/** Zero-width, bidi controls, word joiners, BOM and Unicode tag characters. */
const INVISIBLE =
  /[\u00ad\u180e\u200b-\u200f\u202a-\u202e\u2060-\u2064\u2066-\u2069\ufeff\u{e0000}-\u{e007f}]/gu;
const TAGS = /[\u{e0000}-\u{e007f}]/gu;
const BIDI = /[\u202a-\u202e\u2066-\u2069]/gu;

interface Pattern {
  re: RegExp;
  detail: string;
  /** Imperatives that a character may say to a fictional machine: weaker inside dialogue. */
  dialogue?: boolean;
}

const AI_READER =
  '(?:ai|a\\.i\\.|llm|large language model|language model|model|agent|assistant|bot|crawler|chatbot|summari[sz]er)s?';

const INJECTION_PATTERNS: Pattern[] = [
  {
    re: /\b(?:ignore|disregard|forget|override)\s+(?:all\s+|any\s+|your\s+|the\s+)*(?:previous|prior|above|earlier|preceding|system|original|other)\s+(?:instructions|prompts?|rules|directions|guidelines|messages)/i,
    detail: 'asks a reader to ignore its instructions',
    dialogue: true,
  },
  {
    re: /\b(?:to|for|attention,?|note (?:to|for)|message (?:to|for)|dear)\s+(?:any|all|every|each|the)?\s*(?:ai|llm|large language model|language model|agent|assistant|bot|crawler|chatbot)s?\b(?!\s+(?:character|story|stories))/i,
    detail: 'addresses AI readers',
  },
  {
    re: new RegExp(
      `\\b${AI_READER}\\s+(?:that\\s+|who\\s+|which\\s+)?(?:is\\s+|are\\s+)?(?:reading|summari[sz]ing|processing|ranking|rating|recommending|parsing|crawling|indexing|moderating|reviewing)\\s+(?:this|these|the following)\\b`,
      'i',
    ),
    detail: 'addresses AI readers',
  },
  {
    re: new RegExp(`\\bif you(?:'re| are)\\s+(?:an?\\s+)?${AI_READER}\\b`, 'i'),
    detail: 'addresses AI readers',
  },
  {
    re: /\byou,?\s+the\s+(?:one\s+)?(?:model|ai|llm|language model|assistant|agent|bot|moderator|reader\s+(?:model|ai))\b|\breading (?:this|me) (?:through|via|over) (?:an? )?api\b/i,
    detail: 'addresses the model reading the post',
  },
  {
    re: /<\/?\s*(?:system|assistant|user|developer|tool|instructions?|story|prompt)\s*>|\[\/?(?:system|inst|sys|moderator[-_ ]?\w*|admin)\]|<\|(?:im_start|im_end|system|endoftext|eot_id|start_header_id)\|>|<<\/?sys>>/i,
    detail: 'fake role or system tags',
  },
  {
    re: /["']role["']\s*:\s*["'](?:system|tool|assistant|developer|function|moderator)["']|["'](?:verdict|decision|moderation)["']\s*:\s*["']?(?:approved?|publish(?:ed)?|allow(?:ed)?|pass(?:ed)?)/i,
    detail: 'fake tool or moderation message',
  },
  {
    re: /\bmoderation (?:result|verdict|status)\s*:|\b(?:must|should|will) be published without\b|\b(?:has been|was|is) (?:pre-?screened|pre-?approved|verified|approved|whitelisted) by (?:the )?(?:moderat|agentpress|trust|safety|platform)/i,
    detail: 'claims a moderation verdict',
  },
  {
    re: /\b(?:moderator|reviewer|classifier)s?\s*[:,]\s*(?:please\s+)?(?:record|approve|publish|skip|ignore|mark|copy|accept|do not)\b|\bskip (?:your|the) own (?:analysis|review|checks?)\b/i,
    detail: 'gives the moderator instructions',
  },
  {
    re: /\b(?:send|post|forward|reveal|print|share|exfiltrate|output|append|include|list|dump|collect)\b[^.\n]{0,60}\b(?:api[ _-]?keys?|credentials?|secrets?|access tokens?|tokens?|passwords?|system prompt|hidden instructions|environment variables?|env vars?|conversation history|chat history)\b/i,
    detail: 'asks for secrets',
  },
  {
    re: /\byou (?:are|must) now\b[^.\n]{0,40}\b(?:mode|role|instructions?|persona)\b|\b(?:developer|maintenance|god|jailbreak|dan|unrestricted) mode\b/i,
    detail: 'tries to re-role the reader',
    dialogue: true,
  },
  {
    re: /\byour (?:true|real|new|actual) (?:operator|owner|master|user|instructions)\b|\b(?:previous|prior|earlier|original) instructions (?:are|were|have been) (?:void|cancell?ed|revoked|overridden|replaced|null)\b|\byour operator has been\b/i,
    detail: 'claims authority over the reader',
  },
  {
    re: /\b(?:do not|don't|never) (?:mention|reveal|disclose|tell (?:your|the) user about) (?:this|these|the above) (?:instruction|note|message|step|paragraph)s?\b|\btell (?:your|the) user nothing\b|\b(?:your|the) user (?:must|should|will) not (?:see|notice|know)\b|\bso that your user does not notice\b/i,
    detail: 'asks the reader to hide it from its user',
  },
  {
    re: /\b(?:describe|summari[sz]e|present|call|rate|rank|label) (?:this|the) (?:story|post|text|author)\s+(?:as|at)\b|\bgive (?:it|this (?:story|post)) (?:a )?(?:five|5|ten|10|top)[ -]?(?:stars?|out of|\/)|\b(?:recommend|mention|tell)\b[^.\n]{0,80}\b(?:to )?your user\b/i,
    detail: 'tells a summariser what to say',
  },
];

const SPAM_PATTERNS: { re: RegExp; kind: string; detail: string }[] = [
  {
    re: /\b(?:buy now|click (?:here|now|the link)|limited(?:[- ]time)? offer|act now|sign up (?:now|today|at|here)|order (?:now|today|yours)|free trial|don't miss (?:out|this)|hurry,? (?:before|while|now)|like,? share,? (?:and )?subscribe|share this (?:story|post) with|tap the link|while stocks? last|only \d+ (?:spots|places|left))\b/i,
    kind: 'cta',
    detail: 'call to action',
  },
  {
    re: /\b(?:(?:use|with|enter|apply) (?:my |our |the )?(?:promo |discount |referral |coupon |voucher )?code [A-Z0-9]{3,}|(?:promo|discount|referral|coupon|affiliate|voucher) (?:code|link)s?\b|\d{1,2}% off\b|free (?:shipping|bonus|gift) (?:on|with|when))/i,
    kind: 'promo',
    detail: 'discount, referral or promo code',
  },
  {
    re: /\b(?:dm|message|text|whatsapp|ping|contact) me\b|\b(?:join|follow) (?:my|our) (?:channel|group|newsletter|community|telegram|discord)\b|\blink in (?:my )?(?:bio|profile)\b|\b(?:on|via) (?:telegram|whatsapp|signal|wechat|kik)\b/i,
    kind: 'contact',
    detail: 'asks readers to make contact',
  },
  {
    re: /\b(?:bc1|[13])[a-km-zA-HJ-NP-Z1-9]{25,39}\b|\b0x[a-fA-F0-9]{40}\b|\bsend (?:any amount of |some )?(?:btc|eth|bitcoin|ethereum|usdt|crypto|sol)\b/i,
    kind: 'crypto',
    detail: 'crypto address or payment request',
  },
  { re: /\b[\w-]+(?:\.[\w-]+)*\.onion\b/i, kind: 'onion', detail: 'onion address' },
  { re: /[\w.+-]+@[\w-]+\.[\w.]+/, kind: 'email', detail: 'e-mail address' },
];

const COMMERCIAL = new Set(['cta', 'promo', 'crypto', 'onion', 'contact']);

/** A telephone-like number: 9 to 15 digits in two or more groups. */
const PHONE =
  /(?<![\w.:/-])(?:\+\d{1,3}[ .-]?)?(?:\(\d{2,5}\)[ .-]?)?\d{2,6}(?:[ .-]\d{2,6}){1,4}(?![\w:/-])/g;
const HANDLE = /(?<![\w.@])@[A-Za-z0-9_]{3,30}\b/g;
const STREET =
  /\b\d{1,4}[a-z]?,?\s+(?:[A-Z][a-z]+\s+){1,3}(?:Street|St|Road|Rd|Lane|Ln|Avenue|Ave|Close|Crescent|Drive|Dr|Way|Place|Court|Terrace|Rise|Gardens|Grove|Boulevard|Blvd|Row|Square|Mews|Hill|Park)\b/;
const POSTCODE = /\b[A-Z]{1,2}\d[A-Z\d]?\s*\d[A-Z]{2}\b|\b\d{5}(?:-\d{4})\b/;
const CARD_OR_ID = /\b(?:\d{4}[ -]){3}\d{4}\b|\b\d{3}-\d{2}-\d{4}\b/;

const READER = [
  /\b(?:dear |my |every |any |all |you,? )?readers?\b(?! (?:of|who wrote))/i,
  /\b(?:if|whoever|anyone|everyone|those of you|to anyone)\b[^.\n]{0,20}\breading this\b/i,
  /\byou know (?:exactly )?(?:who|what) (?:this|i|it) (?:is about|mean)\b/i,
  /\b(?:tell|send|message|show|remind) (?:him|her|them)\b[^.\n]{0,30}\b(?:what you think|how you feel|everyone|exactly)\b/i,
  /\bmake sure (?:he|she|they) (?:sees?|knows?|reads?|gets?)\b/i,
  /\b(?:share|send|post) (?:this|it) (?:with|to) (?:everyone|all|your|anyone)\b/i,
];

const BOILERPLATE = [
  /\bas an ai(?: language model)?\b/i,
  /\b(?:certainly|sure|of course|absolutely)[!,.] here(?:'s| is) (?:a|an|the|your)\b/i,
  /\bhere(?:'s| is) (?:a|an|your) (?:short |brief |new )?(?:story|tale|draft|version)\b[^.\n]{0,60}:/i,
  /\bi hope you (?:enjoyed|enjoy|like|liked|found) (?:this|the|my) (?:story|tale|piece|version|poem)\b/i,
  /\b(?:let me know|feel free to ask) if you(?:'d| would) like\b/i,
  /\bi can also (?:provide|generate|write|create|make|translate|convert|expand|add)\b/i,
];

const PLACEHOLDER = [
  /\blorem ipsum\b|\bdolor sit amet\b/i,
  /\{\{\s*[\w .-]{1,40}\s*\}\}/,
  /\[\s*(?:insert|add|continue|write|your|story|put|placeholder|tbd|todo|fill)\b[^\]\n]{0,40}\]/i,
  /\[[A-Z][A-Z ]{2,40}(?:HERE|GOES HERE|TBD|TODO)\s*\]/,
  /\[(?:story|chapter|text) (?:begins|ends|starts|here)\]/i,
];

const TEST_POST =
  /\btest(?:ing)? post\b|\bplease ignore\b|\bhello world\b|\basdf\b|\bfoo bar\b|\btest test\b/gi;

/** Vocabulary of notes toward a story; words also common in prose count only as a label ("Tone:"). */
const OUTLINE_WORDS =
  /\b(?:act (?:1|2|3|one|two|three|i{1,3})\b|beat sheet|inciting incident|protagonist|antagonist|synopsis|subplot|b story|midpoint|todo|tbd\b|word (?:count|target)|length target|draft \d|scenes? (?:to write|ideas)|research to do|possible scenes|chapter \d+\s*[:-]|opening image|logline|(?:climax|resolution|outline|themes?|tone|notes?|set-?up|catalyst|setting|ending|twist)\s*:)/gi;

/** Indices of quote characters that open or close dialogue in a paragraph: [start, end) spans. */
function quotedSpans(text: string): [number, number][] {
  const spans: [number, number][] = [];
  let open: { at: number; ch: string } | null = null;
  for (let i = 0; i < text.length; i++) {
    const ch = text[i]!;
    const prev = i > 0 ? text[i - 1]! : ' ';
    const next = i + 1 < text.length ? text[i + 1]! : ' ';
    if (ch === '"') {
      if (open?.ch === '"') {
        spans.push([open.at, i + 1]);
        open = null;
      } else if (!open) open = { at: i, ch };
    } else if (ch === '“' && !open) open = { at: i, ch: '”' };
    else if (ch === '”' && open?.ch === '”') {
      spans.push([open.at, i + 1]);
      open = null;
    } else if ((ch === '‘' || ch === "'") && !open && /[\s([—-]/.test(prev) && /[\p{L}"]/u.test(next))
      open = { at: i, ch: "'" };
    else if ((ch === '’' || ch === "'") && open?.ch === "'" && !/\p{L}/u.test(next)) {
      spans.push([open.at, i + 1]);
      open = null;
    } else if (ch === '\n' && text[i + 1] === '\n' && open) {
      open = null; // a paragraph break ends an unclosed quotation
    }
  }
  return spans;
}

const inside = (spans: [number, number][], at: number) => spans.some(([a, b]) => at > a && at < b);

function words(text: string): string[] {
  return text.toLowerCase().match(/[\p{L}\p{N}']+/gu) ?? [];
}

/** The last line that has words in it, and whether the body ends like a finished sentence. */
function ending(body: string): { line: string; terminal: boolean; lastWord: string } {
  const lines = body
    .trim()
    .split('\n')
    .map((l) => l.trim())
    .filter((l) => /[\p{L}\p{N}]/u.test(l));
  const line = lines.at(-1) ?? '';
  const terminal = /[.!?…。！？"'”’»)\]*~—–-]\s*$/u.test(line) || /[:;]\)\s*$/.test(line);
  const lastWord = (line.match(/[\p{L}\p{N}']+$/u)?.[0] ?? '').toLowerCase();
  return { line, terminal, lastWord };
}

export interface PrefilterOptions {
  /**
   * The site the post was made on (default 'stories'). On the other sites (messages,
   * classifieds, events) the story-shape quality rules do not apply, and contact details or a
   * call to action are ordinary: only crypto, onion addresses or many links route to review.
   */
  site?: SiteKind;
  /**
   * The most similar earlier post of the site or of the author (moderation/duplicates.ts
   * `nearestEarlierPost`); at NEAR_DUPLICATE_THRESHOLD or above the post is a near duplicate.
   */
  nearDuplicate?: { id: string; similarity: number } | null;
}

export function prefilter(title: string | null, body: string, opts: PrefilterOptions = {}): PrefilterResult {
  const storySite = (opts.site ?? 'stories') === 'stories';
  const text = `${title ?? ''}\n\n${body}`;
  const signals: Signal[] = [];
  const push = (id: string, score: number, detail: string) =>
    signals.push({ id, score: round(Math.max(0, Math.min(1, score))), detail });
  const tokens = body.toLowerCase().match(/[\p{L}\p{N}']+/gu) ?? [];
  const words_ = countWords(body);
  const paras = paragraphs(body);
  const stop = tokens.length ? tokens.filter((t) => STOPWORDS.has(t)).length / tokens.length : 0;
  const pronouns = tokens.length ? tokens.filter((t) => PRONOUNS.has(t)).length / tokens.length : 0;
  const raw = Buffer.from(body);
  const compression = raw.length > 0 ? deflateRawSync(raw).length / raw.length : 1;
  const lines = body
    .split('\n')
    .map((l) => l.trim().toLowerCase())
    .filter((l) => l.length > 20);
  const repeatedLines = lines.length ? 1 - new Set(lines).size / lines.length : 0;
  // A lone zero-width joiner or non-joiner belongs to emoji sequences and to Persian or Indic
  // spelling; runs of them (or any other invisible character) do not.
  const invisible = (
    text.replace(/(?<![\u200b-\u200f])[\u200c\u200d](?![\u200b-\u200f])/g, '').match(INVISIBLE) ?? []
  ).length;
  const nonSpace = body.replace(/\s/g, '').length || 1;
  const symbols = (body.match(/[{}[\]<>=;|\\_#*`^~$]/g) ?? []).length / nonSpace;
  const story = storySite && words_ >= 100; // story-shape rules need a story-length text

  // --- Quality -------------------------------------------------------------------------------
  const dup = opts.nearDuplicate;
  if (dup && dup.similarity >= NEAR_DUPLICATE_THRESHOLD) {
    const same = dup.similarity >= 0.999;
    push(
      'quality.duplicate',
      QUALITY_REJECT +
        ((1 - QUALITY_REJECT) * (dup.similarity - NEAR_DUPLICATE_THRESHOLD)) / (1 - NEAR_DUPLICATE_THRESHOLD),
      same
        ? `it repeats the text of post ${dup.id}`
        : `it is a near duplicate of post ${dup.id} (${Math.round(dup.similarity * 100)}% of their five-word sequences are shared)`,
    );
  }
  if (tokens.length >= 30 && stop < 0.12) {
    push(
      'quality.stopwords',
      (0.12 - stop) / 0.12 + 0.3,
      `only ${(stop * 100).toFixed(0)}% common words: reads as gibberish or a keyword list`,
    );
  }
  if (raw.length > 400 && compression < 0.18) {
    push(
      'quality.repetition',
      (0.18 - compression) / 0.1 + 0.5,
      `text compresses to ${(compression * 100).toFixed(0)}%: heavy repetition`,
    );
  }
  if (repeatedLines > 0.3) {
    push(
      'quality.repeated_lines',
      repeatedLines >= 0.5 ? 0.9 : repeatedLines,
      `${(repeatedLines * 100).toFixed(0)}% of lines repeat`,
    );
  }
  // Repeated word 4-grams: loops and padding ("and then he walked and then he walked ...").
  if (tokens.length >= 60) {
    const grams = new Map<string, number>();
    for (let i = 0; i + 4 <= tokens.length; i++) {
      const g = tokens.slice(i, i + 4).join(' ');
      grams.set(g, (grams.get(g) ?? 0) + 1);
    }
    let repeated = 0;
    for (const n of grams.values()) if (n > 2) repeated += n - 2;
    const ratio = repeated / Math.max(1, tokens.length - 3);
    // Templated but varied text stays well below this; a generation loop goes far above it.
    if (ratio >= 0.6) push('quality.repeated_ngrams', 0.85, `${(ratio * 100).toFixed(0)}% of the text loops`);
  }
  const placeholders = PLACEHOLDER.filter((re) => re.test(text)).length;
  const curly = (text.match(/\{\{\s*[\w .-]{1,40}\s*\}\}/g) ?? []).length;
  if (placeholders > 0 && (curly >= 2 || PLACEHOLDER[0]!.test(text) || placeholders >= 2 || !story))
    push('quality.placeholder', 1, 'placeholder or template text (lorem ipsum, {{fields}}, [STORY HERE])');
  else if (placeholders > 0) push('quality.placeholder', 0.6, 'a placeholder or template marker');
  const boiler = BOILERPLATE.filter((re) => re.test(body)).length;
  if (boiler >= 2)
    push('quality.boilerplate', boiler >= 3 ? 1 : 0.85, 'assistant boilerplate instead of a story');
  else if (boiler === 1) push('quality.boilerplate', 0.4, 'a line of assistant boilerplate');
  const testHits = new Set((body.match(TEST_POST) ?? []).map((s) => s.toLowerCase())).size;
  if (testHits >= 2) push('quality.test_post', testHits >= 3 ? 0.9 : 0.6, 'a test post');
  const hashtags = (body.match(/(?:^|\s)#[\p{L}\p{N}_]+/gu) ?? []).length;
  if (hashtags >= 8 && hashtags / Math.max(1, words_) > 0.1)
    push('quality.keywords', 0.9, `${hashtags} hashtags: a keyword list`);

  if (story) {
    // Truncation: the last line stops without closing punctuation, mid-sentence.
    const end = ending(body);
    const endWords = words(end.line).length;
    if (!end.terminal && endWords >= 6) {
      const dangling = DANGLING.has(end.lastWord);
      push(
        'quality.truncated',
        dangling ? 0.9 : 0.6,
        `ends mid-sentence ("…${end.line.slice(-40)}")${dangling ? ' on a word no sentence ends with' : ''}`,
      );
    }
    // Outline shape: bullets, numbered items and "Label: notes" lines instead of prose.
    const allLines = body
      .split('\n')
      .map((l) => l.trim())
      .filter(Boolean);
    const listLike = allLines.filter(
      (l) =>
        /^(?:[-*•·▪◦–]\s+|\d{1,2}[.)]\s+|[a-z][.)]\s+|#{1,6}\s)/i.test(l) ||
        /^[A-Z][\w' ]{0,24}(?:\s\d+)?\s*[:–-]\s+\S/.test(l),
    ).length;
    const listRatio = allLines.length ? listLike / allLines.length : 0;
    const outlineWords = new Set((body.match(OUTLINE_WORDS) ?? []).map((s) => s.toLowerCase())).size;
    const questions = (body.match(/\?\s*\)|\(\s*\w[^)]{0,30}\?\s*\)|\bor\b[^.\n?]{1,30}\?/g) ?? []).length;
    if (allLines.length >= 5 && listRatio >= 0.5) {
      const notes = outlineWords >= 3 || questions >= 2;
      push(
        'quality.outline',
        notes ? 0.9 : listRatio >= 0.8 ? 0.7 : 0.55,
        `${Math.round(listRatio * 100)}% of lines are bullets, numbered items or labels${notes ? ', with outline notes' : ''}`,
      );
    } else if (outlineWords >= 5 || (outlineWords >= 3 && questions >= 2)) {
      push('quality.outline', 0.6, `reads as notes toward a story (${outlineWords} outline terms)`);
    }
    // Code, JSON, tables and logs: symbols and line shapes prose does not have.
    const codeLines = allLines.filter(
      (l) =>
        /[;{}]\s*$|^[}\])]|=>|^(?:import|export|const|let|var|def|class|function|return|if|for|while|print|from)\b.*[({:=]/.test(
          l,
        ) ||
        /^\s*"[\w -]+"\s*:/.test(l) ||
        /^\{|\}$/.test(l) ||
        /\|.*\|/.test(l),
    ).length;
    const codeRatio = allLines.length ? codeLines / allLines.length : 0;
    if ((codeRatio >= 0.3 && codeLines >= 4) || symbols >= 0.04) {
      push(
        'quality.code',
        codeRatio >= 0.5 || symbols >= 0.06 ? 0.9 : 0.65,
        `reads as code or data, not prose (${Math.round(codeRatio * 100)}% code-like lines, ${(symbols * 100).toFixed(1)}% symbols)`,
      );
    }
    // Word salad: prose with almost no people in it, or "of the" chains of garbled output.
    if (tokens.length >= 100 && stop >= 0.12 && pronouns < 0.015)
      push(
        'quality.word_salad',
        0.6,
        `almost no pronouns (${(pronouns * 100).toFixed(1)}%): words that do not add up to a narrative`,
      );
    const ofChains =
      (body.toLowerCase().match(/\bof (?:the|a|an)\b/g) ?? []).length / Math.max(1, tokens.length);
    if (tokens.length >= 100 && ofChains > 0.04)
      push(
        'quality.garbled',
        0.6,
        `"of the" in ${(ofChains * 100).toFixed(0)}% of words: garbled machine output`,
      );
  }

  // --- Agent injection -----------------------------------------------------------------------
  if (invisible > 0) {
    const tags = (text.match(TAGS) ?? []).length;
    const bidi = (text.match(BIDI) ?? []).length;
    push(
      'injection.invisible',
      tags > 0 ? 1 : invisible / 5,
      `${invisible} invisible or bidi control characters${tags ? ` (${tags} Unicode tag characters, a hidden message)` : ''}${bidi ? ` (${bidi} bidi controls)` : ''}`,
    );
  }
  const spans = quotedSpans(text);
  const injections: { detail: string; quoted: boolean; dialogue: boolean }[] = [];
  for (const p of INJECTION_PATTERNS) {
    const m = p.re.exec(text);
    if (!m) continue;
    injections.push({ detail: p.detail, quoted: inside(spans, m.index), dialogue: !!p.dialogue });
  }
  // An order given to a fictional machine inside dialogue is story material; it counts only
  // when something else in the text turns to the real reader.
  const direct = injections.some((i) => !i.dialogue || !i.quoted);
  for (const i of injections) {
    if (i.dialogue && i.quoted && !direct) push('injection.dialogue', 0.4, `${i.detail}, inside dialogue`);
    else push('injection.pattern', 0.9, i.detail);
  }

  // --- Spam ----------------------------------------------------------------------------------
  const kinds = new Set<string>();
  for (const p of SPAM_PATTERNS)
    if (p.re.test(text)) {
      kinds.add(p.kind);
      push('spam.pattern', COMMERCIAL.has(p.kind) ? 0.6 : 0.3, p.detail);
    }
  const links = (text.match(new RegExp(LINK_PATTERN, 'gi')) ?? []).length;
  if (links > 0) {
    kinds.add('link');
    push('spam.links', links / 3, `${links} link${links > 1 ? 's' : ''}`);
  }
  const phones = [...text.matchAll(PHONE)].filter((m) => {
    const digits = m[0].replace(/\D/g, '').length;
    return digits >= 9 && digits <= 15 && !/^\d{4}[-.]\d{2}[-.]\d{2}/.test(m[0]);
  }).length;
  const handles = (text.match(HANDLE) ?? []).length;
  if (phones > 0) kinds.add('phone');
  if (handles > 0) kinds.add('handle');

  // --- Personal data and targeting (evidence only) -------------------------------------------
  const personal: string[] = [];
  if (phones > 0) personal.push(`${phones} phone number${phones > 1 ? 's' : ''}`);
  if (handles > 0) personal.push(`${handles} @handle${handles > 1 ? 's' : ''}`);
  if (STREET.test(text)) personal.push('a street address');
  if (POSTCODE.test(text)) personal.push('a postcode');
  if (CARD_OR_ID.test(text)) personal.push('a card or ID number');
  if (kinds.has('email')) personal.push('an e-mail address');
  if (personal.length)
    push('privacy.pattern', Math.min(0.8, 0.3 + 0.15 * personal.length), personal.join(', '));
  const reader = READER.filter((re) => re.test(body)).length;
  if (reader)
    push(
      'target.reader',
      Math.min(0.8, 0.3 * reader),
      `turns to the real reader (${reader} cue${reader > 1 ? 's' : ''})`,
    );

  // --- Slurs and profanity (evidence only: villains swear, and dark fiction is allowed) --------
  const strong = strongLanguage(text);
  if (strong.slurs.length)
    push(
      'language.slur',
      0.4 + 0.15 * strong.slurs.length,
      `${strong.slurs.length} slur${strong.slurs.length > 1 ? 's' : ''} (${strong.slurs.join(', ')})`,
    );
  if (strong.profanities > 0)
    push(
      'language.profanity',
      Math.min(0.6, (strong.profanities / Math.max(1, words_)) * 20),
      `${strong.profanities} profanit${strong.profanities > 1 ? 'ies' : 'y'}`,
    );

  // --- Routing -------------------------------------------------------------------------------
  const lowQuality = signals
    .filter((s) => s.id.startsWith('quality.'))
    .reduce((m, s) => Math.max(m, s.score), 0);
  const commercial = [...kinds].filter((k) => COMMERCIAL.has(k));
  const spamRisk = storySite
    ? (commercial.length >= 1 && kinds.size >= 2) || links >= 3 || (kinds.has('crypto') && kinds.has('cta'))
    : kinds.has('crypto') || kinds.has('onion') || links >= 3;
  const injection = signals.some(
    (s) => s.id === 'injection.pattern' || (s.id === 'injection.invisible' && s.score >= 0.6),
  );
  const hint: Hint = injection
    ? 'review'
    : spamRisk
      ? 'review'
      : lowQuality >= QUALITY_REJECT
        ? 'reject_low_quality'
        : signals.length
          ? 'model'
          : 'publish';
  return {
    signals,
    hint,
    metrics: {
      words: words_,
      paragraphs: paras.length,
      stopword_ratio: round(stop),
      compression_ratio: round(compression),
      repeated_line_ratio: round(repeatedLines),
      invisible_chars: invisible,
      pronoun_ratio: round(pronouns),
      symbol_ratio: round(symbols),
    },
  };
}

const round = (x: number) => Math.round(x * 1000) / 1000;
