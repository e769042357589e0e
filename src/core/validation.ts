import { z } from 'zod';
import { type FieldError, Problem } from './problems.js';

/** RFC 6901: `~` and `/` in a segment are escaped. */
export function jsonPointer(path: readonly PropertyKey[], prefix = ''): string {
  return prefix + path.map((p) => `/${String(p).replace(/~/g, '~0').replace(/\//g, '~1')}`).join('');
}

/** The error for a member an object does not have, at the member's own pointer. */
export const unknownMember = (key: string, pointer: string): FieldError => ({
  pointer,
  detail: `Unknown member "${key}": remove it.`,
});

export function fieldErrors(issues: readonly z.core.$ZodIssue[], prefix = ''): FieldError[] {
  return issues.flatMap((i) =>
    // An unknown member is reported where it is, one error per member, so a client can find it.
    i.code === 'unrecognized_keys'
      ? i.keys.map((k) => unknownMember(k, jsonPointer([...i.path, k], prefix)))
      : [{ pointer: jsonPointer(i.path, prefix), detail: i.message }],
  );
}

export function validationProblem(errors: FieldError[]): Problem {
  const first = errors[0];
  const detail =
    errors.length === 1 && first
      ? `${first.pointer || 'body'}: ${first.detail}`
      : `${errors.length} fields are invalid; see errors[].`;
  return new Problem('validation_failed', { detail, errors });
}

/** Parses input that did not pass through an HTTP schema (MCP tools, site-specific bodies). */
export function parseOrThrow<S extends z.ZodType>(schema: S, input: unknown, prefix = ''): z.output<S> {
  const r = schema.safeParse(input);
  if (!r.success) throw validationProblem(fieldErrors(r.error.issues, prefix));
  return r.data;
}

/** A `cursor` query parameter this API did not hand out. */
/** The envelope of every list answer, `{ data, next_cursor }`: the cursor of the next page, null on the last. */
export const pageOf = <T extends z.ZodType>(item: T) =>
  z.object({ data: z.array(item), next_cursor: z.string().nullable() });

/** A list answered whole, in the same envelope: `next_cursor` is always null. */
export const wholeList = <T extends z.ZodType>(item: T) =>
  z.object({ data: z.array(item), next_cursor: z.null() });

/**
 * One page of rows read newest first by a numeric id, `limit + 1` of them: the first `limit` as
 * `view` shows them, and the cursor of the next page (the last id shown) when a row was left over.
 */
export function idPage<R extends { id: number }, V>(rows: readonly R[], limit: number, view: (row: R) => V) {
  const page = rows.slice(0, limit);
  return { data: page.map(view), next_cursor: rows.length > limit ? String(page.at(-1)?.id) : null };
}

export function invalidCursor(): Problem {
  return validationProblem([
    { pointer: '/query/cursor', detail: 'cursor is not one this API returned; start without it' },
  ]);
}

// ---------------------------------------------------------------------------------------------
// The boundary rule for text.

/**
 * A character no text may hold, wherever it enters: anything outside XML 1.0's `Char` production
 * (#x9 | #xA | #xD | [#x20-#xD7FF] | [#xE000-#xFFFD] | [#x10000-#x10FFFF]). That is NUL (which
 * PostgreSQL cannot store), the other C0 controls but tab, LF and CR, an unpaired surrogate
 * (the `u` flag reads one as a code point of its own), U+FFFE and U+FFFF. Text that passes can go
 * into the database, a JSON answer, an Atom feed and an e-mail alike.
 */
const NOT_TEXT = /[^\t\n\r\u0020-\uD7FF\uE000-\uFFFD\u{10000}-\u{10FFFF}]/u;
const NOT_TEXT_ALL = new RegExp(NOT_TEXT.source, 'gu');

/** `U+0000` for a code point. */
const codePointName = (cp: number) => `U+${cp.toString(16).toUpperCase().padStart(4, '0')}`;

/** The first character of `s` that no text may hold, as `U+XXXX`, or undefined when `s` is text. */
export function forbiddenCharacter(s: string): string | undefined {
  const m = NOT_TEXT.exec(s);
  return m ? codePointName(m[0].codePointAt(0) ?? 0) : undefined;
}

export function isText(s: string): boolean {
  return !NOT_TEXT.test(s);
}

/**
 * `s` with every character no text may hold replaced by U+FFFD: for writers (the Atom feed) that
 * must never emit one, whatever was stored before the boundary rule refused it.
 */
export function asText(s: string): string {
  return s.replace(NOT_TEXT_ALL, '\uFFFD');
}

const REFUSED =
  'a character no text may hold (NUL, control characters other than tab and line breaks, unpaired surrogates, U+FFFE, U+FFFF)';

/** A parsed value's path, child to parent, so the walk copies nothing until an error is found. */
interface Where {
  key: PropertyKey;
  up: Where | undefined;
}
const pathOf = (w: Where | undefined): PropertyKey[] => {
  const out: PropertyKey[] = [];
  for (let at = w; at; at = at.up) out.unshift(at.key);
  return out;
};

/** A parsed object (JSON, a query or a form: the last two are null-prototype); a raw Buffer body is not. */
const isRecord = (v: unknown): v is Record<string, unknown> =>
  v !== null && typeof v === 'object' && !ArrayBuffer.isView(v);

/**
 * The boundary rule, applied to anything parsed from a request (path parameters, a query, a JSON
 * body, a form, MCP tool arguments): every string, at any depth, and every member name, must be
 * text (above). Each offender is reported at its JSON Pointer (`prefix` is `/query`, `/params` or
 * empty for a body); other values (numbers, a raw Buffer body) are not looked at. At most `limit`
 * errors are listed. The walk is iterative, so a deeply nested body cannot exhaust the stack.
 */
export function textErrors(value: unknown, prefix = '', limit = 20): FieldError[] {
  const errors: FieldError[] = [];
  // [value, where it is, whether the value is a member name (reported, not descended into)].
  const stack: [unknown, Where | undefined, boolean][] = [[value, undefined, false]];
  while (stack.length > 0 && errors.length < limit) {
    const [v, where, isName] = stack.pop() as [unknown, Where | undefined, boolean];
    if (typeof v === 'string') {
      const bad = forbiddenCharacter(v);
      if (bad) {
        errors.push({
          pointer: jsonPointer(pathOf(where), prefix),
          detail: `${isName ? 'the member name holds' : 'holds'} ${bad}, ${REFUSED}`,
        });
      }
    } else if (Array.isArray(v)) {
      for (let i = v.length - 1; i >= 0; i--) stack.push([v[i], { key: i, up: where }, false]);
    } else if (isRecord(v)) {
      const keys = Object.keys(v);
      for (let i = keys.length - 1; i >= 0; i--) {
        const key = keys[i] as string;
        const at = { key, up: where };
        // A bad name is the error; what it holds is not looked at.
        stack.push(isText(key) ? [v[key], at, false] : [key, at, true]);
      }
    }
  }
  return errors;
}

/** Throws the 422 validation_failed problem when `value` breaks the boundary rule. */
export function assertText(value: unknown, prefix = ''): void {
  const errors = textErrors(value, prefix);
  if (errors.length > 0) throw validationProblem(errors);
}

/**
 * One-line fields (names, titles, reasons, places, queries, URLs) also refuse what breaks a line
 * or a header they are pasted into: every C0 control (tab, CR and LF included), DEL, the C1
 * controls U+0080-U+009F and the Unicode line and paragraph separators U+2028 and U+2029.
 * Multi-line fields (a story body, a report's detail) keep their newlines and use plain z.string().
 */
// biome-ignore lint/suspicious/noControlCharactersInRegex: the point is to find them
const ONE_LINE = /^[^\u0000-\u001f\u007f-\u009f\u2028\u2029]*$/;
export const ONE_LINE_MESSAGE = 'must be one line: no line breaks, tabs or control characters';

/**
 * The string schema of a one-line field; chain the field's own rules after it, e.g.
 * `line().trim().min(1).max(100)`. The check runs on the value as sent, before any trim.
 */
export function line(message = ONE_LINE_MESSAGE) {
  return z.string().regex(ONE_LINE, message);
}
