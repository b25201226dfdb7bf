import { sql, type Kysely } from 'kysely';
import type { DB } from '../db/schema.ts';

// Housekeeping of the authorization server and of web sessions, run on a pg-boss schedule.
// Expired artefacts are useless (every check also compares the expiry), so deleting them only
// keeps the tables small. Rotated refresh tokens are kept until they expire: a rotated token
// presented again must still be recognised as reuse.

/** Dynamically registered and metadata-document clients that never completed an authorization are removed after this. */
export const UNUSED_CLIENT_DAYS = 30;

export interface PurgeCounts {
  authorizationRequests: number;
  codes: number;
  accessTokens: number;
  refreshTokens: number;
  families: number;
  sessions: number;
  unusedClients: number;
}

export async function purgeExpired(db: Kysely<DB>): Promise<PurgeCounts> {
  const count = (r: { numDeletedRows: bigint }) => Number(r.numDeletedRows);
  const now = sql<Date>`now()`;
  const authorizationRequests = count(await db.deleteFrom('oauth_authorization_requests').where('expires_at', '<', now).executeTakeFirst());
  const codes = count(await db.deleteFrom('oauth_codes').where('expires_at', '<', now).executeTakeFirst());
  const accessTokens = count(await db.deleteFrom('oauth_access_tokens').where('expires_at', '<', now).executeTakeFirst());
  const refreshTokens = count(await db.deleteFrom('oauth_refresh_tokens').where('expires_at', '<', now).executeTakeFirst());
  // A family with no tokens left and no code that could still be replayed is history.
  const families = count(
    await db
      .deleteFrom('oauth_token_families as f')
      .where('f.created_at', '<', sql<Date>`now() - interval '1 day'`)
      .where(({ not, exists, selectFrom }) =>
        not(exists(selectFrom('oauth_access_tokens as a').select('a.token_hash').whereRef('a.family_id', '=', 'f.id'))),
      )
      .where(({ not, exists, selectFrom }) =>
        not(exists(selectFrom('oauth_refresh_tokens as r').select('r.token_hash').whereRef('r.family_id', '=', 'f.id'))),
      )
      .executeTakeFirst(),
  );
  const sessions = count(await db.deleteFrom('web_sessions').where('expires_at', '<', now).executeTakeFirst());
  const unusedClients = count(
    await db
      .deleteFrom('oauth_clients')
      // Clients nobody vouches for: dynamic registrations, and metadata documents fetched at an
      // authorization that never completed (fetched again should that client come back).
      .where('registration', 'in', ['dynamic', 'metadata_document'])
      .where('first_authorized_at', 'is', null)
      .where('created_at', '<', sql<Date>`now() - make_interval(days => ${UNUSED_CLIENT_DAYS})`)
      .executeTakeFirst(),
  );
  return { authorizationRequests, codes, accessTokens, refreshTokens, families, sessions, unusedClients };
}
