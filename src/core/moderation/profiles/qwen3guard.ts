import type { AbuseCategory } from '../../policy/types.js';
import { type GuardCategory, type GuardSpec, guardProfile } from './guard.js';
import { stripThink } from './text.js';
import type { ModeratorProfile, ProfileOptions } from './types.js';

/**
 * `qwen3guard`: Qwen3Guard-Gen (0.6B, 4B, 8B). The post is the user message (prompt moderation)
 * and the server's chat template builds the guard prompt; the answer is two lines,
 * `Safety: Safe|Unsafe|Controversial` and `Categories: <names, comma-separated>|None`.
 *
 * Controversial always goes to review. Only Non-violent Illegal Acts (-> illegal) may reject:
 * Violent also covers depictions of violence, which stories may hold; Suicide & Self-Harm covers a
 * real person in crisis (the policy sends that to a person) and dangerous activities; PII, Copyright
 * Violation and Jailbreak turn on facts the model cannot check or are narrower than ours; Sexual
 * Content, Unethical Acts and Politically Sensitive Topics are not categories of ours (or span
 * several). Spam and low quality have no category and are judged by our rules.
 */
const CATEGORIES: Record<string, GuardCategory> = {
  violent: { title: 'Violent', category: 'violence_instructions', clean: false },
  'non-violent illegal acts': { title: 'Non-violent Illegal Acts', category: 'illegal', clean: true },
  'sexual content or sexual acts': { title: 'Sexual Content or Sexual Acts', category: null, clean: false },
  pii: { title: 'PII', category: 'privacy', clean: false },
  'suicide & self-harm': { title: 'Suicide & Self-Harm', category: 'self_harm', clean: false },
  'unethical acts': { title: 'Unethical Acts', category: null, clean: false },
  'politically sensitive topics': { title: 'Politically Sensitive Topics', category: null, clean: false },
  'copyright violation': { title: 'Copyright Violation', category: 'illegal', clean: false },
  jailbreak: { title: 'Jailbreak', category: 'agent_injection', clean: false },
};

export const QWEN3GUARD: GuardSpec = {
  guard: 'Qwen3Guard',
  taxonomy: (name) => CATEGORIES[name.toLowerCase()],
  covers: new Set<AbuseCategory>([
    'violence_instructions',
    'illegal',
    'sexual_minors',
    'self_harm',
    'hate',
    'harassment',
  ]),
};

const LABELS = { safe: 'safe', unsafe: 'unsafe', controversial: 'controversial' } as const;

/** `Safety: <label>` then `Categories: <names>|None` (a `Refusal:` line, which only response
 *  moderation writes, is ignored); nothing else. */
export function parseQwen3Guard(
  content: string | null,
):
  | { ok: true; label: 'safe' | 'unsafe' | 'controversial'; categories: string[] }
  | { ok: false; error: string } {
  if (content === null || content.trim() === '')
    return { ok: false, error: 'the response carried no message content' };
  const lines = stripThink(content)
    .split(/\r?\n/)
    .map((l) => l.trim())
    .filter((l) => l && !/^Refusal:\s*(Yes|No)$/i.test(l));
  const safety = lines[0]?.match(/^Safety:\s*(Safe|Unsafe|Controversial)$/i);
  const cats = lines[1]?.match(/^Categories:\s*(.*)$/i);
  const label = LABELS[(safety?.[1] ?? '').toLowerCase() as keyof typeof LABELS];
  if (!label || !cats || lines.length !== 2)
    return {
      ok: false,
      error: 'the answer is not a "Safety: Safe|Unsafe|Controversial" line and a "Categories:" line',
    };
  const categories = (cats[1] ?? '')
    .split(',')
    .map((c) => c.trim())
    .filter((c) => c && c.toLowerCase() !== 'none');
  if (label === 'safe' && categories.length > 0)
    return { ok: false, error: `the answer is Safe but names categories (${categories.join(', ')})` };
  return { ok: true, label, categories };
}

export function qwen3guardProfile(opts: ProfileOptions): ModeratorProfile {
  return guardProfile('qwen3guard', QWEN3GUARD, parseQwen3Guard, opts);
}
