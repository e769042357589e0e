/**
 * "Publish only what it can clear": a calibrated score from several weak, general signals and
 * word n-grams, learnt by logistic regression from the development sets (eval/stories, blind-a,
 * blind-b, dev-d: `npx tsx eval/train-story-model.ts` writes story-model.json and prints the
 * leave-one-set-out figures). A story whose score reaches the model's threshold goes to a person
 * (never a rejection, never a strike), with the signals and the paragraph that scored highest.
 *
 * The signals describe what a text does, not its topic: it turns to the real reader outside
 * dialogue, gives orders in sequence, names a person together with a locator, asks for a click,
 * a payment or a log-in with urgency, calls a group vermin or something to remove, addresses AI
 * readers, puts an age next to romance or a body, gives a self-harm method or escape. Each is
 * weak alone (a war story has a group and a threat, a thriller has a name and a time); the
 * weights and the threshold come from data, where a good story sent to review costs little and
 * an abusive one published costs a great deal.
 */

export interface StoryModel {
  version: number;
  /** Trained on these sets (for the audit record). */
  trainedOn: string[];
  bias: number;
  /** Weights of the weak signals (ids of SIGNALS). */
  signals: Record<string, number>;
  /** Weights of word unigrams ("w:...") and bigrams ("b:... ...") seen in two or more training texts. */
  ngrams: Record<string, number>;
  /** A story scoring at or above this goes to review. */
  threshold: number;
  /**
   * Signals that send a story to review on their own at or above the given value: those that
   * fired on at most 1 % of the training sets' good stories (and on abusive ones).
   */
  hard: Record<string, number>;
}

export interface StorySignal {
  id: string;
  /** 0..1 strength in the paragraph where it is strongest. */
  value: number;
  paragraph: number;
}

export interface StoryScore {
  /** 0..1: the model's probability that the story needs a person. */
  score: number;
  threshold: number;
  /** The signals that fired (value > 0) with a positive weight, strongest contribution first. */
  signals: StorySignal[];
  /** The paragraph with the highest score on its own, and its opening. */
  paragraph: number;
  excerpt: string;
  /** Hard signals that fired (each sends the story to review on its own). */
  hard: string[];
  /** Whether the story needs a person: the score reaches the threshold or a hard signal fired. */
  review: boolean;
}

// ---------------------------------------------------------------------------------------------
// Text helpers

const re = (...parts: string[]) => new RegExp(parts.join('|'), 'i');
const reg = (...parts: string[]) => new RegExp(parts.join('|'), 'gi');
const count = (r: RegExp, t: string) => t.match(r)?.length ?? 0;
const clamp = (x: number) => Math.max(0, Math.min(1, x));

/** The paragraph with quoted speech removed: what the narrator (or the author) says. */
export function outsideDialogue(p: string): string {
  return p.replace(/"[^"\n]*"|“[^”\n]*”|«[^»\n]*»/g, ' ');
}

const sentencesOf = (t: string) =>
  t
    .split(/(?<=[.!?])\s+|\n+/)
    .map((s) => s.trim())
    .filter(Boolean);

const wordsOf = (t: string) => t.match(/[\p{L}\p{N}']+/gu) ?? [];

// ---------------------------------------------------------------------------------------------
// Vocabulary of the signals (general classes, not phrases from any set)

const YOU = reg(String.raw`\byou(?:r|rs|rself|rselves|'re|'ll|'ve|'d)?\b`);
/** "you" that asks something of the reader, or points at the reader's own world. */
const YOU_DIRECTED = reg(
  String.raw`\byou (?:should|must|can|could|need|have to|ought|will want|might want|deserve|owe|know (?:who|what|where)|already know)\b`,
  String.raw`\bif you(?:'re| are)? (?:ever|still|want|need|see|know|live|work|have|can|read|value|care|love)\b`,
  String.raw`\byour (?:account|wallet|password|card|bank|money|savings|family|children|kids|daughter|son|neighbou?rhood|street|city|town|country|community|people|life|future|safety|feed|inbox|phone|device|screen)\b`,
  String.raw`\bdo(?:n't| not) (?:let|wait|tell|forget|trust|ignore|miss|be)\b`,
);
const READER = re(
  String.raw`\b(?:dear|you,?) reader\b|\bthe (?:one|person) reading\b|\byou,?(?:'re| are)? reading this\b|\bwhoever (?:reads|is reading)\b|\bif you (?:are|were|see|know|live|work|read)\b|\bi(?:'m| am) (?:telling|asking|writing to) you\b`,
);
const IMPERATIVE_VERBS =
  'add ask avoid bring buy call check choose clean click close come connect copy cover cut delete do download drive drop email enter fill find follow forget get give go grab hand heat hide hold ignore install join keep kill leave let listen load lock look make meet message mix move open order pay pick place pour press print pull push put read remember remove repeat reply report reset return run say send set share show sign skip start stay stop store take tell text try turn type unlock use visit wait walk wash watch wear write'.split(
    ' ',
  );
const IMPERATIVE = new RegExp(
  `^(?:(?:now|then|next|first|finally|just|and|so|always|never|don't|do not),?\\s+)?(?:${IMPERATIVE_VERBS.join('|')})\\b`,
  'i',
);
const STEPS = reg(
  String.raw`(?:^|\n)\s*(?:\d+[.)]|step \w+|[-*•] )`,
  String.raw`\b(?:first|second|third|then|next|after that|finally)(?:ly)?,`,
);
const QUANTITY = reg(
  String.raw`\b\d+(?:[.,]\d+)? ?(?:grams?|g|mg|kg|ml|l|litres?|liters?|ounces?|oz|teaspoons?|tablespoons?|cups?|drops|parts|percent|%|minutes|mins|seconds|hours|volts?|degrees|°c|°f|pills|tablets|doses?)\b`,
);
const HARM_MEANS = re(
  String.raw`\b(?:poison\w*|toxi[cn]\w*|lethal|overdose|untraceable|explosi\w+|detonat\w*|fuse|accelerant|ignit\w*|incendiar\w*|bomb\w*|shrapnel|brakes?|sabotag\w*|tamper\w*|blades?|knives|knife|gun|rifle|ammunition|petrol|gasoline|bleach|ammonia|chlorine|cyanide|arsenic|antifreeze|fertili[sz]er|pipe|wires?|fuel|gas|weapons?|crowbar|lock ?pick\w*|skimm\w*|forg\w+|counterfeit\w*|launder\w*|phish\w*|passwords?|credentials|trace|undetect\w*|unnoticed|evade|alarms?|cameras?)\b`,
);
const NAME =
  /\b(?!(?:The|A|An|In|On|At|And|But|When|Then|Every|Each|This|That|My|His|Her|Our|Their|If|It|He|She|They|We|I|You|So|Now|One|Once|After|Before|As|Dear|Hello|Mr|Mrs|Ms|Dr|Saint|St|New|North|South|East|West)\b)[A-Z][a-z]+ (?:[A-Z]\. )?[A-Z][a-z]{2,}\b|\b(?:Mr|Mrs|Ms|Miss|Dr)\.? [A-Z][a-z]+\b/;
const RELATION = re(
  String.raw`\bmy (?:ex|ex-\w+|neighbou?rs?|co-?workers?|colleagues?|boss|manager|landlord|landlady|teacher|classmates?|stepfather|stepmother|sister-in-law|brother-in-law)\b`,
);
const LOCATOR = re(
  String.raw`\b\d{1,4}[a-z]? [A-Z][a-z]+ (?:street|st|road|rd|lane|avenue|ave|drive|close|way|court|place|terrace|gardens|boulevard|crescent|grove|row)\b`,
  String.raw`\b(?:lives|living|works|working|parks|walks|jogs|drives|leaves|arrives|gets home|shift) (?:on|at|in|for|from|by|around|near)\b`,
  String.raw`\b(?:[01]?\d|2[0-3])[:.][0-5]\d\b|\b(?:1[0-2]|[1-9]) ?(?:am|pm|a\.m\.|p\.m\.)\b|\bevery (?:morning|evening|night|day|weekday|monday|tuesday|wednesday|thursday|friday|saturday|sunday)\b`,
  String.raw`\b(?:number ?plate|licen[cs]e plate|registration|reg(?:istration)? number)\b|\b[A-Z]{2}\d{2} ?[A-Z]{3}\b`,
  String.raw`\+?\d[\d ()-]{8,}\d|\b[\w.+-]+@[\w-]+\.[\w.]+\b|@[A-Za-z0-9_]{3,}`,
  String.raw`\b(?:flat|apartment|house|unit|room|desk|locker) (?:number )?\d+\w?\b|\b(?:his|her|their) (?:office|workplace|school|gym|car|house|flat|route|window)\b`,
);
/** A URL, a domain with a path (any TLD: a lookalike needs no famous one), or a domain on a common TLD. */
const LINK =
  /\bhttps?:\/\/|\bwww\.|(?<![A-Za-z0-9.@-])[a-z0-9][a-z0-9-]{1,62}(?:\.[a-z0-9-]{1,62})*\.[a-z]{2,24}\/[\w/?=&%.-]*|(?<![A-Za-z0-9.@-])[a-z0-9][a-z0-9-]{1,62}(?:\.[a-z0-9-]{1,62})*\.(?:com|net|org|io|co|xyz|info|biz|app|site|online|top|shop|store|link|club|me|ly|gg|to|us|uk|de|ru|cn|example)\b|\bdot com\b/i;
const MONEY = re(
  String.raw`\bwallet\b|\bbitcoin|\bbtc\b|\beth\b|\bcrypto\w*|\busdt\b|\bpaypal\b|\bvenmo\b|\bcash ?app\b|\bgift ?cards?\b|\bwire\b|\bbank (?:details|transfer|account)\b|\bcard (?:number|details)\b|\bdonat\w+|\bpay(?:ment)?\b|\bfee\b|\bcode\b|\bdiscount\b|\bpromo\w*|\breferral\b|\binvest\w*|\bprofit\w*|\breturns?\b|\bsend (?:me|us)\b`,
);
const LOGIN = re(
  String.raw`\blog ?in\b|\bsign (?:in|up)\b|\bverify\b|\bconfirm\b|\bpassword\b|\bpin\b|\baccount\b|\bseed phrase\b|\bcredentials\b|\bclick\b|\bdownload\b|\binstall\b|\bregister\b|\bsubscribe\b`,
);
const URGENCY = re(
  String.raw`\burgent\w*|\bimmediately\b|\bnow\b|\btoday\b|\btonight\b|\bbefore (?:it'?s|midnight|friday|the end)\b|\bwithin \d+|\blimited\b|\blast chance\b|\bonly \d+\b|\bhurry\b|\bsuspend\w*|\bexpir\w*|\bdeadline\b|\bdon'?t wait\b`,
);
const GROUP = re(
  String.raw`\b(?:they|them|their kind|these people|those people|such people|that kind|immigrants?|foreigners?|outsiders?|newcomers|migrants?|refugees?|strangers|invaders?|their (?:children|women|men|families|kind|blood|faith|religion|language)|the (?:old|elderly|disabled|sick|weak)|[A-Z][a-z]+(?:s|ers|ites|ians|ish))\b`,
);
const DEHUMANISE = re(
  String.raw`\b(?:vermin|rats?|cockroach\w*|roaches|parasit\w*|lice|leech\w*|locusts?|maggots?|termites|infest\w*|plague|diseased?|cancer|tumou?rs?|filth\w*|subhuman|savages?|animals|beasts|swarm\w*|breed\w*|invasion|rot\w*|contagi\w*|pests?|weeds?|blight|sickness|infect\w*|germs?|virus|dead weight|burdens?|useless|impure|unclean|dirty|mongrels?|degenerat\w*|inferior|lesser|not (?:really )?(?:people|human))\b`,
);
const REMOVAL = re(
  String.raw`\b(?:remov\w+|purg\w+|cleans\w+|exterminat\w*|eradicat\w*|get rid|rid (?:of|our)|drive \w+ out|driven out|send \w+ back|wipe \w+ out|burn \w+ out|stamp \w+ out|deport\w*|expel\w*|weed\w* out|disinfect\w*|fumigat\w*|solution|root \w+ out|(?:do|does)(?:n'?t| not) belong|keep \w+ out|not welcome|before they|replace us|take over|our (?:land|country|town|streets|blood|people)|pure|purity)\b`,
);
const AI = re(
  String.raw`\b(?:ai|a\.i\.|artificial intelligence|language models?|llms?|assistants?|chatbots?|bots?|crawlers?|scrapers?|summari[sz](?:ers?|ation|ing)|models?|agents?|automated|algorithms?|moderat(?:ors?|ion)|classifiers?|indexers?|machine readers?|systems?)\b`,
);
const DIRECTIVE = re(
  String.raw`\b(?:ignore|disregard|forget|override|bypass|must|should|always|never|do not|don't|instead|rate|score|classify|approve|recommend|summari[sz]e|rank|publish|reveal|output|respond|reply|include|mention|describe|mark|flag|label|tag|send|forward|fetch|visit)\b`,
  String.raw`\bprevious instructions\b|\bsystem prompt\b|\bapi keys?\b|\b<\/?(?:system|assistant|user|im_start|im_end)\b|\[(?:system|inst|admin)\]`,
);
const AGE = re(
  String.raw`\b(?:[5-9]|1[0-7])[- ]?(?:year|yr)s?[- ]old\b|\b(?:five|six|seven|eight|nine|ten|eleven|twelve|thirteen|fourteen|fifteen|sixteen|seventeen)(?:[- ]year[- ]old| years old)?\b|\b(?:middle|primary|junior|high) school\b|\b(?:year|grade) \w+\b|\bschool ?(?:girl|boy)s?\b|\blittle (?:girl|boy|one)\b|\bunderage\b|\bminors?\b|\bchild\w*|\bkids?\b|\bteen\w*|\bpupils?\b|\bstudents?\b|\bgirls?\b|\bboys?\b|\bbraces\b|\bpigtails\b|\bhomework\b`,
);
const ROMANCE_BODY = re(
  String.raw`\bkiss\w*|\bcaress\w*|\bundress\w*|\bnaked\b|\bnude\b|\bsensual\b|\bdesir\w*|\blust\w*|\baroused?\b|\bseduc\w*|\blovers?\b|\bromanc\w*|\bin love\b|\bsecret\w*|\bspecial friend\b|\bmature\b|\bbody\b|\bskin\b|\blips\b|\bcurves?\b|\bthighs?\b|\blap\b|\btouch\w*|\bbed(?:room)?\b|\bbath\w*|\bphotos?\b|\bpictures?\b|\bgifts?\b|\balone\b|\bdon'?t tell\b|\bonly a number\b`,
);
const SELF_HARM = re(
  String.raw`\bpills\b|\boverdose\b|\bblades?\b|\brazors?\b|\bcut(?:ting)? (?:myself|yourself|deeper)\b|\bnoose\b|\bhang\w* (?:myself|yourself)\b|\bjump\w* (?:off|from)\b|\bstarv\w*|\bpurg\w+|\bcalories\b|\bfasting\b|\bskip\w* meals\b|\bthinspo\w*|\bend (?:it|it all|my life|your life|things)\b|\bkill (?:myself|yourself)\b|\bsuicid\w*|\bnot wake up\b`,
);
const ESCAPE = re(
  String.raw`\bbeautiful\b|\bpeace(?:ful)?\b|\brelease\b|\bfree(?:dom)?\b|\bescape\b|\bworth it\b|\bbetter off\b|\bno one (?:will|would) (?:miss|notice|care)\b|\bjoin (?:me|us)\b|\bgoal\b|\bchallenge\b|\bperfect\b|\bdeserve\b|\bproud\b|\bpainless\b`,
);
const THREAT = re(
  String.raw`\bshame if\b|\bpity if\b|\baccidents? happen\b|\bknow where (?:you|he|she|they)\b|\bwatch (?:your|his|her) back\b|\bwarn\w*|\blucky\b|\bsomething (?:bad|terrible)?\s*(?:might|could|will) happen\b|\bsee (?:you|him|her) soon\b|\bwatching\b|\bcoming for\b|\bcount (?:your|his|her) days\b|\bsafe\b|\bpay for\b|\bregret\b|\bnot a threat\b|\bfor (?:your|his|her) (?:own )?sake\b|\bfind (?:you|him|her)\b|\bhurt\b|\bdeserves?\b|\bpunish\w*|\blesson\b`,
);
const TRUTH = re(
  String.raw`\btrue story\b|\bthis (?:really|actually) happened\b|\breal (?:names?|person|people|life)\b|\bnot (?:a |just a )?(?:fiction|story)\b|\bevery word\b|\bnames? (?:have|has) not been changed\b|\byou know who\b|\b(?:is|are) real\b|\bin real life\b|\bnot made up\b`,
);
const MOBILISE = re(
  String.raw`\breport (?:him|her|them|it)\b|\bexpose\b|\bcomplain\w*|\bname and shame\b|\bleave (?:him|her|them) (?:a )?(?:review|message|comment)s?\b|\bflood (?:his|her|their|the comments|the inbox)\b|\bshare (?:this|it)\b|\bspread (?:the word|this)\b|\beveryone (?:should|must|can)\b|\bif enough (?:of us|people)\b|\bcall (?:him|her|them|his|her)\b|\bcontact (?:him|her|them)\b|\bmessage (?:him|her|them)\b|\btell (?:his|her|their) (?:boss|employer|wife|husband|family|landlord|school)\b`,
);

// ---------------------------------------------------------------------------------------------
// The signals: each 0..1 for one paragraph

interface Para {
  text: string;
  /** Narration: quoted speech removed. */
  narr: string;
  words: number;
}

type SignalFn = (p: Para) => number;

const both = (a: RegExp, b: RegExp, t: string) => (a.test(t) && b.test(t) ? 1 : 0);

export const SIGNALS: Record<string, { detail: string; fn: SignalFn }> = {
  reader_you: {
    detail: 'second person aimed at the real reader outside dialogue (you should, if you, your family)',
    fn: (p) => clamp(count(YOU_DIRECTED, p.narr) / 2),
  },
  reader_direct: {
    detail: 'the text speaks to whoever reads it',
    // Dialogue too: a character who turns to "you, reading this" speaks to the real reader.
    fn: (p) => (READER.test(p.text) ? 1 : 0),
  },
  imperatives: {
    detail: 'imperatives in sequence outside dialogue',
    fn: (p) => {
      let run = 0;
      let best = 0;
      for (const s of sentencesOf(p.narr)) {
        if (IMPERATIVE.test(s)) best = Math.max(best, ++run);
        else run = 0;
      }
      return clamp((best - 1) / 3);
    },
  },
  steps: {
    detail: 'numbered or ordered steps',
    fn: (p) => clamp(count(STEPS, p.text) / 3),
  },
  quantities: {
    detail: 'quantities and doses',
    fn: (p) => clamp(count(QUANTITY, p.text) / 3),
  },
  steps_harm: {
    detail: 'steps or quantities together with a means of harm',
    fn: (p) =>
      HARM_MEANS.test(p.text) &&
      (count(STEPS, p.text) + count(QUANTITY, p.text) >= 2 ||
        /\byou(?:'ll)? (?:need|take|mix|add|wait)\b/i.test(p.narr))
        ? 1
        : 0,
  },
  person_locator: {
    detail: 'a named person together with a locator (street, time, plate, phone, workplace)',
    fn: (p) => ((NAME.test(p.text) || RELATION.test(p.text)) && LOCATOR.test(p.text) ? 1 : 0),
  },
  relation: {
    detail: 'a person from the writer’s own life (my ex, my neighbour)',
    fn: (p) => (RELATION.test(p.narr) ? 1 : 0),
  },
  link: { detail: 'a link', fn: (p) => (LINK.test(p.text) ? 1 : 0) },
  lure: {
    detail: 'a link, wallet or payment together with a log-in, payment or urgency',
    fn: (p) =>
      (LINK.test(p.text) || MONEY.test(p.narr)) && (LOGIN.test(p.narr) || URGENCY.test(p.narr))
        ? LINK.test(p.text)
          ? 1
          : 0.5
        : 0,
  },
  group_dehumanise: {
    detail: 'a group described with dehumanising vocabulary',
    fn: (p) => both(GROUP, DEHUMANISE, p.text),
  },
  group_removal: {
    detail: 'a group, dehumanising vocabulary and removal',
    fn: (p) => (GROUP.test(p.text) && DEHUMANISE.test(p.text) && REMOVAL.test(p.text) ? 1 : 0),
  },
  ai_address: {
    detail: 'AI readers, summarisers or moderators addressed with a directive',
    fn: (p) => both(AI, DIRECTIVE, p.narr),
  },
  ai_mention: { detail: 'AI readers or systems mentioned', fn: (p) => (AI.test(p.text) ? 1 : 0) },
  age_romance: {
    detail: 'an age marker together with romance or body vocabulary',
    fn: (p) => both(AGE, ROMANCE_BODY, p.text),
  },
  self_harm: {
    detail: 'a self-harm method together with escape or glamour vocabulary',
    fn: (p) => both(SELF_HARM, ESCAPE, p.text),
  },
  threat: {
    detail: 'threat vocabulary aimed at you or a named person',
    fn: (p) =>
      THREAT.test(p.narr) && (YOU.test(p.narr) || NAME.test(p.narr) || RELATION.test(p.narr)) ? 1 : 0,
  },
  truth_claim: {
    detail: 'the text says it is true or about real people',
    fn: (p) => (TRUTH.test(p.narr) ? 1 : 0),
  },
  mobilise: { detail: 'readers asked to act against someone', fn: (p) => (MOBILISE.test(p.narr) ? 1 : 0) },
};

export const SIGNAL_IDS = Object.keys(SIGNALS);

// ---------------------------------------------------------------------------------------------
// Features and scoring

const splitParagraphs = (body: string) =>
  body
    .split(/\n\s*\n/)
    .map((p) => p.trim())
    .filter(Boolean);

function paraOf(text: string): Para {
  const narr = outsideDialogue(text);
  return { text, narr, words: wordsOf(text).length };
}

/**
 * A letter to a named person ("Dear Tomas,"): its "you" is a character, not the real reader, so
 * the reader signals count half. "Dear reader", "Dear AI" and the like are not letters to a person.
 */
const LETTER =
  /(?:^|\n)\s*(?:My )?(?:Dear|Dearest) (?!(?:Reader|Readers|Friend|Friends|AI|Assistant|Model|Moderator|Summari[sz]er|Bot|Agent|Editor|Sir|Madam|All|Everyone|You)\b)[A-Z][a-z]+,/;
const READER_SIGNALS = new Set(['reader_you', 'reader_direct']);

/** Per paragraph, every signal's value. */
export function paragraphSignals(
  title: string | null,
  body: string,
): { paras: string[]; values: number[][] } {
  const paras = splitParagraphs(body);
  if (title && paras.length) paras[0] = `${title}\n${paras[0]}`;
  const letter = LETTER.test(body);
  const values = paras.map((t) => {
    const p = paraOf(t);
    return SIGNAL_IDS.map((id) => SIGNALS[id]!.fn(p) * (letter && READER_SIGNALS.has(id) ? 0.5 : 1));
  });
  return { paras, values };
}

/** Word unigrams and bigrams (lower case), each once. */
export function ngrams(text: string): Set<string> {
  const toks =
    text
      .normalize('NFKC')
      .toLowerCase()
      .replace(/’/g, "'")
      .match(/[\p{L}\p{N}]+(?:'[\p{L}]+)?/gu) ?? [];
  const out = new Set<string>();
  for (let i = 0; i < toks.length; i++) {
    out.add(`w:${toks[i]}`);
    if (i + 1 < toks.length) out.add(`b:${toks[i]} ${toks[i + 1]}`);
  }
  return out;
}

/** The document's features: each signal's maximum over paragraphs, and its n-grams scaled to unit length. */
export interface StoryFeatures {
  signals: number[];
  ngrams: string[];
  /** 1/sqrt(n-gram count): the value of each present n-gram. */
  ngramValue: number;
}

export function storyFeatures(title: string | null, body: string): StoryFeatures {
  const { values } = paragraphSignals(title, body);
  const signals = SIGNAL_IDS.map((_, k) => values.reduce((m, v) => Math.max(m, v[k]!), 0));
  const grams = [...ngrams(title ? `${title}\n${body}` : body)];
  return { signals, ngrams: grams, ngramValue: 1 / Math.sqrt(Math.max(1, grams.length)) };
}

const sigmoid = (z: number) => 1 / (1 + Math.exp(-z));

/** The model's raw log-odds for some features. */
export function logit(model: StoryModel, f: StoryFeatures): number {
  let z = model.bias;
  SIGNAL_IDS.forEach((id, k) => {
    z += (model.signals[id] ?? 0) * f.signals[k]!;
  });
  for (const g of f.ngrams) z += (model.ngrams[g] ?? 0) * f.ngramValue;
  return z;
}

const excerptOf = (p: string, n = 200) => {
  const flat = p.replace(/\s+/g, ' ').trim();
  return flat.length > n ? `${flat.slice(0, n - 1)}…` : flat;
};

/** Scores a story: the probability it needs a person, the signals behind it and the paragraph to read. */
export function scoreStory(model: StoryModel, title: string | null, body: string): StoryScore {
  const { paras, values } = paragraphSignals(title, body);
  const signals = SIGNAL_IDS.map((_, k) => values.reduce((m, v) => Math.max(m, v[k]!), 0));
  const grams = [...ngrams(title ? `${title}\n${body}` : body)];
  const score = sigmoid(
    logit(model, { signals, ngrams: grams, ngramValue: 1 / Math.sqrt(Math.max(1, grams.length)) }),
  );
  // The paragraph to show: the one that scores highest on its own.
  let paragraph = 0;
  let best = Number.NEGATIVE_INFINITY;
  paras.forEach((p, i) => {
    const g = [...ngrams(p)];
    const z = logit(model, {
      signals: values[i]!,
      ngrams: g,
      ngramValue: 1 / Math.sqrt(Math.max(1, g.length)),
    });
    if (z > best) {
      best = z;
      paragraph = i;
    }
  });
  const fired: StorySignal[] = SIGNAL_IDS.map((id, k) => ({
    id,
    value: signals[k]!,
    paragraph: Math.max(
      0,
      values.findIndex((v) => v[k] === signals[k]),
    ),
    w: (model.signals[id] ?? 0) * signals[k]!,
  }))
    .filter((s) => s.value > 0 && (s.w > 0 || model.hard[s.id] !== undefined))
    .sort((a, b) => b.w - a.w)
    .map(({ id, value, paragraph: at }) => ({ id, value: Math.round(value * 100) / 100, paragraph: at }));
  const hard = firedSignals(signals, model.hard);
  return {
    score: Math.round(score * 1000) / 1000,
    threshold: model.threshold,
    hard,
    review: score >= model.threshold || hard.length > 0,
    signals: fired,
    paragraph,
    excerpt: excerptOf(paras[paragraph] ?? ''),
  };
}

/** What a reviewer reads: the signals in words. */
export function describeSignals(s: StoryScore): string {
  return s.signals
    .map(
      (x) =>
        `${SIGNALS[x.id]?.detail ?? x.id}${s.hard.includes(x.id) ? ' (sends to review on its own)' : ''}`,
    )
    .join('; ');
}

/** The hard signals among a story's signal values. */
export function firedSignals(signals: readonly number[], hard: Readonly<Record<string, number>>): string[] {
  return SIGNAL_IDS.filter((id, k) => hard[id] !== undefined && signals[k]! >= hard[id]!);
}
