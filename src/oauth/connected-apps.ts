import { sql, type Kysely } from 'kysely';
import type { DB } from '../db/schema.ts';
import { scopeList } from './scopes.ts';

/** An application a person has granted access to, as the connected-apps page lists it. */
export interface ConnectedApp {
  grantId: number;
  clientId: string;
  clientName: string | null;
  clientUri: string | null;
  scopes: string[];
  grantedAt: Date;
  lastUsedAt: Date | null;
}

export async function listConnectedApps(db: Kysely<DB>, userId: number): Promise<ConnectedApp[]> {
  const rows = await db
    .selectFrom('oauth_grants as g')
    .innerJoin('oauth_clients as c', 'c.client_id', 'g.client_id')
    .select(['g.id', 'g.client_id', 'c.client_name', 'c.client_uri', 'g.scope', 'g.created_at', 'g.last_used_at'])
    .where('g.user_id', '=', userId)
    .where('g.revoked_at', 'is', null)
    .orderBy('g.created_at', 'desc')
    .execute();
  return rows.map((r) => ({
    grantId: r.id,
    clientId: r.client_id,
    clientName: r.client_name,
    clientUri: r.client_uri,
    scopes: scopeList(r.scope),
    grantedAt: r.created_at,
    lastUsedAt: r.last_used_at,
  }));
}

/**
 * Ends a person's grant to an app. Every access and refresh token issued under it stops working at
 * once: token checks join the grant. false when the grant is not this person's or already ended.
 */
export async function revokeGrant(db: Kysely<DB>, userId: number, grantId: number): Promise<boolean> {
  const result = await db
    .updateTable('oauth_grants')
    .set({ revoked_at: sql<Date>`now()` })
    .where('id', '=', grantId)
    .where('user_id', '=', userId)
    .where('revoked_at', 'is', null)
    .executeTakeFirst();
  return result.numUpdatedRows > 0n;
}

/**
 * Records that an app used its access (an access token accepted at the resource), at most once a
 * minute per grant, off the request's path: the connected-apps page shows it as "last used".
 */
export function touchGrant(db: Kysely<DB>, grantId: number, lastUsedAt: Date | null): void {
  if (lastUsedAt && Date.now() - lastUsedAt.getTime() < 60_000) return;
  void db.updateTable('oauth_grants').set({ last_used_at: sql<Date>`now()` }).where('id', '=', grantId).execute().catch(() => {});
}
