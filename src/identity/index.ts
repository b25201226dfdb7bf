import type { FastifyInstance } from 'fastify';
import cookie from '@fastify/cookie';
import fp from 'fastify-plugin';
import type { Services } from '../services.ts';
import { createDevIdentityProvider, DEV_IDP_PATH } from './dev-idp.ts';
import { RelyingParty } from './relying-party.ts';
import { identityRoutes } from './routes.ts';
import { identityCookies } from './cookies.ts';

export { currentUser, csrfToken, sameOriginWithToken, redirectToSignIn } from './current-user.ts';
export { safeReturnTo, signInPath } from './return-to.ts';

/**
 * People: sign-in through an OpenID Connect provider, web sessions, and (outside production, when
 * no provider is configured) the development provider. Decorates the app with `identity`, which
 * currentUser() and the other page helpers read.
 */
async function identity(app: FastifyInstance, opts: { services: Services }): Promise<void> {
  const { config } = opts.services;
  if (!app.hasRequestDecorator('cookies')) await app.register(cookie);
  app.decorateRequest('sessionUserLookup', null);
  app.decorate('identity', {
    db: opts.services.db,
    baseUrl: config.BASE_URL,
    cookies: identityCookies(config.BASE_URL.startsWith('https:')),
  });

  const redirectUri = `${config.BASE_URL}/signin/callback`;
  let devIdp = null;
  let relyingParty: RelyingParty;
  if (config.OIDC_ISSUER) {
    relyingParty = new RelyingParty({
      issuer: config.OIDC_ISSUER,
      clientId: config.OIDC_CLIENT_ID!,
      clientSecret: config.OIDC_CLIENT_SECRET!,
      redirectUri,
      allowHttp: config.NODE_ENV !== 'production',
    });
  } else {
    // loadConfig already refuses this in production; a second guard where the danger is.
    if (config.NODE_ENV === 'production') throw new Error('the development identity provider is refused in production mode: set OIDC_ISSUER');
    devIdp = await createDevIdentityProvider({ issuer: `${config.BASE_URL}${DEV_IDP_PATH}`, redirectUris: [redirectUri], behindProxy: config.TRUST_PROXY });
    relyingParty = new RelyingParty({ issuer: devIdp.issuer, clientId: devIdp.clientId, clientSecret: devIdp.clientSecret, redirectUri, allowHttp: true });
  }
  await app.register(identityRoutes, { services: opts.services, relyingParty, devIdp });
}

export const identityPlugin = fp(identity, { name: 'concierge-identity' });
