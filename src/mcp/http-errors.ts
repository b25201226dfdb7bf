import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify';
import { AuthError } from '../auth/bearer.ts';
import { resourceMetadataUrl } from '../oauth/metadata.ts';
import { DATABASE_RETRY_AFTER_SECONDS } from '../db/reachable.ts';

// Failures of the HTTP request on /api/mcp, before any JSON-RPC message is handled. They answer
// in the OAuth/MCP envelope {error, message}; protocol problems inside a message are JSON-RPC
// errors instead (jsonRpcError below).
export class McpHttpError extends Error {
  readonly status: number;
  readonly error: string;
  readonly headers: Record<string, string>;
  constructor(status: number, error: string, message: string, headers: Record<string, string> = {}) {
    super(message);
    this.name = 'McpHttpError';
    this.status = status;
    this.error = error;
    this.headers = headers;
  }
}

export function fromAuthError(error: AuthError, baseUrl: string): McpHttpError {
  if (error.code === 'auth_backend_unavailable') {
    return new McpHttpError(503, error.code, error.message, { 'retry-after': '5' });
  }
  const metadata = `resource_metadata="${resourceMetadataUrl(baseUrl)}"`;
  if (error.code === 'missing_authorization') {
    return new McpHttpError(401, 'missing_authorization', 'send Authorization: Bearer <ACCESS_TOKEN> (an OAuth access token or an API key)', {
      'www-authenticate': `Bearer ${metadata}`,
    });
  }
  return new McpHttpError(401, 'invalid_token', error.message, { 'www-authenticate': `Bearer error="invalid_token", ${metadata}` });
}

/** A request whose work failed while the database did not answer: failed closed, as authentication would have been. */
export function databaseUnavailable(): McpHttpError {
  return new McpHttpError(503, 'auth_backend_unavailable', 'the database is unavailable; retry with exponential backoff', { 'retry-after': String(DATABASE_RETRY_AFTER_SECONDS) });
}

/** A JSON-RPC error response to a message that could not be handled: its id when it has a valid one, else null. */
export function jsonRpcError(code: number, message: string, id: string | number | null = null, data?: Record<string, unknown>) {
  return { jsonrpc: '2.0' as const, id, error: data === undefined ? { code, message } : { code, message, data } };
}

export const JSON_RPC = { PARSE_ERROR: -32700, INVALID_REQUEST: -32600, INVALID_PARAMS: -32602, INTERNAL_ERROR: -32603, UNSUPPORTED_PROTOCOL_VERSION: -32022 } as const;

/** The plugin's error handler: every failure in the envelope its layer speaks. */
export function sendMcpError(request: FastifyRequest, reply: FastifyReply, error: unknown): FastifyReply {
  if (error instanceof McpHttpError) {
    reply.headers(error.headers);
    return reply.code(error.status).type('application/json; charset=utf-8').send({ error: error.error, message: error.message });
  }
  if (error instanceof AuthError) {
    // Only reachable if an auth failure escapes the hook: never answer it as a 500.
    return sendMcpError(request, reply, new McpHttpError(401, 'invalid_token', error.message));
  }
  const fastifyError = error as Partial<FastifyError>;
  switch (fastifyError.code) {
    case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
      return sendMcpError(request, reply, new McpHttpError(415, 'unsupported_media_type', 'send the JSON-RPC message as Content-Type: application/json'));
    case 'FST_ERR_CTP_BODY_TOO_LARGE':
      return sendMcpError(request, reply, new McpHttpError(413, 'payload_too_large', 'the request body is larger than 1 MiB'));
  }
  if (fastifyError.code?.startsWith('FST_ERR_CTP_') || (error instanceof SyntaxError && fastifyError.statusCode === 400)) {
    return reply.code(400).type('application/json; charset=utf-8').send(jsonRpcError(JSON_RPC.PARSE_ERROR, 'Parse error: the body is not valid JSON'));
  }
  request.log.error({ err: error }, 'mcp request failed');
  return reply
    .code(500)
    .type('application/json; charset=utf-8')
    .send({ error: 'internal_error', message: 'something went wrong on our side; the request id is in the X-Request-Id header' });
}
