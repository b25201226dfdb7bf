import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify';
import { errorDescription, OAuthError } from '../errors.ts';
import { sendErrorPage } from '../../pages/render.ts';
import type { Database } from '../../db/index.ts';
import { databaseAnswers, DATABASE_RETRY_AFTER_SECONDS } from '../../db/reachable.ts';
import { resourceMetadataUrl } from '../metadata.ts';
import { UnstorableTextError } from '../../security/text.ts';
import { RateLimited, rateLimitHeaders } from '../../limits/refusal.ts';

// The OAuth surface's one error renderer. Endpoints called by clients answer
// {error, error_description} (RFC 6749 §5.2) and never cache; pages a person sees (authorize,
// consent) answer with an HTML page instead. No stack, SQL or secret ever reaches either.

declare module 'fastify' {
  interface FastifyContextConfig {
    /** The route answers a person's browser: errors are pages, not JSON. */
    html?: boolean;
  }
}

const STATUS: Record<string, number> = { invalid_client: 401, too_many_requests: 429, server_error: 500, temporarily_unavailable: 503 };

/**
 * Registration (RFC 7591) describes errors in free ASCII text and names what it refused (a
 * look-alike letter, a quoted brand); the RFC 6749 endpoints keep to that RFC's character set.
 */
function isRegistration(request: FastifyRequest): boolean {
  return request.routeOptions.url === '/oauth/register';
}

export function toOAuthError(error: unknown, request: FastifyRequest): OAuthError {
  if (error instanceof OAuthError) return error;
  if (error instanceof RateLimited) return new OAuthError('too_many_requests', error.message, { retryAfter: error.retryAfter });
  const e = error as Partial<FastifyError>;
  const registering = isRegistration(request);
  const malformed = registering ? 'invalid_client_metadata' : 'invalid_request';
  if (error instanceof UnstorableTextError) return new OAuthError(malformed, error.message);
  switch (e.code) {
    case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
      return new OAuthError(malformed, registering ? 'send the client metadata as application/json' : 'send the parameters as application/x-www-form-urlencoded');
    case 'FST_ERR_CTP_BODY_TOO_LARGE':
      return new OAuthError(malformed, 'the request body is too large');
    case 'FST_ERR_CTP_EMPTY_JSON_BODY':
    case 'FST_ERR_CTP_INVALID_JSON_BODY':
      return new OAuthError(malformed, 'the request body is not valid JSON');
  }
  if (e.statusCode === 429) return new OAuthError('too_many_requests', 'too many requests from this address; retry later');
  if (error instanceof SyntaxError || (typeof e.statusCode === 'number' && e.statusCode >= 400 && e.statusCode < 500)) {
    return new OAuthError(malformed, 'the request could not be read');
  }
  return new OAuthError('server_error', 'something went wrong on our side; the request id is in the X-Request-Id header');
}

/**
 * The surface's error handler. A server error while the database does not answer is the database
 * gone: the endpoint fails closed as REST and MCP do, 503 with Retry-After, not 500.
 */
export function oauthErrorHandler(database: Database, issuer: string) {
  return async (error: unknown, request: FastifyRequest, reply: FastifyReply) => {
    const oauthError = toOAuthError(error, request);
    if (oauthError.error === 'server_error' && !(await databaseAnswers(database))) {
      const unavailable = new OAuthError('temporarily_unavailable', 'the database is unavailable; retry with exponential backoff', { retryAfter: DATABASE_RETRY_AFTER_SECONDS });
      request.log.error({ err: error }, 'OAuth request failed: the database does not answer');
      return sendOAuthError(unavailable, request, reply, issuer);
    }
    return sendOAuthError(error, request, reply, issuer);
  };
}

export function sendOAuthError(error: unknown, request: FastifyRequest, reply: FastifyReply, issuer?: string): FastifyReply {
  const oauthError = toOAuthError(error, request);
  const status = STATUS[oauthError.error] === 503 ? 503 : oauthError.retryAfter !== undefined ? 429 : (STATUS[oauthError.error] ?? 400);
  if (status >= 500) request.log.error({ err: error }, 'OAuth request failed');
  if (oauthError.retryAfter !== undefined) reply.header('retry-after', String(oauthError.retryAfter));
  if (error instanceof RateLimited) reply.headers(rateLimitHeaders(error.limit, error.verdict));
  if (request.routeOptions.config?.html) {
    return sendErrorPage(reply, status, 'Something went wrong', status >= 500 ? 'Please try again in a moment.' : oauthError.message);
  }
  if (status === 401) {
    // The contract: every 401 names the protected resource metadata; a client that tried HTTP Basic
    // also gets the Basic challenge (RFC 6749 §5.2).
    const metadata = issuer ? `Bearer resource_metadata="${resourceMetadataUrl(issuer)}"` : null;
    const challenges = [oauthError.basic ? 'Basic realm="concierge", charset="UTF-8"' : null, metadata].filter(Boolean);
    if (challenges.length) reply.header('www-authenticate', challenges.join(', '));
  }
  return reply
    .code(status)
    .header('cache-control', 'no-store')
    .header('pragma', 'no-cache')
    .type('application/json; charset=utf-8')
    .send({ error: oauthError.error, error_description: isRegistration(request) ? oauthError.message : errorDescription(oauthError.message) });
}
