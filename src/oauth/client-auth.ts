import type { Kysely } from 'kysely';
import type { DB } from '../db/schema.ts';
import { digestsEqual } from '../security/secrets.ts';
import { findClient, secretDigest, type ClientRow } from './clients.ts';
import { OAuthError } from './errors.ts';
import { hit, type Limit } from '../limits/counter.ts';

// Client authentication at the token and revocation endpoints (RFC 6749 §2.3.1): HTTP Basic, or
// client_id and client_secret in the form body; a public client (method none) sends its client_id
// only. One method per request: Basic and a body secret together are refused, as is a body
// client_id that disagrees with Basic's. Either secret method is accepted for a confidential
// client, whatever it registered: both prove the same secret, and real clients mix them up.

export interface PresentedCredentials {
  /** From `Authorization: Basic`; 'malformed' when the header is Basic but not decodable. */
  basic?: { clientId: string; secret: string } | 'malformed';
  bodyClientId?: string;
  bodySecret?: string;
  /** The caller's address (TRUST_PROXY decides it). */
  source: string;
}

// A digest to compare against when the client is unknown, so that an unknown id and a wrong
// secret take the same time.
const NO_CLIENT = secretDigest('no such client');
const MAX_CLIENT_ID = 200;

/** Who the request says it is, checked without the database: one method. */
export interface ClientClaim {
  clientId: string;
  secret: string | undefined;
  /**
   * The digest the stored one must equal for the fast path (null: no secret presented). A Basic
   * header always presents one, even empty, so a public client using Basic never matches.
   */
  secretHash: string | null;
  usedBasic: boolean;
}

export function claimClient(credentials: PresentedCredentials): ClientClaim {
  const { basic, bodyClientId, bodySecret } = credentials;
  const usedBasic = basic !== undefined;
  const refuse = (description: string) => new OAuthError('invalid_client', description, { basic: usedBasic });
  if (basic === 'malformed') throw refuse('the Authorization header is not valid Basic client credentials');
  if (basic && bodySecret !== undefined) throw new OAuthError('invalid_request', 'use one client authentication method: HTTP Basic or client_secret in the body, not both');
  if (basic && bodyClientId !== undefined && bodyClientId !== basic.clientId) throw new OAuthError('invalid_request', 'client_id in the body does not match the HTTP Basic client');
  const clientId = basic ? basic.clientId : bodyClientId;
  if (clientId === undefined || clientId === '') throw refuse('client authentication is required (HTTP Basic or client_id and client_secret in the body)');
  // No client id is this long (findClient refuses them too); refused before it becomes a lockout key of any size.
  if (clientId.length > MAX_CLIENT_ID) throw refuse('client authentication failed');
  const secret = basic ? basic.secret : bodySecret;
  const secretHash = usedBasic || (secret !== undefined && secret !== '') ? secretDigest(secret ?? '') : null;
  return { clientId, secret, secretHash, usedBasic };
}

/**
 * Verifies a claim against the stored client. The secret is checked first, so a client presenting
 * its correct secret is never refused by the lockout; each failure counts towards it (src/oauth/lockout.ts),
 * and a failure beyond its limit is a 429 with Retry-After rather than a 401. The count is one atomic
 * statement, so concurrent failures cannot all slip in under the limit.
 */
export async function verifyClientClaim(db: Kysely<DB>, lockout: Limit, claim: ClientClaim): Promise<ClientRow> {
  const client = await findClient(db, claim.clientId);
  const refuse = async (description: string) => {
    // Only a client that exists can be locked out: counting made-up ids would let anyone fill the
    // limits table with one row per id they invent, and would protect nothing.
    if (!client) return new OAuthError('invalid_client', description, { basic: claim.usedBasic });
    const verdict = await hit(db, lockout, claim.clientId);
    if (!verdict.allowed) {
      return new OAuthError('invalid_client', `too many failed client authentications; retry in ${verdict.resetSeconds} s`, { basic: claim.usedBasic, retryAfter: verdict.resetSeconds });
    }
    return new OAuthError('invalid_client', description, { basic: claim.usedBasic });
  };
  if (client?.token_endpoint_auth_method === 'none') {
    if (claim.usedBasic || (claim.secret !== undefined && claim.secret !== '')) throw await refuse('this client is public (token_endpoint_auth_method none): send client_id only, no secret');
    return client;
  }
  const presented = claim.secret === undefined || claim.secret === '' ? null : secretDigest(claim.secret);
  const matches = digestsEqual(presented ?? NO_CLIENT, client?.secret_hash ?? NO_CLIENT) && presented !== null && client !== undefined;
  if (!matches) throw await refuse(client && presented === null ? 'this client must authenticate with its client_secret' : 'client authentication failed');
  return client;
}

export async function authenticateClient(db: Kysely<DB>, lockout: Limit, credentials: PresentedCredentials): Promise<ClientRow> {
  return verifyClientClaim(db, lockout, claimClient(credentials));
}
