import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import { ErrorCode, type JSONRPCMessage, type RequestId } from '@modelcontextprotocol/sdk/types.js';
import type { ToolContext } from './tools/types.ts';

// Stateless Streamable HTTP means any instance answers any request, with nothing kept between them.
// The SDK's way to get that is a new McpServer and HTTP transport per request, which costs more than
// the tool call itself (the server, its handlers and a web Request/Response round trip each time).
// Instead one McpServer per process is connected to this transport, and each HTTP request hands it
// one message: requests are renumbered on the way in, so that two clients' `"id": 1` never meet
// inside the server, and the response is matched back to its HTTP request and its own id.
//
// Only requests reach the server. A client's notifications and responses are answered 202 and go
// no further: the server is shared, so anything a client says outside its own request would act on
// everyone's. notifications/cancelled is the case in point: the server cancels by its own
// (renumbered, guessable) id and then answers nothing, so one client could silence another's
// request, and the SDK client sends one innocently, with its own ids, when it times out. Without
// sessions a client cancels by closing its HTTP request, which `dispatch` turns into a cancellation
// of exactly that request.

interface Pending {
  id: RequestId;
  context: ToolContext;
  resolve(response: JSONRPCMessage): void;
}

function isRequest(message: JSONRPCMessage): message is JSONRPCMessage & { id: RequestId; method: string } {
  return 'method' in message && 'id' in message;
}

export class RequestTransport implements Transport {
  onmessage?: Transport['onmessage'];
  onclose?: () => void;
  onerror?: (error: Error) => void;
  private nextId = 1;
  private readonly pending = new Map<number, Pending>();
  /** The server's id of the request being handed over right now (delivery is synchronous). */
  private delivering: number | undefined;

  async start(): Promise<void> {}

  async close(): Promise<void> {
    // The server answers nothing once closed: answer what is still waiting instead of leaving it hang.
    for (const id of [...this.pending.keys()]) this.answer(id, ErrorCode.ConnectionClosed, 'the server is shutting down; send the request again');
    this.onclose?.();
  }

  async send(message: JSONRPCMessage): Promise<void> {
    // Only responses leave: server notifications (progress, logs) have no request to ride on when
    // every reply is one message, and these tools send none.
    if (!('id' in message) || typeof message.id !== 'number' || 'method' in message) return;
    const pending = this.pending.get(message.id);
    if (!pending) return; // its HTTP request has gone
    this.pending.delete(message.id);
    pending.resolve({ ...message, id: pending.id } as JSONRPCMessage);
  }

  /** The context of the request the server knows as `requestId`. */
  contextOf(requestId: RequestId): ToolContext {
    const pending = typeof requestId === 'number' ? this.pending.get(requestId) : undefined;
    if (!pending) throw new Error(`no MCP request ${String(requestId)} in flight`);
    return pending.context;
  }

  /**
   * An error the server reports instead of answering (the SDK calls onerror, not send, for a
   * message it cannot handle). Raised while a request is being handed over, it is that request's:
   * answer it, or its HTTP request would wait for ever.
   */
  serverError(): void {
    if (this.delivering !== undefined) this.answer(this.delivering, ErrorCode.InternalError, 'Internal error: the server could not handle this request');
  }

  /**
   * Hands one message to the server. A request resolves with its response; a notification or a
   * response resolves with null (HTTP 202) and is not delivered (see above). If `signal` aborts
   * first (the client went away), the server is told the request is cancelled.
   */
  dispatch(message: JSONRPCMessage, context: ToolContext, signal: AbortSignal): Promise<JSONRPCMessage | null> {
    const deliver = this.onmessage;
    if (!deliver) return Promise.reject(new Error('the MCP server is not connected'));
    if (!isRequest(message)) return Promise.resolve(null);
    const id = this.nextId++;
    return new Promise<JSONRPCMessage>((resolve, reject) => {
      this.pending.set(id, { id: message.id, context, resolve });
      const onAbort = () => {
        if (!this.pending.delete(id)) return;
        deliver({ jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: id, reason: 'the HTTP request was closed' } });
        reject(new Error('the HTTP request was closed'));
      };
      signal.addEventListener('abort', onAbort, { once: true });
      this.delivering = id;
      try {
        deliver({ ...message, id });
      } catch (error) {
        this.pending.delete(id);
        throw error;
      } finally {
        this.delivering = undefined;
      }
    });
  }

  private answer(id: number, code: number, message: string): void {
    void this.send({ jsonrpc: '2.0', id, error: { code, message } });
  }
}
