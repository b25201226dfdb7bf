import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { JSONRPCMessageSchema, RequestIdSchema, LATEST_PROTOCOL_VERSION, type JSONRPCMessage, type RequestId } from '@modelcontextprotocol/sdk/types.js';
import { authenticateBearer } from '../auth/resource-server.ts';
import { AuthError } from '../auth/bearer.ts';
import { apiKeyLimit, countRequest, oauthClientLimit } from '../limits/by-credential.ts';
import { RateLimited, rateLimitHeaders } from '../limits/refusal.ts';
import type { Services } from '../services.ts';
import { authorizeMessage } from './authorize.ts';
import { callerOf, type Caller } from './caller.ts';
import { databaseUnavailable, fromAuthError, jsonRpcError, JSON_RPC, McpHttpError, sendMcpError } from './http-errors.ts';
import { isJsonContentType, isSupportedProtocolVersion, responseModeFor, SUPPORTED_PROTOCOL_VERSIONS, type ResponseMode } from './negotiate.ts';
import { parseHost } from '../security/host.ts';
import { allowedHostnames, allowedOrigins, corsHeaders, PREFLIGHT_HEADERS } from './origin.ts';
import { RequestTransport } from './transport.ts';
import { createMcpServer } from './server.ts';
import { createModernEndpoint, isObject, MODERN_ONLY_METHODS, MODERN_PROTOCOL_VERSION } from './modern.ts';
import type { ToolContext } from './tools/types.ts';

// POST /api/mcp: MCP Streamable HTTP, stateless. In order: Host and Origin (every method), credential,
// media types; a request of revision 2026-07-28 (its _meta claim, as the SDK v2 classifies it) then
// goes to src/mcp/modern.ts after the scope check; any other is the one JSON-RPC
// message of a 2025 revision: batch and shape, protocol revision, scope; then the
// process's MCP server answers it (src/mcp/transport.ts) and the reply is one JSON body or a
// one-event SSE stream. GET and DELETE (server streams, session ends) do not exist without sessions.

const STATE = Symbol('mcp');
interface McpState {
  caller: Caller;
  mode: ResponseMode;
}
type WithState = FastifyRequest & { [STATE]?: McpState };

function stateOf(request: FastifyRequest): McpState {
  const state = (request as WithState)[STATE];
  if (!state) throw new Error('the /api/mcp hooks did not run');
  return state;
}

/** The id to answer an invalid message with: its own when that is a valid id, else null (JSON-RPC 2.0 §5). */
function idOf(body: unknown): RequestId | null {
  const id = typeof body === 'object' && body !== null ? RequestIdSchema.safeParse((body as { id?: unknown }).id) : undefined;
  return id?.success ? id.data : null;
}

export async function mcpEndpoint(app: FastifyInstance, opts: { services: Services }): Promise<void> {
  const { services } = opts;
  const hostnames = allowedHostnames(services.config);
  const origins = allowedOrigins(services.config);
  const resource = `${services.config.BASE_URL}/api/mcp`;
  const transport = new RequestTransport();
  // Only the SDK's reason (its text before the colon): after it the SDK quotes the whole message,
  // and a tool call's arguments carry a traveller's details.
  const server = createMcpServer(transport, { onError: (error) => app.log.warn({ err: { message: error.message.split(':', 1)[0] } }, 'the MCP server could not handle a message') });
  await server.connect(transport);
  const modern = await createModernEndpoint({ onError: (error) => app.log.warn({ err: { message: error.message.split(':', 1)[0] } }, 'the MCP server could not handle a 2026-07-28 request') });
  app.addHook('onClose', async () => {
    await modern.close();
    await server.close();
  });

  app.setErrorHandler((error, request, reply) => sendMcpError(request, reply, error));

  app.addHook('onRequest', async (request, reply) => {
    // The Host as this socket received it, never X-Forwarded-Host: any client may send that one.
    const host = parseHost(request.headers.host);
    if (host === null || !hostnames.has(host.hostname)) {
      throw new McpHttpError(
        403,
        'host_not_allowed',
        host === null
          ? `a Host header naming this service is required (protection against DNS rebinding); use ${services.config.BASE_URL}/api/mcp`
          : `this endpoint does not answer to the Host ${host.hostname} (protection against DNS rebinding); use ${services.config.BASE_URL}/api/mcp, or the operator can add the name to MCP_ALLOWED_HOSTS`,
      );
    }
    const origin = request.headers.origin;
    if (origin === undefined) return;
    if (!origins.has(origin)) {
      throw new McpHttpError(403, 'origin_not_allowed', `requests from the browser origin ${origin} are not allowed; the operator can add it to MCP_ALLOWED_ORIGINS`);
    }
    reply.headers(corsHeaders(origin));
  });

  const keyLimit = apiKeyLimit(services.config.API_KEY_RATE_LIMIT);
  const clientLimit = oauthClientLimit(services.config.OAUTH_CLIENT_RATE_LIMIT);

  async function authenticate(request: FastifyRequest, reply: FastifyReply): Promise<void> {
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
  }

  async function checkMediaTypes(request: FastifyRequest): Promise<void> {
    if (!isJsonContentType(request.headers['content-type'])) {
      throw new McpHttpError(415, 'unsupported_media_type', 'send the JSON-RPC message as Content-Type: application/json');
    }
    const mode = responseModeFor(request.headers.accept);
    if (mode === null) {
      throw new McpHttpError(406, 'not_acceptable', 'send Accept: application/json, text/event-stream (the reply is JSON or an SSE stream)');
    }
    stateOf(request).mode = mode;
  }

  app.post('/', { onRequest: [authenticate, checkMediaTypes] }, async (request, reply) => {
    const state = stateOf(request);
    const body = request.body;
    const gone = new AbortController();
    reply.raw.once('close', () => {
      if (!reply.raw.writableFinished) gone.abort();
    });
    // The current revision (a per-request _meta claim, or its MCP-Protocol-Version) is the SDK's
    // to serve; initialize and claim-less requests are the 2025 revisions, served below as before.
    const claim = modern.classify(request.headers, body);
    if (claim) {
      const denied = isObject(body) ? authorizeMessage(state.caller, body as JSONRPCMessage) : null;
      if (denied) throw denied;
      const context: ToolContext = { services, caller: state.caller, log: request.log };
      let answer;
      try {
        answer = await modern.serve(claim, request, body, context, gone.signal);
      } catch (error) {
        if (!gone.signal.aborted) throw error;
        return reply.hijack(); // the client left: no one to answer
      }
      if (gone.signal.aborted) return reply.hijack();
      if (context.databaseGone) throw databaseUnavailable();
      return reply.code(answer.status).headers(answer.headers).send(answer.body);
    }
    if (Array.isArray(body)) {
      return reply.code(400).send(jsonRpcError(JSON_RPC.INVALID_REQUEST, 'Invalid Request: batches (JSON arrays) are not supported; send one JSON-RPC message per POST'));
    }
    // The SDK's own schema: a message it would reject gets no answer from the server (only an
    // onerror), so it is answered here, as the SDK's HTTP transport would.
    const parsed = JSONRPCMessageSchema.safeParse(body);
    if (!parsed.success) {
      return reply
        .code(400)
        .send(jsonRpcError(JSON_RPC.INVALID_REQUEST, 'Invalid Request: the body must be one JSON-RPC 2.0 request, notification or response, with object params and no other members', idOf(body)));
    }
    const message = parsed.data;
    // initialize negotiates the revision in its body; every later request names it in a header.
    const version = request.headers['mcp-protocol-version'];
    if (typeof version === 'string' && !('method' in message && message.method === 'initialize') && !isSupportedProtocolVersion(version)) {
      throw new McpHttpError(400, 'unsupported_protocol_version', `MCP-Protocol-Version ${version} is not supported; use one of ${SUPPORTED_PROTOCOL_VERSIONS.join(', ')}`);
    }
    // A method only the current revision has, asked under a 2025 one: the revision's own error,
    // naming the revision that has it (a 2026-07-28 client sends server/discover with its _meta).
    if ('method' in message && 'id' in message && MODERN_ONLY_METHODS.has(message.method)) {
      const requested = typeof version === 'string' ? version : LATEST_PROTOCOL_VERSION;
      return reply
        .code(400)
        .send(
          jsonRpcError(JSON_RPC.UNSUPPORTED_PROTOCOL_VERSION, `${message.method} needs protocol revision ${MODERN_PROTOCOL_VERSION}: send it with that revision's _meta`, message.id, {
            supported: [MODERN_PROTOCOL_VERSION, ...SUPPORTED_PROTOCOL_VERSIONS],
            requested,
          }),
        );
    }
    const denied = authorizeMessage(state.caller, message);
    if (denied) throw denied;
    const context: ToolContext = { services, caller: state.caller, log: request.log };
    let response;
    try {
      response = await transport.dispatch(message, context, gone.signal);
    } catch (error) {
      if (!gone.signal.aborted) throw error;
      return reply.hijack(); // the client left: no one to answer
    }
    if (context.databaseGone) throw databaseUnavailable();
    if (response === null) return reply.code(202).send();
    // Sent as bytes, so the media types stay exactly as the SDK's transport writes them.
    const json = JSON.stringify(response);
    if (state.mode === 'json') return reply.code(200).header('content-type', 'application/json').send(Buffer.from(json));
    return reply.code(200).headers({ 'content-type': 'text/event-stream', 'cache-control': 'no-cache' }).send(Buffer.from(`event: message\ndata: ${json}\n\n`));
  });

  // Both answer from onRequest, before any body is read: a DELETE or preflight that happens to
  // carry Content-Type: application/json and no body is still just a DELETE or a preflight.
  const methodNotAllowed = async (_request: FastifyRequest, reply: FastifyReply) => {
    reply.header('allow', 'POST');
    throw new McpHttpError(405, 'method_not_allowed', 'use POST: this endpoint is stateless Streamable HTTP, with no server stream (GET) and no session to end (DELETE)');
  };
  // Every method the server routes but POST and OPTIONS (app.ts makes all that Node parses known);
  // HEAD comes with GET.
  const refused = app.supportedMethods.filter((m) => !['POST', 'OPTIONS', 'HEAD'].includes(m));
  app.route({ method: refused, url: '/', onRequest: methodNotAllowed, handler: methodNotAllowed });

  const preflight = async (request: FastifyRequest, reply: FastifyReply) => {
    if (request.headers.origin !== undefined) reply.headers(PREFLIGHT_HEADERS);
    reply.header('allow', 'POST, OPTIONS');
    return reply.code(204).send();
  };
  app.options('/', { onRequest: preflight }, preflight);
}
