import { sql, type Kysely } from 'kysely';
import type { DB } from '../db/schema.ts';
import { SIGNATURE_WINDOW_MS, verifyCall, type SignedCall } from './node-auth.ts';

// The memory that makes a signed node-to-node call single-use (node-auth.ts): the signature of every
// call accepted, in the database every node and process shares, so a copy of a call is refused
// whichever of them it is sent to. Recording it is the check: the insert of an already-recorded
// signature inserts nothing (its primary key), in one statement, so two copies sent at once to two
// nodes cannot both be the first.

/**
 * A signature is usable until SIGNATURE_WINDOW_MS after its time on the receiver's clock, and the
 * purge compares with the database's: kept a window longer, so a node whose clock runs up to a
 * window behind the database's still finds every signature it would accept.
 */
const KEPT_MS = 2 * SIGNATURE_WINDOW_MS;

/** Whether a call to the internal port may be answered: validly signed, within its window, and never presented before (to any node). */
export async function admitCall(db: Kysely<DB>, key: Buffer, method: string, path: string, header: string | string[] | undefined): Promise<boolean> {
  const call = verifyCall(key, method, path, header);
  return call !== null && (await firstUse(db, call));
}

/** Records `call` as used; false when it was already (a replay). */
export async function firstUse(db: Kysely<DB>, call: SignedCall): Promise<boolean> {
  const row = await db
    .insertInto('node_call_signatures')
    .values({ signature: call.signature, expires_at: new Date(call.time + KEPT_MS) })
    .onConflict((oc) => oc.column('signature').doNothing())
    .returning('signature')
    .executeTakeFirst();
  return row !== undefined;
}

/** Deletes the signatures no node would accept any more (the hourly purge). Returns how many. */
export async function purgeUsedCalls(db: Kysely<DB>): Promise<number> {
  const { numDeletedRows } = await db.deleteFrom('node_call_signatures').where('expires_at', '<', sql<Date>`now()`).executeTakeFirst();
  return Number(numDeletedRows);
}
