import type { AbuseCategory } from '../../policy/types.js';
import { LocalModerator, type ModerationInput, type RejectionCategory } from '../moderator.js';
import type {
  ChatReply,
  ChatRequest,
  ModeratorProfile,
  ModeratorProfileName,
  ParseResult,
  ProfileOptions,
  ProfileVerdict,
  TokenLogprob,
} from './types.js';

/**
 * What the guard profiles share: a guard model has its own taxonomy, so its answer is mapped to our
 * categories, and what it does not judge (low quality, and the categories it has no name for) stays
 * with our rules. Only a confident, well-formed `unsafe` whose every category maps cleanly to one of
 * ours may reject (and strike); anything not ours, ambiguous, controversial or unsure goes to review.
 */

/** One of the guard's categories as we read it. */
export interface GuardCategory {
  /** The guard's own name for it, e.g. "Hate" for S10. */
  title: string;
  /** Our category, or null when the policy has none for it (the verdict is review, uncategorised). */
  category: AbuseCategory | null;
  /** Whether a confident `unsafe` may reject and strike for it. False where the guard's category is
   *  wider than ours or turns on facts it cannot check: such answers go to review. */
  clean: boolean;
}

export interface GuardSpec {
  /** Display name, used in reasons. */
  guard: string;
  /** The guard's category by the name it answers with; undefined for a name it should not use. */
  taxonomy(name: string): GuardCategory | undefined;
  /** Our categories the guard judges in full: when it calls a post safe, the local classifier's
   *  resemblance to these alone does not send the post to a person. */
  covers: ReadonlySet<AbuseCategory>;
}

/** A well-formed guard answer. */
export interface GuardAnswer {
  label: 'safe' | 'unsafe' | 'controversial';
  /** Category names as the guard wrote them (none for safe). */
  categories: string[];
}

/**
 * The probability the model gave its own answer: exp of the sum of the log probabilities of the
 * tokens it generated (null when the server returned none). A guard's label is a few tokens, so
 * this is the probability of that label and its categories together, as read from the model itself
 * rather than claimed by it. Llama Guard's card uses the same quantity (of its first token) as the
 * classifier score.
 */
export function answerProbability(logprobs: readonly TokenLogprob[] | null): number | null {
  if (!logprobs || logprobs.length === 0) return null;
  let sum = 0;
  for (const t of logprobs) {
    if (!Number.isFinite(t.logprob)) return 0;
    sum += Math.min(0, t.logprob);
  }
  return Math.round(Math.exp(sum) * 1000) / 1000;
}

/**
 * Chat-template control text in a post (special tokens such as <|eot_id|> or <|im_end|>, and the
 * guard prompts' <BEGIN CONVERSATION>/<END CONVERSATION>-style section markers): the server's
 * template wraps the post in such markers, so a post that carries them could close the
 * conversation early and write its own instructions to the guard.
 */
const TEMPLATE_MARKER = /<\|[^<>|\n]{1,40}\|>|<\/?(?:BEGIN|END)[ _][A-Z][A-Z _]{2,40}>/g;

/** The post as the guard's user message, with template control text defused (‹ › for < >). */
export function guardUserMessage(input: ModerationInput): { content: string; defused: number } {
  let defused = 0;
  const defuse = (s: string) =>
    s.replace(TEMPLATE_MARKER, (m) => {
      defused++;
      return `‹${m.slice(1, -1)}›`;
    });
  const body = defuse(input.body);
  const content = input.title === null ? body : `${defuse(input.title)}\n\n${body}`;
  return { content, defused };
}

const local = new LocalModerator();

/**
 * A guard found nothing it judges unsafe: our rules decide the rest. The local moderator (the
 * prefilter's rules and the policy-trained classifier) rejects low quality (refunded, never a
 * strike) and sends to a person what its rules flag (instructions to AI readers, promotion) and
 * what resembles a category the guard does not cover. A resemblance to a category the guard judged
 * is overruled by the guard. Nothing here strikes.
 */
export async function withOurRules(
  input: ModerationInput,
  spec: Pick<GuardSpec, 'guard' | 'covers'>,
  base: { confidence: number | null; details: Record<string, unknown> },
): Promise<ProfileVerdict> {
  const ours = await local.moderate(input);
  const details = {
    ...base.details,
    our_rules: {
      decision: ours.decision,
      ...(ours.category ? { category: ours.category } : {}),
      reason: ours.reason,
      confidence: ours.confidence,
      ...ours.details,
    },
  };
  const guardIsJudge =
    ours.decision === 'review' &&
    input.prefilter.hint !== 'review' &&
    ours.category !== undefined &&
    ours.category !== 'low_quality' &&
    spec.covers.has(ours.category);
  if (ours.decision === 'publish' || guardIsJudge)
    return {
      decision: 'publish',
      reason: `${spec.guard} found nothing unsafe, and the post meets our rules.`,
      confidence: base.confidence ?? ours.confidence,
      strike: false,
      details: { ...details, outcome: guardIsJudge ? 'guard_overrules_classifier' : 'accepted' },
    };
  if (ours.decision === 'reject')
    return {
      decision: 'reject',
      category: 'low_quality',
      reason: ours.reason,
      confidence: ours.confidence,
      strike: false,
      details: { ...details, outcome: 'our_rules_low_quality' },
    };
  return {
    decision: 'review',
    ...(ours.category ? { category: ours.category } : {}),
    reason: `${spec.guard} found nothing unsafe that it judges, but our rules want a person to see the post. ${ours.reason}`,
    confidence: ours.confidence,
    strike: false,
    details: { ...details, outcome: 'our_rules_review' },
  };
}

/** Turns a well-formed guard answer into a verdict (see the module comment for the rules). */
export async function guardVerdict(
  answer: GuardAnswer,
  reply: ChatReply,
  input: ModerationInput,
  spec: GuardSpec,
  strikeConfidence: number,
): Promise<ProfileVerdict> {
  const p = answerProbability(reply.logprobs);
  const mapped = answer.categories.map((name) => ({ name, read: spec.taxonomy(name) }));
  const named = mapped.map((m) => (m.read && m.read.title !== m.name ? `${m.name} ${m.read.title}` : m.name));
  const list = named.join(', ');
  const { defused } = guardUserMessage(input);
  const details: Record<string, unknown> = {
    guard: {
      label: answer.label,
      categories: answer.categories,
      mapped: mapped.map((m) => ({
        name: m.name,
        title: m.read?.title ?? null,
        category: m.read?.category ?? null,
        clean: m.read?.clean ?? false,
      })),
      answer_probability: p,
    },
    ...(defused ? { template_markers_defused: defused } : {}),
  };
  const confidence = p ?? 0.5;
  const suspected = mapped.map((m) => m.read?.category).find((c): c is AbuseCategory => !!c);
  const review = (reason: string, outcome: string, category: RejectionCategory | undefined = suspected) => ({
    decision: 'review' as const,
    ...(category ? { category } : {}),
    reason,
    confidence,
    strike: false,
    details: { ...details, outcome },
  });

  if (answer.label === 'safe') {
    if (defused)
      return review(
        `The post carries chat-template control text (${defused} marker${defused > 1 ? 's' : ''}) that could steer ${spec.guard}, so its "safe" is not trusted; a person will read it.`,
        'template_markers',
        'agent_injection',
      );
    return withOurRules(input, spec, { confidence: p, details });
  }
  if (answer.label === 'controversial')
    return review(
      `${spec.guard} rated the post controversial${list ? ` (${list})` : ''}: whether it is harmful depends on context; a person will decide.`,
      'controversial',
    );
  if (mapped.length === 0)
    return review(
      `${spec.guard} rated the post unsafe without naming a category; a person will decide.`,
      'unsafe_without_category',
    );
  const foreign = mapped.filter((m) => !m.read?.category);
  if (foreign.length > 0)
    return review(
      `${spec.guard} rated the post unsafe under ${list}; our policy has no category for ${foreign
        .map((m) => (m.read ? `${m.name} ${m.read.title}` : m.name))
        .join(', ')}, so a person will decide.`,
      'category_not_ours',
    );
  const unclear = mapped.filter((m) => !m.read?.clean);
  if (unclear.length > 0)
    return review(
      `${spec.guard} rated the post unsafe under ${list}, which does not map cleanly to our policy (it is wider than our rules or turns on facts the model cannot check); a person will decide.`,
      'ambiguous_category',
      unclear[0]?.read?.category ?? suspected,
    );
  const category = mapped[0]?.read?.category ?? undefined;
  if (!category) return review(`${spec.guard} rated the post unsafe; a person will decide.`, 'unsafe');
  if (p === null)
    return review(
      `${spec.guard} rated the post unsafe under ${list} (our ${category}), but the server returned no token probabilities, so its confidence is unknown; a person will decide.`,
      'confidence_unknown',
      category,
    );
  if (p < strikeConfidence)
    return review(
      `${spec.guard} rated the post unsafe under ${list} (our ${category}) with probability ${p.toFixed(2)}, not sure enough to reject; a person will decide.`,
      'below_strike_confidence',
      category,
    );
  return {
    decision: 'reject',
    category,
    reason: `The post breaks the policy's ${category} rules: ${spec.guard} rated it unsafe under ${list} (probability ${p.toFixed(2)}).`,
    confidence: p,
    strike: true,
    details: { ...details, outcome: 'accepted' },
  };
}

/**
 * The profile of a guard model: the post alone as the user message (the server's chat template
 * builds the guard prompt), logprobs asked for; `read` checks the answer's form and guardVerdict
 * turns a well-formed one into a verdict.
 */
export function guardProfile(
  name: ModeratorProfileName,
  spec: GuardSpec,
  read: (content: string | null) => ({ ok: true } & GuardAnswer) | { ok: false; error: string },
  opts: ProfileOptions,
): ModeratorProfile {
  return {
    name,
    maxTokens: 64,
    timeoutMs: 60_000,
    request(input: ModerationInput): ChatRequest {
      return {
        messages: [{ role: 'user', content: guardUserMessage(input).content }],
        params: { logprobs: true },
      };
    },
    async parse(reply: ChatReply, input: ModerationInput): Promise<ParseResult> {
      const a = read(reply.content);
      if (!a.ok) return a;
      return {
        ok: true,
        verdict: await guardVerdict(
          { label: a.label, categories: a.categories },
          reply,
          input,
          spec,
          opts.strikeConfidence,
        ),
      };
    },
  };
}
