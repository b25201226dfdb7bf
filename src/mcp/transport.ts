import type { FastifyReply, FastifyRequest } from 'fastify';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { createMcpServer } from './server.ts';
import { jsonRpcError, JSON_RPC } from './http-errors.ts';
import type { ResponseMode } from './negotiate.ts';
import type { ToolContext } from './tools/types.ts';

// The SDK transport checks Accept itself and insists on both media types literally; ours has
// already been checked (and may be a wildcard or one type), so the SDK is shown the canonical one.
const BOTH = 'application/json, text/event-stream';

function canonicalAccept(incoming: FastifyRequest['raw']): void {
  if (incoming.headers.accept === BOTH) return;
  incoming.headers.accept = BOTH;
  const raw = incoming.rawHeaders;
  for (let i = 0; i < raw.length; i += 2) {
    if (raw[i]!.toLowerCase() === 'accept') raw[i + 1] = BOTH;
  }
}

/**
 * Hands one already-authorised JSON-RPC message to a fresh MCP server and stateless Streamable
 * HTTP transport, which write the reply (JSON or an SSE stream) straight to the socket.
 */
export async function answerMessage(request: FastifyRequest, reply: FastifyReply, context: ToolContext, mode: ResponseMode, message: unknown): Promise<void> {
  const server = createMcpServer(context);
  const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: mode === 'json' });
  transport.onerror = (error) => request.log.debug({ err: { message: error.message } }, 'mcp transport');

  reply.hijack();
  const raw = reply.raw;
  // Headers set through Fastify so far (CORS, request id) are not written for a hijacked reply.
  for (const [name, value] of Object.entries(reply.getHeaders())) {
    if (value !== undefined) raw.setHeader(name, value);
  }
  raw.setHeader('x-request-id', request.id);
  raw.on('close', () => {
    void transport.close();
    void server.close();
  });
  canonicalAccept(request.raw);
  try {
    await server.connect(transport);
    await transport.handleRequest(request.raw, raw, message);
  } catch (error) {
    request.log.error({ err: error }, 'mcp request failed');
    if (!raw.headersSent) {
      raw.writeHead(500, { 'content-type': 'application/json' });
      raw.end(JSON.stringify(jsonRpcError(JSON_RPC.INTERNAL_ERROR, 'Internal error; the request id is in the X-Request-Id header')));
    } else {
      raw.end();
    }
  }
}
