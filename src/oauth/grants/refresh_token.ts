import { sql, type Kysely } from 'kysely';
import type { DB } from '../../db/schema.ts';
import { sha256 } from '../../security/secrets.ts';
import type { ClientRow } from '../clients.ts';
import { OAuthError } from '../errors.ts';
import { formatScope, parseScopeParameter, scopeCovers } from '../scopes.ts';
import { ACCESS_TOKEN_TTL_SECONDS, mint, REFRESH_TOKEN_TTL_SECONDS, secondsFromNow } from '../tokens.ts';
import { requestedResource, wrongResource } from './resource.ts';
import type { GrantParams, TokenResponse } from './token-response.ts';

// grant_type=refresh_token (RFC 6749 §6) with rotation on every use. The presented token is
// retired by one conditional UPDATE that also writes its successors: of N parallel refreshes
// exactly one succeeds. A retired token presented again means two parties hold it (RFC 9700
// §4.14.2): the whole family (every token descended from the same code) is revoked.

/** The request's refresh token, the scope it asks for and the resource it names (RFC 8707). */
export function refreshParams(params: GrantParams): { token: string; wanted: string[]; narrowed: string | null; resource: string | null } {
  const token = params.refresh_token;
  if (!token) throw new OAuthError('invalid_request', 'refresh_token is required');
  let wanted: string[] = [];
  if (params.scope !== undefined && params.scope !== '') {
    const parsed = parseScopeParameter(params.scope);
    if (parsed === null) throw new OAuthError('invalid_scope', "scope must be space-separated scopes out of 'book read'");
    wanted = parsed;
  }
  // A narrower scope applies to the new access token; the refresh token keeps its own (RFC 6749 §6).
  return { token, wanted, narrowed: wanted.length ? formatScope(wanted) : null, resource: requestedResource(params) };
}

/** The one-by-one path (see refresh-batch.ts for the fast one): rotates, or says exactly why not. */
export async function refreshTokens(db: Kysely<DB>, client: ClientRow, params: GrantParams): Promise<TokenResponse> {
  if (!client.grant_types.includes('refresh_token')) throw new OAuthError('unauthorized_client', 'this client is not registered for the refresh_token grant');
  const { token, wanted, narrowed, resource } = refreshParams(params);

  const tokenHash = sha256(token);
  const access = mint('cat_');
  const refresh = mint('crt_');
  const accessExpires = secondsFromNow(ACCESS_TOKEN_TTL_SECONDS);
  const refreshExpires = secondsFromNow(REFRESH_TOKEN_TTL_SECONDS);

  const { rows } = await sql<{ scope: string; access_scope: string }>`
    with old as (
      update oauth_refresh_tokens r set rotated_at = now()
      from oauth_token_families f
      where r.token_hash = ${tokenHash} and r.rotated_at is null and r.revoked_at is null and r.expires_at > now()
        and f.id = r.family_id and f.revoked_at is null and f.client_id = ${client.client_id}
        and (${resource}::text is null or f.resource = ${resource})
        -- "offset 0" keeps this a primary-key lookup whatever the planner guesses (PGlite keeps no statistics)
        and exists (select 1 from oauth_grants g where g.id = f.grant_id and g.revoked_at is null offset 0)
        and string_to_array(r.scope, ' ') @> string_to_array(${wanted.join(' ')}::text, ' ')
      returning r.family_id, r.scope, coalesce(${narrowed}::text, r.scope) as access_scope
    ), a as (
      insert into oauth_access_tokens (token_hash, family_id, scope, expires_at)
      select ${access.hash}, family_id, access_scope, ${accessExpires} from old
    ), n as (
      insert into oauth_refresh_tokens (token_hash, family_id, scope, expires_at)
      select ${refresh.hash}, family_id, scope, ${refreshExpires} from old
    )
    select scope, access_scope from old`.execute(db);
  const issued = rows[0];
  if (issued) {
    return { access_token: access.value, token_type: 'Bearer', expires_in: ACCESS_TOKEN_TTL_SECONDS, refresh_token: refresh.value, scope: issued.access_scope };
  }
  throw await whyNot(db, client, tokenHash, wanted, resource);
}

async function whyNot(db: Kysely<DB>, client: ClientRow, tokenHash: string, wanted: string[], resource: string | null): Promise<OAuthError> {
  const row = await db
    .selectFrom('oauth_refresh_tokens as r')
    .innerJoin('oauth_token_families as f', 'f.id', 'r.family_id')
    .innerJoin('oauth_grants as g', 'g.id', 'f.grant_id')
    .select(['r.family_id', 'r.scope', 'r.expires_at', 'r.rotated_at', 'r.revoked_at', 'f.client_id', 'f.resource', 'f.revoked_at as family_revoked_at', 'g.revoked_at as grant_revoked_at'])
    .where('r.token_hash', '=', tokenHash)
    .executeTakeFirst();
  // Another client's token is treated as unknown: it is neither used nor revoked on its behalf.
  if (!row || row.client_id !== client.client_id) return new OAuthError('invalid_grant', 'the refresh token is invalid');
  if (resource !== null && row.resource !== resource) return wrongResource(row.resource);
  if (row.rotated_at !== null) {
    await db.updateTable('oauth_token_families').set({ revoked_at: sql<Date>`now()` }).where('id', '=', row.family_id).where('revoked_at', 'is', null).execute();
    return new OAuthError('invalid_grant', 'the refresh token was already used; every token of its family is now revoked');
  }
  if (row.revoked_at !== null || row.family_revoked_at !== null || row.grant_revoked_at !== null) return new OAuthError('invalid_grant', 'the refresh token has been revoked');
  if (row.expires_at.getTime() <= Date.now()) return new OAuthError('invalid_grant', 'the refresh token has expired');
  if (!scopeCovers(row.scope, wanted)) return new OAuthError('invalid_scope', `the requested scope is wider than the one granted ('${row.scope}')`);
  // Claimed by a concurrent request between our update and this read.
  return new OAuthError('invalid_grant', 'the refresh token was already used');
}
