import { generateKeyPairSync } from 'node:crypto';
import type Provider from 'oidc-provider';
import { randomSecret } from '../security/secrets.ts';
import { memoryAdapterFactory } from './dev-idp-store.ts';

// The development identity provider: a real OpenID Provider (node-oidc-provider) mounted inside the
// service at {BASE_URL}/dev-idp. Its sign-in page accepts any email, so the service signs in
// through it with openid-client exactly as it would through Google, on the very same code path.
// Everything is in memory and per process (keys, sessions, the one client); production mode
// refuses to start with it (see config.ts).

export const DEV_IDP_PATH = '/dev-idp';

export interface DevIdentityProvider {
  issuer: string;
  clientId: string;
  clientSecret: string;
  provider: Provider;
}

/** The email address a development sign-in accepts: something@something, nothing fancier. */
export const DEV_EMAIL = /^[^\s@<>"]{1,64}@[^\s@<>"]{1,190}$/;

/**
 * oidc-provider warns at import time that Node releases without an LTS codename are unsupported
 * (Node 24 before its LTS). The service runs on the pinned Node 24: that one line is dropped.
 */
async function loadProvider(): Promise<typeof Provider> {
  const warn = console.warn;
  console.warn = (...args: unknown[]) => {
    if (!String(args[0]).includes('Unsupported runtime')) warn(...args);
  };
  try {
    return (await import('oidc-provider')).default;
  } finally {
    console.warn = warn;
  }
}

export async function createDevIdentityProvider(options: { issuer: string; redirectUris: string[]; behindProxy: boolean; clientId?: string }): Promise<DevIdentityProvider> {
  const Provider = await loadProvider();
  const clientId = options.clientId ?? 'concierge';
  const clientSecret = randomSecret(32);
  const mountPath = new URL(options.issuer).pathname.replace(/\/$/, '');
  const { privateKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
  const provider = new Provider(options.issuer, {
    clients: [
      {
        client_id: clientId,
        client_secret: clientSecret,
        redirect_uris: options.redirectUris,
        grant_types: ['authorization_code'],
        response_types: ['code'],
        token_endpoint_auth_method: 'client_secret_basic',
        id_token_signed_response_alg: 'ES256',
      },
    ],
    jwks: { keys: [{ ...privateKey.export({ format: 'jwk' }), kid: randomSecret(8), alg: 'ES256', use: 'sig' }] },
    cookies: { keys: [randomSecret(32)] },
    pkce: { required: () => true },
    adapter: memoryAdapterFactory(),
    // Claims asked for by scope go into the ID token too: the service reads them from there.
    conformIdTokenClaims: false,
    ttl: { AuthorizationCode: 60, IdToken: 600, AccessToken: 600, Interaction: 600, Session: 86400, Grant: 86400 },
    claims: { openid: ['sub'], email: ['email', 'email_verified'], profile: ['name'] },
    features: { devInteractions: { enabled: false } },
    interactions: { url: (_ctx: unknown, interaction: { uid: string }) => `${mountPath}/interaction/${interaction.uid}` },
    // The account id is the email address itself: a development identity has nothing else.
    async findAccount(_ctx: unknown, id: string) {
      return {
        accountId: id,
        async claims() {
          return { sub: id, email: id, email_verified: true, name: id.split('@')[0] };
        },
      };
    },
    // The service is this provider's only client and asks for nothing sensitive: no consent screen.
    async loadExistingGrant(ctx: { oidc: { client: { clientId: string }; session: { accountId: string; grantIdFor(id: string): string | undefined } } }) {
      const existing = ctx.oidc.session.grantIdFor(ctx.oidc.client.clientId);
      if (existing) {
        const found = await provider.Grant.find(existing);
        if (found) return found;
      }
      const grant = new provider.Grant({ accountId: ctx.oidc.session.accountId, clientId: ctx.oidc.client.clientId });
      grant.addOIDCScope('openid email profile');
      await grant.save();
      return grant;
    },
    renderError(ctx: { type: string; body: string }, out: { error: string; error_description?: string }) {
      ctx.type = 'html';
      ctx.body = `<!doctype html><title>Sign-in error</title><p>${escapeHtml(out.error)}: ${escapeHtml(out.error_description ?? '')}</p>`;
    },
  });
  provider.proxy = options.behindProxy;
  // A path the provider does not serve would get Koa's plain-text 404: the app-wide envelope instead.
  provider.use(async (ctx, next) => {
    await next();
    if (ctx.status === 404 && ctx.body == null) {
      ctx.status = 404;
      ctx.type = 'application/json; charset=utf-8';
      ctx.body = { error: 'not_found', message: 'the development identity provider has no such page' };
    }
  });
  return { issuer: options.issuer, clientId, clientSecret, provider };
}

function escapeHtml(value: string): string {
  return value.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}
