import type { FastifyRequest } from 'fastify';
import { authenticateApiKey, parseBearer } from '../../auth/bearer.ts';
import type { ApiKeyPrincipal } from '../../auth/api-keys.ts';
import type { Reader } from '../../jobs/types.ts';
import type { Services } from '../../services.ts';
import { isPublicRoute } from './routes.ts';

const PRINCIPAL = Symbol('principal');
type WithPrincipal = FastifyRequest & { [PRINCIPAL]?: ApiKeyPrincipal };

/**
 * Every /api/v1 call carries an API key; the hook runs before any route, known or not, so an
 * unauthenticated caller learns nothing about which paths exist. The API's own documentation is
 * the one exception (routes marked public).
 */
export function apiKeyHook(services: Services) {
  return async (request: FastifyRequest): Promise<void> => {
    if (isPublicRoute(request)) return;
    const token = parseBearer(request.headers.authorization);
    (request as WithPrincipal)[PRINCIPAL] = await authenticateApiKey(services.db, token);
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
