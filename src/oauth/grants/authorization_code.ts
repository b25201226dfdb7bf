import { randomUUID } from 'node:crypto';
import { sql, type Kysely } from 'kysely';
import type { DB } from '../../db/schema.ts';
import { sha256 } from '../../security/secrets.ts';
import type { ClientRow } from '../clients.ts';
import { OAuthError } from '../errors.ts';
import { ACCESS_TOKEN_TTL_SECONDS, CODE_VERIFIER, mint, REFRESH_TOKEN_TTL_SECONDS, s256, secondsFromNow } from '../tokens.ts';
import { requestedResource, wrongResource } from './resource.ts';
import type { GrantParams, TokenResponse } from './token-response.ts';

// grant_type=authorization_code (RFC 6749 §4.1.3, RFC 7636 §4.6). The code is claimed by one
// conditional UPDATE that also checks its client, redirect_uri, PKCE challenge and, when the
// request names one, its resource (RFC 8707), and the tokens are written by the same statement: of
// N parallel redemptions exactly one gets tokens, and a code is never burnt by a request that
// could not have redeemed it (a stolen code without its verifier).

export async function redeemAuthorizationCode(db: Kysely<DB>, client: ClientRow, params: GrantParams): Promise<TokenResponse> {
  const { code, redirect_uri: redirectUri, code_verifier: verifier } = params;
  if (!code) throw new OAuthError('invalid_request', 'code is required');
  if (!redirectUri) throw new OAuthError('invalid_request', 'redirect_uri is required and must be the one sent to the authorization endpoint');
  if (!verifier) throw new OAuthError('invalid_request', 'code_verifier is required (PKCE)');
  if (!CODE_VERIFIER.test(verifier)) throw new OAuthError('invalid_request', 'code_verifier must be 43 to 128 characters of A-Z a-z 0-9 - . _ ~');

  const resource = requestedResource(params);
  const codeHash = sha256(code);
  const challenge = s256(verifier);
  const familyId = randomUUID();
  const access = mint('cat_');
  const refresh = client.grant_types.includes('refresh_token') ? mint('crt_') : null;
  const accessExpires = secondsFromNow(ACCESS_TOKEN_TTL_SECONDS);
  const refreshExpires = secondsFromNow(REFRESH_TOKEN_TTL_SECONDS);

  const { rows } = await sql<{ scope: string }>`
    with c as (
      update oauth_codes set redeemed_at = now(), family_id = ${familyId}
      where code_hash = ${codeHash} and redeemed_at is null and expires_at > now()
        and client_id = ${client.client_id} and redirect_uri = ${redirectUri} and code_challenge = ${challenge}
        and (${resource}::text is null or resource = ${resource})
        -- "offset 0" keeps this a primary-key lookup whatever the planner guesses (PGlite keeps no statistics)
        and exists (select 1 from oauth_grants g where g.id = oauth_codes.grant_id and g.revoked_at is null offset 0)
      returning grant_id, scope, resource
    ), f as (
      insert into oauth_token_families (id, grant_id, client_id, resource)
      select ${familyId}, grant_id, ${client.client_id}, resource from c
      returning id
    ), a as (
      insert into oauth_access_tokens (token_hash, family_id, scope, expires_at)
      select ${access.hash}, f.id, c.scope, ${accessExpires} from f, c
    ), r as (
      insert into oauth_refresh_tokens (token_hash, family_id, scope, expires_at)
      select ${refresh?.hash ?? ''}, f.id, c.scope, ${refreshExpires} from f, c where ${refresh !== null}
    )
    select scope from c`.execute(db);
  const issued = rows[0];
  if (issued) {
    return {
      access_token: access.value,
      token_type: 'Bearer',
      expires_in: ACCESS_TOKEN_TTL_SECONDS,
      ...(refresh ? { refresh_token: refresh.value } : {}),
      scope: issued.scope,
    };
  }
  throw await whyNot(db, client, codeHash, redirectUri, challenge, resource);
}

/** Explains a failed redemption; a replay that would otherwise have succeeded revokes its tokens. */
async function whyNot(db: Kysely<DB>, client: ClientRow, codeHash: string, redirectUri: string, challenge: string, resource: string | null): Promise<OAuthError> {
  const row = await db
    .selectFrom('oauth_codes as c')
    .innerJoin('oauth_grants as g', 'g.id', 'c.grant_id')
    .select(['c.client_id', 'c.redirect_uri', 'c.code_challenge', 'c.resource', 'c.expires_at', 'c.redeemed_at', 'c.family_id', 'g.revoked_at'])
    .where('c.code_hash', '=', codeHash)
    .executeTakeFirst();
  if (!row) return new OAuthError('invalid_grant', 'the authorization code is invalid');
  if (row.client_id !== client.client_id) return new OAuthError('invalid_grant', 'the authorization code was issued to another client');
  if (row.redirect_uri !== redirectUri) return new OAuthError('invalid_grant', 'redirect_uri does not match the one sent to the authorization endpoint');
  if (row.code_challenge !== challenge) return new OAuthError('invalid_grant', 'the PKCE code_verifier does not match the code_challenge');
  if (resource !== null && row.resource !== resource) return wrongResource(row.resource);
  if (row.redeemed_at !== null) {
    // RFC 9700 §4.2.4: a used code presented again means it leaked; the tokens it gave are revoked.
    if (row.family_id !== null) {
      await db.updateTable('oauth_token_families').set({ revoked_at: sql<Date>`now()` }).where('id', '=', row.family_id).where('revoked_at', 'is', null).execute();
    }
    return new OAuthError('invalid_grant', 'the authorization code was already used; the tokens issued from it are revoked');
  }
  if (row.revoked_at !== null) return new OAuthError('invalid_grant', 'the person revoked this application\'s access');
  return new OAuthError('invalid_grant', 'the authorization code has expired');
}
