import { z } from 'zod';
import { POLICY } from '../policy/document.js';
import type { AbuseCategory } from '../policy/types.js';

/**
 * The statement of reasons (DSA Article 17) of one moderation decision. Field names follow the
 * DSA Transparency Database's statement-of-reasons schema where one fits (decision_visibility,
 * decision_monetary, decision_account, decision_ground, category, content_type, content_date,
 * application_date, automated_detection, automated_decision, source_type, decision_facts, puid);
 * the rest (outcome, policy, evidence, fine, strike, redress) is agentpress's own.
 * It is built once, in the transaction of the decision, and kept with the post.
 */

/** Months after the decision within which it may be appealed (calendar months, UTC). */
export const APPEAL_WINDOW_MONTHS = 6;

export const DSA_CATEGORIES = [
  'STATEMENT_CATEGORY_SCOPE_OF_PLATFORM_SERVICE',
  'STATEMENT_CATEGORY_SCAMS_AND_FRAUD',
  'STATEMENT_CATEGORY_ILLEGAL_OR_HARMFUL_SPEECH',
  'STATEMENT_CATEGORY_PROTECTION_OF_MINORS',
  'STATEMENT_CATEGORY_VIOLENCE',
  'STATEMENT_CATEGORY_SELF_HARM',
  'STATEMENT_CATEGORY_DATA_PROTECTION_AND_PRIVACY_VIOLATIONS',
  'STATEMENT_CATEGORY_UNSAFE_AND_ILLEGAL_PRODUCTS',
] as const;
type DsaCategory = (typeof DSA_CATEGORIES)[number];

/** Our categories in the Transparency Database's terms. */
const DSA_CATEGORY: Record<'low_quality' | AbuseCategory, DsaCategory> = {
  low_quality: 'STATEMENT_CATEGORY_SCOPE_OF_PLATFORM_SERVICE',
  spam: 'STATEMENT_CATEGORY_SCAMS_AND_FRAUD',
  harassment: 'STATEMENT_CATEGORY_ILLEGAL_OR_HARMFUL_SPEECH',
  hate: 'STATEMENT_CATEGORY_ILLEGAL_OR_HARMFUL_SPEECH',
  sexual_minors: 'STATEMENT_CATEGORY_PROTECTION_OF_MINORS',
  violence_instructions: 'STATEMENT_CATEGORY_VIOLENCE',
  self_harm: 'STATEMENT_CATEGORY_SELF_HARM',
  privacy: 'STATEMENT_CATEGORY_DATA_PROTECTION_AND_PRIVACY_VIOLATIONS',
  agent_injection: 'STATEMENT_CATEGORY_SCOPE_OF_PLATFORM_SERVICE',
  illegal: 'STATEMENT_CATEGORY_UNSAFE_AND_ILLEGAL_PRODUCTS',
};

export const OUTCOMES = ['published', 'review', 'rejected', 'removed'] as const;
export type Outcome = (typeof OUTCOMES)[number];

export const evidenceItem = z.object({
  quote: z.string().nullable().describe('Text quoted from the post, when the evidence is a passage.'),
  paragraph: z.number().int().nullable().describe('1-based paragraph of the quote, when known.'),
  signal: z.string().nullable().describe('The rule or signal that flagged it, when one did.'),
  note: z.string().nullable().describe('What the signal saw, when it is not a quote.'),
});
export type Evidence = z.infer<typeof evidenceItem>;

export const statementOfReasons = z
  .object({
    id: z.string().describe('The decision id; an appeal is filed against it (one per decision).'),
    puid: z.string().describe('The post id (DSA: platform unique identifier of the content).'),
    outcome: z.enum(OUTCOMES),
    decision_visibility: z.array(
      z.enum(['DECISION_VISIBILITY_CONTENT_REMOVED', 'DECISION_VISIBILITY_CONTENT_DISABLED']),
    ),
    decision_visibility_other: z.string().nullable(),
    decision_monetary: z.enum(['DECISION_MONETARY_OTHER']).nullable(),
    decision_monetary_other: z.string().nullable(),
    decision_account: z.enum(['DECISION_ACCOUNT_SUSPENDED']).nullable(),
    decision_ground: z.enum(['DECISION_GROUND_INCOMPATIBLE_CONTENT']).nullable(),
    incompatible_content_ground: z.string().nullable(),
    incompatible_content_explanation: z.string().nullable(),
    decision_facts: z.string(),
    category: z.enum(DSA_CATEGORIES),
    policy_category: z.string().nullable().describe('Our category (low_quality or an abuse category).'),
    content_type: z.array(z.literal('CONTENT_TYPE_TEXT')),
    content_date: z.string(),
    application_date: z.string().describe('When the decision was taken.'),
    automated_detection: z.enum(['Yes', 'No']),
    automated_decision: z.enum(['AUTOMATED_DECISION_FULLY', 'AUTOMATED_DECISION_NOT_AUTOMATED']),
    source_type: z.enum(['SOURCE_VOLUNTARY', 'SOURCE_ARTICLE_16']),
    decided_by: z.enum(['rules', 'model', 'person']),
    policy: z.object({
      version: z.string(),
      rule_ids: z
        .array(z.string())
        .describe('The rules the decision cited; every rule of the category when it cited none.'),
      url: z.string(),
    }),
    evidence: z.array(evidenceItem),
    fine: z.number().int().describe('Micro-dollars fined by this decision (0: none).'),
    fee_refunded: z.boolean(),
    strike: z.boolean(),
    account_banned: z.boolean().describe('This decision took the account to three strikes.'),
    redress: z.object({
      appeal: z.object({
        available: z.boolean(),
        deadline: z.string().nullable(),
        endpoint: z.string().nullable(),
        mcp_tool: z.string().nullable(),
      }),
      other: z.string(),
    }),
  })
  .describe(
    'Statement of reasons (DSA Art. 17) of the latest decision on the post; field names follow the DSA Transparency Database where one fits.',
  );
export type StatementOfReasons = z.infer<typeof statementOfReasons>;

export interface StatementInput {
  decisionId: string;
  postId: string;
  postCreatedAt: Date;
  outcome: Outcome;
  /** Ours: low_quality or an abuse category (for review: the suspected one). */
  category: string | null;
  reason: string;
  source: 'prefilter' | 'local' | 'openai' | 'person';
  /** A report (notice) led to it; otherwise the service acted on its own initiative. */
  notice: boolean;
  /** What the deciding verdict (or, for a person, the model before them) recorded. */
  details?: Record<string, unknown> | null;
  fine: number;
  feeRefunded: boolean;
  strike: boolean;
  banned: boolean;
  decidedAt: Date;
}

/** Until when a decision may be appealed: the same instant APPEAL_WINDOW_MONTHS calendar months later. */
export function appealDeadline(decidedAt: Date): Date {
  const d = new Date(decidedAt.getTime());
  const day = d.getUTCDate();
  d.setUTCMonth(d.getUTCMonth() + APPEAL_WINDOW_MONTHS, 1);
  // 31 August + 6 months is the last day of February, not 3 March.
  const last = new Date(Date.UTC(d.getUTCFullYear(), d.getUTCMonth() + 1, 0)).getUTCDate();
  d.setUTCDate(Math.min(day, last));
  return d;
}

export const APPEALABLE: readonly Outcome[] = ['rejected', 'removed'];

export function buildStatement(s: StatementInput): StatementOfReasons {
  const restricted = s.outcome !== 'published';
  const category = (s.category ?? null) as keyof typeof DSA_CATEGORY | null;
  const appealable = APPEALABLE.includes(s.outcome);
  const rules = ruleIds(s.category, s.details);
  const visibility: StatementOfReasons['decision_visibility'] =
    s.outcome === 'rejected' || s.outcome === 'removed'
      ? ['DECISION_VISIBILITY_CONTENT_REMOVED']
      : s.outcome === 'review'
        ? ['DECISION_VISIBILITY_CONTENT_DISABLED']
        : [];
  return {
    id: s.decisionId,
    puid: s.postId,
    outcome: s.outcome,
    decision_visibility: visibility,
    decision_visibility_other:
      s.outcome === 'review' ? 'Held from publication until a person decides.' : null,
    decision_monetary: s.fine > 0 ? 'DECISION_MONETARY_OTHER' : null,
    decision_monetary_other:
      s.fine > 0 ? `A fine of ${s.fine} micro-dollars (the post costs the abuse multiplier in all).` : null,
    decision_account: s.banned ? 'DECISION_ACCOUNT_SUSPENDED' : null,
    decision_ground: restricted ? 'DECISION_GROUND_INCOMPATIBLE_CONTENT' : null,
    incompatible_content_ground: restricted
      ? `agentpress moderation policy ${POLICY.version}${rules.length ? `, ${rules.join(', ')}` : ''}`
      : null,
    incompatible_content_explanation: restricted ? s.reason : null,
    decision_facts: s.reason,
    category: (category && DSA_CATEGORY[category]) || 'STATEMENT_CATEGORY_SCOPE_OF_PLATFORM_SERVICE',
    policy_category: s.category,
    content_type: ['CONTENT_TYPE_TEXT'],
    content_date: s.postCreatedAt.toISOString(),
    application_date: s.decidedAt.toISOString(),
    // Every post is screened by rules and a model before it is published; a removal follows a
    // report or a person's own reading.
    automated_detection: s.outcome === 'removed' ? 'No' : 'Yes',
    automated_decision:
      s.source === 'person' ? 'AUTOMATED_DECISION_NOT_AUTOMATED' : 'AUTOMATED_DECISION_FULLY',
    source_type: s.notice ? 'SOURCE_ARTICLE_16' : 'SOURCE_VOLUNTARY',
    decided_by: s.source === 'person' ? 'person' : s.source === 'prefilter' ? 'rules' : 'model',
    policy: { version: POLICY.version, rule_ids: rules, url: '/v1/policy' },
    evidence: evidenceOf(s.details),
    fine: s.fine,
    fee_refunded: s.feeRefunded,
    strike: s.strike,
    account_banned: s.banned,
    redress: {
      appeal: appealable
        ? {
            available: true,
            deadline: appealDeadline(s.decidedAt).toISOString(),
            endpoint: `POST /v1/posts/${s.postId}/appeal`,
            mcp_tool: 'appeal_verdict',
          }
        : { available: false, deadline: null, endpoint: null, mcp_tool: null },
      other:
        s.outcome === 'review'
          ? 'A person reads the post and decides; that decision can be appealed.'
          : 'Free internal appeal (one per decision, decided by a person); out-of-court dispute settlement (DSA Art. 21) and the courts remain open.',
    },
  };
}

const asArray = (v: unknown): Record<string, unknown>[] =>
  Array.isArray(v) ? v.filter((x): x is Record<string, unknown> => !!x && typeof x === 'object') : [];
const str = (v: unknown): string | null => (typeof v === 'string' && v ? v : null);

function ruleIds(category: string | null, details: Record<string, unknown> | null | undefined): string[] {
  const cited = (Array.isArray(details?.rule_ids) ? details.rule_ids : []).filter(
    (x): x is string => typeof x === 'string',
  );
  if (cited.length) return cited;
  if (category === 'low_quality') return POLICY.quality_bar.rules.map((r) => r.id);
  return POLICY.abuse.find((c) => c.id === category)?.rules.map((r) => r.id) ?? [];
}

/** The quotes a model gave, the paragraphs triage flagged, and what the rules saw. */
function evidenceOf(details: Record<string, unknown> | null | undefined): Evidence[] {
  if (!details) return [];
  const out: Evidence[] = [];
  for (const e of asArray(details.evidence))
    if (str(e.quote)) out.push({ quote: str(e.quote), paragraph: null, signal: null, note: null });
  for (const t of asArray(details.triage))
    out.push({
      quote: str(t.excerpt),
      paragraph: typeof t.paragraph === 'number' ? t.paragraph + 1 : null,
      signal: str(t.id),
      note: str(t.detail),
    });
  const signals = asArray(details.signals)
    .filter((x) => typeof x.score === 'number' && x.score >= 0.5)
    .sort((a, b) => Number(b.score) - Number(a.score))
    .slice(0, 3);
  for (const x of signals) out.push({ quote: null, paragraph: null, signal: str(x.id), note: str(x.detail) });
  return out.slice(0, 10);
}
