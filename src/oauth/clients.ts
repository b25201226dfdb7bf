import type { Kysely, Selectable } from 'kysely';
import type { DB, OAuthClientsTable } from '../db/schema.ts';
import { randomSecret, sha256 } from '../security/secrets.ts';
import { mint } from './tokens.ts';

export type AuthMethod = 'client_secret_basic' | 'client_secret_post' | 'none';
export const AUTH_METHODS: readonly AuthMethod[] = ['client_secret_basic', 'client_secret_post', 'none'];
export type ClientRow = Selectable<OAuthClientsTable>;

/** A client as the registration endpoint and the operator CLI describe it (never its secret hash). */
export interface ClientInfo {
  client_id: string;
  client_id_issued_at: number;
  client_secret_expires_at: 0;
  redirect_uris: string[];
  client_name?: string;
  client_uri?: string;
  grant_types: string[];
  response_types: string[];
  token_endpoint_auth_method: AuthMethod;
  scope: string;
  registration: 'dynamic' | 'operator' | 'metadata_document';
  first_authorized_at: string | null;
}

export function clientInfo(row: ClientRow): ClientInfo {
  return {
    client_id: row.client_id,
    client_id_issued_at: Math.floor(row.created_at.getTime() / 1000),
    client_secret_expires_at: 0,
    redirect_uris: row.redirect_uris,
    ...(row.client_name === null ? {} : { client_name: row.client_name }),
    ...(row.client_uri === null ? {} : { client_uri: row.client_uri }),
    grant_types: row.grant_types,
    response_types: row.response_types,
    token_endpoint_auth_method: row.token_endpoint_auth_method,
    scope: row.scope,
    registration: row.registration,
    first_authorized_at: row.first_authorized_at?.toISOString() ?? null,
  };
}

/** A client's metadata after validation (registration and the operator CLI parse it alike). */
export interface ClientMetadata {
  redirectUris: string[];
  clientName: string | null;
  clientUri: string | null;
  scope: string;
  grantTypes: string[];
  responseTypes: string[];
  authMethod: AuthMethod;
}

export interface NewClient extends ClientMetadata {
  registration: 'dynamic' | 'operator' | 'metadata_document';
}

/**
 * Stores a client. The secret (none for a public client) is returned once, here, and only its
 * SHA-256 is kept. Dynamically registered ids start with dcr_, the operator's with app_.
 */
export async function insertClient(db: Kysely<DB>, input: NewClient): Promise<{ client: ClientRow; clientSecret: string | null }> {
  const clientId = `${input.registration === 'dynamic' ? 'dcr' : 'app'}_${randomSecret(16)}`;
  const secret = input.authMethod === 'none' ? null : mint('ccs_');
  const client = await db
    .insertInto('oauth_clients')
    .values({
      client_id: clientId,
      secret_hash: secret?.hash ?? null,
      token_endpoint_auth_method: input.authMethod,
      redirect_uris: input.redirectUris,
      client_name: input.clientName,
      client_uri: input.clientUri,
      scope: input.scope,
      grant_types: input.grantTypes,
      response_types: input.responseTypes,
      registration: input.registration,
    })
    .returningAll()
    .executeTakeFirstOrThrow();
  return { client, clientSecret: secret?.value ?? null };
}

export async function findClient(db: Kysely<DB>, clientId: string): Promise<ClientRow | undefined> {
  if (clientId.length > 200) return undefined;
  return db.selectFrom('oauth_clients').selectAll().where('client_id', '=', clientId).executeTakeFirst();
}

export async function listClients(db: Kysely<DB>): Promise<ClientInfo[]> {
  const rows = await db.selectFrom('oauth_clients').selectAll().orderBy('created_at').orderBy('client_id').execute();
  return rows.map(clientInfo);
}

/** A new secret for a confidential client; the old one stops working at once. */
export async function rotateClientSecret(db: Kysely<DB>, clientId: string): Promise<{ client: ClientRow; clientSecret: string } | null> {
  const secret = mint('ccs_');
  const client = await db
    .updateTable('oauth_clients')
    .set({ secret_hash: secret.hash, secret_rotated_at: new Date() })
    .where('client_id', '=', clientId)
    .where('token_endpoint_auth_method', '!=', 'none')
    .returningAll()
    .executeTakeFirst();
  return client ? { client, clientSecret: secret.value } : null;
}

/** Deletes a client; its grants, codes and tokens go with it (foreign keys cascade). */
export async function deleteClient(db: Kysely<DB>, clientId: string): Promise<boolean> {
  const result = await db.deleteFrom('oauth_clients').where('client_id', '=', clientId).executeTakeFirst();
  return result.numDeletedRows > 0n;
}

/** The digest a presented secret is compared with (constant time, by the caller). */
export function secretDigest(secret: string): string {
  return sha256(secret);
}
