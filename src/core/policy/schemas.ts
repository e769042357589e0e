import { z } from 'zod';
import { ABUSE_CATEGORIES, type Policy } from './types.js';

const rule = z.object({ id: z.string(), text: z.string() });

/** GET /v1/policy, the MCP tool get_policy and the resource policy://current. */
export const policyView = z
  .object({
    version: z.string(),
    effective_at: z.string(),
    summary: z.string(),
    quality_bar: z.object({
      summary: z.string(),
      rules: z.array(rule),
      failing: z.array(z.string()),
      passing: z.array(z.string()),
    }),
    abuse: z.array(
      z.object({
        id: z.enum(ABUSE_CATEGORIES),
        title: z.string(),
        description: z.string(),
        rules: z.array(rule),
        violating: z.array(z.string()),
        non_violating: z.array(z.string()),
      }),
    ),
    outcomes: z.array(z.string()),
  })
  .describe('The versioned moderation policy: the quality bar and the abuse list with synthetic examples.');

type Same<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;
/** Fails the build when the schema and the Policy type drift apart. */
const policyMatches: Same<z.output<typeof policyView>, Policy> = true;
void policyMatches;
