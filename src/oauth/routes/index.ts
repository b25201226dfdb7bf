import type { FastifyInstance } from 'fastify';
import formbody from '@fastify/formbody';
import type { Services } from '../../services.ts';
import { protectedBrands } from '../brands.ts';
import { resourceFor } from '../metadata.ts';
import { CLIENT_AUTH_LOCKOUT } from '../lockout.ts';
import { documentPolicy } from '../client-documents.ts';
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
  app.setErrorHandler(oauthErrorHandler(opts.services.database, issuer));
  // Text PostgreSQL cannot store, in any parameter, is the client's mistake: refused before any lookup.
  app.addHook('preHandler', async (request) => refuseUnstorable(request));

  wellKnownRoutes(app, issuer);
  // Limits are counted in the database, once across every node (src/limits/).
  const registerLimit = { name: 'oauth.register', max: config.OAUTH_REGISTER_RATE_LIMIT, windowSeconds: 60 };
  clientEndpointRoutes(app, { db, lockout: CLIENT_AUTH_LOCKOUT, refreshes: refreshBatcher(db, opts.services.database.backend), documents, policy, registerLimit });
  authorizationPageRoutes(app, db, { issuer, resource: resourceFor(issuer), documents }, { name: 'oauth.authorize', max: config.OAUTH_AUTHORIZE_RATE_LIMIT, windowSeconds: 60 });
}
