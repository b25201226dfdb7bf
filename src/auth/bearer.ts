import type { Kysely } from 'kysely';
import type { DB } from '../db/schema.ts';
import { API_KEY_PATTERN, verifyApiKey, type ApiKeyPrincipal } from './api-keys.ts';

export type AuthErrorCode =
  | 'missing_authorization'
  | 'invalid_auth_scheme'
  | 'empty_api_key'
  | 'malformed_api_key'
  | 'invalid_api_key'
  | 'invalid_token'
  | 'auth_backend_unavailable';

/** Why a credential was refused; each surface renders it in its own envelope. */
export class AuthError extends Error {
  readonly code: AuthErrorCode;
  constructor(code: AuthErrorCode, message: string, cause?: unknown) {
    super(message, cause === undefined ? undefined : { cause });
    this.name = 'AuthError';
    this.code = code;
  }
}

/** Extracts the token of an `Authorization: Bearer` header (scheme case-insensitive, RFC 7235). */
export function parseBearer(header: string | undefined): string {
  if (header === undefined || header.trim() === '') throw new AuthError('missing_authorization', 'send Authorization: Bearer <API_KEY>');
  const match = /^(\S+)(?:\s+(.*))?$/.exec(header.trim());
  if (!match || match[1]!.toLowerCase() !== 'bearer') throw new AuthError('invalid_auth_scheme', 'the Authorization scheme must be Bearer');
  const token = (match[2] ?? '').trim();
  if (token === '') throw new AuthError('empty_api_key', 'the Bearer credential is empty');
  return token;
}

/** Verifies an API key: format first (no database lookup for a malformed key), then the store. */
export async function authenticateApiKey(db: Kysely<DB>, token: string): Promise<ApiKeyPrincipal> {
  if (!API_KEY_PATTERN.test(token)) throw new AuthError('malformed_api_key', 'the API key does not have the svk_(live|test)_… format');
  let principal: ApiKeyPrincipal | null;
  try {
    principal = await verifyApiKey(db, token);
  } catch (error) {
    // Fail closed: a credential that cannot be checked is never accepted. The cause is for the log.
    throw new AuthError('auth_backend_unavailable', 'the authentication backend is unavailable; retry with exponential backoff', error);
  }
  if (!principal) throw new AuthError('invalid_api_key', 'the API key is unknown or revoked');
  return principal;
}
