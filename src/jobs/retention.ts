import { sql, type Kysely, type Selectable, type Transaction } from 'kysely';
import type { DB, JobsTable } from '../db/schema.ts';
import { cardOnFileOf, PERSONAL_CLIENT_METADATA, PERSONAL_PARAMS, personalValues, scrubber, without, withoutCardOnFile } from './personal-data.ts';
import { FINAL_STATUSES } from './types.ts';

// Traveller data retention (issue 15 §5): a final job keeps its traveller's personal data
// JOB_PERSONAL_DATA_RETENTION_DAYS after it ended, then the hourly purge (retention-purge.ts) erases
// it (personal-data.ts says what that is) from the job row, its audit events and its webhook
// deliveries. The job, its audit log and the provider metrics counted from it stay, and the job
// says when its traveller data was erased (personal_data_erased_at, which also takes it out of the
// purge's index: an erased job is never read again).

/** Jobs erased per transaction: a backlog (the first run after an upgrade) goes in bounded steps. */
const BATCH = 100;

type DueJob = Pick<Selectable<JobsTable>, 'id' | 'profile' | 'params' | 'client_metadata' | 'summary' | 'error'>;

/**
 * Erases the personal data of every final job that ended more than `retentionDays` ago and is not
 * erased yet; returns how many jobs. Idempotent; jobs another session has locked (a late
 * confirmation being recorded) are left for the next run.
 */
export async function eraseExpiredPersonalData(db: Kysely<DB>, retentionDays: number): Promise<number> {
  let total = 0;
  for (;;) {
    const erased = await db.transaction().execute(async (trx) => {
      const due = await trx
        .selectFrom('jobs')
        .select(['id', 'profile', 'params', 'client_metadata', 'summary', 'error'])
        // The predicate of the jobs_personal_data_due index (migration 013), with the statuses
        // written as literals: a plan made for bound parameters could not prove the index applies.
        .where('personal_data_erased_at', 'is', null)
        .where(sql<boolean>`status in (${sql.join(FINAL_STATUSES.map((s) => sql.lit(s)))})`)
        .where('completed_at', '<', sql<Date>`now() - make_interval(days => ${retentionDays})`)
        .orderBy('completed_at')
        .limit(BATCH)
        .forUpdate()
        .skipLocked()
        .execute();
      for (const job of due) await eraseJob(trx, job);
      return due.length;
    });
    total += erased;
    if (erased < BATCH) return total;
  }
}

/** One job's erasure, in the caller's transaction (the job row locked by it). */
async function eraseJob(trx: Transaction<DB>, job: DueJob): Promise<void> {
  const events = await trx.selectFrom('audit_events').select(['id', 'message', 'data']).where('job_id', '=', job.id).execute();
  const deliveries = await trx.selectFrom('webhook_deliveries').select(['id', 'event']).where('job_id', '=', job.id).execute();
  const scrub = scrubber(personalValues(job.profile, events.map((e) => cardOnFileOf(e.data))));
  await trx
    .updateTable('jobs')
    .set({
      profile: JSON.stringify({}),
      params: JSON.stringify(scrub(without(job.params, PERSONAL_PARAMS))),
      client_metadata: JSON.stringify(scrub(without(job.client_metadata, PERSONAL_CLIENT_METADATA))),
      summary: scrub(job.summary),
      error: job.error === null ? null : JSON.stringify(scrub(job.error)),
      personal_data_erased_at: sql<Date>`now()`,
    })
    .where('id', '=', job.id)
    .execute();
  for (const event of events) {
    const message = scrub(event.message);
    const data = scrub(withoutCardOnFile(event.data));
    if (message === event.message && JSON.stringify(data) === JSON.stringify(event.data)) continue;
    await trx.updateTable('audit_events').set({ message, data: JSON.stringify(data) }).where('id', '=', event.id).execute();
  }
  for (const delivery of deliveries) {
    // The job as it was when the delivery was recorded: its summary, error and clientMetadata.
    const clientMetadata = delivery.event.clientMetadata;
    const event = scrub(clientMetadata && typeof clientMetadata === 'object' ? { ...delivery.event, clientMetadata: without(clientMetadata as Record<string, unknown>, PERSONAL_CLIENT_METADATA) } : delivery.event);
    if (JSON.stringify(event) === JSON.stringify(delivery.event)) continue;
    await trx.updateTable('webhook_deliveries').set({ event: JSON.stringify(event) }).where('id', '=', delivery.id).execute();
  }
}
