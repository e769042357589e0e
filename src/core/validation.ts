import type { z } from 'zod';
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
export function invalidCursor(): Problem {
  return validationProblem([
    { pointer: '/query/cursor', detail: 'cursor is not one this API returned; start without it' },
  ]);
}
