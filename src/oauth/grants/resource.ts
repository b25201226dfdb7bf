import { OAuthError } from '../errors.ts';
import type { GrantParams } from './token-response.ts';

// RFC 8707 §2.2 at the token endpoint: a request may name the resource it wants tokens for. Every
// grant here is bound to one resource at the authorization endpoint (this service's /api/mcp,
// whether or not the client named it there), so a named resource must be that one.

/** The resource the token request names, or null when it names none. */
export function requestedResource(params: GrantParams): string | null {
  return params.resource ?? null;
}

export function wrongResource(bound: string): OAuthError {
  return new OAuthError('invalid_target', `resource must be ${bound}, the resource this authorization is bound to`);
}
