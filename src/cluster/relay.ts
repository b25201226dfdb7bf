import { request as httpRequest } from 'node:http';
import { request as httpsRequest } from 'node:https';
import type { IncomingMessage } from 'node:http';
// @ts-expect-error -- ws (@fastify/websocket's own WebSocket library) ships no type declarations; the few calls used are typed below.
import WebSocketLibrary from 'ws';
import { NODE_AUTH_HEADER, signCall } from './node-auth.ts';
import type { NodeAddress } from './nodes.ts';

// A web node's side of a held booking served by another node: signed calls to that node's
// internal port, and the person's live-view socket piped to it message by message (frames one
// way, screen reports and input the other), so the page works whichever node the load balancer
// picked. The pipe reads nothing of what it carries: input is neither parsed nor logged here.

/** How long a call to another node may take before that node counts as unreachable. */
const CALL_TIMEOUT_MS = 5_000;
/** Bytes the person's socket may have queued before frames are skipped for it (as live-view-socket.ts does for a direct view). */
const MAX_BUFFERED = 512 * 1024;

/** The part of a `ws` WebSocket the pipe uses (the person's side comes from @fastify/websocket). */
export interface PipeSocket {
  readonly readyState: number;
  readonly bufferedAmount: number;
  send(data: Buffer | string, options?: { binary: boolean }): void;
  close(code?: number, reason?: string): void;
  terminate?(): void;
  on(event: 'message', listener: (data: Buffer | ArrayBuffer | Buffer[], isBinary: boolean) => void): void;
  on(event: 'close', listener: (code: number, reason: Buffer) => void): void;
  on(event: 'error', listener: (error: Error) => void): void;
}

const CONNECTING = 0;
const OPEN = 1;

/** A `ws` client socket, as far as the pipe uses it. */
export interface HolderSocket extends PipeSocket {
  terminate(): void;
  once(event: 'open', listener: () => void): void;
  once(event: 'unexpected-response', listener: (request: unknown, response: IncomingMessage) => void): void;
  once(event: 'error', listener: (error: Error) => void): void;
}

interface WebSocketClientOptions {
  headers: Record<string, string>;
  handshakeTimeout: number;
  perMessageDeflate: boolean;
  followRedirects: boolean;
}
const WebSocketClient = WebSocketLibrary as new (url: URL, options: WebSocketClientOptions) => HolderSocket;

export type Upstream =
  | { kind: 'open'; socket: HolderSocket }
  /** The node answered the handshake with an HTTP status (it does not hold the tab: 404/410). */
  | { kind: 'refused'; status: number }
  /** The node could not be reached (gone, or the network between). */
  | { kind: 'unreachable' };

export class NodeClient {
  readonly #key: Buffer;

  constructor(key: Buffer) {
    this.#key = key;
  }

  /** Opens a WebSocket to `path` on `node`'s internal port. */
  openSocket(node: NodeAddress, path: string): Promise<Upstream> {
    const url = new URL(path, node.internalUrl);
    url.protocol = url.protocol === 'https:' ? 'wss:' : 'ws:';
    return new Promise((resolve) => {
      const socket = new WebSocketClient(url, {
        headers: { [NODE_AUTH_HEADER]: signCall(this.#key, 'GET', url.pathname + url.search) },
        handshakeTimeout: CALL_TIMEOUT_MS,
        perMessageDeflate: false,
        followRedirects: false,
      });
      socket.once('open', () => resolve({ kind: 'open', socket }));
      socket.once('unexpected-response', (_request, response) => {
        response.resume();
        socket.terminate();
        resolve({ kind: 'refused', status: response.statusCode ?? 502 });
      });
      socket.once('error', () => resolve({ kind: 'unreachable' }));
    });
  }

  /** A signed POST to `path` on `node`: its status and JSON answer, or null when the node could not be reached. */
  post(node: NodeAddress, path: string): Promise<{ status: number; body: unknown } | null> {
    const url = new URL(path, node.internalUrl);
    const send = url.protocol === 'https:' ? httpsRequest : httpRequest;
    return new Promise((resolve) => {
      const call = send(url, { method: 'POST', headers: { [NODE_AUTH_HEADER]: signCall(this.#key, 'POST', url.pathname + url.search), 'content-length': '0' }, timeout: CALL_TIMEOUT_MS }, (response) => {
        const chunks: Buffer[] = [];
        response.on('data', (chunk: Buffer) => chunks.push(chunk));
        response.on('end', () => {
          let body: unknown = null;
          try {
            body = JSON.parse(Buffer.concat(chunks).toString('utf8'));
          } catch {
            // Not JSON: the status says enough.
          }
          resolve({ status: response.statusCode ?? 502, body });
        });
        response.on('error', () => resolve(null));
      });
      call.on('timeout', () => call.destroy(new Error('timeout')));
      call.on('error', () => resolve(null));
      call.end();
    });
  }
}

/** Close codes a WebSocket may send (1005, 1006 and 1015 only describe a close, they are never sent). */
function sendable(code: number): boolean {
  return code === 1000 || code === 1001 || (code >= 1007 && code <= 1014) || (code >= 3000 && code <= 4999);
}

/**
 * Pipes the person's socket to the holder's until either side closes. When the holder's side
 * closes with a code it chose (an outcome, a takeover), the person's side closes with it; when it
 * is cut (the holder went away, the network dropped), `onCut` decides what the person's page is
 * told, with their socket still open.
 */
export function pipeSockets(person: PipeSocket, holder: HolderSocket, onCut: () => void): void {
  let done = false;
  holder.on('message', (data, isBinary) => {
    if (person.readyState !== OPEN) return;
    // A slow phone link: frames are skipped for it, the next one shows the tab as it is then.
    if (isBinary && person.bufferedAmount > MAX_BUFFERED) return;
    person.send(data as Buffer, { binary: isBinary });
  });
  person.on('message', (data, isBinary) => {
    if (holder.readyState === OPEN) holder.send(data as Buffer, { binary: isBinary });
  });
  holder.on('close', (code, reason) => {
    if (done) return;
    done = true;
    if (sendable(code)) person.close(code, reason.toString('utf8'));
    else onCut();
  });
  holder.on('error', () => holder.terminate());
  const personGone = () => {
    if (done) return;
    done = true;
    if (holder.readyState === OPEN || holder.readyState === CONNECTING) holder.close(1000);
  };
  person.on('close', personGone);
  person.on('error', personGone);
}
