import type { Kysely } from 'kysely';
import type { Batcher } from '../db/batcher.ts';
import type { DB } from '../db/schema.ts';
import { sha256 } from '../security/secrets.ts';
import { claimClient, verifyClientClaim, type PresentedCredentials } from './client-auth.ts';
import { ClientDocumentError, isDocumentClientId, resolveDocumentClient, type DocumentPolicy } from './client-documents.ts';
import { OAuthError } from './errors.ts';
import { redeemAuthorizationCode } from './grants/authorization_code.ts';
import type { RefreshItem } from './grants/refresh-batch.ts';
import { refreshParams, refreshTokens } from './grants/refresh_token.ts';
import type { GrantParams, TokenResponse } from './grants/token-response.ts';
import type { Limit } from '../limits/counter.ts';

export interface TokenDeps {
  db: Kysely<DB>;
  /** Failed client authentications (src/oauth/lockout.ts). */
  lockout: Limit;
  refreshes: Batcher<RefreshItem, TokenResponse | null>;
  documents: DocumentPolicy;
}

/** POST /oauth/token: authenticate the client, then run the grant it asks for. */
export async function exchangeToken(deps: TokenDeps, credentials: PresentedCredentials, params: GrantParams): Promise<TokenResponse> {
  const { db, lockout } = deps;
  const grantType = params.grant_type;
  if (!grantType) throw new OAuthError('invalid_request', 'grant_type is required');
  if (grantType !== 'authorization_code' && grantType !== 'refresh_token') {
    throw new OAuthError('unsupported_grant_type', `grant_type '${grantType.slice(0, 60)}' is not supported; use authorization_code or refresh_token`);
  }
  const claim = claimClient(credentials);
  // A metadata document client is fetched again when its cached document has expired: a client
  // whose document is gone or no longer valid gets no more tokens.
  if (isDocumentClientId(claim.clientId)) {
    try {
      await resolveDocumentClient(db, deps.documents, claim.clientId, { knownOnly: true });
    } catch (error) {
      if (error instanceof ClientDocumentError) throw new OAuthError('invalid_client', error.message);
      throw error;
    }
  }
  if (grantType === 'refresh_token') {
    // The common case (a valid client rotating a valid token) is one batched statement; anything
    // else is decided one by one below, with the precise error. A malformed request skips the
    // batch: it is refused by refreshTokens, after the client has authenticated, so a client
    // learns nothing about its request before proving who it is.
    const request = wellFormed(() => refreshParams(params));
    if (request) {
      const { token, wanted, narrowed, resource } = request;
      const rotated = await deps.refreshes.submit({ claim, tokenHash: sha256(token), wanted, narrowed, resource }).catch(() => null);
      if (rotated) return rotated;
    }
  }
  const client = await verifyClientClaim(db, lockout, claim);
  return grantType === 'refresh_token' ? refreshTokens(db, client, params) : redeemAuthorizationCode(db, client, params);
}

/** The parsed request, or null when it is malformed (an OAuthError, raised again where it is answered). */
function wellFormed<T>(parse: () => T): T | null {
  try {
    return parse();
  } catch (error) {
    if (error instanceof OAuthError) return null;
    throw error;
  }
}
