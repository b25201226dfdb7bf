import { sql, type Kysely } from 'kysely';
import type { DB } from '../db/schema.ts';
import { sha256 } from '../security/secrets.ts';
import { authenticateClient, type PresentedCredentials } from './client-auth.ts';
import { OAuthError } from './errors.ts';
import type { Limit } from '../limits/counter.ts';

// POST /oauth/revoke (RFC 7009). Revokes the one token presented, if it belongs to the client
// that presents it: revoking an access token leaves its refresh token alive, and the reverse (the
// contract's rule). Unknown, foreign and already revoked tokens are answered the same way, so the
// endpoint tells nobody whether a token exists.

export async function revokeToken(
  db: Kysely<DB>,
  lockout: Limit,
  credentials: PresentedCredentials,
  params: { token?: string; token_type_hint?: string },
): Promise<void> {
  const client = await authenticateClient(db, lockout, credentials);
  if (!params.token) throw new OAuthError('invalid_request', 'token is required');
  const hash = sha256(params.token);
  const tables = params.token_type_hint === 'refresh_token' ? (['oauth_refresh_tokens', 'oauth_access_tokens'] as const) : (['oauth_access_tokens', 'oauth_refresh_tokens'] as const);
  for (const table of tables) {
    // The token by its hash, then its family by primary key: only the owning client may revoke it.
    const result = await db
      .updateTable(table)
      .set({ revoked_at: sql<Date>`now()` })
      .where('token_hash', '=', hash)
      .where('revoked_at', 'is', null)
      .where(({ exists, selectFrom }) =>
        exists(selectFrom('oauth_token_families as f').select(sql`1`.as('one')).whereRef('f.id', '=', `${table}.family_id`).where('f.client_id', '=', client.client_id)),
      )
      .executeTakeFirst();
    if (result.numUpdatedRows > 0n) return;
  }
}
