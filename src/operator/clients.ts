import type { Kysely } from 'kysely';
import type { DB } from '../db/schema.ts';
import { deleteClient } from '../oauth/clients.ts';
import type { Operator } from './access.ts';
import { recordOperatorAction } from './audit.ts';

// OAuth clients from the console: deleting one is `concierge clients delete` (its grants and
// tokens go with it, so its tokens stop working at once), recorded on the operator trail.

/** Deletes a client; the deletion and its record commit together. False when there is no such client. */
export async function deleteClientAs(db: Kysely<DB>, actor: Operator, clientId: string): Promise<boolean> {
  if (clientId.length === 0 || clientId.length > 200) return false;
  return db.transaction().execute(async (trx) => {
    const deleted = await deleteClient(trx, clientId);
    if (deleted) await recordOperatorAction(trx, actor, 'oauth_client.delete', `oauth client ${clientId}`);
    return deleted;
  });
}
