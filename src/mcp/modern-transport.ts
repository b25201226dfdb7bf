import { PerRequestHTTPServerTransport, ProtocolErrorCode, type JSONRPCMessage, type JSONRPCRequest, type MessageClassification, type RequestId, type TransportSendOptions } from '@modelcontextprotocol/server';
import type { ToolContext } from './tools/types.ts';

// The 2026-07-28 twin of src/mcp/transport.ts: one SDK v2 Server per process answers every request
// of that revision, instead of createMcpHandler's new Server and PerRequestHTTPServerTransport per
// request (their construction, the web Request/Response round trip and the per-request teardown
// cost more than the tool call). Requests are renumbered on the way in, so that two clients'
// `"id": 1` never meet inside the server; each reply goes back to its HTTP request with its own id.
//
// It is a PerRequestHTTPServerTransport only so that Server.connect binds the server to the
// revision, as the SDK does for its per-request transport (the era is the server's state, and the
// SDK exports no other way to set it); nothing of that class's per-exchange machinery is used.
// Everything else that differs between clients travels with each message, as the revision wants:
// the _meta envelope (client capabilities, ctx.mcpReq.envelope), inputResponses, and our context.
//
// What reaches the server: requests only (see src/mcp/modern.ts for which ones). A client cancels
// by closing its HTTP request, which `dispatch` turns into a cancellation of exactly that request.

/** One HTTP reply, exactly as the SDK's per-request transport would have written it. */
export interface ModernReply {
  status: number;
  headers: Record<string, string>;
  body: Buffer;
}

/**
 * The HTTP status of an error the server answers before any handler ran (the SDK's ladder; its
 * LADDER_ERROR_HTTP_STATUS, which it does not export): anything else is 200 with the error inside,
 * except a missing client capability, which is 400 wherever it is raised.
 */
const LADDER_STATUS: ReadonlyMap<number, number> = new Map([
  [ProtocolErrorCode.ParseError, 400],
  [ProtocolErrorCode.InvalidRequest, 400],
  [ProtocolErrorCode.MethodNotFound, 404],
  [ProtocolErrorCode.UnsupportedProtocolVersion, 400],
  [ProtocolErrorCode.MissingRequiredClientCapability, 400],
  [-32020, 400], // header mismatch (the SDK's enum has no member for it)
]);

const JSON_HEADERS = { 'content-type': 'application/json' };
// The SDK's stream headers, for a reply that carried messages before its response.
const SSE_HEADERS = { 'content-type': 'text/event-stream', 'cache-control': 'no-cache, no-transform', connection: 'keep-alive', 'x-accel-buffering': 'no' };

interface Pending {
  id: RequestId;
  context: ToolContext;
  /** Messages the server sent about this request before its response (SSE frames). */
  frames: string[];
  resolve(reply: ModernReply): void;
}

function frame(message: JSONRPCMessage): string {
  return `event: message\ndata: ${JSON.stringify(message)}\n\n`;
}

export class ModernTransport extends PerRequestHTTPServerTransport {
  private readonly classification: MessageClassification;
  private nextId = 1;
  private readonly pending = new Map<number, Pending>();
  /** The server's id of the request being handed over right now (delivery is synchronous). */
  private delivering: number | undefined;

  constructor(revision: string) {
    const classification = { era: 'modern', revision } as const;
    super({ classification });
    this.classification = classification;
  }

  override async handleMessage(): Promise<Response> {
    throw new Error('ModernTransport serves through dispatch()');
  }

  override async close(): Promise<void> {
    // What the SDK answers a request whose server closed under it: 499, no body.
    for (const [id, pending] of [...this.pending]) {
      this.pending.delete(id);
      pending.resolve({ status: 499, headers: {}, body: Buffer.alloc(0) });
    }
    this.onclose?.();
  }

  override async send(message: JSONRPCMessage, options?: TransportSendOptions): Promise<void> {
    // The server's own messages: their shape is known without the SDK's schema guards (a zod parse
    // of the whole result each).
    if (!('method' in message) && 'id' in message) {
      const pending = typeof message.id === 'number' ? this.pending.get(message.id) : undefined;
      if (!pending) return; // its HTTP request has gone
      this.pending.delete(message.id as number);
      const answer = { ...message, id: pending.id } as JSONRPCMessage;
      const code = 'error' in message ? message.error.code : undefined;
      const ladder = code !== undefined && (this.delivering === message.id || code === ProtocolErrorCode.MissingRequiredClientCapability) ? LADDER_STATUS.get(code) : undefined;
      if (pending.frames.length > 0) {
        pending.resolve({ status: 200, headers: SSE_HEADERS, body: Buffer.from(pending.frames.join('') + frame(answer)) });
      } else {
        pending.resolve({ status: ladder ?? 200, headers: JSON_HEADERS, body: Buffer.from(JSON.stringify(answer)) });
      }
      return;
    }
    // A notification about a request rides on that request's reply, as the SDK streams it.
    const related = options?.relatedRequestId;
    const pending = typeof related === 'number' ? this.pending.get(related) : undefined;
    pending?.frames.push(frame(message));
  }

  /** The context of the request the server knows as `requestId`. */
  contextOf(requestId: RequestId): ToolContext {
    const pending = typeof requestId === 'number' ? this.pending.get(requestId) : undefined;
    if (!pending) throw new Error(`no MCP request ${String(requestId)} in flight`);
    return pending.context;
  }

  /**
   * Hands one request to the server and resolves with its HTTP reply. If `signal` aborts first
   * (the client went away), the server is told the request is cancelled and this rejects.
   */
  dispatch(message: JSONRPCRequest, context: ToolContext, signal: AbortSignal): Promise<ModernReply> {
    const deliver = this.onmessage;
    if (!deliver) return Promise.reject(new Error('the MCP server is not connected'));
    if (signal.aborted) return Promise.reject(new Error('the HTTP request was closed'));
    const id = this.nextId++;
    return new Promise<ModernReply>((resolve, reject) => {
      this.pending.set(id, { id: message.id, context, frames: [], resolve });
      const onAbort = () => {
        if (!this.pending.delete(id)) return;
        deliver({ jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: id, reason: 'the HTTP request was closed' } }, { classification: this.classification });
        reject(new Error('the HTTP request was closed'));
      };
      signal.addEventListener('abort', onAbort, { once: true });
      this.delivering = id;
      try {
        deliver({ ...message, id }, { classification: this.classification });
      } catch (error) {
        this.pending.delete(id);
        throw error;
      } finally {
        this.delivering = undefined;
      }
    });
  }
}
