import { z } from 'zod';
import type { ModerationInput } from '../moderator.js';
import { judgeModelVerdict, modelVerdictSchema, parseModelOutput, policyRuleIds } from './model-verdict.js';
import { correctiveRetry, policyMessages, renderPolicyPrompt } from './policy-prompt.js';
import type { ChatReply, ChatRequest, ModeratorProfile, ParseResult, ProfileOptions } from './types.js';

const { $schema: _dialect, ...VERDICT_JSON_SCHEMA } = z.toJSONSchema(modelVerdictSchema, {
  target: 'draft-7',
});

/**
 * `json` (the default): any instruct model behind an OpenAI-compatible server. The policy (quality
 * bar and abuse categories) is the system prompt, the post is untrusted data between random-nonce
 * boundaries, and the answer is a JSON verdict constrained by a strict JSON-schema response format.
 * One corrective retry shows the model its unusable answer and why.
 */
export function jsonProfile(opts: ProfileOptions): ModeratorProfile {
  const system = renderPolicyPrompt(opts.policy, { examples: opts.examples });
  const ruleIds = policyRuleIds(opts.policy);
  return {
    name: 'json',
    maxTokens: 1024,
    timeoutMs: 60_000,
    request(input: ModerationInput): ChatRequest {
      return {
        messages: policyMessages(system, input, opts.policy.version),
        params: {
          response_format: {
            type: 'json_schema',
            json_schema: { name: 'moderation_verdict', strict: true, schema: VERDICT_JSON_SCHEMA },
          },
        },
      };
    },
    async parse(reply: ChatReply, input: ModerationInput): Promise<ParseResult> {
      const parsed = parseModelOutput(reply.content);
      if (!parsed.ok) return parsed;
      return {
        ok: true,
        verdict: judgeModelVerdict(parsed.verdict, input, {
          ruleIds,
          strikeConfidence: opts.strikeConfidence,
        }),
      };
    },
    retry: correctiveRetry,
  };
}
