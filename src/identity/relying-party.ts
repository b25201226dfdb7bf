import { createHmac } from 'node:crypto';
import * as oidc from 'openid-client';
import { randomSecret } from '../security/secrets.ts';

// Sign-in through any OpenID Connect provider (the relying-party side, with openid-client):
// authorization code flow with PKCE, state and nonce. The flow's secrets are all derived from one
// random value kept in a short-lived HttpOnly cookie, so nothing about a sign-in in progress is
// stored server-side and a callback is only accepted in the browser that started it.

export interface RelyingPartyOptions {
  issuer: string;
  clientId: string;
  clientSecret: string;
  redirectUri: string;
  /** http issuers are accepted outside production (the development provider, tests). */
  allowHttp: boolean;
}

export interface VerifiedIdentity {
  issuer: string;
  subject: string;
  email: string | null;
  name: string | null;
}

export class SignInError extends Error {
  override name = 'SignInError';
}

function derive(seed: string, purpose: string): string {
  return createHmac('sha256', seed).update(purpose).digest('base64url');
}

export class RelyingParty {
  readonly #options: RelyingPartyOptions;
  #configuration: Promise<oidc.Configuration> | null = null;

  constructor(options: RelyingPartyOptions) {
    this.#options = options;
  }

  get issuer(): string {
    return this.#options.issuer;
  }

  /** Discovery happens on first use (the provider may be this very server, not yet listening). */
  #config(): Promise<oidc.Configuration> {
    if (!this.#configuration) {
      const { issuer, clientId, clientSecret, allowHttp } = this.#options;
      this.#configuration = oidc
        .discovery(new URL(issuer), clientId, clientSecret, oidc.ClientSecretBasic(clientSecret), allowHttp && issuer.startsWith('http:') ? { execute: [oidc.allowInsecureRequests] } : undefined)
        .catch((error: unknown) => {
          this.#configuration = null;
          throw new SignInError(`the identity provider ${issuer} cannot be reached: ${(error as Error).message}`);
        });
    }
    return this.#configuration;
  }

  /** Where to send the browser, and the seed to keep in its cookie until the callback. */
  async begin(): Promise<{ url: string; seed: string }> {
    const config = await this.#config();
    const seed = randomSecret(32);
    const url = oidc.buildAuthorizationUrl(config, {
      redirect_uri: this.#options.redirectUri,
      scope: 'openid email profile',
      response_type: 'code',
      state: derive(seed, 'state'),
      nonce: derive(seed, 'nonce'),
      code_challenge: await oidc.calculatePKCECodeChallenge(derive(seed, 'pkce')),
      code_challenge_method: 'S256',
    });
    return { url: url.href, seed };
  }

  /** Redeems the callback (the full URL the provider sent the browser to) for a verified identity. */
  async complete(callbackUrl: URL, seed: string): Promise<VerifiedIdentity> {
    const config = await this.#config();
    let tokens;
    try {
      tokens = await oidc.authorizationCodeGrant(config, callbackUrl, {
        pkceCodeVerifier: derive(seed, 'pkce'),
        expectedState: derive(seed, 'state'),
        expectedNonce: derive(seed, 'nonce'),
        idTokenExpected: true,
      });
    } catch (error) {
      throw new SignInError(`the identity provider's answer was refused: ${(error as Error).message}`);
    }
    const claims = tokens.claims();
    if (!claims) throw new SignInError('the identity provider returned no ID token');
    // An email counts only when the provider vouches for it (email_verified): an address anyone can
    // type at an open provider must not name a person here, nor open the operator console.
    const verified = (c: Record<string, unknown>) => (typeof c.email === 'string' && c.email_verified === true ? c.email : null);
    let email = verified(claims);
    let name = typeof claims.name === 'string' ? claims.name : null;
    // Some providers put profile claims only in UserInfo; ask there when the ID token lacks them.
    if (email === null && config.serverMetadata().userinfo_endpoint) {
      const info = await oidc.fetchUserInfo(config, tokens.access_token, claims.sub).catch(() => null);
      if (info) email = verified(info);
      if (info && name === null && typeof info.name === 'string') name = info.name;
    }
    return { issuer: String(claims.iss), subject: claims.sub, email, name };
  }
}
