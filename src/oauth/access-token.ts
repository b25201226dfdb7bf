import type { Kysely } from 'kysely';
import type { DB } from '../db/schema.ts';

/** A user's delegation to an OAuth client, as carried by an access token. */
export interface OAuthPrincipal {
  kind: 'oauth';
  userId: number;
  clientId: string;
  grantId: number;
  scopes: Array<'book' | 'read'>;
}

/**
 * Resolves an opaque OAuth access token for the resource `resource` (the service's /api/mcp URL):
 * active, not expired, grant not revoked, audience this resource. null when it is none of those.
 * (Filled in by the authorization server; until then no access token exists to accept.)
 */
export async function verifyAccessToken(_db: Kysely<DB>, _token: string, _resource: string): Promise<OAuthPrincipal | null> {
  return null;
}
