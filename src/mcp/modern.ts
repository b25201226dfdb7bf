import { CLIENT_CAPABILITIES_META_KEY, createMcpHandler, isLegacyRequest, MissingRequiredClientCapabilityError, ProtocolError, ProtocolErrorCode, Server, type AuthInfo, type CallToolResult, type ListToolsResult, type McpHttpHandler } from '@modelcontextprotocol/server';
import { z } from 'zod';
import { INSTRUCTIONS, SERVER_INFO } from './identity.ts';
import { findTool, TOOL_LIST, TOOLS } from './tools/index.ts';
import type { ToolContext } from './tools/types.ts';
import { TASKS_EXTENSION } from './task-of-job.ts';
import { failedUnexpectedly } from './tools/guard.ts';
import { cancelTask, getTask, updateTask } from './tasks.ts';

// Protocol revision 2026-07-28 (stateless: version, client identity and capabilities travel in
// every request's _meta; server/discover instead of initialize; resultType on every result; cache
// hints on list results). The official SDK v2 serves it (createMcpHandler): its classification
// decides the era of each request, and its per-request server answers server/discover, stamps
// resultType and serverInfo, checks the envelope and the standard headers (Mcp-Method, Mcp-Name,
// MCP-Protocol-Version) and answers the revision's errors (-32022 unsupported version with the
// supported list, -32020 header mismatch, -32602 malformed _meta). What stays ours is what every
// era shares: Host, Origin, the credential and scopes (src/mcp/index.ts) and the tools.
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

/** tasks/update's answers: the SDK lifts inputResponses off the params (MRTR wire material) into the context. */
function inputResponsesOf(ctx: unknown): Record<string, unknown> {
  const responses = (ctx as { mcpReq?: { inputResponses?: unknown } }).mcpReq?.inputResponses;
  if (typeof responses !== 'object' || responses === null || Array.isArray(responses)) {
    throw new ProtocolError(ProtocolErrorCode.InvalidParams, 'Invalid params for tasks/update: inputResponses must be an object of answers keyed like the task\'s inputRequests');
  }
  return responses as Record<string, unknown>;
}

function buildServer(context: ToolContext): Server {
  const server = new Server(SERVER_INFO, {
    capabilities: { tools: { listChanged: false }, extensions: { [TASKS_EXTENSION]: {} } },
    instructions: INSTRUCTIONS,
    cacheHints: { 'tools/list': LIST_CACHE, 'server/discover': LIST_CACHE },
  });
  // The same JSON as the 2025 revisions list (v1's type for it is wider than v2's in one detail:
  // properties as `object`).
  server.setRequestHandler('tools/list', async () => TOOL_LIST as unknown as ListToolsResult);
  server.setRequestHandler('tools/call', async (request, ctx) => {
    const tool = findTool(request.params.name);
    if (!tool) {
      throw new ProtocolError(ProtocolErrorCode.InvalidParams, `Unknown tool: ${request.params.name}. This server's tools are ${TOOLS.map((t) => t.name).join(', ')}.`);
    }
    const args = request.params.arguments ?? {};
    // A booking is a task for a client that can take one (the server decides; the extension lets it).
    if (tool.startTask && declaresTasks(ctx)) return (await tool.startTask(context, args)) as CallToolResult;
    return tool.run(context, args);
  });
  server.setRequestHandler('tasks/get', { params: taskParams }, async ({ taskId }, ctx) => {
    requireTasks(ctx);
    return { ...(await guardedTask(context, () => getTask(context, taskId))) };
  });
  server.setRequestHandler('tasks/update', { params: taskParams }, async ({ taskId }, ctx) => {
    requireTasks(ctx);
    await guardedTask(context, () => updateTask(context, taskId, inputResponsesOf(ctx)));
    return {};
  });
  server.setRequestHandler('tasks/cancel', { params: taskParams }, async ({ taskId }, ctx) => {
    requireTasks(ctx);
    await guardedTask(context, () => cancelTask(context, taskId));
    return {};
  });
  return server;
}

export interface ModernEndpoint {
  /** Whether this request belongs to the 2025 revisions (no per-request _meta claim, or initialize). */
  isLegacy(request: Request, body: unknown): Promise<boolean>;
  /** Serves one request of the current revision. */
  serve(request: Request, body: unknown, context: ToolContext): Promise<Response>;
  close(): Promise<void>;
}

export function createModernEndpoint(options: { onError?: (error: Error) => void } = {}): ModernEndpoint {
  const handler: McpHttpHandler = createMcpHandler(({ authInfo }) => buildServer(contextOf(authInfo)), {
    // The 2025 revisions never reach this handler (index.ts routes them to the v1 server first).
    legacy: 'reject',
    ...(options.onError ? { onerror: options.onError } : {}),
  });
  return {
    isLegacy: (request, body) => isLegacyRequest(request, body),
    serve: (request, body, context) => handler.fetch(request, { authInfo: authInfoOf(context), parsedBody: body }),
    close: () => handler.close(),
  };
}
