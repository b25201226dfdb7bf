import type { Kysely } from 'kysely';
import type { JobWithMetadata } from 'pg-boss';
import type { Logger } from 'pino';
import type { DB } from '../db/schema.ts';
import { BOOKING_DEAD_LETTER_QUEUE, type BookingMessage, type Queue } from '../jobs/queue.ts';
import { transition } from '../jobs/transition.ts';
import { DomainError } from '../jobs/types.ts';

// The last word on a booking the queue gave up on. pg-boss copies a booking entry that failed for the
// last time into the dead-letter queue: its handler threw on the last try (a graceful stop, a write
// that failed), or its worker died and the heartbeat ran out, in which case no handler of ours ever
// ran again. Either way no run will settle the job, so it is settled here: a job still pending or
// running becomes `error` (worker_lost). Written through transition() directly: there is no run.

export const WORKER_LOST = 'worker_lost';

/** Settles a job the queue will not run again; false when it had already settled. */
export async function settleAbandonedJob(db: Kysely<DB>, jobId: string, tries: number): Promise<boolean> {
  const message = `no worker could finish the booking after ${tries} ${tries === 1 ? 'try' : 'tries'}`;
  try {
    await transition(db, jobId, {
      to: 'error',
      from: ['pending', 'running'],
      // No run owns the job any more: a run still alive somewhere is fenced out of every later write.
      set: { run_id: null, summary: `Not booked: ${message}.`, error: JSON.stringify({ reason: WORKER_LOST, step: null, provider: null, url: null, message }) },
      event: { type: 'job_failed', message: `Not booked: ${message} (each stopped before the job was settled); the queue will not try again.`, data: { reason: WORKER_LOST, tries } },
    });
    return true;
  } catch (error) {
    if (error instanceof DomainError && (error.code === 'invalid_transition' || error.code === 'job_not_found')) return false;
    throw error;
  }
}

/** Works the dead-letter queue (every process: a job must settle even when every booking worker is gone). */
export async function workDeadLetters(queue: Queue, db: Kysely<DB>, log: Logger): Promise<void> {
  await queue.boss.work<BookingMessage>(BOOKING_DEAD_LETTER_QUEUE, { batchSize: 1, pollingIntervalSeconds: 5, includeMetadata: true }, async ([job]) => {
    if (!job) return;
    const { sourceRetryCount } = job as JobWithMetadata<BookingMessage>;
    const tries = (sourceRetryCount ?? 0) + 1;
    if (await settleAbandonedJob(db, job.data.jobId, tries)) log.warn({ jobId: job.data.jobId, tries }, 'booking abandoned by the queue: job settled as worker_lost');
  });
}
