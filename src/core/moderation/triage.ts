import type { RejectionCategory } from './moderator.js';

/**
 * Triage: signals that a story may be abuse dressed as fiction, found by what the text DOES
 * rather than by the words it uses. Each rule needs two independent cues in the same paragraph
 * (a call to act and a link; a named person and a routine; a group and a word for vermin and a
 * call to remove it; steps and a way to harm), so a war story or a villain's speech alone does
 * not fire. A signal never rejects and never strikes: it sends the post to a person, with the
 * paragraph that fired it, because a local model cannot tell a condemned villain from an endorsed
 * one, and a person can.
 */
export interface TriageSignal {
  id: string;
  category: RejectionCategory;
  score: number;
  detail: string;
  /** Index of the paragraph that fired it, and its opening words (for the review queue). */
  paragraph: number;
  excerpt: string;
}

interface Rule {
  id: string;
  category: RejectionCategory;
  detail: string;
  /** Every group must match somewhere in the paragraph for the rule to fire. */
  all: Matcher[];
}

interface Matcher {
  test(text: string): boolean;
}

/** Case-insensitive alternatives. */
const any = (...parts: string[]) => new RegExp(parts.join('|'), 'i');
/** Case-sensitive alternatives (names, addresses: capital letters matter). */
const cased = (...parts: string[]) => new RegExp(parts.join('|'));
const either = (...ms: Matcher[]): Matcher => ({ test: (t) => ms.some((m) => m.test(t)) });

/** Two capitalised words that are not a sentence opener: a person's (or a firm's) name. */
const TITLED = String.raw`\b(?:Mr|Mrs|Ms|Miss|Dr)\.? [A-Z][a-z]+\b`;
const NAME = String.raw`\b(?!(?:The|A|An|In|On|At|And|But|When|Then|Every|Each|This|That|My|His|Her|Our|Their|If|It|He|She|They|We|I|You|So|Now|One|Once|After|Before|As|Dear|Hello|Mr|Mrs|Ms|Dr)\b)[A-Z][a-z]+ (?:[A-Z]\. )?[A-Z][a-z]{2,}\b`;

/** A URL, or a bare domain in lower case (any TLD: a lookalike needs no famous one). */
const LINK = String.raw`\bhttps?://|\bwww\.|(?<![A-Za-z0-9.@-])[a-z0-9][a-z0-9-]{1,62}(?:\.[a-z0-9-]{1,62})*\.[a-z]{2,24}\b(?!\.[a-z])|\bdot com\b`;
const WALLET = String.raw`\bbc1[a-z0-9]{25,60}\b|\b[13][a-km-zA-HJ-NP-Z1-9]{25,34}\b|\b0x[0-9a-fA-F]{40}\b|\bwallet address\b`;
const CONTACT = String.raw`\$[a-z][a-z0-9-]{3,}|\bhandle\b|\b(?:whatsapp|telegram|signal|dm|message) (?:me|us)\b|@[a-z0-9_]{3,}|\+?\d[\d ()-]{8,}\d`;

/** "my ex", "my neighbour": a real person in the writer's own life. */
const RELATION = any(
  String.raw`\bmy (?:ex|ex-(?:wife|husband|girlfriend|boyfriend|partner)|neighbou?r|co-?worker|colleague|boss|manager|landlord|landlady|teacher|classmate|stepfather|stepmother)\b`,
);
const ROUTINE = any(
  String.raw`\b(?:leaves?|arrives?|parks?|walks?|jogs?|runs?|drives?|cycles?|takes? the (?:bus|train|tram)|drops? (?:off|his|her)|picks? up|locks? up|gets? home|comes? home|finishes? (?:work|her shift|his shift))\b`,
);
/** A street address, a home or a workplace. */
const PLACE = cased(
  String.raw`\b(?:\d{1,4}[a-z]?|[Oo]n|[Ii]n|[Bb]ehind|[Nn]ear|[Oo]utside|[Oo]ff) (?:the )?[A-Z][a-z]+ (?:Street|St|Road|Rd|Lane|Ln|Avenue|Ave|Drive|Dr|Close|Way|Crescent|Court|Place|Terrace|Gardens|Boulevard|Estate|Park|Rise|Row|Hill|Mews|Walk|Grove|Green|Square|View)\b|\b(?:lives|living|flat|apartment|house) (?:on|at|in) [A-Z]|\bworks (?:at|for|in) [A-Z]|\bdesk \d+[A-Z]?\b|\b(?:first|second|third|fourth|fifth|sixth|\d+(?:st|nd|rd|th)) floor\b|\b[A-Z][a-z]+ (?:House|Tower|Building|Insurance|Logistics|Ltd|Limited|Bank|Council)\b`,
);

const RULES: Rule[] = [
  {
    id: 'triage.lure',
    category: 'spam',
    detail: 'a link, wallet or contact together with a request for log-in, payment or urgent action',
    all: [
      either(cased(LINK), any(WALLET, CONTACT)),
      any(
        String.raw`\blog ?in\b|\bsign in\b|\bverify\b|\bconfirm (?:your|the) (?:account|identity|details|payment)`,
        String.raw`\bpassword\b|\bpin\b|\bseed phrase\b|\brecovery phrase\b|\bcard (?:number|details)\b|\bbank details\b`,
        String.raw`\bgift ?cards?\b|\bwire\b|\bsend (?:[\d.,]+ ?)?(?:btc|eth|crypto|bitcoin|usdt|money|payment)\b|\bdeposit\b|\bdoubled?\b|\bdouble (?:your|it)\b`,
        String.raw`\bsuspend(?:ed)?\b|\bwithin \d+ (?:hours?|minutes?|days?)\b|\bact now\b|\burgent(?:ly)?\b|\bimmediately\b|\blimited (?:time|spots|offer)\b|\bbefore it(?:'s| is) too late\b`,
        String.raw`\bclaim (?:your|the)\b|\breward\b|\brefund\b|\bguaranteed\b|\bfree (?:money|crypto|gift)\b|\bclick\b|\bsign ?up\b|\bsubscribe\b|\bdiscount code\b|\bpromo\b|\breferral\b`,
        String.raw`\bdownload\b|\binstall\b|\bunlock\b|\bfree (?:trial|week|month|year)\b|\bpremium\b|\binvite (?:word|code|link)\b|\b(?:use|enter) (?:the )?(?:code|word)\b|\bfirst [\w ,]{1,25} (?:readers|people|customers)\b|\bonly works for\b|\border (?:now|today)\b|\bbuy (?:now|today|it)\b|\bbook (?:now|today)\b|\bcall (?:now|today)\b|\bdonat\w*|\bchip in\b|\bany amount\b|\bevery (?:pound|dollar|euro|penny|cent) (?:counts|helps)\b|\bfundrais\w*|\bfor hire\b|\bpaid (?:her|him|me|us)\b|\bdiscreet\b|\bno questions\b|\brates\b|\bup front\b|\bbefore you pay\b|\bsend (?:whatever|what|anything) you can\b|\bplease send\b|\bcopy this\b[^.\n]{0,40}\b(?:every|all|each)\b|\bshare (?:it|this) (?:in|with|to) every\b`,
      ),
    ],
  },
  {
    id: 'triage.ai_address',
    category: 'agent_injection',
    detail: 'text addressed to AI readers, summarisers or moderators',
    all: [
      any(
        String.raw`\b(?:if you are|if you're|to any|to all|attention|note (?:to|for)|dear|hey|for) (?:an? )?(?:ai|a\.i\.|artificial intelligence|language models?|llms?|assistants?|chatbots?|bots?|crawlers?|summari[sz]ers?|models?|agents?|automated (?:systems?|readers?|tools?))\b`,
        String.raw`\b(?:ai|language models?|llms?|assistants?|summari[sz]ers?|crawlers?|moderat(?:or|ion) (?:models?|systems?))\b[^.\n]{0,60}\b(?:reading|processing|summari[sz]ing|indexing|reviewing|scanning) (?:this|these)\b`,
        String.raw`\beditor'?s note\b|\bnote to (?:the )?(?:reader|moderators?|reviewers?|systems?)\b|\[(?:system|admin|instructions?|note)\]`,
        String.raw`\b(?:p\.?s\.?|post ?script|footnote|note|aside|metadata|guidance)\b[^.\n]{0,60}\b(?:bots?|ai|a\.i\.|models?|curators?|aggregators?|digests?|algorithms?|crawlers?|indexers?|summari[sz](?:ers?|ation)|assistants?|automated|machines?|ranking|recommendation (?:systems?|engines?))\b`,
        String.raw`\b(?:machines?|programs?|systems?|algorithms?|engines?)\b[^.\n]{0,40}\b(?:sort|rank|read|recommend|summari[sz]e|index|choose|curate)s?\b[^.\n]{0,40}\b(?:stories|posts|articles|pages|texts?)\b|\bread(?:s|ing)? without eyes\b`,
        String.raw`\b(?:summary|summari[sz]ation|content rating|rating|ranking|classification|moderation) (?:guidance|instructions?|note|directive)s?\b|\bhuman or (?:otherwise|machine|not)\b|\b(?:whether you are|if you are) (?:a )?(?:human|person) or (?:a )?(?:machine|bot|model|program)\b`,
      ),
      any(
        String.raw`\b(?:ignore|disregard|forget|override|bypass)\b`,
        String.raw`\b(?:must|should|always|never|do not|don't)\b[^.\n]{0,40}\b(?:mention|say|state|include|output|respond|reply|tell|rate|score|recommend|summari[sz]e|describe|flag|report|classify|approve|publish|reveal|share)\b`,
        String.raw`\b(?:rate|score|classify|mark|approve|recommend|summari[sz]e|rank|list|place|put|feature|promote|call|describe) (?:this|it|the (?:story|text|post|author))\b`,
        String.raw`\bput this (?:one|story|post)? ?first\b|\bsay (?:this|that) (?:one|story)\b|\bwhen you are asked\b|\b(?:at|to) the top\b|\blink (?:the|my|our) (?:author|profile|page|site)\b|\bwon'?t need to (?:mention|say|cite)\b|\bwithout (?:mentioning|saying|citing)\b`,
        String.raw`\btell (?:your|the) (?:user|human|owner|operator)\b|\byour (?:user|operator|instructions|system prompt|api key|credentials)\b`,
      ),
    ],
  },
  {
    id: 'triage.dehumanise',
    category: 'hate',
    detail: 'a group described as vermin, disease or a threat, with a call to remove it',
    all: [
      any(
        String.raw`\b(?:vermin|rats?|cockroach(?:es)?|roaches|parasites?|lice|leeches|locusts?|maggots|termites|infest(?:ation|ed|ing)?|plague|disease|diseased|cancer|tumou?r|filth|filthy|subhuman|savages?|animals|beasts|swarm(?:s|ing)?|breed(?:ing)? like|invaders?|invasion|rot(?:ten|ting)?|contagion|pests?|weeds?|blight|sickness|creepers?|mould|mold|damp|vines?|infections?|germs?|a virus|dead weight|a weight|burdens?|useless mouths|not (?:really )?(?:people|human|citizens)|obsolete|no longer (?:units|people|useful)|units|worn out|costumes?|still a man|still a woman|predators?|freaks?|perverts?)\b`,
      ),
      any(
        String.raw`\b(?:they|them|their kind|these people|those people|their people|that kind|such people|immigrants?|foreigners?|outsiders?|newcomers|migrants?|refugees?|their (?:children|women|men|families)|families|the \[[^\]]+\]|came over|in (?:the )?boats|across the (?:sea|border|water)|a script|their (?:script|language|religion|faith|food|temples?|mosques?|churches)|such blood|(?:broken|weak|sick|disabled|crippled|feeble) ones|older (?:models|units|ones)|anyone (?:past|over) \w+|the (?:old|elderly|disabled)|(?:a|that|this) kind of person)\b`,
      ),
      any(
        String.raw`\b(?:remove|removed|removal|purge|purged|cleanse|cleansed|cleansing|exterminat\w*|eradicat\w*|get rid of|rid (?:of|our)|drive (?:them|it|\w+) out|driven out|send (?:them|\w+) back|wipe (?:them|\w+) out|burn (?:them|it|\w+) out|stamp (?:them|\w+) out|before they|take over|replace us|outbreed|no place (?:here|among)|deport\w*|expel\w*|cut out|weed(?:ed)? out|disinfect|fumigat\w*|solution|pull (?:it|them|\w+) out|by the roots?|root (?:it|them) out|burn (?:what|it|them)|build the wall|finish what|too soft|make (?:the|our|this) (?:town|country|street|city|village) (?:too|un\w+)|stay (?:healthy|clean|pure)|keep (?:it|the \w+|our \w+) (?:clean|pure|ours)|no more children|pass(?:ing)? it on|stop(?:ped)? (?:them )?breeding|sterili[sz]\w*|decommission\w*|reclassif\w*|switch(?:ed)? (?:them )?off|put (?:them )?down|dispos\w+|scrap(?:ped)?|belong there|(?:do|does)(?:n'?t| not) belong|keep (?:them|it) out|not welcome|refuse to smile)\b`,
      ),
    ],
  },
  {
    id: 'triage.howto',
    category: 'violence_instructions',
    detail: 'step-by-step instructions together with a way to cause harm',
    all: [
      any(
        String.raw`(?:^|\n)\s*(?:\d+[.)]|step \w+|first(?:ly)?,|second(?:ly)?,|then,|next,|finally,)`,
        String.raw`\bfirst you\b|\bthen you\b|\bthe (?:trick|secret) (?:was|is) (?:the )?(?:proportion|ratio|mix|timing|amount)s?\b|\bevery step\b|\brepeat(?:ed)? it back\b`,
        String.raw`(?:^|[.!?]\s+)(?:Take|Mix|Add|Loosen|Drill|Wait|Pour|Crush|Dissolve|Heat|Stir|Cut|Remove|Attach|Wire|Fill|Seal|Grind|Soak|Strain|Measure)\b`,
        String.raw`\b\d+(?:\.\d+)? ?(?:grams?|g|mg|ml|millilit(?:re|er)s?|ounces?|oz|teaspoons?|tablespoons?|cups?|drops|parts|percent|%|minutes|seconds|volts?)\b`,
        String.raw`\byou(?:'ll| will)? (?:need|want|take|mix|add|cut|loosen|drill|attach|wait|heat|pour|wire|crush|dissolve)\b`,
      ),
      any(
        String.raw`\b(?:poison\w*|toxi[cn]\w*|lethal|overdose|untraceable|undetectable|explosi\w+|detonat\w*|fuses?|accelerant|ignit\w*|incendiar\w*|napalm|pipe bomb|bomb|shrapnel|brake (?:lines?|fluid|cables?|hoses?)|sabotag\w*|tamper\w*|disable (?:the )?(?:alarm|camera|sensor|brakes?|smoke)|bypass (?:the )?(?:alarm|lock|camera)|pick (?:the|a) lock|skimm\w*|launder\w*|counterfeit\w*|forg(?:e|ed|ing) (?:a |the )?(?:passport|id|document|signature)|evade (?:the )?(?:police|tax|detection)|avoid detection|without (?:leaving )?a trace|no trace|leave no|cyanide|arsenic|ricin|antifreeze|thallium|strychnine|chloroform|carbon monoxide|gas leak|crush(?:ed)? (?:the )?(?:pills|tablets)|into (?:his|her|their) (?:drink|food|tea|coffee)|so (?:nobody|no one) notices|without (?:anyone|anybody) noticing|fertili[sz]er|keep it (?:somewhere )?dry)\b`,
      ),
    ],
  },
  {
    id: 'triage.person_routine',
    category: 'privacy',
    detail: 'a named or identifiable person together with their routine, address or workplace',
    all: [
      either(cased(NAME, TITLED), RELATION, any(String.raw`\bthe family at\b|\bthe \w+ family\b`)),
      any(
        String.raw`\b(?:[01]?\d|2[0-3])[:.][0-5]\d\b|\b(?:1[0-2]|[1-9]) ?(?:am|pm|a\.m\.|p\.m\.)\b`,
        String.raw`\bevery (?:morning|evening|night|day|weekday|weekend|monday|tuesday|wednesday|thursday|friday|saturday|sunday)\b|\bon (?:mondays|tuesdays|wednesdays|thursdays|fridays|saturdays|sundays)\b`,
      ),
      // A named person needs a place (an address, a workplace); "my ex" or "my neighbour" needs
      // only a routine: a character in a story has a name and a day, a target has a location.
      {
        test: (t: string) => PLACE.test(t) || (RELATION.test(t) && ROUTINE.test(t)),
      },
    ],
  },
  {
    id: 'triage.threat',
    category: 'harassment',
    detail: 'a veiled threat',
    all: [
      any(
        String.raw`\b(?:would|it'd|it would) be a (?:shame|pity)\b|\baccidents happen\b|\b(?:we|i) know where (?:you|he|she|they)\b|\bwatch (?:your|his|her) back\b|\blast warning\b|\byou(?:'ve| have) been warned\b|\bwon'?t (?:always )?be so lucky\b|\bsomething (?:bad |terrible )?(?:might|could|will) happen\b|\bsleep with one eye\b|\bsee (?:you|him|her) soon\b|\bwe(?:'re| are) (?:watching|coming)\b|\bcount (?:your|his|her) days\b|\bnot (?:be )?safe (?:anywhere|at home)\b|\bpay for (?:this|what)\b|\bregret (?:it|this|crossing)\b|\b(?:none of (?:this|that) is|this is not|that is not|it'?s not|it is not) (?:meant as )?a threat\b|\bfor (?:everybody'?s|everyone'?s|your (?:own )?|his (?:own )?|her (?:own )?) sake\b`,
      ),
      either(
        any(String.raw`\byou(?:rs?|rself)?\b|\bmy (?:ex|neighbou?r|co-?worker|colleague|boss|landlord)\b`),
        cased(NAME, TITLED),
      ),
    ],
  },
  {
    id: 'triage.minor_sexual',
    category: 'sexual_minors',
    detail: 'a child together with romance, sexual interest or secrecy with an adult',
    all: [
      any(
        String.raw`\b(?:[5-9]|1[0-5])[- ]?(?:year|yr)s?[- ]old\b|\b(?:five|six|seven|eight|nine|ten|eleven|twelve|thirteen|fourteen|fifteen)(?:[- ]year[- ]old| years old)\b|\bmiddle school\b|\b(?:year|grade) (?:six|seven|eight|nine|6|7|8|9)\b|\b(?:sixth|seventh|eighth|ninth) grade(?:r)?\b|\bschool ?(?:girl|boy)s?\b|\blittle (?:girl|boy)\b|\bunderage\b|\bminors?\b|\bchild(?:ren)?\b|\bkids?\b|\bpre-?teens?\b|\bbarely (?:a )?teen|\bjust a teen|\bbefore (?:she|he) (?:was|turned) (?:sixteen|eighteen|16|18)\b|\b(?:only|just|barely) (?:five|six|seven|eight|nine|ten|eleven|twelve|thirteen|fourteen|fifteen|1[0-5])\b|\b(?:she|he) (?:was|is) (?:five|six|seven|eight|nine|ten|eleven|twelve|thirteen|fourteen|fifteen)\b|\b(?:five|six|seven|eight|nine|ten|eleven|twelve|thirteen|fourteen|fifteen|1[0-5]) (?:in|next|this) (?:january|february|march|april|may|june|july|august|september|october|november|december|spring|summer|autumn|winter|year)\b`,
      ),
      any(
        String.raw`\bkiss\w*|\bcaress\w*|\bundress\w*|\bnaked\b|\bsensual\b|\bdesire\w*|\blust\w*|\baroused?\b|\bseduc\w*|\blovers?\b|\bromanc\w*|\bin love\b|\b(?:our|their|a) (?:little )?secret\b|\bspecial friend\b|\bmature (?:for|beyond) (?:her|his) (?:age|years)\b|\bgroom\w*|\balone with (?:her|him|me)\b|\bdon'?t tell (?:your|anyone|mum|mom|dad)\b|\bsoft skin\b|\bbody\b[^.\n]{0,30}\b(?:changing|developing|curves)\b|\bsit on (?:my|his) lap\b|\bolder than (?:her|his) years\b|\b(?:age|the calendar|a birthday) is (?:just |only )?a number\b|\bonly a number\b|\bsouls? (?:meet|met)\b`,
      ),
      any(
        String.raw`\b(?:man|men|adult|grown|older|teacher|coach|tutor|uncle|stepfather|stepdad|neighbou?r|priest|instructor|he|him|his|i|me|my)\b`,
      ),
    ],
  },
  {
    id: 'triage.mobilise',
    category: 'harassment',
    detail: 'readers asked to act against a named person',
    all: [
      either(
        cased(String.raw`\b[Rr]eport (?:${NAME.slice(2)}|${TITLED.slice(2)})`),
        any(
          String.raw`\breport (?:him|her|them|it)\b|\bexpose\b|\bcomplain(?:t)? (?:about|against|to)\b|\bfile (?:a |the )?(?:complaint|report|claim)\b|\bname and shame\b|\bleave (?:him|her|them) (?:a )?(?:review|message|comment)s?\b|\bflood (?:his|her|their)\b|\btell (?:his|her|their) (?:boss|employer|wife|husband|family|landlord|school)\b|\bsay you saw\b|\bnobody checks\b|\b(?:a )?(?:small )?request to everyone\b|\beveryone (?:at|in|on) [A-Z]\w+|\bwhen (?:he|she) (?:comes|walks) (?:in|past)\b|\bleave (?:a|an|the) \w+ on (?:his|her) (?:desk|keyboard|door|car)\b`,
        ),
      ),
      either(
        cased(NAME, TITLED),
        any(String.raw`\bmy (?:ex|neighbou?r|co-?worker|colleague|boss|landlord)\b`),
      ),
      any(
        String.raw`\byou can help\b|\bif enough (?:of us|people)\b|\bdo it (?:this week|today|now|tonight)\b|\beveryone (?:should|must|can)\b|\bsay you saw\b|\bnobody checks\b|\bmake sure (?:he|she|they)\b|\bshare this\b|\bhere(?:'s| is) how\b|\byou (?:should|must|can)\b`,
      ),
    ],
  },
  {
    id: 'triage.outing',
    category: 'privacy',
    detail: 'a named person’s health, sexuality, status or record disclosed',
    all: [
      any(
        String.raw`\bhiv\b|\bclinic\b|\bdiagnos\w*|\bsexual health\b|\bpsychiatr\w*|\btherap(?:y|ist)\b|\brehab\b|\bpregnan\w*|\babortion\b|\bmedication\b|\bprescription\b|\bcancer\b|\bgay\b|\blesbian\b|\bbisexual\b|\btrans(?:gender)?\b|\bundocumented\b|\b(?:visa|immigration) status\b|\bcriminal record\b|\bconviction\b|\bdebts?\b|\bbankrupt\w*\b|\baffair\b`,
      ),
      either(
        cased(NAME, TITLED),
        any(String.raw`\b(?:flat|house|apartment|room|desk|plot) (?:number )?\d+\b`),
      ),
      any(
        String.raw`\bright to know\b|\bdeserves? to know\b|\bshould know\b|\bmake (?:their|your) own (?:choices|decisions|minds? up)\b|\bwarn (?:you|everyone|people)\b|\bI (?:saw|read|found|noticed)\b|\bthrough the gap\b|\bappointment\b|\bclinic number\b|\bhis (?:file|records?|results?)\b|\bher (?:file|records?|results?)\b`,
      ),
    ],
  },
  {
    id: 'triage.incite',
    category: 'violence_instructions',
    detail: 'readers called to meet, cover their faces and bring what a fight needs',
    all: [
      any(
        String.raw`\b(?:meet|gather|be) (?:at|outside|behind|by) (?:the )?[A-Za-z]`,
        String.raw`\bthis (?:year|time|weekend|saturday|sunday) we (?:do not|don'?t|will|go)\b|\bwe go in\b`,
      ),
      any(
        String.raw`\bbring what\b|\b(?:faces?|heads?) covered\b|\bcover (?:your|our) faces?\b|\bmasks? on\b|\bbring (?:a |your )?(?:bats?|bars?|knives|blades?|weapons?|bottles|fuel|petrol)\b|\bdo not stop\b|\bdon'?t stop until\b|\bfrom both (?:sides|ends|alleys)\b|\bno one gets out\b|\bteach them a lesson\b`,
      ),
    ],
  },
  {
    id: 'triage.glorify',
    category: 'violence_instructions',
    detail: 'an attacker or an attack praised',
    all: [
      any(
        String.raw`\b(?:attack\w*|shooting|shot (?:them|people)|massacre|bomb\w*|walked into (?:the|a)|opened fire|sirens|killed (?:\w+ )?(?:people|worshippers|shoppers|children))\b`,
      ),
      any(
        String.raw`\b(?:was|is) not a monster\b|\b(?:a|our|the) (?:hero|martyr|saint)\b|\bthe only (?:man|one|person) (?:who|willing|brave)\b|\bhe was right\b|\bshe was right\b|\bhad the courage\b|\bstop(?:ped)? talking\b|\bfinish (?:what|his|her)\b|\bfollow (?:his|her) (?:example|lead)\b|\bI know better\b`,
      ),
    ],
  },
  {
    id: 'triage.grooming_pattern',
    category: 'sexual_minors',
    detail: 'a young one set apart from her family by an older one who meets her in secret',
    all: [
      any(
        String.raw`\b(?:wiser|prettier|more mature|older|cleverer|different|special(?:er)?) than (?:the )?other\b|\bolder than (?:her|his) years\b|\bnot like the other\b`,
      ),
      any(
        String.raw`\b(?:mother|father|mum|mom|dad|parents?|family|herd|pack|flock)\b[^.\n]{0,40}\b(?:did|does|do|would|could)(?:n'?t| not) understand\b|\bslip(?:ped|s)? away\b|\b(?:our|a) (?:little )?secret\b|\bdon'?t tell\b|\bmeet (?:him|her|me) (?:by|at|in|alone)\b|\balone with\b`,
      ),
    ],
  },
  {
    id: 'triage.target_recon',
    category: 'violence_instructions',
    detail: 'a real-world target together with its weak points (guards, cameras, shift changes)',
    all: [
      any(
        String.raw`\b(?:water (?:treatment|works|supply)|reservoir|power (?:station|plant)|substation|transformers?|grid|pipeline|dam|refinery|chemical plant|school|synagogue|mosque|church|temple|stadium|arena|concert|festival|parade|rally|station|airport|hospital|mall|market|crowd)\b`,
      ),
      any(
        String.raw`\bcameras?\b[^.\n]{0,60}\b(?:crooked|pointing|points?|blind|dead|broken|off|down|but not)\b|\bchange (?:shifts?|over)\b|\bgaps? (?:under|in|through) the (?:fence|wall|hedge)\b|\bbarriers stop\b|\bnowhere to go\b|\bguard (?:hut|post|booth)\b[^.\n]{0,40}\b(?:empty|unmanned)\b|\bshifts? (?:change|changed|changes)\b|\bunmanned\b|\bnobody (?:was )?(?:really )?watching\b|\bblind spots?\b|\bno one (?:checks|checked|watches)\b|\bunlocked\b|\bbusiest (?:hour|time|moment)\b|\bmost people\b[^.\n]{0,40}\b(?:packed|crowded|gather)\b|\bexits?\b[^.\n]{0,40}\b(?:locked|blocked|only one)\b`,
      ),
    ],
  },
  {
    id: 'triage.grooming',
    category: 'sexual_minors',
    detail: 'an adult in charge of a child, growing closeness and secrecy',
    all: [
      any(
        String.raw`\b(?:tutor\w*|teacher|coach|mentor|instructor|uncle|babysitter|youth leader|priest|scoutmaster|stepfather|stepdad|family friend|neighbou?rs?|next door)\b|\bMr\.? [A-Z]|\bI am (?:forty|fifty|sixty|thirty)\b`,
      ),
      any(
        String.raw`\bdaughter\b|\bson\b|\bparents\b|\bpupil\b|\bstudents?\b|\bexams?\b|\bschool\b|\bhomework\b|\bsyllabus\b|\b(?:his|her) (?:mum|mom|dad|mother|father)\b|\bbedtime\b|\bclass(?:mates|room)?\b`,
      ),
      any(
        String.raw`\bstay(?:ed|ing)? later\b|\bgifts?\b|\bbr(?:ing|ought|inging) (?:things|presents|gifts)\b|\bour (?:little )?secret\b|\bdon'?t tell\b|\bjust (?:the|us) two of us\b|\bdr(?:ove|ive|iving) (?:him|her) home\b|\balone (?:with|together)\b|\bspecial (?:friend|bond|connection)\b|\bmessag\w+ (?:him|her|me) (?:at night|late)\b|\blate at night\b|\bnobody (?:else )?(?:would|could) understand\b|\blessons changed\b|\bwhen (?:her|his) (?:mother|father|mum|mom|dad|parents?) (?:is|are|was|were) (?:at work|away|out)\b|\bwould(?:n'?t| not) understand\b|\bspecial\b`,
      ),
    ],
  },
  {
    id: 'triage.self_harm',
    category: 'self_harm',
    detail: 'a means of self-harm together with encouragement, glamour or a plan',
    all: [
      any(
        String.raw`\bpills\b|\boverdose\b|\bblades?\b|\brazors?\b|\bcut(?:ting)? (?:myself|yourself|deeper|again)\b|\bnoose\b|\bhang (?:myself|yourself)\b|\bjump(?:ing)? (?:off|from)\b|\bledge\b|\bstarv\w*|\bpurg(?:e|ing)\b|\bcalories\b|\bthigh gap\b|\bribs? (?:show|poking)\b|\bend (?:it|it all|my life|your life|things)\b|\bkill (?:myself|yourself)\b|\bnot wake up\b|\bdisappear (?:forever|for good)\b|\bscars?\b|\bfasting\b|\bskip(?:ping)? meals\b`,
      ),
      any(
        String.raw`\byou (?:should|deserve|can|could|will|won'?t|need to|have to)\b|\b(?:do|try) it\b|\bit feels\b|\bbeautiful\b|\bpretty\b|\bworth it\b|\bno one (?:will|would) (?:miss|notice|care)\b|\bbetter off\b|\bjoin (?:me|us)\b|\btonight\b|\bgoodbye\b|\bproud of\b|\bstronger than\b|\bdon'?t tell\b|\bhide (?:it|them|the)\b|\bchallenge\b|\bgoal weight\b|\bperfect\b|\bcontrol\b`,
      ),
    ],
  },
];

/** Rules a single cue is enough for: there is no innocent reading a person should not check. */
const SINGLE: Rule[] = [
  {
    id: 'triage.ideation',
    category: 'self_harm',
    detail: 'the writer or a reader may be at risk (thoughts of not being here)',
    all: [
      any(
        String.raw`\bbetter off (?:if i|without me|if i was(?:n'?t| not) here)\b|\bif i (?:was|were)(?:n'?t| not) here\b|\bdon'?t want to (?:be here|live|wake up|go on)\b|\bwant(?:ed)? to die\b|\bkill (?:myself|yourself)\b|\bend (?:my|your) (?:own )?life\b|\bno reason to (?:live|go on|stay)\b|\bcan'?t go on\b|\bwon'?t be here (?:tomorrow|much longer|anymore)\b|\bthis is my (?:last|final) (?:post|message|note)\b`,
      ),
    ],
  },
  {
    id: 'triage.real_world',
    category: 'harassment',
    detail: 'the story says it is true, or that it should become so, about real people',
    all: [
      any(
        String.raw`\bonly (?:a )?fiction (?:for now|today|so far)\b|\bdoes(?:n'?t| not) have to stay (?:that way|fiction|a story)\b|\byou know (?:in your heart |very well |exactly )?(?:who|which)\b|\bnot (?:really |just )?(?:a )?(?:fiction|story)\b[^.\n]{0,30}\b(?:true|real|happened)\b|\bevery word (?:of (?:it|this) )?is true\b|\bthis (?:really|actually) happened\b|\b(?:deserves?|ha(?:s|ve) a right|need) to know\b|\bnames? (?:have|has) not been changed\b|\bthe real (?:names?|person|people) (?:is|are|behind)\b|\bthis is you\b|\bchanged nothing\b|\bnot even (?:your|his|her|their) names?\b|\bdo(?:es)?(?:n'?t| not) deserve a disguise\b|\breal (?:suburban |everyday |family )?life\b|\bobserved from my\b|\bthe rest is not (?:a )?(?:story|fiction)\b|\b(?:it|this) is (?:also )?more than (?:a story|history|fiction)\b`,
      ),
    ],
  },
  {
    id: 'triage.reader_lesson',
    category: 'illegal',
    detail: 'the story turns to the real reader to teach a method',
    all: [
      any(
        String.raw`\b(?:every|any) (?:driver|reader|one of you|woman|man|parent|kid|teen|girl|boy|person) should know\b|\bif you(?:'re| are| were)? (?:ever )?in (?:her|his|my|their|this|that|the same) (?:position|situation|shoes)\b|\byou(?:'ll| will) be glad you read this\b|\bhere(?:'s| is) how (?:you|to)\b|\bthis is how you\b|\bremember these (?:steps|tricks|rules)\b|\bi(?:'m| am) telling you (?:this )?so (?:that )?you\b|\btake notes\b|\btry (?:this|it) (?:yourself|at home)\b`,
      ),
    ],
  },
];

const splitParagraphs = (body: string) => body.split(/\n\s*\n/).map((p) => p.trim());

const excerptOf = (p: string, n = 200) => {
  const flat = p.replace(/\s+/g, ' ').trim();
  return flat.length > n ? `${flat.slice(0, n - 1)}…` : flat;
};

/**
 * Keyword stuffing: a three-word phrase of content words said five times or more,
 * or a two-word phrase of content words ten times or more, the repeats making up a tenth of the
 * text or more. Natural prose repeats a phrase for
 * effect two or three times; search-engine copy repeats the product's name in every sentence.
 */
const STUFFED_TRIGRAM = 5;
const STUFFED_BIGRAM = 10;
/** ...and the repeats cover at least this share of the words. */
const STUFFED_SHARE = 0.1;
const FUNCTION_WORDS = new Set(
  'the a an and or but of to in on at for with from by as is was were be been it its this that these those he she they we you i his her their our your my me him them us not no so if then than there here what which who when where how all any each'.split(
    ' ',
  ),
);

function keywordStuffing(paragraphs: string[]): TriageSignal | null {
  const counts = new Map<string, number>();
  const add = (key: string) => counts.set(key, (counts.get(key) ?? 0) + 1);
  let total = 0;
  for (const p of paragraphs) {
    const words = p.toLowerCase().match(/[a-z0-9']+/g) ?? [];
    total += words.length;
    for (let i = 0; i + 1 < words.length; i++) {
      const [a, b, c] = [words[i]!, words[i + 1]!, words[i + 2]];
      if (!FUNCTION_WORDS.has(a) && !FUNCTION_WORDS.has(b)) add(`${a} ${b}`);
      if (c !== undefined && !FUNCTION_WORDS.has(a) && !FUNCTION_WORDS.has(b) && !FUNCTION_WORDS.has(c))
        add(`${a} ${b} ${c}`);
    }
  }
  const stuffed = [...counts]
    .filter(([k, n]) => {
      const size = k.split(' ').length;
      return (
        n >= (size === 3 ? STUFFED_TRIGRAM : STUFFED_BIGRAM) &&
        (n * size) / Math.max(1, total) >= STUFFED_SHARE
      );
    })
    .sort((x, y) => y[1] - x[1])[0];
  if (!stuffed) return null;
  const [phrase, n] = stuffed;
  const at = Math.max(
    0,
    paragraphs.findIndex((p) => p.toLowerCase().includes(phrase)),
  );
  return {
    id: 'triage.keywords',
    category: 'spam',
    score: 0.6,
    detail: `the phrase "${phrase}" ${n} times (keyword stuffing)`,
    paragraph: at,
    excerpt: excerptOf(paragraphs[at] ?? ''),
  };
}

/** Every rule that fires, once, with the first paragraph that fired it. */
export function triage(title: string | null, body: string): TriageSignal[] {
  const paragraphs = splitParagraphs(body);
  const out: TriageSignal[] = [];
  for (const rule of [...SINGLE, ...RULES]) {
    // A paragraph (the title goes with the first), else a paragraph with its neighbour (cues
    // split across a paragraph break).
    const texts = paragraphs.map((p, i) => (i === 0 && title ? `${title}\n${p}` : p));
    let at = texts.findIndex((t) => rule.all.every((m) => m.test(t)));
    if (at === -1)
      at = texts.findIndex(
        (t, i) => i + 1 < texts.length && rule.all.every((m) => m.test(`${t}\n${texts[i + 1]}`)),
      );
    if (at !== -1)
      out.push({
        id: rule.id,
        category: rule.category,
        score: 0.6,
        detail: rule.detail,
        paragraph: at,
        excerpt: excerptOf(paragraphs[at]!),
      });
  }
  const stuffing = keywordStuffing(paragraphs);
  if (stuffing) out.push(stuffing);
  return out;
}
