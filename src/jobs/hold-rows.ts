import { sql, type Kysely, type Transaction } from 'kysely';
import type { DB } from '../db/schema.ts';
import type { JobStatus } from './types.ts';

// The statements on a paused job's hold columns (hold_instance, hold_seen_at, payment_submitted_at),
// for the processes holding tabs (executor/holds.ts): each touches only a job this process holds
// and that is still paused, so a job ended elsewhere is never written back to.

const heldHere = (db: Kysely<DB>, instanceId: string) =>
  db.updateTable('jobs').where('hold_instance', '=', instanceId).where('status', '=', 'paused_payment');

/** Says "still held, do not end" to the others for `seconds` ahead (a payment in flight). */
export async function vouchForHold(db: Kysely<DB>, instanceId: string, jobId: string, seconds: number): Promise<void> {
  await heldHere(db, instanceId).set({ hold_seen_at: sql<Date>`now() + make_interval(secs => ${seconds})` }).where('id', '=', jobId).execute();
}

/** The vouch taken back: seen now, and no longer ahead. */
export async function unvouchForHold(db: Kysely<DB>, instanceId: string, jobId: string): Promise<void> {
  await heldHere(db, instanceId).set({ hold_seen_at: sql<Date>`now()` }).where('id', '=', jobId).execute();
}

/** The person submitted a payment from the held tab (the first time is kept). */
export async function recordPaymentSubmitted(db: Kysely<DB>, instanceId: string, jobId: string): Promise<void> {
  await heldHere(db, instanceId).set({ payment_submitted_at: sql<Date>`coalesce(payment_submitted_at, now())` }).where('id', '=', jobId).execute();
}

/** The heartbeat of these holds: seen now, never back from a vouch written meanwhile. */
export async function markHoldsSeen(db: Kysely<DB>, instanceId: string, jobIds: string[]): Promise<void> {
  if (jobIds.length === 0) return;
  await heldHere(db, instanceId).set({ hold_seen_at: sql<Date>`greatest(hold_seen_at, now())` }).where('id', 'in', jobIds).execute();
}

/** The status of each of these jobs that exists. */
export async function statusesOf(db: Kysely<DB>, jobIds: string[]): Promise<Map<string, JobStatus>> {
  const rows = await db.selectFrom('jobs').select(['id', 'status']).where('id', 'in', jobIds).execute();
  return new Map(rows.map((row) => [row.id, row.status as JobStatus]));
}

/**
 * Paused jobs to release: written without their hold and left so for `staleSeconds`; past their
 * deadline unless their holder vouches for them; or held by a process not seen for `staleSeconds`.
 */
export function releasablePausedJobs(db: Kysely<DB>, staleSeconds: number) {
  return db
    .selectFrom('jobs')
    .select(['id', 'provider_id', sql<boolean>`hold_expires_at is not null and hold_expires_at <= now()`.as('expired'), sql<boolean>`payment_submitted_at is not null`.as('submitted')])
    .where('status', '=', 'paused_payment')
    .where((eb) =>
      eb.or([
        // A pause written without its hold (no deadline, no holder): released once it has stayed so
        // for the staleness limit (every node sweeps, web nodes too, so not while it is being written).
        eb.and([eb.or([eb('hold_expires_at', 'is', null), eb('hold_seen_at', 'is', null)]), eb('updated_at', '<', sql<Date>`now() - make_interval(secs => ${staleSeconds})`)]),
        // Past its deadline, unless its holder vouches for it (a payment in flight).
        eb.and([eb('hold_expires_at', '<=', sql<Date>`now()`), eb.or([eb('hold_seen_at', 'is', null), eb('hold_seen_at', '<=', sql<Date>`now()`)])]),
        eb('hold_seen_at', '<', sql<Date>`now() - make_interval(secs => ${staleSeconds})`),
      ]),
    )
    .execute();
}

/** In the caller's transaction (the row locked): whether the holder vouches for a payment in flight, and whether one was submitted. */
export function holdStateIn(trx: Transaction<DB>, jobId: string) {
  return trx
    .selectFrom('jobs')
    .select(['provider_id', sql<boolean>`hold_instance is not null and hold_seen_at > now()`.as('vouched'), sql<boolean>`payment_submitted_at is not null`.as('submitted')])
    .where('id', '=', jobId)
    .executeTakeFirstOrThrow();
}
