import { sql, type Kysely } from 'kysely';
import type { DB } from '../db/schema.ts';
import { sha256 } from '../security/secrets.ts';
import { redirectWith } from './authorize.ts';
import { CODE_TTL_SECONDS, mint, secondsFromNow } from './tokens.ts';

// The person's answer on the consent page. It acts on the stored authorization request (client,
// redirect URI, scope, PKCE challenge, state), never on anything the browser posts besides the
// request id and the decision, and it can be decided once: the request is claimed by a single
// conditional update, so a replayed or doubled POST finds nothing to decide.

export interface Decision {
  requestId: string;
  userId: number;
  approve: boolean;
}

/** Where to send the browser, or null when the request is unknown, expired or already decided. */
export async function decideAuthorization(db: Kysely<DB>, issuer: string, decision: Decision): Promise<{ location: string } | null> {
  if (decision.requestId.length > 100) return null;
  return db.transaction().execute(async (trx) => {
    const request = await trx
      .updateTable('oauth_authorization_requests')
      .set({ decided_at: sql<Date>`now()` })
      .where('id_hash', '=', sha256(decision.requestId))
      .where('decided_at', 'is', null)
      .where('expires_at', '>', sql<Date>`now()`)
      .returningAll()
      .executeTakeFirst();
    if (!request) return null;
    if (!decision.approve) {
      return { location: redirectWith(request.redirect_uri, issuer, { error: 'access_denied', state: request.state }) };
    }
    // One active grant per person and app; approving again widens it to the union of the scopes.
    const grant = await trx
      .insertInto('oauth_grants')
      .values({ user_id: decision.userId, client_id: request.client_id, scope: request.scope })
      .onConflict((oc) =>
        oc
          .columns(['user_id', 'client_id'])
          .where('revoked_at', 'is', null)
          .doUpdateSet({
            scope: sql<string>`array_to_string(array(select distinct s from unnest(string_to_array(oauth_grants.scope, ' ') || string_to_array(excluded.scope, ' ')) as s order by s), ' ')`,
          }),
      )
      .returning('id')
      .executeTakeFirstOrThrow();
    const code = mint('cac_');
    await trx
      .insertInto('oauth_codes')
      .values({
        code_hash: code.hash,
        grant_id: grant.id,
        client_id: request.client_id,
        redirect_uri: request.redirect_uri,
        code_challenge: request.code_challenge,
        scope: request.scope,
        resource: request.resource,
        expires_at: secondsFromNow(CODE_TTL_SECONDS),
      })
      .execute();
    await trx
      .updateTable('oauth_clients')
      .set({ first_authorized_at: sql<Date>`now()` })
      .where('client_id', '=', request.client_id)
      .where('first_authorized_at', 'is', null)
      .execute();
    return { location: redirectWith(request.redirect_uri, issuer, { code: code.value, state: request.state }) };
  });
}
