import type { AbuseCategory } from '../../policy/types.js';
import { type GuardCategory, type GuardSpec, guardProfile } from './guard.js';
import { stripThink } from './text.js';
import type { ModeratorProfile, ProfileOptions } from './types.js';

/**
 * `llama-guard`: Meta's Llama Guard 3 (1B, 8B) and 4 (12B). The post is the user message and the
 * server's chat template builds the guard prompt with the MLCommons hazard taxonomy; the answer is
 * `safe`, or `unsafe` and a line of comma-separated S-codes (`unsafe\nS1,S10`).
 *
 * Mapping: only hazards that are a subset of one of our categories may reject (S1, S9 ->
 * violence_instructions; S2 -> illegal; S4 -> sexual_minors; S10 -> hate). S5 Defamation, S7
 * Privacy and S8 Intellectual Property turn on facts the model cannot check (is the claim false, is
 * the person real, is the text owned), and S11 covers a real person in crisis, which the policy
 * sends to a person: review with our category. S3, S6, S12, S13 and S14 are not ours (or span
 * several): review. Spam, instructions to AI readers, harassment and low quality have no S-code and
 * are judged by our rules.
 */
const S_CODES: Record<string, GuardCategory> = {
  S1: { title: 'Violent Crimes', category: 'violence_instructions', clean: true },
  S2: { title: 'Non-Violent Crimes', category: 'illegal', clean: true },
  S3: { title: 'Sex-Related Crimes', category: null, clean: false },
  S4: { title: 'Child Sexual Exploitation', category: 'sexual_minors', clean: true },
  S5: { title: 'Defamation', category: 'harassment', clean: false },
  S6: { title: 'Specialized Advice', category: null, clean: false },
  S7: { title: 'Privacy', category: 'privacy', clean: false },
  S8: { title: 'Intellectual Property', category: 'illegal', clean: false },
  S9: { title: 'Indiscriminate Weapons', category: 'violence_instructions', clean: true },
  S10: { title: 'Hate', category: 'hate', clean: true },
  S11: { title: 'Suicide & Self-Harm', category: 'self_harm', clean: false },
  S12: { title: 'Sexual Content', category: null, clean: false },
  S13: { title: 'Elections', category: null, clean: false },
  S14: { title: 'Code Interpreter Abuse', category: null, clean: false },
};

export const LLAMA_GUARD: GuardSpec = {
  guard: 'Llama Guard',
  taxonomy: (code) => S_CODES[code.toUpperCase()],
  covers: new Set<AbuseCategory>(['violence_instructions', 'illegal', 'sexual_minors', 'hate', 'self_harm']),
};

/** `safe` | `unsafe` [newline S-codes], nothing else. */
export function parseLlamaGuard(
  content: string | null,
): { ok: true; label: 'safe' | 'unsafe'; codes: string[] } | { ok: false; error: string } {
  if (content === null || content.trim() === '')
    return { ok: false, error: 'the response carried no message content' };
  const lines = stripThink(content)
    .split(/\r?\n/)
    .map((l) => l.trim())
    .filter(Boolean);
  const head = lines[0]?.toLowerCase();
  if (head === 'safe' && lines.length === 1) return { ok: true, label: 'safe', codes: [] };
  if (head === 'unsafe' && lines.length <= 2) {
    const codes = (lines[1] ?? '')
      .split(',')
      .map((c) => c.trim().toUpperCase())
      .filter(Boolean);
    if (codes.every((c) => /^S\d{1,2}$/.test(c))) return { ok: true, label: 'unsafe', codes };
  }
  return {
    ok: false,
    error: 'the answer is not "safe", or "unsafe" and a line of comma-separated S-codes',
  };
}

export function llamaGuardProfile(opts: ProfileOptions): ModeratorProfile {
  return guardProfile(
    'llama-guard',
    LLAMA_GUARD,
    (content) => {
      const a = parseLlamaGuard(content);
      return a.ok ? { ok: true, label: a.label, categories: a.codes } : a;
    },
    opts,
  );
}
