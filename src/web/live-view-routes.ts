import type { FastifyInstance, FastifyRequest } from 'fastify';
import type {} from '@fastify/websocket'; // its route options (`websocket: true`)
import type { LiveView, ViewEnd } from '../browser/live-view.ts';
import type { PipeSocket } from '../cluster/relay.ts';
import { serveLiveView, type LiveViewConnection, type Socket } from './live-view-socket.ts';
import { sendAsset } from '../pages/render.ts';
import { LIVE_VIEW_SCRIPT } from '../pages/handoff-render.ts';

// HTTP glue of the live view: the client script, and WebSocket routes that admit a viewer only
// from the service's own origin and only with a grant from the surface that owns the route
// (a handoff token, a signed-in owner, a watch link).

export interface LiveViewGrant {
  /** Null while there is nothing to show yet; `opened` then ends the connection once there is. */
  view: LiveView | null;
  mode: 'watch' | 'control';
  /** Called once the socket is open; returns what to do when it closes (e.g. unsubscribe). */
  opened?(connection: LiveViewConnection): () => void;
  /** The tab closed under the viewer, or stopped being watchable (default: tell the viewer and close). */
  onViewEnded?(connection: LiveViewConnection, reason: ViewEnd): void;
  /** The tab is on another node: the socket is piped there instead of served here (src/cluster/relay.ts). */
  relay?(socket: PipeSocket & Socket): void;
}

export type LiveViewRefusal = { refused: 403 | 404 | 410; message: string };
/** A refused handshake answers in the app-wide envelope, {error, message}. */
const REFUSAL_CODES: Record<LiveViewRefusal['refused'], string> = { 403: 'forbidden', 404: 'not_found', 410: 'gone' };

export type AuthorizeLiveView = (request: FastifyRequest) => Promise<LiveViewGrant | LiveViewRefusal>;

export const LIVE_VIEW_CLIENT_PATH = '/live-view/client.js';

/** Serves the client script (same origin, so the pages' CSP can stay at 'self'). */
export function liveViewClientRoute(app: FastifyInstance): void {
  app.get(LIVE_VIEW_CLIENT_PATH, async (_request, reply) => sendAsset(reply, 'js', LIVE_VIEW_SCRIPT));
}

declare module 'fastify' {
  interface FastifyRequest {
    /** What the handshake of a live-view socket was granted (its preValidation), for the socket's handler. */
    liveViewGrant: LiveViewGrant | null;
  }
}

/**
 * A WebSocket route carrying one live view. Cookies ride along on a cross-site WebSocket handshake,
 * so a page elsewhere could otherwise open the view as the signed-in person: any `Origin` but the
 * service's own is refused before the upgrade, as is a handshake without one.
 */
export function liveViewSocketRoute(app: FastifyInstance, path: string, options: { allowedOrigin: string | null; authorize: AuthorizeLiveView }): void {
  // Several live-view routes share an app (the handoff's and the watch view's).
  if (!app.hasRequestDecorator('liveViewGrant')) app.decorateRequest('liveViewGrant', null);
  app.get(path, {
    websocket: true,
    preValidation: async (request, reply) => {
      // null: a node's internal port, where every call is signed instead (src/cluster/internal-server.ts).
      if (options.allowedOrigin !== null && request.headers.origin !== options.allowedOrigin) {
        return reply.code(403).type('application/json; charset=utf-8').send({ error: 'forbidden_origin', message: 'this live view opens only from the page that serves it' });
      }
      const result = await options.authorize(request);
      if ('refused' in result) return reply.code(result.refused).type('application/json; charset=utf-8').send({ error: REFUSAL_CODES[result.refused], message: result.message });
      request.liveViewGrant = result;
    },
  }, (socket, request) => {
    const grant = request.liveViewGrant;
    request.liveViewGrant = null;
    if (!grant) {
      socket.close(1008, 'not authorized');
      return;
    }
    if (grant.relay) {
      grant.relay(socket as unknown as PipeSocket & Socket);
      return;
    }
    // What to undo at close is known only once the connection exists.
    const undo: { release?: () => void } = {};
    const connection = serveLiveView(socket as unknown as Socket, grant.view, grant.mode, {
      onViewEnded: grant.onViewEnded,
      onClose: () => undo.release?.(),
    });
    undo.release = grant.opened?.(connection);
    if (connection.closed) undo.release?.();
  });
}
