import type { FastifyInstance, FastifyReply } from 'fastify';
import { authorizationServerMetadata, protectedResourceMetadata } from '../metadata.ts';

// Public discovery documents: any origin may read them (browser-based clients discover too), and
// they may be cached briefly.
function publicJson(reply: FastifyReply, body: unknown): unknown {
  return reply
    .header('access-control-allow-origin', '*')
    .header('cache-control', 'public, max-age=300')
    .type('application/json; charset=utf-8')
    .send(body);
}

export function wellKnownRoutes(app: FastifyInstance, issuer: string): void {
  const as = authorizationServerMetadata(issuer);
  const pr = protectedResourceMetadata(issuer);
  app.get('/.well-known/oauth-authorization-server', async (_request, reply) => publicJson(reply, as));
  // RFC 9728 §3.1: the path-inserted location for the resource /api/mcp, and the bare one.
  for (const url of ['/.well-known/oauth-protected-resource', '/.well-known/oauth-protected-resource/api/mcp']) {
    app.get(url, async (_request, reply) => publicJson(reply, pr));
  }
  for (const url of ['/.well-known/oauth-authorization-server', '/.well-known/oauth-protected-resource', '/.well-known/oauth-protected-resource/api/mcp']) {
    app.options(url, async (_request, reply) =>
      reply.code(204).header('access-control-allow-origin', '*').header('access-control-allow-methods', 'GET').header('access-control-max-age', '86400').send(),
    );
  }
}
