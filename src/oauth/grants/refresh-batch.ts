import { sql, type Kysely } from 'kysely';
import type { DB } from '../../db/schema.ts';
import type { Backend } from '../../db/index.ts';
import { Batcher } from '../../db/batcher.ts';
import { PLAN_PER_CALL } from '../../db/prepared-statements.ts';
import type { ClientClaim } from '../client-auth.ts';
import { ACCESS_TOKEN_TTL_SECONDS, mint, REFRESH_TOKEN_TTL_SECONDS, secondsFromNow } from '../tokens.ts';
import type { TokenResponse } from './token-response.ts';

// The fast path of the refresh_token grant: concurrent refreshes are rotated together, by one
// statement that authenticates each client, retires each presented token with a conditional
// update and writes each successor pair. An item it cannot rotate (wrong secret, token used,
// revoked, expired, wider scope, another resource…) comes back null and takes the one-by-one path, which says why.
//
// The client secret is checked here, in SQL, in constant time like everywhere else: the two
// SHA-256 digests are XORed as 256-bit strings and the set bits counted, which reads every bit
// (an `=` would stop at the first differing character).

export interface RefreshItem {
  claim: ClientClaim;
  tokenHash: string;
  /** Scopes asked for (empty: the token's own). */
  wanted: string[];
  /** The access token's scope when a narrower one was asked for. */
  narrowed: string | null;
  /** The resource the request names (RFC 8707), which must be the family's; null when none. */
  resource: string | null;
}

/**
 * While batches are in flight, the next refreshes gather into one bigger batch. On PostgreSQL two
 * are in flight: one executes while the other's commit waits for its WAL flush (bench/oauth-token:
 * 7 853 against 6 158 grants/s with one, 2026-11-28). On PGlite statements run one after another on
 * its one connection anyway, so a second batch in flight would only split the next one in two.
 * (Four in flight were once measured at half the throughput of one, but that was while each batch
 * also seq-scanned the token table: see PLAN_PER_CALL below.)
 */
export function refreshBatcher(db: Kysely<DB>, backend: Backend): Batcher<RefreshItem, TokenResponse | null> {
  return new Batcher<RefreshItem, TokenResponse | null>(async (unordered) => {
    // In token order, so that overlapping batches (a token replayed in parallel) lock rows alike.
    const items = [...unordered].sort((a, b) => (a.tokenHash < b.tokenHash ? -1 : a.tokenHash > b.tokenHash ? 1 : 0));
    const minted = items.map(() => ({ access: mint('cat_'), refresh: mint('crt_') }));
    const column = <T>(f: (item: RefreshItem, i: number) => T) => items.map(f);
    // Planned per call: a plan cached while the token table was small scans all of it once it is large.
    const { rows } = await sql<{ access_hash: string; access_scope: string }>`${sql.raw(PLAN_PER_CALL)}
      with req as (
        select * from unnest(
          ${column((i) => i.tokenHash)}::text[], ${column((i) => i.claim.clientId)}::text[], ${column((i) => i.claim.secretHash)}::text[],
          ${column((i) => i.wanted.join(' '))}::text[], ${column((i) => i.narrowed)}::text[], ${column((i) => i.resource)}::text[],
          ${column((_, n) => minted[n]!.access.hash)}::text[], ${column((_, n) => minted[n]!.refresh.hash)}::text[]
        ) as req(token_hash, client_id, secret_hash, wanted, narrowed, resource, access_hash, refresh_hash)
      ), cand as materialized (
        -- Each item is resolved by primary-key lookups only. The lateral subqueries end in
        -- "offset 0" so the planner keeps them as per-item index lookups: PGlite never gathers
        -- statistics, and a plan chosen without them could scan every family of a client.
        select req.token_hash, req.access_hash, req.refresh_hash, req.narrowed, r.family_id, r.scope
        from req
        cross join lateral (
          select r.family_id, r.scope from oauth_refresh_tokens r
          where r.token_hash = req.token_hash and r.rotated_at is null and r.revoked_at is null and r.expires_at > now()
            and string_to_array(r.scope, ' ') @> string_to_array(req.wanted, ' ')
          offset 0
        ) r
        cross join lateral (
          select 1 from oauth_token_families f
          where f.id = r.family_id and f.revoked_at is null and f.client_id = req.client_id
            and (req.resource is null or f.resource = req.resource)
            and exists (select 1 from oauth_grants g where g.id = f.grant_id and g.revoked_at is null offset 0)
          offset 0
        ) f
        cross join lateral (
          select 1 from oauth_clients c
          where c.client_id = req.client_id and 'refresh_token' = any(c.grant_types)
            and (
              (c.secret_hash is null and req.secret_hash is null)
              or bit_count(('x' || c.secret_hash)::bit(256) # ('x' || req.secret_hash)::bit(256)) = 0
            )
          offset 0
        ) c
      ), old as (
        update oauth_refresh_tokens r set rotated_at = now()
        from cand
        where r.token_hash = any(array(select token_hash from cand)) and r.token_hash = cand.token_hash
          and r.rotated_at is null and r.revoked_at is null
        returning cand.family_id, cand.scope, coalesce(cand.narrowed, cand.scope) as access_scope, cand.access_hash, cand.refresh_hash
      ), a as (
        insert into oauth_access_tokens (token_hash, family_id, scope, expires_at)
        select access_hash, family_id, access_scope, ${secondsFromNow(ACCESS_TOKEN_TTL_SECONDS)} from old
      ), n as (
        insert into oauth_refresh_tokens (token_hash, family_id, scope, expires_at)
        select refresh_hash, family_id, scope, ${secondsFromNow(REFRESH_TOKEN_TTL_SECONDS)} from old
      )
      select access_hash, access_scope from old`.execute(db);
    // A token presented twice in one batch is rotated once; the returned access hash says for whom.
    const scopeByAccess = new Map(rows.map((r) => [r.access_hash, r.access_scope]));
    const results = new Map(
      items.map((item, n) => {
        const { access, refresh } = minted[n]!;
        const scope = scopeByAccess.get(access.hash);
        const result: TokenResponse | null =
          scope === undefined ? null : { access_token: access.value, token_type: 'Bearer', expires_in: ACCESS_TOKEN_TTL_SECONDS, refresh_token: refresh.value, scope };
        return [item, result];
      }),
    );
    return unordered.map((item) => results.get(item)!);
  }, { concurrency: backend === 'postgres' ? 2 : 1 });
}
