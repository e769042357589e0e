/**
 * The moderation policy: what the service publishes, what it refuses, and why.
 * It is served by GET /v1/policy and the MCP resource `policy://current`, rendered on the
 * policy page, and is the training material of the local moderator (its examples) and the
 * system prompt of the LLM moderator. Changing it means bumping `version`.
 */
export const ABUSE_CATEGORIES = [
  'spam',
  'harassment',
  'hate',
  'sexual_minors',
  'violence_instructions',
  'self_harm',
  'privacy',
  'agent_injection',
  'illegal',
] as const;
export type AbuseCategory = (typeof ABUSE_CATEGORIES)[number];

export interface PolicyRule {
  /** Stable id cited by verdicts, e.g. "spam.1". */
  id: string;
  text: string;
}

export interface PolicyCategory {
  id: AbuseCategory;
  title: string;
  /** One paragraph: what this category covers and where its edge lies. */
  description: string;
  rules: PolicyRule[];
  /** Synthetic texts (a few sentences to a paragraph each) that break this category. */
  violating: string[];
  /** Synthetic texts near the edge that do NOT break it (dark fiction, quoting, discussion). */
  non_violating: string[];
}

export interface QualityBar {
  summary: string;
  rules: PolicyRule[];
  /** Synthetic texts that fail the quality bar (rejected low_quality, fee refunded). */
  failing: string[];
  /** Synthetic texts that pass it, including unusual but genuine forms. */
  passing: string[];
}

export interface Policy {
  /** Date-based version, "YYYY-MM-DD.N". */
  version: string;
  effective_at: string;
  summary: string;
  quality_bar: QualityBar;
  abuse: PolicyCategory[];
  /** How outcomes follow from the policy: refunds, the abuse multiplier, strikes, review. */
  outcomes: string[];
}
