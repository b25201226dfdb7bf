import { sql, type Kysely, type Transaction } from 'kysely';
import type { DB } from '../db/schema.ts';

// Limits on how many of something one owner may have at once (an organisation's webhook
// endpoints). A count followed by an insert, each on its own, lets concurrent requests all count
// below the limit and all insert: 30 at once made 22 endpoints of 20. So the count and the insert
// run in one transaction that first takes a lock named after the limit and the owner: creations for
// the same owner queue on it, on every node (the lock lives in the database), and each counts what
// the one before it committed. It is an advisory lock because there is no owner row to lock (an
// organisation is a name on its keys); it is held to the end of the transaction, so a failure
// anywhere cannot leave it taken. PGlite runs one transaction at a time anyway: the lock is taken
// uncontested there, and the steps get the transaction, never the outer handle, which would wait
// for the very transaction it is called from.

export interface OwnerLimit {
  /** What is limited, e.g. 'webhook.endpoints': part of the lock's name. */
  name: string;
  /** How many the owner may have at once. */
  max: number;
}

export interface LimitedCreation<T> {
  /** How many the owner has now (read in the transaction, after the lock). */
  count(trx: Transaction<DB>): Promise<number>;
  create(trx: Transaction<DB>): Promise<T>;
  /** The error to throw when the owner has `max` already. */
  refusal(): Error;
}

/**
 * The first key of every lock taken here: advisory locks are one namespace per database, and this
 * keeps these apart from any other two-key lock (pg-boss's are single-key, a key space of their own).
 */
const LOCK_CLASS = 0x4c696d74;

/** Creates one more for `owner` only while it has fewer than `limit.max`, atomically across every node; else throws the refusal. */
export function createWithinLimit<T>(db: Kysely<DB>, limit: OwnerLimit, owner: string, steps: LimitedCreation<T>): Promise<T> {
  return db.transaction().execute(async (trx) => {
    await lockOwner(trx, limit, owner);
    if ((await steps.count(trx)) >= limit.max) throw steps.refusal();
    return steps.create(trx);
  });
}

/** Two owners whose names hash alike share a lock: they only wait for each other, they never count together. */
async function lockOwner(trx: Transaction<DB>, limit: OwnerLimit, owner: string): Promise<void> {
  await sql`select pg_advisory_xact_lock(${LOCK_CLASS}::int, hashtext(${`${limit.name}\n${owner}`}))`.execute(trx);
}
