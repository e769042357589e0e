import { z } from 'zod';
import { POLICY } from '../policy/document.js';
import type { Policy } from '../policy/types.js';
import type { ModerationInput, Moderator, Verdict } from './moderator.js';
import {
  type ChatReply,
  type ChatRequest,
  createProfile,
  type ModeratorProfile,
  type ModeratorProfileName,
  type ReasoningEffort,
  type TokenLogprob,
} from './profiles/index.js';
import { clip, sha256, truncateBytes } from './profiles/text.js';

export {
  type ModelVerdict,
  modelVerdictSchema,
  parseModelOutput,
  quoteOccurs,
} from './profiles/model-verdict.js';
export { renderPolicyPrompt } from './profiles/policy-prompt.js';

/**
 * The production moderator: any OpenAI-compatible chat-completions server (vLLM, llama.cpp,
 * Ollama, a hosted API), asked in the way its model expects. A profile (MODERATOR_PROFILE,
 * src/core/moderation/profiles/) builds the request and reads the answer: `json` (the default: the
 * policy as the system prompt, the post as untrusted data between random-nonce boundaries, a
 * JSON-schema verdict), `gpt-oss-safeguard`, `qwen3guard` or `llama-guard`.
 *
 * Shared here, once for every profile: the HTTP transport, the attempts (a profile that can be
 * corrected gets one corrective retry; output still unusable goes to a person) and the audit
 * trail. The model is never trusted further than we can check it (see each profile). A server that
 * is down, slow or overloaded is not a verdict at all: it throws ModelUnavailableError and the job
 * retries later.
 */

/** The model server could not give an answer (timeout, network, 5xx, 429): retry the job later. */
export class ModelUnavailableError extends Error {
  override readonly name = 'ModelUnavailableError';
  /** HTTP status when the server answered; undefined for a timeout or a network error. */
  readonly status: number | undefined;
  /** The server's Retry-After, when it sent one. */
  readonly retryAfterSeconds: number | undefined;
  /** False for answers that waiting will not fix (401, 404, 400): the configuration is wrong. */
  readonly retryable: boolean;

  constructor(
    message: string,
    opts: { status?: number; retryAfterSeconds?: number; retryable?: boolean; cause?: unknown } = {},
  ) {
    super(message, opts.cause === undefined ? undefined : { cause: opts.cause });
    this.status = opts.status;
    this.retryAfterSeconds = opts.retryAfterSeconds;
    this.retryable = opts.retryable ?? true;
  }
}

export interface OpenAIModeratorOptions {
  /** The API root, e.g. http://127.0.0.1:8000/v1; `/chat/completions` is appended. */
  baseUrl: string;
  apiKey?: string;
  model: string;
  /** How the model is asked and its answer read (MODERATOR_PROFILE). Default `json`. */
  profile?: ModeratorProfileName;
  /** Per attempt, covering the whole response. Default: the profile's (60 s; 120 s for gpt-oss-safeguard). */
  timeoutMs?: number;
  /** An abuse rejection strikes only at or above this confidence; below it goes to review. Default 0.9. */
  strikeConfidence?: number;
  /** Cap on generated tokens (sent as max_tokens); null sends none. Default: the profile's. */
  maxTokens?: number | null;
  /** Examples per side (violating / allowed) rendered into a policy prompt. Default 2 (1 for gpt-oss-safeguard). */
  examples?: number;
  /** gpt-oss-safeguard's reasoning effort. Default medium. */
  reasoningEffort?: ReasoningEffort;
  policy?: Policy;
  fetch?: typeof fetch;
}

const RAW_LIMIT_BYTES = 8 * 1024;
const REASONING_LIMIT_BYTES = 16 * 1024;
const MAX_ATTEMPTS = 2;

/** The answer envelope; only what we read. */
const completionSchema = z.object({
  model: z.string().optional(),
  choices: z
    .array(
      z.object({
        message: z.object({
          content: z.string().nullish(),
          refusal: z.string().nullish(),
          reasoning: z.string().nullish(),
          reasoning_content: z.string().nullish(),
        }),
        finish_reason: z.string().nullish(),
        logprobs: z.unknown().optional(),
      }),
    )
    .min(1),
  usage: z.record(z.string(), z.unknown()).nullish(),
});
const logprobsSchema = z.object({
  content: z.array(z.object({ token: z.string(), logprob: z.number() })),
});

interface Completion {
  reply: ChatReply;
  raw: string;
  served_model: string | undefined;
  usage: unknown;
}

export class OpenAIModerator implements Moderator {
  readonly name = 'openai';
  readonly #url: string;
  readonly #apiKey: string | undefined;
  readonly #model: string;
  readonly #profile: ModeratorProfile;
  /** The profile's system prompt and its hash, computed on the first post. */
  #system: { text: string; hash: string } | undefined;
  readonly #timeoutMs: number;
  readonly #maxTokens: number | null;
  readonly #policy: Policy;
  readonly #fetch: typeof fetch;

  constructor(opts: OpenAIModeratorOptions) {
    this.#url = `${opts.baseUrl.replace(/\/+$/, '')}/chat/completions`;
    this.#apiKey = opts.apiKey || undefined;
    this.#model = opts.model;
    this.#policy = opts.policy ?? POLICY;
    this.#profile = createProfile(opts.profile ?? 'json', {
      policy: this.#policy,
      strikeConfidence: opts.strikeConfidence ?? 0.9,
      examples: opts.examples,
      reasoningEffort: opts.reasoningEffort,
    });
    this.#timeoutMs = opts.timeoutMs ?? this.#profile.timeoutMs;
    this.#maxTokens = opts.maxTokens === undefined ? this.#profile.maxTokens : opts.maxTokens;
    this.#fetch = opts.fetch ?? ((url, init) => fetch(url, init));
  }

  /** The profile in use (MODERATOR_PROFILE). */
  get profile(): ModeratorProfileName {
    return this.#profile.name;
  }

  async moderate(input: ModerationInput): Promise<Verdict> {
    const started = performance.now();
    const first = this.#profile.request(input);
    const system = first.messages.find((m) => m.role === 'system')?.content;
    // The system prompt is the profile's, the same for every post: hashed once.
    if (system !== undefined && this.#system?.text !== system)
      this.#system = { text: system, hash: sha256(system) };
    const audit: Record<string, unknown> & { attempts: number; errors: string[] } = {
      model: this.#model,
      profile: this.#profile.name,
      served_model: undefined,
      prompt_hash: sha256(first.messages.map((m) => m.content).join('\u0000')),
      ...(system === undefined ? {} : { system_hash: this.#system?.hash }),
      latency_ms: 0,
      raw: '',
      attempts: 0,
      errors: [],
      usage: undefined,
      policy_version: this.#policy.version,
    };

    let request: ChatRequest = first;
    for (;;) {
      audit.attempts++;
      const res = await this.#complete(request);
      audit.served_model = res.served_model;
      audit.usage = res.usage;
      audit.raw = truncateBytes(res.raw, RAW_LIMIT_BYTES);
      if (res.reply.reasoning) audit.reasoning = truncateBytes(res.reply.reasoning, REASONING_LIMIT_BYTES);
      else delete audit.reasoning;
      audit.latency_ms = Math.round(performance.now() - started);
      const parsed = res.reply.refusal
        ? { ok: false as const, error: `the model refused: ${clip(res.reply.refusal, 200)}` }
        : await this.#profile.parse(res.reply, input);
      if (parsed.ok)
        return {
          ...parsed.verdict,
          source: 'openai',
          details: { ...audit, ...parsed.verdict.details },
        };
      audit.errors.push(parsed.error);
      if (audit.attempts >= MAX_ATTEMPTS || !this.#profile.retry) break;
      request = this.#profile.retry(first, res.reply, parsed.error);
    }
    return {
      decision: 'review',
      reason: `The moderation model's output was unusable (${audit.errors.at(-1)}); a person will read the post.`,
      confidence: 0,
      strike: false,
      source: 'openai',
      details: { ...audit, outcome: 'unusable_output' },
    };
  }

  /** One request. Anything other than a 2xx answer in time is ModelUnavailableError. */
  async #complete(request: ChatRequest): Promise<Completion> {
    const body = {
      model: this.#model,
      temperature: 0,
      ...(this.#maxTokens === null ? {} : { max_tokens: this.#maxTokens }),
      messages: request.messages,
      ...request.params,
    };
    const headers: Record<string, string> = {
      'content-type': 'application/json',
      accept: 'application/json',
    };
    if (this.#apiKey) headers.authorization = `Bearer ${this.#apiKey}`;

    let status: number;
    let text: string;
    let retryAfter: string | null;
    try {
      // The signal covers the body too: a server that sends headers and then stalls still times out.
      const res = await this.#fetch(this.#url, {
        method: 'POST',
        headers,
        body: JSON.stringify(body),
        signal: AbortSignal.timeout(this.#timeoutMs),
      });
      status = res.status;
      retryAfter = res.headers.get('retry-after');
      text = await res.text();
    } catch (err) {
      const timedOut = err instanceof Error && (err.name === 'TimeoutError' || err.name === 'AbortError');
      throw new ModelUnavailableError(
        timedOut
          ? `The moderation model did not answer within ${this.#timeoutMs} ms.`
          : `The moderation model could not be reached: ${err instanceof Error ? err.message : String(err)}.`,
        { cause: err },
      );
    }
    if (status < 200 || status > 299) {
      const retryable = status >= 500 || status === 408 || status === 409 || status === 429;
      const seconds = retryAfter !== null && /^\d+$/.test(retryAfter.trim()) ? Number(retryAfter) : undefined;
      throw new ModelUnavailableError(
        `The moderation model answered HTTP ${status}: ${clip(text.replace(/\s+/g, ' '), 300)}`,
        { status, retryable, ...(seconds === undefined ? {} : { retryAfterSeconds: seconds }) },
      );
    }

    let envelope: z.infer<typeof completionSchema> | undefined;
    try {
      const r = completionSchema.safeParse(JSON.parse(text));
      if (r.success) envelope = r.data;
    } catch {
      // not JSON: handled below as unusable output
    }
    const choice = envelope?.choices[0];
    if (!envelope || !choice)
      return {
        reply: { content: null, reasoning: null, refusal: null, logprobs: null, finishReason: null },
        raw: text,
        served_model: undefined,
        usage: undefined,
      };
    const { message } = choice;
    const logprobs = logprobsSchema.safeParse(choice.logprobs);
    return {
      reply: {
        content: message.content ?? null,
        reasoning: message.reasoning || message.reasoning_content || null,
        refusal: message.refusal || null,
        logprobs: logprobs.success ? (logprobs.data.content satisfies TokenLogprob[]) : null,
        finishReason: choice.finish_reason ?? null,
      },
      raw: message.content ?? text,
      served_model: envelope.model,
      usage: envelope.usage ?? undefined,
    };
  }
}
