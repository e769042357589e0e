import { createHash } from 'node:crypto';

/** Small text helpers shared by the transport and the profiles. */

export function sha256(s: string): string {
  return createHash('sha256').update(s).digest('hex');
}

export function clip(s: string, max: number): string {
  return s.length <= max ? s : `${s.slice(0, max - 1)}…`;
}

export function truncateBytes(s: string, max: number): string {
  const buf = Buffer.from(s);
  if (buf.length <= max) return s;
  // A cut through a multi-byte character decodes as U+FFFD; drop it.
  return buf
    .subarray(0, max)
    .toString('utf8')
    .replace(/\uFFFD+$/, '');
}

/** Drops a leading `<think>…</think>` block (models that reason inline, not in a separate field). */
export function stripThink(s: string): string {
  return s.replace(/^\s*<think>[\s\S]*?<\/think>/, '');
}

/**
 * The first JSON object in a text that may surround it with prose or code fences: each `{` is tried
 * as the start of a balanced object (braces inside strings do not count) until one parses.
 */
export function findJsonObject(text: string): { ok: true; value: unknown } | { ok: false } {
  for (let start = text.indexOf('{'); start >= 0; start = text.indexOf('{', start + 1)) {
    let depth = 0;
    let inString = false;
    for (let i = start; i < text.length; i++) {
      const c = text[i];
      if (inString) {
        if (c === '\\') i++;
        else if (c === '"') inString = false;
      } else if (c === '"') inString = true;
      else if (c === '{') depth++;
      else if (c === '}' && --depth === 0) {
        try {
          return { ok: true, value: JSON.parse(text.slice(start, i + 1)) };
        } catch {
          break;
        }
      }
    }
  }
  return { ok: false };
}
