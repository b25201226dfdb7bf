import { randomUUID } from 'node:crypto';
import { STATUS_CODES } from 'node:http';
import type { Socket } from 'node:net';
import type { FastifyBaseLogger, FastifyError, FastifyReply, FastifyRequest } from 'fastify';
import { redactPath } from '../../observability/logger.ts';
import { resourceMetadataUrl } from '../../oauth/metadata.ts';
import { DATABASE_RETRY_AFTER_SECONDS } from '../../db/reachable.ts';
import { AuthError } from '../../auth/bearer.ts';
import { DomainError } from '../../jobs/types.ts';
import { RateLimited, rateLimitHeaders } from '../../limits/refusal.ts';
import { API_ERRORS, statusOf, type ApiErrorCode } from './error-codes.ts';

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


export function toApiError(error: unknown): ApiError {
  if (error instanceof ApiError) return error;
  if (error instanceof AuthError) {
    const status = statusOf(error.code) ?? 401;
    const headers: Record<string, string> =
      status === 503
        ? { 'retry-after': String(DATABASE_RETRY_AFTER_SECONDS) }
        : // RFC 6750 §3.1: no error attribute when the request carried no credential at all.
          { 'www-authenticate': error.code === 'missing_authorization' ? 'Bearer realm="concierge-api"' : 'Bearer realm="concierge-api", error="invalid_token"' };
    return new ApiError(status, error.code, error.message, undefined, headers);
  }
  if (error instanceof DomainError) {
    return new ApiError(statusOf(error.code) ?? 400, error.code, error.message, error.details);
  }
  if (error instanceof RateLimited) {
    return new ApiError(429, 'rate_limited', error.message, undefined, { 'retry-after': String(error.retryAfter), ...rateLimitHeaders(error.limit, error.verdict) });
  }
  const fastifyError = error as Partial<FastifyError>;
  switch (fastifyError.code) {
    case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
      return new ApiError(415, 'unsupported_media_type', 'send the body as JSON with Content-Type: application/json');
    case 'FST_ERR_CTP_BODY_TOO_LARGE':
      return new ApiError(413, 'payload_too_large', 'the request body is larger than 1 MiB');
    case 'FST_ERR_CTP_EMPTY_JSON_BODY':
    case 'FST_ERR_CTP_INVALID_JSON_BODY':
      return new ApiError(400, 'invalid_json', 'the request body is not valid JSON');
  }
  if (typeof fastifyError.statusCode === 'number' && fastifyError.statusCode >= 400 && fastifyError.statusCode < 500) {
    return new ApiError(fastifyError.statusCode, 'bad_request', 'the request could not be read');
  }
  return new ApiError(500, 'internal_error', 'something went wrong on our side; the request id is in the X-Request-Id header');
}

/**
 * `issuer`: BASE_URL. Every 401 then names the protected resource metadata (the contract's rule for
 * every 401), beside the realm and error it carries.
 */
export function sendApiError(request: FastifyRequest, reply: FastifyReply, error: unknown, issuer?: string): FastifyReply {
  const apiError = toApiError(error);
  if (apiError.status >= 500) request.log.error({ err: error }, `request failed: ${apiError.code}`);
  for (const [name, value] of Object.entries(apiError.headers ?? {})) {
    reply.header(name, name === 'www-authenticate' && issuer ? `${value}, resource_metadata="${resourceMetadataUrl(issuer)}"` : value);
  }
  return reply
    .code(apiError.status)
    .type('application/json; charset=utf-8')
    .send({ error: { code: apiError.code, message: apiError.message, ...(apiError.details === undefined ? {} : { details: apiError.details }) } });
}

/**
 * A URL the router cannot read (bad percent-encoding, a segment over the length limit) fails before
 * any plugin sees it; Fastify hands it to this app-wide handler. Under /api/v1 it still gets the
 * REST envelope; elsewhere a plain 400.
 */
export function frameworkErrorReply(error: FastifyError, request: FastifyRequest, reply: FastifyReply): void {
  if (isRestPath(pathOf(request.url))) {
    sendApiError(request, reply, new ApiError(400, 'bad_request', 'the URL could not be read: a malformed percent-encoding, or a path segment over 200 characters'));
    return;
  }
  void reply.code(error.statusCode ?? 400).send({ error: 'bad_request', message: 'the URL could not be read' });
}

/** Whether a path is the REST API's, whose errors have their own envelope. */
function isRestPath(path: string): boolean {
  return path === '/api/v1' || path.startsWith('/api/v1/');
}

/** A request target without its query. */
function pathOf(url: string): string {
  const query = url.indexOf('?');
  return query < 0 ? url : url.slice(0, query);
}

/**
 * A request Node's HTTP parser refuses (a Content-Length that is not a number, headers over the
 * size limit, a client too slow to send them) never reaches Fastify's router: the socket comes to
 * this handler, whose reply is written by hand. Under /api/v1 it is in the REST envelope, elsewhere
 * in the app-wide one ({error, message}). The path is read from the request line in the bytes the
 * parser saw; when it is not there (headers that came in several packets, a timeout), the app-wide
 * envelope is used.
 *
 * Nothing is written when a response on the socket has already sent its headers (a pipelined
 * request that follows one whose answer is streaming): the bytes would land inside that
 * response's body. Node's own handler has the same guard. Logged at debug: a malformed request is
 * the client's mistake, often a scanner's, and at info every one would be a line in production.
 */
export function clientErrorReply(log: FastifyBaseLogger) {
  return (error: Error & { code?: string; rawPacket?: unknown }, socket: Socket & { _httpMessage?: { headersSent?: boolean } | null }): void => {
    // A reset connection has no one to answer.
    if (error.code === 'ECONNRESET' || socket.destroyed) return;
    const [code, message]: [ApiErrorCode, string] =
      error.code === 'ERR_HTTP_REQUEST_TIMEOUT'
        ? ['request_timeout', 'the request did not arrive in time']
        : error.code === 'HPE_HEADER_OVERFLOW'
          ? ['headers_too_large', 'the request headers are larger than 16 KiB']
          : ['bad_request', 'the request could not be read: a malformed request line or header, such as a Content-Length that is not a number'];
    const status = API_ERRORS[code].status;
    const packet = Buffer.isBuffer(error.rawPacket) ? error.rawPacket.toString('latin1', 0, 8192) : '';
    const requestLine = /^([A-Z]+) (\S+) HTTP\/\d\.\d\r?\n/.exec(packet);
    const path = requestLine ? redactPath(requestLine[2]!) : undefined;
    const body = JSON.stringify(path !== undefined && isRestPath(path) ? { error: { code, message } } : { error: code, message });
    const id = randomUUID();
    log.debug({ reqId: id, method: requestLine?.[1], path, status, err: error }, 'request could not be read');
    if (socket.writable && !socket._httpMessage?.headersSent) {
      socket.write(
        `HTTP/1.1 ${status} ${STATUS_CODES[status]}\r\nContent-Type: application/json; charset=utf-8\r\nContent-Length: ${Buffer.byteLength(body)}\r\n` +
          `X-Request-Id: ${id}\r\nConnection: close\r\n\r\n${body}`,
      );
    }
    socket.destroy(error);
  };
}
