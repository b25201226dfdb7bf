import { once } from 'node:events';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { VERSION } from '../version.ts';
import { DATABASE_RETRY_AFTER_SECONDS } from '../db/reachable.ts';

// The node's HTTP port answers from the moment it starts, before the app exists (the app is built on
// the database, which may take minutes to reach: src/db/wait.ts). An orchestrator's liveness probe
// then sees a process that is alive and must not be restarted for waiting, its readiness probe one
// that takes no traffic yet; a client gets the 503 and Retry-After it gets when the database goes
// away later. The app takes the port over once it is ready to listen.

export interface StartingProbes {
  /** The port it listens on (the one asked for, or the one the OS chose for port 0). */
  port: number;
  /** Stops listening and ends its connections, so that the app can listen on the port at once. Safe to call twice. */
  close(): Promise<void>;
}

const STARTING_MESSAGE = 'the service is starting and cannot serve requests yet; try again in a few seconds';

/** The reply to one request while the node starts. */
function answer(request: IncomingMessage, response: ServerResponse): void {
  // As the app's router reads it: a trailing slash makes no other path.
  const path = (request.url ?? '/').split('?', 1)[0]!.replace(/(.)\/+$/, '$1');
  response.setHeader('concierge-version', VERSION);
  // One request per connection: nothing stays open to be cut when the app takes the port over.
  response.setHeader('connection', 'close');
  if (path === '/healthz') return json(response, 200, { status: 'ok' });
  if (path === '/readyz') return json(response, 503, { status: 'starting', reason: 'the node is starting: its database is not reached or set up yet' });
  response.setHeader('retry-after', String(DATABASE_RETRY_AFTER_SECONDS));
  // The same envelopes as when the database goes away later: REST's under /api/v1, the app-wide one elsewhere.
  const rest = path === '/api/v1' || path.startsWith('/api/v1/');
  json(response, 503, rest ? { error: { code: 'auth_backend_unavailable', message: STARTING_MESSAGE } } : { error: 'auth_backend_unavailable', message: STARTING_MESSAGE });
}

function json(response: ServerResponse, status: number, body: unknown): void {
  response.writeHead(status, { 'content-type': 'application/json; charset=utf-8' }).end(JSON.stringify(body));
}

/** Listens on host:port with the probes' answers; fails as a listen does (EADDRINUSE…). */
export async function answerWhileStarting(host: string, port: number): Promise<StartingProbes> {
  const server = createServer(answer);
  server.listen({ host, port });
  // once() rejects with the server's 'error' should that come first.
  await once(server, 'listening');
  let closing: Promise<void> | null = null;
  return {
    port: (server.address() as AddressInfo).port,
    close() {
      closing ??= new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      });
      return closing;
    },
  };
}
