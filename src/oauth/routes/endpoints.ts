import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Kysely } from 'kysely';
import type { DB } from '../../db/schema.ts';
import { registerClient, type RegistrationPolicy } from '../register.ts';
import { exchangeToken, type TokenDeps } from '../token.ts';
import { revokeToken } from '../revoke.ts';
import type { Limit } from '../../limits/counter.ts';
import { limitBySource } from '../../limits/by-source.ts';
import { formParams, presentedCredentials } from './credentials.ts';
import { OAuthError } from '../errors.ts';

// The endpoints clients call directly: registration, token, revocation. They are open to
// browser-based clients of any origin (MCP Inspector, single-page apps): nothing here relies on
// cookies, so CORS without credentials exposes nothing.

export interface EndpointDeps {
  db: Kysely<DB>;
  /** Failed client authentications (src/oauth/lockout.ts). */
  lockout: Limit;
  refreshes: TokenDeps['refreshes'];
  documents: TokenDeps['documents'];
  policy: RegistrationPolicy;
  /** Registrations per source address. */
  registerLimit: Limit;
}

function noStore(reply: FastifyReply): FastifyReply {
  return reply.header('cache-control', 'no-store').header('pragma', 'no-cache');
}

export function clientEndpointRoutes(app: FastifyInstance, deps: EndpointDeps): void {
  const { db, lockout, policy } = deps;
  const paths = ['/oauth/register', '/oauth/token', '/oauth/revoke'];
  app.addHook('onRequest', async (request, reply) => {
    if (paths.includes(request.url.split('?')[0]!)) reply.header('access-control-allow-origin', '*');
  });
  for (const url of paths) {
    app.options(url, async (_request, reply) =>
      reply
        .code(204)
        .header('access-control-allow-methods', 'POST')
        .header('access-control-allow-headers', 'authorization, content-type, mcp-protocol-version')
        .header('access-control-max-age', '86400')
        .send(),
    );
  }

  app.post('/oauth/register', { onRequest: limitBySource(db, deps.registerLimit) }, async (request, reply) => {
    if (!/^application\/json(\s*;|$)/i.test(String(request.headers['content-type'] ?? ''))) {
      throw new OAuthError('invalid_client_metadata', 'send the client metadata as application/json');
    }
    const registration = await registerClient(db, policy, request.body);
    return noStore(reply).code(201).send(registration);
  });

  app.post('/oauth/token', async (request: FastifyRequest, reply) => {
    const params = formParams(request);
    const tokens = await exchangeToken(deps, presentedCredentials(request, params), params);
    return noStore(reply).send(tokens);
  });

  app.post('/oauth/revoke', async (request: FastifyRequest, reply) => {
    const params = formParams(request);
    await revokeToken(db, lockout, presentedCredentials(request, params), params);
    return noStore(reply).code(200).send();
  });
}
