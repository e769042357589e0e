import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify';
import { hasZodFastifySchemaValidationErrors } from 'fastify-type-provider-zod';
import { isConnectionError } from '../core/database.js';
import { isProblem, Problem, problemBody } from '../core/problems.js';
import { jsonPointer, unknownMember, validationProblem } from '../core/validation.js';

/** Maps anything thrown in a request to a Problem; unknown errors become a 500 with no internals. */
export function toProblem(err: unknown): Problem {
  if (isProblem(err)) return err;
  if (isConnectionError(err)) return databaseUnavailable(err);
  if (hasZodFastifySchemaValidationErrors(err)) {
    const prefix = err.validationContext === 'body' ? '' : `/${contextName(err.validationContext)}`;
    return validationProblem(
      err.validation.flatMap((v) => {
        const at = prefix + (v.instancePath === '/' ? '' : v.instancePath);
        const detail = v.message ?? 'invalid';
        // An unknown member is reported by zod at its parent object; point at the member itself.
        const keys = (v.params as { keys?: unknown } | undefined)?.keys;
        if (v.keyword === 'unrecognized_keys' && Array.isArray(keys) && keys.length > 0) {
          return keys.map((k) => unknownMember(String(k), jsonPointer([String(k)], at)));
        }
        return [{ pointer: at, detail }];
      }),
    );
  }
  const e = err as Partial<FastifyError> & { type?: string };
  switch (e.code) {
    case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
      return new Problem('unsupported_media_type', { detail: 'Send the body as application/json.' });
    case 'FST_ERR_CTP_BODY_TOO_LARGE':
      return new Problem('payload_too_large');
    case 'FST_ERR_CTP_INVALID_JSON_BODY':
      return new Problem('invalid_json', { detail: 'The body is not valid JSON.' });
    case 'FST_ERR_CTP_EMPTY_JSON_BODY':
      return new Problem('invalid_json', { detail: 'The body is empty; send a JSON document.' });
    case 'FST_ERR_CTP_INVALID_CONTENT_LENGTH':
      return new Problem('invalid_json', { detail: 'The Content-Length does not match the body.' });
  }
  if (err instanceof SyntaxError && e.statusCode === 400) {
    return new Problem('invalid_json', { detail: `The body is not valid JSON: ${err.message}` });
  }
  if (e.statusCode === 404) return new Problem('not_found');
  if (e.statusCode === 413) return new Problem('payload_too_large');
  if (e.statusCode === 415) return new Problem('unsupported_media_type');
  return new Problem('internal_error');
}

/** The database cannot be reached (restart, failover): 503 with a short Retry-After, nothing leaked. */
export function databaseUnavailable(cause?: unknown): Problem {
  return new Problem('service_unavailable', {
    detail:
      'The database is unavailable for a moment. Retry after Retry-After seconds (with the same Idempotency-Key, a post is never charged twice).',
    headers: { 'retry-after': '2' },
    cause,
  });
}

function contextName(ctx: string | undefined): string {
  return ctx === 'querystring' ? 'query' : (ctx ?? 'body');
}

export function sendProblem(reply: FastifyReply, p: Problem, baseUrl: string) {
  for (const [k, v] of Object.entries(p.headers)) reply.header(k, v);
  if (p.status === 401 && !reply.hasHeader('www-authenticate')) {
    reply.header('www-authenticate', 'Bearer realm="agentpress"');
  }
  return reply
    .code(p.status)
    .type('application/problem+json; charset=utf-8')
    .serializer(JSON.stringify)
    .send(problemBody(p, baseUrl, reply.request.id));
}

export function errorHandler(baseUrl: string) {
  return (err: unknown, req: FastifyRequest, reply: FastifyReply) => {
    const p = toProblem(err);
    if (p.code === 'service_unavailable') req.log.warn({ err }, 'dependency unavailable');
    else if (p.status >= 500) req.log.error({ err }, 'request failed');
    return sendProblem(reply, p, baseUrl);
  };
}
