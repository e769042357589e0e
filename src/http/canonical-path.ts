import type { FastifyInstance } from 'fastify';
import { Problem } from '../core/problems.js';
import { sendProblem } from './errors.js';

/** %XX of a character that never needs encoding (RFC 3986 unreserved: letters, digits, -._~). */
const ENCODED_UNRESERVED = /%(?:[46][1-9a-f]|[57][0-9a]|3[0-9]|2[de]|5f|7e)/i;
/** An encoded slash or backslash, or an encoded control character: never part of an id. */
const ENCODED_SEPARATOR_OR_CONTROL = /%(?:2f|5c|[01][0-9a-f]|7f)/i;
const DOT_SEGMENT = /\/\.{1,2}(?:\/|$)/;

/**
 * Why a request path is not in canonical form, or null when it is. The router matches decoded
 * paths, so two spellings of one route would otherwise reach it; anything but the one spelling
 * is refused before routing decisions (access, the ceiling) are made.
 */
export function nonCanonicalReason(url: string): string | null {
  const q = url.indexOf('?');
  const path = q === -1 ? url : url.slice(0, q);
  if (!path.startsWith('/')) return 'The path must start with /.';
  if (path.includes('//')) return 'The path has an empty segment (//).';
  if (DOT_SEGMENT.test(path)) return 'The path has a dot segment (/./ or /../).';
  if (path.includes(';')) return 'The path has a `;` parameter.';
  if (path.includes('\\')) return 'The path has a backslash.';
  if (ENCODED_UNRESERVED.test(path)) return 'The path percent-encodes a character that needs no encoding.';
  if (ENCODED_SEPARATOR_OR_CONTROL.test(path))
    return 'The path holds an encoded slash, backslash or control character.';
  return null;
}

/** The first hook of every request: a path not in canonical form answers 400 non_canonical_path. */
export function refuseNonCanonicalPaths(app: FastifyInstance, baseUrl: string): void {
  app.addHook('onRequest', (req, reply, done) => {
    const reason = nonCanonicalReason(req.url);
    if (reason === null) return done();
    sendProblem(reply, new Problem('non_canonical_path', { detail: reason }), baseUrl);
  });
}
