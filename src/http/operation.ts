import type { z } from 'zod';
import type { Accepted, Queued } from '../core/posts/posts.js';
import { CATALOG, type ProblemCode } from '../core/problems.js';

/**
 * One place where a route declares what it answers. `/openapi.json` is generated from these
 * declarations, and the test harness validates every response the API tests receive against
 * that document: an answer a route does not declare fails the test that provoked it.
 *
 * How to declare a route (a new /v1 route or a JSON document needs this, nothing else):
 *
 *   r.get('/v1/things/:id', {
 *     schema: operation({
 *       tags: ['things'],
 *       summary: 'One thing',
 *       security: KEYED,                     // PUBLIC, OPTIONAL_KEY, KEYED, OWNER, STAFF or STAFF_ADMIN
 *       params: z.object({ id: z.string() }),  // request schemas, exactly as fastify takes them
 *       responses: { 200: thingView },         // success status -> zod schema; null: no body (204)
 *       problems: ['not_found'],               // codes the route itself raises (status from CATALOG)
 *       responseHeaders: { 200: ['etag'] },    // response headers that matter; 'name?' = optional
 *     }),
 *   }, handler);
 *
 * Codes added for you (in src/contracts/openapi.ts, from the route's shape): internal_error and
 * service_unavailable everywhere; validation_failed when the route takes a body, query, params
 * or headers; invalid_json, unsupported_media_type and payload_too_large on POST/PUT/PATCH;
 * unauthorized when the security names a scheme; owner_action_required with OWNER;
 * platform_rate_limited under /v1 and /mcp. The headers a problem carries (Retry-After on 429 and
 * 503, WWW-Authenticate on 401, RateLimit on an exhausted search) come from PROBLEM_HEADERS below.
 * Success responses are also the route's fastify response schemas (zod serializes them).
 *
 * A route without operation() is left out of /openapi.json (pages, assets, forms). Under /v1 that
 * fails every test that calls it ("not an operation of /openapi.json"): declare it. A test that
 * deliberately sends what no contract can describe (an unknown path) passes `unchecked: true`
 * to env.call; see test/helpers/contract.ts for what is checked.
 */

/** A header of string values: its name as sent, what it means, and what its value must match. */
const header = (name: string, description: string, value?: { pattern: string } | { const: string }) => ({
  name,
  description,
  schema: { type: 'string', ...value },
});

/** Response headers worth a contract, by lower-case name: how OpenAPI shows them. */
export const HEADERS = {
  'retry-after': header('Retry-After', 'Seconds to wait before retrying or polling again.', {
    pattern: '^[0-9]+$',
  }),
  ratelimit: header(
    'RateLimit',
    'IETF draft: "search";r=<remaining>;t=<seconds until the reset at 00:00 UTC>.',
    { pattern: '^"search";r=[0-9]+;t=[0-9]+$' },
  ),
  'ratelimit-policy': header('RateLimit-Policy', 'IETF draft: "search";q=<allowance>;w=86400.', {
    pattern: '^"search";q=[0-9]+;w=[0-9]+$',
  }),
  'idempotent-replayed': header(
    'Idempotent-Replayed',
    'true when this is the stored first response to the same Idempotency-Key and body.',
    { const: 'true' },
  ),
  etag: header('ETag', 'Strong validator; send it back as If-None-Match to get 304.', {
    pattern: '^"[^"]+"$',
  }),
  'www-authenticate': header('WWW-Authenticate', 'Bearer challenge.', { pattern: '^Bearer ' }),
  allow: header('Allow', 'The methods this path takes.'),
};
export type HeaderName = keyof typeof HEADERS;
/** A header the response must carry, or with a trailing `?` one it may carry. */
export type HeaderSpec = HeaderName | `${HeaderName}?`;

/** An accepted post or edit: when to poll for the verdict, and whether this is the stored first
 *  answer. REST sends them as headers of its 202, MCP as the tool result's `_meta`. */
export function postingHeaders(r: Accepted<Queued>): Partial<Record<HeaderName, string>> {
  return {
    'retry-after': String(r.view.moderation.retry_after_seconds),
    ...(r.replayed ? { 'idempotent-replayed': 'true' } : {}),
  };
}

/** Headers that always come with a problem code (the Problem's own `headers`, or sendProblem's). */
export const PROBLEM_HEADERS: Partial<Record<ProblemCode, readonly HeaderSpec[]>> = {
  unauthorized: ['www-authenticate'],
  link_expired: ['www-authenticate'],
  invalid_code: ['www-authenticate'],
  platform_rate_limited: ['retry-after'],
  search_allowance_exhausted: ['retry-after', 'ratelimit', 'ratelimit-policy'],
  idempotency_key_in_use: ['retry-after'],
  service_unavailable: ['retry-after'],
  // Owner codes carry Retry-After; the reports allowance (spec: no RateLimit or Retry-After) does not.
  rate_limited: ['retry-after?'],
  method_not_allowed: ['allow'],
};

export const PUBLIC: Record<string, string[]>[] = [];
export const OPTIONAL_KEY: Record<string, string[]>[] = [{}, { apiKey: [] }];
export const KEYED: Record<string, string[]>[] = [{ apiKey: [] }];
export const OWNER: Record<string, string[]>[] = [{ ownerSession: [] }];
export const STAFF: Record<string, string[]>[] = [{ adminToken: [] }];
/** Staff with the admin role (the ADMIN_TOKEN is one); a moderator gets 403 forbidden. */
export const STAFF_ADMIN: Record<string, string[]>[] = [{ adminToken: ['admin'] }];

export interface OperationSpec {
  tags: string[];
  summary: string;
  description?: string;
  security?: Record<string, string[]>[];
  body?: z.ZodType;
  querystring?: z.ZodType;
  params?: z.ZodType;
  headers?: z.ZodType;
  /** Success statuses: a zod schema of the JSON body, or null for no body. */
  responses: Record<number, z.ZodType | null>;
  /** Content type of the success bodies (default application/json). */
  contentType?: string;
  /** Problem codes the route itself can answer; the defaults listed above are added. */
  problems?: readonly ProblemCode[];
  /** Response headers by status (success or problem status). */
  responseHeaders?: Record<number, readonly HeaderSpec[]>;
  /** Examples of success bodies by status. */
  examples?: Record<number, unknown>;
  /** Left out of /openapi.json (pages, the MCP GET/DELETE refusals). */
  hide?: boolean;
}

/** What the OpenAPI generator reads back from the fastify schema (JSON only: no zod). */
export interface ContractExtension {
  problems: ProblemCode[];
  headers: Record<string, HeaderSpec[]>;
  empty: number[];
  contentType: string;
  examples: Record<string, unknown>;
}

export const CONTRACT_KEY = 'x-contract' as const;

type Pick_<S, K extends string> = S extends { [P in K]: infer T } ? T : undefined;
type SuccessSchemas<R> = { [K in keyof R as R[K] extends null ? never : K]: Exclude<R[K], null> };

/** The fastify route schema: typed like a hand-written one, so the zod type provider infers the handler. */
export interface OperationSchema<S extends OperationSpec> {
  tags: string[];
  summary: string;
  body: Pick_<S, 'body'>;
  querystring: Pick_<S, 'querystring'>;
  params: Pick_<S, 'params'>;
  headers: Pick_<S, 'headers'>;
  response: SuccessSchemas<S['responses']>;
  [CONTRACT_KEY]: ContractExtension;
}

/** Turns a declaration into the fastify route schema (validation, serialization, OpenAPI). */
export function operation<const S extends OperationSpec>(spec: S): OperationSchema<S> {
  for (const code of spec.problems ?? []) {
    if (!(code in CATALOG)) throw new Error(`operation(): unknown problem code ${code}`);
  }
  const response: Record<number, z.ZodType> = {};
  const empty: number[] = [];
  for (const [status, schema] of Object.entries(spec.responses)) {
    if (schema === null) empty.push(Number(status));
    else response[Number(status)] = schema;
  }
  const contract: ContractExtension = {
    problems: [...(spec.problems ?? [])],
    headers: Object.fromEntries(Object.entries(spec.responseHeaders ?? {}).map(([s, h]) => [s, [...h]])),
    empty,
    contentType: spec.contentType ?? 'application/json',
    examples: Object.fromEntries(Object.entries(spec.examples ?? {})),
  };
  return {
    tags: spec.tags,
    summary: spec.summary,
    ...(spec.description ? { description: spec.description } : {}),
    ...(spec.security ? { security: spec.security } : {}),
    ...(spec.body ? { body: spec.body } : {}),
    ...(spec.querystring ? { querystring: spec.querystring } : {}),
    ...(spec.params ? { params: spec.params } : {}),
    ...(spec.headers ? { headers: spec.headers } : {}),
    ...(spec.hide ? { hide: true } : {}),
    response,
    [CONTRACT_KEY]: contract,
  } as unknown as OperationSchema<S>;
}
