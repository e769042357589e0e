/** Plain-text rules shared by every body: one normal form, one word count. */

/** NFC, LF line endings, no trailing spaces at line ends, at most one blank line between paragraphs. */
export function normalizeText(text: string): string {
  return text
    .normalize('NFC')
    .replace(/\r\n?/g, '\n')
    .replace(/[ \t]+\n/g, '\n')
    .replace(/\n{3,}/g, '\n\n')
    .trim();
}

/** A word is a run of non-space characters containing a letter or a digit (DESIGN.md). */
export function countWords(text: string): number {
  let n = 0;
  for (const token of text.split(/\s+/)) if (/[\p{L}\p{N}]/u.test(token)) n++;
  return n;
}

/** Paragraphs are separated by blank lines. */
export function paragraphs(text: string): string[] {
  return text
    .split(/\n\s*\n/)
    .map((p) => p.trim())
    .filter(Boolean);
}

/** C0/C1 controls other than tab and newline have no place in plain text. */
// biome-ignore lint/suspicious/noControlCharactersInRegex: the point is to find them
export const CONTROL_CHARS = /[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f-\u009f]/;

export const LINK_PATTERN = /\b(?:https?:\/\/|www\.)[^\s<>"]+/i;
