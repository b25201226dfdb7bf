// Every `error.code` the REST API answers with, its HTTP status and when it happens. errors.ts
// takes statuses from here and the OpenAPI document lists, per operation, the codes it can return.
export const API_ERRORS = {
  invalid_json: { status: 400, when: 'The body is not valid JSON (or is empty while declared as JSON on a method that takes a body).' },
  invalid_request: { status: 400, when: 'The body failed validation; `error.details` lists every problem as `{path, message}`.' },
  missing_job_id: { status: 400, when: 'The job id is missing from the path (`/execution-jobs/`, `/execution-jobs//audit`).' },
  missing_provider_id: { status: 400, when: 'The provider id is missing from the path (`/metrics/providers/`).' },
  invalid_cursor: { status: 400, when: 'The audit `after` parameter is not a `nextCursor` this API returned (pass it unchanged).' },
  bad_request: { status: 400, when: 'The request could not be read at all (a broken URL, a malformed request line or header such as a Content-Length that is not a number).' },
  missing_authorization: { status: 401, when: 'No Authorization header.' },
  invalid_auth_scheme: { status: 401, when: 'An Authorization header whose scheme is not Bearer.' },
  empty_api_key: { status: 401, when: 'Bearer with nothing after it.' },
  malformed_api_key: { status: 401, when: 'The key does not match `svk_(live|test)_[A-Za-z0-9_-]{16,}`; decided before any database lookup.' },
  invalid_api_key: { status: 401, when: 'The key is unknown or revoked.' },
  scenario_not_allowed: { status: 403, when: "The key's allowed job types exclude the request's scenario." },
  job_not_found: { status: 404, when: "No such job for this key: unknown, malformed, or another organisation's (with read isolation)." },
  profile_not_found: { status: 404, when: "No such stored profile in this key's organisation." },
  webhook_endpoint_not_found: { status: 404, when: "No such webhook endpoint in this key's organisation (or it was removed)." },
  webhook_delivery_not_found: { status: 404, when: 'No such delivery in this endpoint\'s log.' },
  not_found: { status: 404, when: 'No such route under /api/v1.' },
  method_not_allowed: { status: 405, when: 'The path exists but not with this method; the Allow header lists the methods.' },
  idempotency_key_reused: { status: 409, when: 'The organisation already used this `clientMetadata.idempotencyKey` for a different request.' },
  job_already_final: { status: 409, when: 'Cancel of a job that is already final (completed, no_availability, needs_login, captcha, or error for another reason than `cancelled_by_client`); nothing changed.' },
  payment_in_flight: { status: 409, when: "Cancel of a held booking while a payment the person submitted on it waits for the provider's answer; nothing changed. Poll the job: it ends completed, or may be cancelled once the payment has settled." },
  webhook_endpoint_limit: { status: 409, when: 'The organisation already has the most webhook endpoints allowed (20); remove one first.' },
  webhook_endpoint_disabled: { status: 409, when: 'Replay on a disabled endpoint; remove it and register it again once it answers.' },
  webhook_delivery_in_progress: { status: 409, when: 'Replay of a delivery still being sent (pending or retrying); its next attempt is already scheduled. Replay it once it is delivered or has failed.' },
  rate_limited: { status: 429, when: "Beyond a limit: the key's per-minute request limit (`API_KEY_RATE_LIMIT`), or its `daily_limit` of jobs per UTC day on creation. `Retry-After` says when to try again; `RateLimit-Policy` and `RateLimit` name the limit." },
  request_timeout: { status: 408, when: 'The request did not arrive in full in time; the connection is closed.' },
  payload_too_large: { status: 413, when: 'The body is larger than 1 MiB.' },
  unsupported_media_type: { status: 415, when: 'A body that is not `application/json`.' },
  headers_too_large: { status: 431, when: 'The request headers are larger than 16 KiB; the connection is closed.' },
  job_create_failed: { status: 500, when: 'The job could not be stored; safe to retry with the same `idempotencyKey`.' },
  internal_error: { status: 500, when: 'An unexpected failure; the `X-Request-Id` header identifies it in the logs.' },
  auth_backend_unavailable: { status: 503, when: 'The key could not be checked because the database is unreachable; the service fails closed. Retry after `Retry-After` seconds, with exponential backoff.' },
} as const satisfies Record<string, { status: number; when: string }>;

export type ApiErrorCode = keyof typeof API_ERRORS;

/** The authentication failures every authenticated operation can return. */
export const AUTH_ERROR_CODES = ['missing_authorization', 'invalid_auth_scheme', 'empty_api_key', 'malformed_api_key', 'invalid_api_key', 'auth_backend_unavailable'] as const satisfies readonly ApiErrorCode[];

export function statusOf(code: string): number | undefined {
  return (API_ERRORS as Record<string, { status: number }>)[code]?.status;
}
