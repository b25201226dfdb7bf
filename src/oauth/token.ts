import type { Kysely } from 'kysely';
import type { DB } from '../db/schema.ts';
import { authenticateClient, type PresentedCredentials } from './client-auth.ts';
import { OAuthError } from './errors.ts';
import { redeemAuthorizationCode } from './grants/authorization_code.ts';
import { refreshTokens } from './grants/refresh_token.ts';
import type { GrantParams, TokenResponse } from './grants/token-response.ts';
import type { FailureThrottle } from './throttle.ts';

const GRANTS = {
  authorization_code: redeemAuthorizationCode,
  refresh_token: refreshTokens,
} as const;

/** POST /oauth/token: authenticate the client, then run the grant it asks for. */
export async function exchangeToken(
  db: Kysely<DB>,
  throttle: FailureThrottle,
  credentials: PresentedCredentials,
  params: GrantParams,
): Promise<TokenResponse> {
  const grantType = params.grant_type;
  if (!grantType) throw new OAuthError('invalid_request', 'grant_type is required');
  if (!Object.hasOwn(GRANTS, grantType)) throw new OAuthError('unsupported_grant_type', `grant_type ${JSON.stringify(grantType.slice(0, 60))} is not supported; use authorization_code or refresh_token`);
  const client = await authenticateClient(db, throttle, credentials);
  return GRANTS[grantType as keyof typeof GRANTS](db, client, params);
}
