import type { FastifyInstance } from 'fastify';
import formbody from '@fastify/formbody';
import rateLimit from '@fastify/rate-limit';
import type { Services } from '../../services.ts';
import { protectedBrands } from '../brands.ts';
import { resourceFor } from '../metadata.ts';
import { documentPolicy } from '../client-documents.ts';
import { FailureThrottle } from '../throttle.ts';
import { refreshBatcher } from '../grants/refresh-batch.ts';
import { clientEndpointRoutes } from './endpoints.ts';
import { oauthErrorHandler } from './errors.ts';
import { refuseUnstorable } from '../../security/text.ts';
import { authorizationPageRoutes } from './pages.ts';
import { wellKnownRoutes } from './well-known.ts';

/** The OAuth 2.0 authorization server: discovery, registration, authorization, consent, token, revocation. */
export async function authorizationServer(app: FastifyInstance, opts: { services: Services }): Promise<void> {
  const { config, db } = opts.services;
  const issuer = config.BASE_URL;
  const policy = { brands: protectedBrands(config.PROTECTED_BRANDS, new URL(issuer).hostname) };
  const documents = documentPolicy(config.NODE_ENV, policy.brands);

  await app.register(formbody, { bodyLimit: 64 * 1024 });
  // In memory, per process: a deployment of several instances multiplies the allowance (docs/oauth.md).
  await app.register(rateLimit, {
    global: false,
    errorResponseBuilder: (_request, context) => ({ statusCode: 429, code: 'FST_RATE_LIMITED', message: `retry in ${Math.ceil(context.ttl / 1000)} s` }),
  });
  app.setErrorHandler(oauthErrorHandler(opts.services.database, issuer));
  // Text PostgreSQL cannot store, in any parameter, is the client's mistake: refused before any lookup.
  app.addHook('preHandler', async (request) => refuseUnstorable(request));

  wellKnownRoutes(app, issuer);
  clientEndpointRoutes(app, { db, throttle: new FailureThrottle(), refreshes: refreshBatcher(db), documents, policy, registerLimitPerMinute: config.OAUTH_REGISTER_RATE_LIMIT });
  authorizationPageRoutes(app, db, { issuer, resource: resourceFor(issuer), documents });
}
