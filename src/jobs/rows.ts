import { sql, type Kysely, type Transaction } from 'kysely';
import type { DB } from '../db/schema.ts';

// The jobs table's statements that other folders ask for, each named for what it answers (issue 27:
// one owner for the table, as pg-boss keeps its statements in plans.ts). Status changes are
// transition.ts's; the holds' side columns are hold-rows.ts's; the hot read by id is job-reads.ts's
// (batched). No other folder names the table: lint says so (eslint.config.js).

type Db = Kysely<DB> | Transaction<DB>;

/** The row as the caller's transaction sees it (loadJob batches outside transactions). */
export function jobRowIn(trx: Db, jobId: string) {
  return trx.selectFrom('jobs').selectAll().where('id', '=', jobId).executeTakeFirst();
}

/** Locks the job's row for the rest of the caller's transaction; false when there is no such job. */
export async function lockJobRow(trx: Db, jobId: string): Promise<boolean> {
  return (await trx.selectFrom('jobs').select('id').where('id', '=', jobId).forUpdate().executeTakeFirst()) !== undefined;
}

export function jobRowByHandoffHash(db: Kysely<DB>, hash: string) {
  return db.selectFrom('jobs').selectAll().where('handoff_token_hash', '=', hash).executeTakeFirst();
}

/** A person's jobs, newest first. */
export function jobRowsOfUser(db: Kysely<DB>, userId: number, limit: number) {
  return db.selectFrom('jobs').selectAll().where('owner_user_id', '=', userId).orderBy('created_at', 'desc').limit(limit).execute();
}

/** The job if `userId` owns it. */
export function jobRowOfUser(db: Kysely<DB>, userId: number, jobId: string) {
  return db.selectFrom('jobs').selectAll().where('id', '=', jobId).where('owner_user_id', '=', userId).executeTakeFirst();
}

export async function userOwnsJob(db: Kysely<DB>, userId: number, jobId: string): Promise<boolean> {
  return (await db.selectFrom('jobs').select('id').where('id', '=', jobId).where('owner_user_id', '=', userId).executeTakeFirst()) !== undefined;
}

/** Which run the job is in and its status: a run whose row was taken from it stops. */
export function runOfJob(db: Kysely<DB>, jobId: string) {
  return db.selectFrom('jobs').select(['status', 'run_id']).where('id', '=', jobId).executeTakeFirst();
}

/** Rows changed since `since` among these jobs or these owners' (a watch's poll). */
export function jobRowsChangedSince(db: Kysely<DB>, since: Date, watched: { jobIds: string[]; ownerUserIds: number[] }) {
  return db
    .selectFrom('jobs')
    .selectAll()
    .where('updated_at', '>=', since)
    .where((eb) => eb.or([
      ...(watched.jobIds.length ? [eb('id', 'in', watched.jobIds)] : []),
      ...(watched.ownerUserIds.length ? [eb('owner_user_id', 'in', watched.ownerUserIds)] : []),
    ]))
    .execute();
}

/** The node holding the job's paused tab (`hold`) or running it (`run`), if it beat in the last `staleSeconds`. */
export function liveNodeOfJob(db: Kysely<DB>, jobId: string, what: 'hold' | 'run', staleSeconds: number) {
  const column = what === 'hold' ? 'jobs.hold_instance' : 'jobs.run_instance';
  return db
    .selectFrom('jobs')
    .innerJoin('nodes', 'nodes.id', column)
    .select(['nodes.id', 'nodes.internal_url'])
    .where('jobs.id', '=', jobId)
    .where('jobs.status', '=', what === 'hold' ? 'paused_payment' : 'running')
    .where('nodes.heartbeat_at', '>', sql<Date>`now() - make_interval(secs => ${staleSeconds})`)
    .executeTakeFirst();
}
