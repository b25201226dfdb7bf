import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify';
import { AuthError } from '../../auth/bearer.ts';
import { DomainError } from '../../jobs/types.ts';

/** A REST v1 failure: rendered as {error: {code, message, details?}}. */
export class ApiError extends Error {
  readonly status: number;
  readonly code: string;
  readonly details?: unknown;
  readonly headers?: Record<string, string>;
  constructor(status: number, code: string, message: string, details?: unknown, headers?: Record<string, string>) {
    super(message);
    this.name = 'ApiError';
    this.status = status;
    this.code = code;
    this.details = details;
    this.headers = headers;
  }
}

const DOMAIN_STATUS: Record<string, number> = {
  invalid_request: 400,
  scenario_not_allowed: 403,
  job_not_found: 404,
  idempotency_key_reused: 409,
  job_create_failed: 500,
};

const AUTH_STATUS: Record<string, number> = { auth_backend_unavailable: 503 };

export function toApiError(error: unknown): ApiError {
  if (error instanceof ApiError) return error;
  if (error instanceof AuthError) {
    const status = AUTH_STATUS[error.code] ?? 401;
    const headers: Record<string, string> =
      status === 503 ? { 'retry-after': '5' } : { 'www-authenticate': `Bearer realm="concierge-api", error="invalid_token"` };
    return new ApiError(status, error.code, error.message, undefined, headers);
  }
  if (error instanceof DomainError) {
    return new ApiError(DOMAIN_STATUS[error.code] ?? 400, error.code, error.message, error.details);
  }
  const fastifyError = error as Partial<FastifyError>;
  switch (fastifyError.code) {
    case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
      return new ApiError(415, 'unsupported_media_type', 'send the body as application/json');
    case 'FST_ERR_CTP_BODY_TOO_LARGE':
      return new ApiError(413, 'payload_too_large', 'the request body is larger than 1 MiB');
    case 'FST_ERR_CTP_EMPTY_JSON_BODY':
    case 'FST_ERR_CTP_INVALID_JSON_BODY':
      return new ApiError(400, 'invalid_json', 'the request body is not valid JSON');
  }
  if (error instanceof SyntaxError && fastifyError.statusCode === 400) {
    return new ApiError(400, 'invalid_json', 'the request body is not valid JSON');
  }
  if (typeof fastifyError.statusCode === 'number' && fastifyError.statusCode >= 400 && fastifyError.statusCode < 500) {
    return new ApiError(fastifyError.statusCode, 'bad_request', 'the request could not be read');
  }
  return new ApiError(500, 'internal_error', 'something went wrong on our side; the request id is in the X-Request-Id header');
}

export function sendApiError(request: FastifyRequest, reply: FastifyReply, error: unknown): FastifyReply {
  const apiError = toApiError(error);
  if (apiError.status >= 500) request.log.error({ err: error }, 'request failed');
  for (const [name, value] of Object.entries(apiError.headers ?? {})) reply.header(name, value);
  return reply
    .code(apiError.status)
    .type('application/json; charset=utf-8')
    .send({ error: { code: apiError.code, message: apiError.message, ...(apiError.details === undefined ? {} : { details: apiError.details }) } });
}
