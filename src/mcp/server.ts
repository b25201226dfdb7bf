import { McpServer, type RegisteredTool, type ToolCallback } from '@modelcontextprotocol/sdk/server/mcp.js';
import { AjvJsonSchemaValidator } from '@modelcontextprotocol/sdk/validation/ajv';
import { ErrorCode, InitializeRequestSchema, LATEST_PROTOCOL_VERSION, ListToolsRequestSchema, McpError, type CallToolRequest } from '@modelcontextprotocol/sdk/types.js';
import { SUPPORTED_PROTOCOL_VERSIONS } from './negotiate.ts';
import { z } from 'zod';
import { INSTRUCTIONS, SERVER_INFO } from './identity.ts';
import { TOOL_LIST, TOOLS } from './tools/index.ts';
import type { RequestTransport } from './transport.ts';

// Built once: the server-side validator is only used for elicitation, which these tools never do.
const VALIDATOR = new AjvJsonSchemaValidator();

// Arguments reach the tools as sent: each tool validates them with the same functions and zod
// schemas REST uses, so an invalid call is a tool result listing every problem as {path, message}
// exactly as REST words it (the SDK's own check would word them its way, and could not run the
// cross-field rules REST applies, such as a flight's passport fields).
const ANY_ARGUMENTS = z.looseObject({});

// tools/call is registered under this lenient schema: the SDK's Server then checks the message
// against its own CallToolRequestSchema and answers a malformed one with -32602 Invalid params
// (registered under CallToolRequestSchema itself, the message would be parsed twice and a
// malformed one would surface as -32603 Internal error).
const TOOLS_CALL = z.looseObject({ method: z.literal('tools/call') });

/**
 * The process's MCP server, answering whatever `transport` hands it; each tool call runs with the
 * context (caller, logger) of the HTTP request its message came in on. The six tools are registered with McpServer.registerTool; two SDK defaults are replaced:
 * - tools/list answers the JSON Schemas generated once at start from the zod schemas (the SDK
 *   would re-derive them from zod on every call);
 * - tools/call of an unknown tool is JSON-RPC error -32602, as JSON-RPC says for invalid params
 *   (the SDK would answer a tool result with isError).
 * `onError` hears what the server reports instead of answering (after the transport has answered
 * the request concerned).
 *
 * One server serves every client, so it keeps nothing of any: initialize is answered by a handler
 * that stores no client capabilities or clientInfo (the SDK's would, for whichever client
 * initialized last). A tool that needs the client's capabilities must carry them per request, as
 * the caller is carried through the transport.
 */
export function createMcpServer(transport: RequestTransport, options: { onError?: (error: Error) => void } = {}): McpServer {
  const mcp = new McpServer(SERVER_INFO, { capabilities: { tools: {} }, instructions: INSTRUCTIONS, jsonSchemaValidator: VALIDATOR });
  mcp.server.onerror = (error) => {
    transport.serverError();
    options.onError?.(error);
  };
  const registered = new Map<string, RegisteredTool>();
  for (const tool of TOOLS) {
    const run: ToolCallback<typeof ANY_ARGUMENTS> = (args, extra) => tool.run(transport.contextOf(extra.requestId), args);
    registered.set(
      tool.name,
      mcp.registerTool(tool.name, { title: tool.title, description: tool.description, inputSchema: ANY_ARGUMENTS, annotations: tool.annotations }, run),
    );
  }
  // The six tools never change while a client is connected (registerTool declared otherwise).
  const capabilities = { tools: { listChanged: false } };
  mcp.server.registerCapabilities(capabilities);
  // initialize answers the revision asked for when this endpoint speaks it (not 2025-03-26: see
  // negotiate.ts), else the latest; and, unlike the SDK's own handler, keeps nothing of the client.
  mcp.server.setRequestHandler(InitializeRequestSchema, (request) => ({
    protocolVersion: SUPPORTED_PROTOCOL_VERSIONS.includes(request.params.protocolVersion) ? request.params.protocolVersion : LATEST_PROTOCOL_VERSION,
    capabilities,
    serverInfo: SERVER_INFO,
    instructions: INSTRUCTIONS,
  }));
  mcp.server.setRequestHandler(ListToolsRequestSchema, () => TOOL_LIST);
  mcp.server.setRequestHandler(TOOLS_CALL, async (message, extra) => {
    const request = message as unknown as CallToolRequest;
    const tool = registered.get(request.params.name);
    if (!tool) {
      throw new McpError(ErrorCode.InvalidParams, `Unknown tool: ${request.params.name}. This server's tools are ${TOOLS.map((t) => t.name).join(', ')}.`);
    }
    const handler = tool.handler as ToolCallback<typeof ANY_ARGUMENTS>;
    return handler(request.params.arguments ?? {}, extra);
  });
  return mcp;
}
