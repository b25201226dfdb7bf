import { sql, type Kysely } from 'kysely';
import type { DB } from '../db/schema.ts';
import { digestsEqual, sha256 } from '../security/secrets.ts';
import { touchGrant } from './connected-apps.ts';
import { scopeList } from './scopes.ts';

/** A user's delegation to an OAuth client, as carried by an access token. */
export interface OAuthPrincipal {
  kind: 'oauth';
  userId: number;
  clientId: string;
  grantId: number;
  scopes: Array<'book' | 'read'>;
  /** The client's registered name, for audit messages and pages (may be absent). */
  clientName: string | null;
  /** When the access token stops working. */
  expiresAt: Date;
}

/**
 * Resolves an opaque OAuth access token for the resource `resource` (the service's /api/mcp URL):
 * active, not expired, grant not revoked, audience this resource. null when it is none of those.
 * A database failure propagates, so the caller fails closed.
 */
export async function verifyAccessToken(db: Kysely<DB>, token: string, resource: string): Promise<OAuthPrincipal | null> {
  if (!token.startsWith('cat_') || token.length > 200) return null;
  const hash = sha256(token);
  const row = await db
    .selectFrom('oauth_access_tokens as a')
    .innerJoin('oauth_token_families as f', 'f.id', 'a.family_id')
    .innerJoin('oauth_grants as g', 'g.id', 'f.grant_id')
    .innerJoin('oauth_clients as c', 'c.client_id', 'f.client_id')
    .select(['a.token_hash', 'a.scope', 'a.expires_at', 'f.resource', 'g.id as grant_id', 'g.user_id', 'g.last_used_at', 'c.client_id', 'c.client_name'])
    .where('a.token_hash', '=', hash)
    .where('a.revoked_at', 'is', null)
    .where('a.expires_at', '>', sql<Date>`now()`)
    .where('f.revoked_at', 'is', null)
    .where('g.revoked_at', 'is', null)
    .executeTakeFirst();
  if (!row || !digestsEqual(row.token_hash, hash) || row.resource !== resource) return null;
  touchGrant(db, row.grant_id, row.last_used_at);
  return {
    kind: 'oauth',
    userId: row.user_id,
    clientId: row.client_id,
    grantId: row.grant_id,
    scopes: scopeList(row.scope),
    clientName: row.client_name,
    expiresAt: row.expires_at,
  };
}
