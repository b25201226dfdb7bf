import type { FastifyReply, FastifyRequest } from 'fastify';
import { authenticateApiKey, parseBearer } from '../../auth/bearer.ts';
import type { ApiKeyPrincipal } from '../../auth/api-keys.ts';
import type { Reader } from '../../jobs/types.ts';
import type { Services } from '../../services.ts';
import { apiKeyLimit, countRequest } from '../../limits/by-credential.ts';
import { rateLimitHeaders } from '../../limits/refusal.ts';
import { isPublicRoute } from './routes.ts';

const PRINCIPAL = Symbol('principal');
type WithPrincipal = FastifyRequest & { [PRINCIPAL]?: ApiKeyPrincipal };

/**
 * Every /api/v1 call carries an API key; the hook runs before any route, known or not, so an
 * unauthenticated caller learns nothing about which paths exist. The API's own documentation is
 * the one exception (routes marked public).
 */
export function apiKeyHook(services: Services) {
  const limit = apiKeyLimit(services.config.API_KEY_RATE_LIMIT);
  return async (request: FastifyRequest, reply: FastifyReply): Promise<void> => {
    if (isPublicRoute(request)) return;
    const token = parseBearer(request.headers.authorization);
    const principal = await authenticateApiKey(services.db, token);
    // Counted once authenticated, so nobody can spend a key's allowance without the key.
    reply.headers(rateLimitHeaders(limit, countRequest(services.db, limit, String(principal.apiKeyId), 'API key')));
    (request as WithPrincipal)[PRINCIPAL] = principal;
  };
}

export function principalOf(request: FastifyRequest): ApiKeyPrincipal {
  const principal = (request as WithPrincipal)[PRINCIPAL];
  if (!principal) throw new Error('apiKeyHook did not run for this route');
  return principal;
}

export function readerOf(request: FastifyRequest): Reader {
  return { kind: 'organization', organizationName: principalOf(request).organizationName };
}
