import type { FastifyReply, FastifyRequest } from 'fastify';
import { authenticateBearer } from '../auth/resource-server.ts';
import { AuthError } from '../auth/bearer.ts';
import { apiKeyLimit, countRequest, oauthClientLimit } from '../limits/by-credential.ts';
import { RateLimited, rateLimitHeaders } from '../limits/refusal.ts';
import { parseHost } from '../security/host.ts';
import type { Services } from '../services.ts';
import { callerOf, type Caller } from './caller.ts';
import { fromAuthError, McpHttpError } from './http-errors.ts';
import { isJsonContentType, responseModeFor, type ResponseMode } from './negotiate.ts';
import { allowedHostnames, allowedOrigins, corsHeaders } from './origin.ts';

// What /api/mcp checks of every request before it reads a message: the Host and Origin (every
// method), then for POST the credential with its rate allowance, and the media types. What the
// checks learn (who calls, how the reply is framed) is kept on the request for the handler.

const STATE = Symbol('mcp');
export interface McpState {
  caller: Caller;
  mode: ResponseMode;
}
type WithState = FastifyRequest & { [STATE]?: McpState };

export function mcpStateOf(request: FastifyRequest): McpState {
  const state = (request as WithState)[STATE];
  if (!state) throw new Error('the /api/mcp checks did not run');
  return state;
}

/** Host (against DNS rebinding) and Origin (browsers) for every method. */
export function hostAndOriginCheck(config: Services['config']): (request: FastifyRequest, reply: FastifyReply) => Promise<void> {
  const hostnames = allowedHostnames(config);
  const origins = allowedOrigins(config);
  return async (request, reply) => {
    // The Host as this socket received it, never X-Forwarded-Host: any client may send that one.
    const host = parseHost(request.headers.host);
    if (host === null || !hostnames.has(host.hostname)) {
      throw new McpHttpError(
        403,
        'host_not_allowed',
        host === null
          ? `a Host header naming this service is required (protection against DNS rebinding); use ${config.BASE_URL}/api/mcp`
          : `this endpoint does not answer to the Host ${host.hostname} (protection against DNS rebinding); use ${config.BASE_URL}/api/mcp, or the operator can add the name to MCP_ALLOWED_HOSTS`,
      );
    }
    const origin = request.headers.origin;
    if (origin === undefined) return;
    if (!origins.has(origin)) {
      throw new McpHttpError(403, 'origin_not_allowed', `requests from the browser origin ${origin} are not allowed; the operator can add it to MCP_ALLOWED_ORIGINS`);
    }
    reply.headers(corsHeaders(origin));
  };
}

/** The bearer credential (an OAuth access token for this resource, or an API key) and its rate allowance. */
export function credentialCheck(services: Services, resource: string): (request: FastifyRequest, reply: FastifyReply) => Promise<void> {
  const keyLimit = apiKeyLimit(services.config.API_KEY_RATE_LIMIT);
  const clientLimit = oauthClientLimit(services.config.OAUTH_CLIENT_RATE_LIMIT);
  return async (request, reply) => {
    try {
      const principal = await authenticateBearer(services.db, request.headers.authorization, resource);
      // An API key shares one allowance with its REST calls; an OAuth client's users share the client's.
      const [limit, subject, who] = principal.kind === 'api_key' ? [keyLimit, String(principal.apiKeyId), 'API key'] : [clientLimit, principal.clientId, 'OAuth client'];
      reply.headers(rateLimitHeaders(limit, countRequest(services.db, limit, subject, who)));
      (request as WithState)[STATE] = { caller: callerOf(principal), mode: 'json' };
    } catch (error) {
      if (error instanceof AuthError) throw fromAuthError(error, services.config.BASE_URL);
      if (error instanceof RateLimited) {
        throw new McpHttpError(429, 'rate_limited', error.message, { 'retry-after': String(error.retryAfter), ...rateLimitHeaders(error.limit, error.verdict) });
      }
      throw error;
    }
  };
}

/** JSON in; JSON or an SSE stream out, as the client accepts. */
export async function mediaTypeCheck(request: FastifyRequest): Promise<void> {
  if (!isJsonContentType(request.headers['content-type'])) {
    throw new McpHttpError(415, 'unsupported_media_type', 'send the JSON-RPC message as Content-Type: application/json');
  }
  const mode = responseModeFor(request.headers.accept);
  if (mode === null) {
    throw new McpHttpError(406, 'not_acceptable', 'send Accept: application/json, text/event-stream (the reply is JSON or an SSE stream)');
  }
  mcpStateOf(request).mode = mode;
}
