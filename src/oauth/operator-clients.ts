import type { Kysely } from 'kysely';
import type { DB } from '../db/schema.ts';
import { clientInfo, insertClient, type ClientInfo } from './clients.ts';
import { parseClientMetadata } from './register.ts';

/**
 * A pre-registered client minted by the operator out of band: the same metadata rules as dynamic
 * registration (redirect URIs, scopes, auth method), but no brand rule (the operator vouches for
 * the name) and never purged for inactivity.
 */
export async function createOperatorClient(
  db: Kysely<DB>,
  input: { name: string; redirectUris: string[]; clientUri?: string; scope?: string; public?: boolean },
): Promise<{ info: ClientInfo; clientSecret: string | null }> {
  const metadata = parseClientMetadata({
    client_name: input.name,
    redirect_uris: input.redirectUris,
    ...(input.clientUri ? { client_uri: input.clientUri } : {}),
    ...(input.scope ? { scope: input.scope } : {}),
    token_endpoint_auth_method: input.public ? 'none' : 'client_secret_basic',
  });
  const { client, clientSecret } = await insertClient(db, { ...metadata, registration: 'operator' });
  return { info: clientInfo(client), clientSecret };
}
