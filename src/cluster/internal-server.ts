import Fastify, { type FastifyBaseLogger, type FastifyInstance } from 'fastify';
import websocket from '@fastify/websocket';
import type { Logger } from 'pino';
import type { Config } from '../config.ts';
import type { Kysely } from 'kysely';
import type { DB } from '../db/schema.ts';
import { NODE_AUTH_HEADER, nodeKey } from './node-auth.ts';
import { admitCall } from './used-calls.ts';

// A node's internal port: where the other nodes reach the browser sessions this process holds
// (src/web/internal-routes.ts). It runs in every process with booking workers (`serve` with
// WORKERS > 0, `concierge worker`), on INTERNAL_HOST:INTERNAL_PORT (127.0.0.1 and a port the OS
// picks by default: processes on one machine need no setting), and publishes INTERNAL_ADVERTISE_URL
// (default: the address it bound). A call without a valid signature (node-auth.ts), or with one
// already used (used-calls.ts), gets no answer at all: its connection is closed before anything is
// read or said.

export interface InternalServer {
  /** The address other nodes reach this one at (published in the nodes table). */
  url: string;
  close(): Promise<void>;
}

/** The routes a node's internal port serves (the web layer's: src/web/internal-routes.ts), handed in by the composition root. */
export type InternalRoutes = (app: FastifyInstance) => Promise<void>;

export async function startInternalServer(config: Config, parts: { db: Kysely<DB>; secretKey: string }, log: Logger, routes: InternalRoutes): Promise<InternalServer> {
  const key = nodeKey(parts.secretKey);
  const app: FastifyInstance = Fastify({ loggerInstance: log.child({ port: 'internal' }) as unknown as FastifyBaseLogger, bodyLimit: 1024 });
  app.addHook('onRequest', async (request, reply) => {
    // A replay is refused as a forgery is: the caller learns nothing about which one it sent.
    if (await admitCall(parts.db, key, request.method, request.url, request.headers[NODE_AUTH_HEADER])) return;
    reply.hijack();
    request.raw.socket.destroy();
  });
  await app.register(websocket, { options: { maxPayload: 4096 } });
  await app.register(routes);
  const bound = await app.listen({ host: config.INTERNAL_HOST, port: config.INTERNAL_PORT });
  const url = config.INTERNAL_ADVERTISE_URL ?? bound;
  log.info({ internalUrl: url }, 'internal port for other nodes is listening');
  return {
    url,
    close: () => app.close(),
  };
}
