import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { JSONRPCMessageSchema, RequestIdSchema, LATEST_PROTOCOL_VERSION, type JSONRPCMessage, type RequestId } from '@modelcontextprotocol/sdk/types.js';
import type { Services } from '../services.ts';
import { authorizeMessage } from './authorize.ts';
import { databaseUnavailable, jsonRpcError, JSON_RPC, McpHttpError, sendMcpError } from './http-errors.ts';
import { isSupportedProtocolVersion, SUPPORTED_PROTOCOL_VERSIONS } from './negotiate.ts';
import { PREFLIGHT_HEADERS } from './origin.ts';
import { credentialCheck, hostAndOriginCheck, mcpStateOf, mediaTypeCheck } from './request-checks.ts';
import { RequestTransport } from './transport.ts';
import { createMcpServer } from './server.ts';
import { createModernEndpoint, isObject, MODERN_ONLY_METHODS, MODERN_PROTOCOL_VERSION, type ModernEndpoint, type ModernRequest } from './modern.ts';
import type { ToolContext } from './tools/types.ts';

// POST /api/mcp: MCP Streamable HTTP, stateless. In order: Host and Origin (every method), credential,
// media types (src/mcp/request-checks.ts); a request of revision 2026-07-28 (its _meta claim, as the SDK v2 classifies it) then
// goes to src/mcp/modern.ts after the scope check; any other is the one JSON-RPC
// message of a 2025 revision: batch and shape, protocol revision, scope; then the
// process's MCP server answers it (src/mcp/transport.ts) and the reply is one JSON body or a
// one-event SSE stream. GET and DELETE (server streams, session ends) do not exist without sessions.

/** The id to answer an invalid message with: its own when that is a valid id, else null (JSON-RPC 2.0 §5). */
function idOf(body: unknown): RequestId | null {
  const id = typeof body === 'object' && body !== null ? RequestIdSchema.safeParse((body as { id?: unknown }).id) : undefined;
  return id?.success ? id.data : null;
}

/** What answering a message needs, made once per process. */
interface Answerers {
  services: Services;
  modern: ModernEndpoint;
  transport: RequestTransport;
}

export async function mcpEndpoint(app: FastifyInstance, opts: { services: Services }): Promise<void> {
  const { services } = opts;
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
  const answerers: Answerers = { services, modern, transport };

  app.setErrorHandler((error, request, reply) => sendMcpError(request, reply, error));
  app.addHook('onRequest', hostAndOriginCheck(services.config));

  app.post('/', { onRequest: [credentialCheck(services, `${services.config.BASE_URL}/api/mcp`), mediaTypeCheck] }, async (request, reply) => {
    const gone = new AbortController();
    reply.raw.once('close', () => {
      if (!reply.raw.writableFinished) gone.abort();
    });
    // The current revision (a per-request _meta claim, or its MCP-Protocol-Version) is the SDK's
    // to serve; initialize and claim-less requests are the 2025 revisions, served as before.
    const claim = modern.classify(request.headers, request.body);
    if (claim) return answerModern(answerers, claim, request, reply, gone.signal);
    return answerLegacy(answerers, request, reply, gone.signal);
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

/** A request of revision 2026-07-28: scope, then the SDK v2 server (src/mcp/modern.ts). */
async function answerModern(answerers: Answerers, claim: ModernRequest, request: FastifyRequest, reply: FastifyReply, gone: AbortSignal): Promise<FastifyReply> {
  const { caller } = mcpStateOf(request);
  const body = request.body;
  const denied = isObject(body) ? authorizeMessage(caller, body as JSONRPCMessage) : null;
  if (denied) throw denied;
  const context: ToolContext = { services: answerers.services, caller, log: request.log };
  let answer;
  try {
    answer = await answerers.modern.serve(claim, request, body, context, gone);
  } catch (error) {
    if (!gone.aborted) throw error;
    return reply.hijack(); // the client left: no one to answer
  }
  if (gone.aborted) return reply.hijack();
  if (context.databaseGone) throw databaseUnavailable();
  return reply.code(answer.status).headers(answer.headers).send(answer.body);
}

/** One JSON-RPC message of a 2025 revision: batch and shape, protocol revision, scope; then the v1 server. */
async function answerLegacy(answerers: Answerers, request: FastifyRequest, reply: FastifyReply, gone: AbortSignal): Promise<FastifyReply> {
  const state = mcpStateOf(request);
  const body = request.body;
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
  const context: ToolContext = { services: answerers.services, caller: state.caller, log: request.log };
  let response;
  try {
    response = await answerers.transport.dispatch(message, context, gone);
  } catch (error) {
    if (!gone.aborted) throw error;
    return reply.hijack(); // the client left: no one to answer
  }
  if (context.databaseGone) throw databaseUnavailable();
  if (response === null) return reply.code(202).send();
  // Sent as bytes, so the media types stay exactly as the SDK's transport writes them.
  const json = JSON.stringify(response);
  if (state.mode === 'json') return reply.code(200).header('content-type', 'application/json').send(Buffer.from(json));
  return reply.code(200).headers({ 'content-type': 'text/event-stream', 'cache-control': 'no-cache' }).send(Buffer.from(`event: message\ndata: ${json}\n\n`));
}
