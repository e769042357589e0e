import type { Policy } from '../../policy/types.js';
import type { ModerationInput, Verdict } from '../moderator.js';

/**
 * A moderator profile: how one family of models is asked about a post over chat completions and
 * how its answer becomes a verdict. The transport (HTTP, timeouts, ModelUnavailableError), the
 * attempts and the audit trail are shared once, in OpenAIModerator (openai.ts); a profile only
 * builds the request and reads the answer.
 */
export const MODERATOR_PROFILE_NAMES = ['json', 'gpt-oss-safeguard', 'qwen3guard', 'llama-guard'] as const;

/** MODERATOR_PROFILE: the model family behind MODERATOR=openai (src/config.ts reads it from this list). */
export type ModeratorProfileName = (typeof MODERATOR_PROFILE_NAMES)[number];

export type ChatMessage = { role: 'system' | 'user' | 'assistant'; content: string };

export interface ChatRequest {
  messages: ChatMessage[];
  /** Members of the request body besides model, messages and max_tokens (they override the
   *  transport's temperature 0; a member set to undefined is left out). */
  params: Record<string, unknown>;
}

/** One generated token and its log probability, when the server returned them. */
export interface TokenLogprob {
  token: string;
  logprob: number;
}

/** What the model answered: the first choice's message, as far as a profile reads it. */
export interface ChatReply {
  /** The final answer (null when the server sent none or the envelope was not usable). */
  content: string | null;
  /** A reasoning model's reasoning (`message.reasoning`, or `reasoning_content` on older servers). */
  reasoning: string | null;
  refusal: string | null;
  /** `choices[0].logprobs.content` when logprobs were asked for and returned. */
  logprobs: TokenLogprob[] | null;
  finishReason: string | null;
}

/** A verdict without `source` (always 'openai'); the moderator adds the audit trail to `details`. */
export type ProfileVerdict = Omit<Verdict, 'source'>;

/** An answer is either a verdict or unusable (with why: it goes into the audit and the retry). */
export type ParseResult = { ok: true; verdict: ProfileVerdict } | { ok: false; error: string };

export interface ModeratorProfile {
  readonly name: ModeratorProfileName;
  /** max_tokens when the operator sets none (null sends none). */
  readonly maxTokens: number | null;
  /** Per-attempt timeout when the operator sets none. */
  readonly timeoutMs: number;
  /** The chat request for one post. */
  request(input: ModerationInput): ChatRequest;
  /** Reads the answer; anything it cannot trust to be well formed is `{ ok: false }`. */
  parse(reply: ChatReply, input: ModerationInput): Promise<ParseResult>;
  /** The second attempt after an unusable answer; absent: no second attempt (a guard model
   *  classifies every turn it is shown, so a corrective message would itself be judged). */
  retry?(first: ChatRequest, reply: ChatReply, error: string): ChatRequest;
}

export type ReasoningEffort = 'low' | 'medium' | 'high';

export interface ProfileOptions {
  policy: Policy;
  /** An abuse rejection strikes only at or above this confidence; below it goes to review. */
  strikeConfidence: number;
  /** Examples per side rendered into a policy prompt (json, gpt-oss-safeguard). */
  examples?: number | undefined;
  /** gpt-oss-safeguard's reasoning effort. Default medium (the model's own default). */
  reasoningEffort?: ReasoningEffort | undefined;
}
