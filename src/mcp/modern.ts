import type { IncomingHttpHeaders } from 'node:http';
import { CLIENT_CAPABILITIES_META_KEY, classifyInboundRequest, createMcpHandler, MissingRequiredClientCapabilityError, ProtocolError, ProtocolErrorCode, Server, SUPPORTED_PROTOCOL_VERSIONS, type AuthInfo, type CallToolResult, type InboundClassificationOutcome, type InboundHttpRequest, type ListToolsResult, type McpHttpHandler, type ServerContext, type StandardSchemaV1 } from '@modelcontextprotocol/server';
import { z } from 'zod';
import { INSTRUCTIONS, SERVER_INFO } from './identity.ts';
import { findTool, TOOL_LIST, TOOLS } from './tools/index.ts';
import type { ToolContext } from './tools/types.ts';
import { TASKS_EXTENSION } from './task-of-job.ts';
import { failedUnexpectedly } from './tools/guard.ts';
import { cancelTask, getTask, updateTask } from './tasks.ts';
import { ModernTransport, type ModernReply } from './modern-transport.ts';

// Protocol revision 2026-07-28 (stateless: version, client identity and capabilities travel in
// every request's _meta; server/discover instead of initialize; resultType on every result; cache
// hints on list results). The official SDK v2 serves it: its classification (classifyInboundRequest,
// the step behind createMcpHandler and isLegacyRequest) decides the era of each request, once, and
// its Server answers server/discover, stamps resultType and serverInfo, checks the envelope and
// answers the revision's errors (-32022 unsupported version with the supported list, -32020 header
// mismatch, -32602 malformed _meta). What stays ours is what every era shares: Host, Origin, the
// credential and scopes (src/mcp/index.ts) and the tools.
//
// As for the 2025 revisions, one Server per process answers, behind an in-process transport
// (src/mcp/modern-transport.ts): createMcpHandler's new Server, transport and web Request/Response
// per request cost more than the call itself. createMcpHandler still answers what the shared server
// does not take (see createModernEndpoint), so every answer is the SDK's, byte for byte.
//
// The 2025 revisions keep the v1 server behind RequestTransport (src/mcp/transport.ts): their
// behaviour is the contract's, byte for byte, and one shared server per process is the faster path.

/** The revision this endpoint serves statelessly. */
export const MODERN_PROTOCOL_VERSION = '2026-07-28';

/** The _meta key that carries a request's revision (the claim of the current revision's model). */
export const PROTOCOL_VERSION_META_KEY = 'io.modelcontextprotocol/protocolVersion';

/** Methods that exist only from that revision on (the 2025 revisions do not define them). */
export const MODERN_ONLY_METHODS: ReadonlySet<string> = new Set(['server/discover', 'subscriptions/listen']);

// Tools change only with a release: a client may reuse tools/list (and server/discover) for ten
// minutes. The list is the same for every caller, so any cache may share it ('public').
const LIST_CACHE = { ttlMs: 10 * 60_000, cacheScope: 'public' } as const;

const CONTEXT = 'concierge/toolContext';

/** The request's context, carried to the per-request server as the SDK's pass-through authInfo. */
function authInfoOf(context: ToolContext): AuthInfo {
  const { principal, scopes } = context.caller;
  return { token: '', clientId: principal.kind === 'oauth' ? principal.clientId : `api-key:${principal.apiKeyId}`, scopes: [...scopes], extra: { [CONTEXT]: context } };
}

function contextOf(authInfo: AuthInfo | undefined): ToolContext {
  const context = authInfo?.extra?.[CONTEXT];
  if (!context) throw new Error('an MCP request reached the modern server without its context');
  return context as ToolContext;
}

/** Whether this request's client declared the Tasks extension (per request: the revision is stateless). */
function declaresTasks(ctx: unknown): boolean {
  const envelope = (ctx as { mcpReq?: { envelope?: Record<string, unknown> } }).mcpReq?.envelope;
  const capabilities = envelope?.[CLIENT_CAPABILITIES_META_KEY] as { extensions?: Record<string, unknown> } | undefined;
  return typeof capabilities?.extensions?.[TASKS_EXTENSION] === 'object';
}

function requireTasks(ctx: unknown): void {
  if (!declaresTasks(ctx)) {
    throw new MissingRequiredClientCapabilityError({ requiredCapabilities: { extensions: { [TASKS_EXTENSION]: {} } } }, `Missing required client capability: declare the ${TASKS_EXTENSION} extension in this request's clientCapabilities`);
  }
}

/**
 * A tasks/* handler's failure that is not the protocol's own (a refused task, a bad answer) is
 * logged and answered without internals; one the database's absence explains fails the HTTP
 * request closed (503 with Retry-After), as a tool call does.
 */
async function guardedTask<T>(context: ToolContext, body: () => Promise<T>): Promise<T> {
  try {
    return await body();
  } catch (error) {
    if (error instanceof ProtocolError) throw error;
    await failedUnexpectedly(context, error, 'task request failed');
    throw new ProtocolError(ProtocolErrorCode.InternalError, 'Something went wrong on the service\'s side; try again in a few seconds.');
  }
}

const taskParams = z.object({ taskId: z.string().min(1).max(100) });

// tools/call's params as they come: the Server has already checked them (see buildServer).
const CALL_PARAMS: StandardSchemaV1<Record<string, unknown>> = { '~standard': { version: 1, vendor: 'concierge', validate: (value) => ({ value: value as Record<string, unknown> }) } };

/** tasks/update's answers: the SDK lifts inputResponses off the params (MRTR wire material) into the context. */
function inputResponsesOf(ctx: unknown): Record<string, unknown> {
  const responses = (ctx as { mcpReq?: { inputResponses?: unknown } }).mcpReq?.inputResponses;
  if (typeof responses !== 'object' || responses === null || Array.isArray(responses)) {
    throw new ProtocolError(ProtocolErrorCode.InvalidParams, 'Invalid params for tasks/update: inputResponses must be an object of answers keyed like the task\'s inputRequests');
  }
  return responses as Record<string, unknown>;
}

/** Where a handler finds the context of the request it serves. */
type ContextOf = (ctx: ServerContext) => ToolContext;

// The current revision beside the SDK's default list: Server.connect then binds the process's
// server to it from the transport, and the server answers server/discover (createMcpHandler adds
// the revision to its per-request servers the same way, at the end of the list).
const SERVER_OPTIONS = {
  capabilities: { tools: { listChanged: false }, extensions: { [TASKS_EXTENSION]: {} } },
  instructions: INSTRUCTIONS,
  cacheHints: { 'tools/list': LIST_CACHE, 'server/discover': LIST_CACHE },
  supportedProtocolVersions: [...SUPPORTED_PROTOCOL_VERSIONS, MODERN_PROTOCOL_VERSION],
};

function buildServer(contextOf: ContextOf): Server {
  const server = new Server(SERVER_INFO, SERVER_OPTIONS);
  // The same JSON as the 2025 revisions list (v1's type for it is wider than v2's in one detail:
  // properties as `object`).
  server.setRequestHandler('tools/list', async () => TOOL_LIST as unknown as ListToolsResult);
  // The Server checks every tools/call against the revision's schema before any handler runs (and
  // its result after); registered with the spec's own schema, the request would be parsed a second
  // time to reach this handler.
  server.setRequestHandler('tools/call', { params: CALL_PARAMS }, async (params, ctx) => {
    const { name, arguments: args = {} } = params as { name: string; arguments?: Record<string, unknown> };
    const tool = findTool(name);
    if (!tool) {
      throw new ProtocolError(ProtocolErrorCode.InvalidParams, `Unknown tool: ${name}. This server's tools are ${TOOLS.map((t) => t.name).join(', ')}.`);
    }
    // A booking is a task for a client that can take one (the server decides; the extension lets it).
    if (tool.startTask && declaresTasks(ctx)) return (await tool.startTask(contextOf(ctx), args)) as CallToolResult;
    return tool.run(contextOf(ctx), args);
  });
  server.setRequestHandler('tasks/get', { params: taskParams }, async ({ taskId }, ctx) => {
    requireTasks(ctx);
    const context = contextOf(ctx);
    return { ...(await guardedTask(context, () => getTask(context, taskId))) };
  });
  server.setRequestHandler('tasks/update', { params: taskParams }, async ({ taskId }, ctx) => {
    requireTasks(ctx);
    const context = contextOf(ctx);
    await guardedTask(context, () => updateTask(context, taskId, inputResponsesOf(ctx)));
    return {};
  });
  server.setRequestHandler('tasks/cancel', { params: taskParams }, async ({ taskId }, ctx) => {
    requireTasks(ctx);
    const context = contextOf(ctx);
    await guardedTask(context, () => cancelTask(context, taskId));
    return {};
  });
  return server;
}

/** A header as the web Headers the SDK reads would give it: repeated values joined, surrounding whitespace trimmed. */
function headerOf(headers: IncomingHttpHeaders, name: string): string | undefined {
  const value = headers[name];
  if (value === undefined) return undefined;
  const joined = Array.isArray(value) ? value.join(', ') : value;
  return /^[\t\n\r ]|[\t\n\r ]$/.test(joined) ? joined.replace(/^[\t\n\r ]+|[\t\n\r ]+$/g, '') : joined;
}

/**
 * The request as the SDK's web-standard handler reads it: its headers only. The body goes to the SDK
 * already parsed (parsedBody), so it is not serialized again into a stream the SDK would not read.
 */
function webRequestOf(headers: IncomingHttpHeaders, hostname: string, signal: AbortSignal): Request {
  const web = new Headers();
  for (const [name, value] of Object.entries(headers)) {
    if (typeof value === 'string') web.set(name, value);
    else if (Array.isArray(value)) for (const v of value) web.append(name, v);
  }
  web.delete('content-length');
  return new Request(`http://${hostname || 'localhost'}/api/mcp`, { method: 'POST', headers: web, signal });
}

async function replyOf(response: Response): Promise<ModernReply> {
  const headers: Record<string, string> = {};
  response.headers.forEach((value, name) => {
    if (name !== 'content-length') headers[name] = value;
  });
  return { status: response.status, headers, body: Buffer.from(await response.arrayBuffer()) };
}

// The body field the Mcp-Name header mirrors, per method (the SDK's MCP_NAME_HEADER_SOURCE).
const NAME_SOURCE: ReadonlyMap<string, string> = new Map([
  ['tools/call', 'name'],
  ['prompts/get', 'name'],
  ['resources/read', 'uri'],
  ['tasks/get', 'taskId'],
  ['tasks/update', 'taskId'],
  ['tasks/cancel', 'taskId'],
]);

/**
 * Whether the SDK's check of the standard headers (MCP-Protocol-Version and Mcp-Method present,
 * Mcp-Name present and equal to the body's name, uri or taskId) certainly passes. Only the plain
 * case is decided here: a missing or differing header, or a Base64-encoded name, goes to the SDK's
 * own handler, which answers it (-32020) or decodes it as it always has.
 */
function standardHeadersPass(request: InboundHttpRequest, message: { method: string; params?: unknown }): boolean {
  if (request.protocolVersionHeader === undefined || request.mcpMethodHeader === undefined) return false;
  const field = NAME_SOURCE.get(message.method);
  if (field === undefined) return true;
  const raw = isObject(message.params) ? message.params[field] : undefined;
  const value = typeof raw === 'string' ? raw : undefined;
  const name = request.mcpNameHeader;
  if (name === undefined) return value === undefined;
  return name === value && !(name.startsWith('=?base64?') && name.endsWith('?='));
}

export function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** A request of the current revision: its _meta names a protocol revision, or its header names this one. */
function claimsModernRevision(body: unknown, header: string | undefined): boolean {
  if (header === MODERN_PROTOCOL_VERSION) return true;
  const params = isObject(body) ? body.params : undefined;
  const meta = isObject(params) ? params._meta : undefined;
  return isObject(meta) && PROTOCOL_VERSION_META_KEY in meta;
}

/** A request claiming the current revision, as the SDK read it (its standard headers) and classified it (never a 2025 one). */
export interface ModernRequest {
  read: InboundHttpRequest;
  route: Exclude<InboundClassificationOutcome, { kind: 'legacy' }>;
}

/** The parts of the HTTP request the SDK's handler reads. */
export interface ModernHttpRequest {
  headers: IncomingHttpHeaders;
  hostname: string;
}

export interface ModernEndpoint {
  /**
   * The SDK's classification of the request (the one createMcpHandler and isLegacyRequest make), or
   * null when it belongs to the 2025 revisions (no per-request _meta claim, or initialize).
   */
  classify(headers: IncomingHttpHeaders, body: unknown): ModernRequest | null;
  /** Serves one request of the current revision; rejects only when `signal` aborted first. */
  serve(modern: ModernRequest, request: ModernHttpRequest, body: unknown, context: ToolContext, signal: AbortSignal): Promise<ModernReply>;
  close(): Promise<void>;
}

/**
 * The current revision's endpoint. An ordinary request (a modern request of this revision whose
 * standard headers plainly agree with its body) goes straight to the process's one server behind
 * ModernTransport: the SDK's handler would check exactly that much before building its server
 * (the revision, the standard headers, and required client capabilities, which no method has in
 * this SDK version) and then dispatch it the same way. Everything else (the SDK's rejections,
 * notifications, subscriptions/listen, a Base64 Mcp-Name) goes to createMcpHandler as before.
 */
export async function createModernEndpoint(options: { onError?: (error: Error) => void } = {}): Promise<ModernEndpoint> {
  const transport = new ModernTransport(MODERN_PROTOCOL_VERSION);
  const server = buildServer((ctx) => transport.contextOf(ctx.mcpReq.id));
  if (options.onError) server.onerror = options.onError;
  await server.connect(transport);
  const handler: McpHttpHandler = createMcpHandler(({ authInfo }) => buildServer(() => contextOf(authInfo)), {
    // The 2025 revisions never reach this handler (index.ts routes them to the v1 server first).
    legacy: 'reject',
    ...(options.onError ? { onerror: options.onError } : {}),
  });
  let closed = false;
  return {
    classify(headers, body) {
      // isLegacyRequest: a POST without a JSON body is the 2025 revisions' to answer. So is one that
      // claims no revision: only a claim goes to the SDK's classification, so that what the 2025
      // revisions answer (malformed messages included) stays exactly as it was.
      const protocolVersionHeader = headerOf(headers, 'mcp-protocol-version');
      if (body === undefined || !claimsModernRevision(body, protocolVersionHeader)) return null;
      const read: InboundHttpRequest = {
        httpMethod: 'POST',
        protocolVersionHeader,
        mcpMethodHeader: headerOf(headers, 'mcp-method'),
        mcpNameHeader: headerOf(headers, 'mcp-name'),
        body,
      };
      const route = classifyInboundRequest(read);
      return route.kind === 'legacy' ? null : { read, route };
    },
    async serve({ read, route }, request, body, context, signal) {
      if (closed) throw new Error('This MCP handler has been closed');
      const direct =
        route.kind === 'modern' &&
        route.messageKind === 'request' &&
        route.classification.revision === MODERN_PROTOCOL_VERSION &&
        route.message.method !== 'subscriptions/listen' &&
        standardHeadersPass(read, route.message);
      if (!direct) return replyOf(await handler.fetch(webRequestOf(request.headers, request.hostname, signal), { authInfo: authInfoOf(context), parsedBody: body }));
      try {
        return await transport.dispatch(route.message, context, signal);
      } catch (error) {
        if (signal.aborted) throw error;
        // As the SDK's handler answers a request its server failed to take.
        options.onError?.(error instanceof Error ? error : new Error(String(error)));
        const id = route.message.id;
        return { status: 500, headers: { 'content-type': 'application/json' }, body: Buffer.from(JSON.stringify({ jsonrpc: '2.0', error: { code: -32603, message: 'Internal server error' }, id })) };
      }
    },
    async close() {
      closed = true;
      await handler.close();
      await server.close();
    },
  };
}
