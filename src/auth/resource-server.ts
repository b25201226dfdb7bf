import type { Kysely } from 'kysely';
import type { DB } from '../db/schema.ts';
import { API_KEY_PATTERN, type ApiKeyPrincipal } from './api-keys.ts';
import { AuthError, authenticateApiKey, parseBearer } from './bearer.ts';
import { verifyAccessToken, type OAuthPrincipal } from '../oauth/access-token.ts';

/** Whoever a bearer credential on /api/mcp stands for. */
export type Principal = ApiKeyPrincipal | OAuthPrincipal;

/**
 * Validates the bearer credential of a /api/mcp request: an API key (svk_…) or an OAuth access
 * token. Throws AuthError: missing_authorization, invalid_token, auth_backend_unavailable.
 */
export async function authenticateBearer(db: Kysely<DB>, header: string | undefined, resource: string): Promise<Principal> {
  let token: string;
  try {
    token = parseBearer(header);
  } catch (error) {
    if (error instanceof AuthError && error.code === 'missing_authorization') throw error;
    throw new AuthError('invalid_token', 'send Authorization: Bearer <ACCESS_TOKEN>');
  }
  if (API_KEY_PATTERN.test(token)) {
    try {
      return await authenticateApiKey(db, token);
    } catch (error) {
      if (error instanceof AuthError && error.code === 'auth_backend_unavailable') throw error;
      throw new AuthError('invalid_token', 'the API key is unknown or revoked');
    }
  }
  let principal: OAuthPrincipal | null;
  try {
    principal = await verifyAccessToken(db, token, resource);
  } catch {
    throw new AuthError('auth_backend_unavailable', 'the authentication backend is unavailable; retry with exponential backoff');
  }
  if (!principal) throw new AuthError('invalid_token', 'the access token is invalid, expired or revoked');
  return principal;
}
