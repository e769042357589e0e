import { ABUSE_CATEGORIES } from '../../policy/types.js';
import type { ModerationInput } from '../moderator.js';
import { withOurRules } from './guard.js';
import { findModelVerdict, judgeModelVerdict, policyRuleIds } from './model-verdict.js';
import { correctiveRetry, policyMessages, renderPolicyPrompt } from './policy-prompt.js';
import type { ChatReply, ChatRequest, ModeratorProfile, ParseResult, ProfileOptions } from './types.js';

/**
 * `gpt-oss-safeguard`: OpenAI's open-weight safety reasoning models (20b, 120b), harmony format.
 * Our policy is the system message (served as the harmony developer message), led by the
 * `Reasoning: <effort>` line the model's guide asks for and sent as `reasoning_effort` too; the
 * post is the user message between random-nonce boundaries. The model reasons in its analysis
 * channel (returned as `message.reasoning`, or `reasoning_content` on older servers, and kept in the
 * verdict's details for audit) and writes the final answer in `message.content`: the same JSON
 * verdict as the json profile, found in the answer even with prose around it (no response format
 * is sent: the final channel is free text).
 *
 * It judges the abuse categories only (the prompt leaves out the quality bar): low quality stays
 * with our rules, which also decide when the model finds nothing. Its verdicts go through the same
 * checks as the json profile (evidence quotes, strike confidence), so it strikes where json would.
 */
export function gptOssSafeguardProfile(opts: ProfileOptions): ModeratorProfile {
  const effort = opts.reasoningEffort ?? 'medium';
  const system = `Reasoning: ${effort}\n\n${renderPolicyPrompt(opts.policy, {
    examples: opts.examples ?? 1,
    qualityBar: false,
  })}`;
  const ruleIds = policyRuleIds(opts.policy);
  const spec = { guard: 'gpt-oss-safeguard', covers: new Set(ABUSE_CATEGORIES) };
  return {
    name: 'gpt-oss-safeguard',
    // Reasoning counts against max_tokens: room for high effort, still a bound on a runaway answer.
    maxTokens: 8192,
    timeoutMs: 120_000,
    request(input: ModerationInput): ChatRequest {
      return {
        messages: policyMessages(system, input, opts.policy.version),
        // The gpt-oss model card's sampling (temperature 1, top_p 1) rather than greedy decoding.
        params: { reasoning_effort: effort, temperature: 1, top_p: 1 },
      };
    },
    async parse(reply: ChatReply, input: ModerationInput): Promise<ParseResult> {
      const found = findModelVerdict(reply.content);
      if (!found.ok) return found;
      const out = found.verdict;
      const base = { reasoning_effort: effort };
      if (out.category === 'low_quality' && out.decision !== 'review') {
        // Not asked; writing quality is ours to judge.
        return {
          ok: true,
          verdict: await withOurRules(input, spec, {
            confidence: out.confidence,
            details: { ...base, model_decision: out.decision, model_category: out.category },
          }),
        };
      }
      const v = judgeModelVerdict(out, input, { ruleIds, strikeConfidence: opts.strikeConfidence });
      const details = { ...base, ...v.details };
      if (v.decision !== 'publish') return { ok: true, verdict: { ...v, details } };
      return { ok: true, verdict: await withOurRules(input, spec, { confidence: v.confidence, details }) };
    },
    retry: correctiveRetry,
  };
}
