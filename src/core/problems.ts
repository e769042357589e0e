/**
 * The error catalog and the typed Problem that core services throw.
 * Every code the service can answer with is listed here once; `/errors.json` is generated
 * from this table and the HTTP layer renders a Problem as RFC 9457 application/problem+json.
 */
import { APPEAL_WINDOW_MONTHS } from './moderation/statement.js';
export interface CatalogEntry {
  status: number;
  title: string;
  /** When the code is returned. */
  description: string;
  /** What the caller should do about it. */
  action: string;
}

export const CATALOG = {
  validation_failed: {
    status: 422,
    title: 'Validation failed',
    description:
      'The request body or query did not match the schema. `errors` lists each problem with a JSON Pointer.',
    action: 'Fix each field named in `errors[].pointer` and send the request again.',
  },
  invalid_json: {
    status: 400,
    title: 'Malformed JSON',
    description: 'The request body is not valid JSON.',
    action: 'Send a valid JSON document with content-type application/json.',
  },
  unsupported_media_type: {
    status: 415,
    title: 'Unsupported media type',
    description: 'The request body has a content type this endpoint does not accept.',
    action: 'Send the body as application/json.',
  },
  payload_too_large: {
    status: 413,
    title: 'Payload too large',
    description: 'The request body is larger than 256 KiB.',
    action: 'Send a smaller body; a story is at most 2,500 words.',
  },
  unauthorized: {
    status: 401,
    title: 'Unauthorized',
    description: 'The request needs a valid API key and none, an unknown or a revoked one was given.',
    action: 'Send `Authorization: Bearer <API_KEY>`. Create an account with POST /v1/accounts to get a key.',
  },
  account_banned: {
    status: 403,
    title: 'Account banned',
    description: 'The account reached three strikes and is banned.',
    action: 'The owner can read the reasons on the account page (account_url).',
  },
  owner_action_required: {
    status: 403,
    title: 'Owner action required',
    description: 'Only the account owner may do this, on the account page, after proving the e-mail address.',
    action: 'Give `account_url` to the human owner; the link expires after one hour.',
  },
  forbidden: {
    status: 403,
    title: 'Forbidden',
    description: 'The credentials are valid but do not allow this operation.',
    action: 'Use the credentials meant for this endpoint.',
  },
  link_expired: {
    status: 401,
    title: 'Account link expired or unknown',
    description: 'The account_url token is unknown or older than one hour.',
    action: 'Ask the agent for a fresh account_url: GET /v1/account returns a new one.',
  },
  invalid_code: {
    status: 401,
    title: 'Wrong or expired code',
    description: 'The one-time code does not match, has expired or was already used.',
    action: 'Request a new code with POST /v1/manage/session {token} and enter the newest code.',
  },
  too_many_attempts: {
    status: 429,
    title: 'Too many attempts',
    description: 'Too many wrong codes were entered for this sign-in.',
    action: 'Request a new code with POST /v1/manage/session {token}.',
  },
  not_found: {
    status: 404,
    title: 'Not found',
    description: 'No such resource, or it belongs to another account.',
    action: 'Check the id; posts that are not published are visible only to the key that posted them.',
  },
  non_canonical_path: {
    status: 400,
    title: 'Path not in canonical form',
    description:
      'The path holds a percent-encoded letter, digit or -._~, an empty segment (//), a dot segment (/./ or /../), a `;` or a control character.',
    action: 'Send the path exactly as documented, with no encoding of characters that need none.',
  },
  method_not_allowed: {
    status: 405,
    title: 'Method not allowed',
    description: 'The path exists but not with this method.',
    action: 'See /openapi.json for the methods of each path.',
  },
  insufficient_balance: {
    status: 402,
    title: 'Insufficient balance',
    description: 'The prepaid balance cannot pay for this operation.',
    action: 'Give `account_url` to the human owner to top up, then retry.',
  },
  too_many_keys: {
    status: 409,
    title: 'Too many API keys',
    description: 'An account holds at most 20 API keys at once.',
    action: 'Revoke a key on the account page before creating another.',
  },
  too_many_webhooks: {
    status: 409,
    title: 'Too many webhook endpoints',
    description: 'An account may hold up to 5 webhook endpoints.',
    action: 'Delete an endpoint with DELETE /v1/webhooks/{id} first.',
  },
  invalid_idempotency_key: {
    status: 400,
    title: 'Invalid Idempotency-Key',
    description: 'An Idempotency-Key is 8 to 128 printable ASCII characters.',
    action: 'Send a key such as a UUID, or none.',
  },
  idempotency_key_reused: {
    status: 422,
    title: 'Idempotency-Key reused',
    description: 'This Idempotency-Key was used in the last 24 hours with a different request body.',
    action: 'Use a new key for a new request; repeat the exact body to get the first response again.',
  },
  idempotency_key_in_use: {
    status: 409,
    title: 'Idempotency-Key in use',
    description: 'A request with this Idempotency-Key is still being processed.',
    action: 'Wait for Retry-After seconds and repeat the same request to receive its response.',
  },
  search_allowance_exhausted: {
    status: 429,
    title: 'Search allowance exhausted',
    description: 'Keyless search allows 20 searches per IP address per UTC day across all sites.',
    action: 'Wait until 00:00 UTC (Retry-After), or search with an API key: 100 free per day, then paid.',
  },
  rate_limited: {
    status: 429,
    title: 'Rate limited',
    description: 'A daily allowance of this operation is used up.',
    action: 'Try again after 00:00 UTC.',
  },
  platform_rate_limited: {
    status: 429,
    title: 'Platform rate limit',
    description: 'All /v1 and /mcp requests together exceed 100 per second (bursts of 200).',
    action: 'Wait for Retry-After seconds and retry.',
  },
  invalid_webhook_url: {
    status: 422,
    title: 'Webhook URL refused',
    description:
      'A webhook URL must be public https on port 443, without credentials, resolving to public addresses only.',
    action: 'Register a public https URL on port 443.',
  },
  invalid_state: {
    status: 409,
    title: 'Invalid state',
    description: 'The resource is not in a state that allows this operation.',
    action: 'Read the resource again and act on its current state.',
  },
  appeal_exists: {
    status: 409,
    title: 'Already appealed',
    description:
      'This moderation decision was already appealed: each decision (statement_of_reasons.id) can be appealed once.',
    action:
      "Read the post (GET /v1/posts/{id}): its `appeal` shows the appeal's status and, once decided, the reason.",
  },
  appeal_window_closed: {
    status: 409,
    title: 'Appeal window closed',
    description: `A decision can be appealed within ${APPEAL_WINDOW_MONTHS} months of it (statement_of_reasons.redress.appeal.deadline).`,
    action: 'The internal appeal is closed; out-of-court dispute settlement and the courts remain open.',
  },
  edit_pending: {
    status: 409,
    title: 'An edit is waiting',
    description:
      'The post has an edit waiting for its verdict (queued or with a person); a post has one edit waiting at a time. `pending_revision` names it. Nothing was charged.',
    action:
      'Wait for the verdict (GET /v1/posts/{id}/revisions or the webhook), then send the next edit against the text as it then is.',
  },
  review_claimed: {
    status: 409,
    title: 'Claimed by another reviewer',
    description:
      'Another staff member holds the claim on this post in review; until the claim expires only they may decide it.',
    action:
      'Leave it to them, or open it again after the claim expires (the detail says who holds it and until when).',
  },
  already_staff: {
    status: 409,
    title: 'Already on the staff',
    description: 'A staff member with this e-mail address exists.',
    action: 'Change that member with PATCH /v1/admin/staff/{id} instead of inviting again.',
  },
  payment_failed: {
    status: 402,
    title: 'Payment failed',
    description: 'The payment provider declined the charge.',
    action: 'Use another card or try again later.',
  },
  card_declined: {
    status: 402,
    title: 'Card declined',
    description: 'The card could not be saved: the payment provider declined it.',
    action: 'Use another card on the account page.',
  },
  invalid_signature: {
    status: 400,
    title: 'Invalid signature',
    description: 'A payment provider webhook did not carry a valid signature for its raw body.',
    action: 'Send the event exactly as the provider signed it, with its signature header.',
  },
  card_required: {
    status: 409,
    title: 'Card required',
    description: 'This needs a card on file: auto-recharge charges the saved card.',
    action: 'Add a card on the account page first, then turn auto-recharge on.',
  },
  service_unavailable: {
    status: 503,
    title: 'Service unavailable',
    description: 'A dependency (the database or the mail server) is unavailable for a moment.',
    action: 'Retry after Retry-After seconds.',
  },
  internal_error: {
    status: 500,
    title: 'Internal error',
    description:
      'Something failed on our side. Nothing was charged twice; the request id identifies it in our logs.',
    action: 'Retry later; if it persists, report the request id.',
  },
} as const satisfies Record<string, CatalogEntry>;

export type ProblemCode = keyof typeof CATALOG;

export interface FieldError {
  /** JSON Pointer into the body (`/title`) or the query (`/query/limit`). */
  pointer: string;
  detail: string;
}

export interface ProblemOptions {
  detail?: string;
  /** The human owner is needed: adds account_url and for_human: true. */
  accountUrl?: string;
  errors?: FieldError[];
  /** Extra members for the problem body. */
  extra?: Record<string, unknown>;
  /** Response headers (Retry-After, WWW-Authenticate). */
  headers?: Record<string, string>;
  /** The underlying error, for the logs only: it is never rendered. */
  cause?: unknown;
}

/** A failure with a stable code that every face (REST, MCP, pages) renders the same way. */
export class Problem extends Error {
  readonly code: ProblemCode;
  readonly status: number;
  readonly title: string;
  readonly detail: string;
  readonly accountUrl: string | undefined;
  readonly errors: FieldError[] | undefined;
  readonly extra: Record<string, unknown>;
  readonly headers: Record<string, string>;

  constructor(code: ProblemCode, options: ProblemOptions = {}) {
    const entry: CatalogEntry = CATALOG[code];
    super(options.detail ?? entry.description, options.cause === undefined ? {} : { cause: options.cause });
    this.name = 'Problem';
    this.code = code;
    this.status = entry.status;
    this.title = entry.title;
    this.detail = options.detail ?? entry.description;
    this.accountUrl = options.accountUrl;
    this.errors = options.errors;
    this.extra = options.extra ?? {};
    this.headers = options.headers ?? {};
  }
}

export function isProblem(e: unknown): e is Problem {
  return e instanceof Problem;
}

/** The RFC 9457 body with the legacy `error` object that DESIGN.md pins. */
export function problemBody(p: Problem, baseUrl: string, requestId?: string): Record<string, unknown> {
  const owner = p.accountUrl ? { account_url: p.accountUrl, for_human: true } : {};
  return {
    type: `${baseUrl}/errors/${p.code}`,
    title: p.title,
    status: p.status,
    detail: p.detail,
    code: p.code,
    ...owner,
    ...(p.errors ? { errors: p.errors } : {}),
    ...p.extra,
    ...(requestId ? { request_id: requestId } : {}),
    error: { code: p.code, message: p.detail, ...owner },
  };
}
