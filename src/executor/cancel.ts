import { setTimeout as sleep } from 'node:timers/promises';
import type { Kysely } from 'kysely';
import type { DB } from '../db/schema.ts';
import type { BrowserSessions } from './browser-sessions.ts';
import { toJob } from '../jobs/service.ts';
import { transition } from '../jobs/transition.ts';
import { DomainError, JOB_ID_PATTERN, ownerKey, type Job, type Reader } from '../jobs/types.ts';
import { jobRowIn, runOfJob } from '../jobs/rows.ts';

// The API client stops its job: POST /api/v1/execution-jobs/{id}/cancel (and MCP tasks/cancel).
// Whatever state the job is in, the outcome is `error` with reason `cancelled_by_client` and one
// `job_aborted` event, or a refusal that changes nothing:
// - pending: ended in the row; the queue entry finds it settled and does nothing.
// - running: ended in the row, and the run's fence (run_id) cleared. The run may be on another
//   worker process: it notices through the database (watchForCancel below, and its next fenced write
//   is refused), closes its browser and writes nothing more.
// - paused_payment: through the same hold-cancel path as the person's Cancel (the holder here, or
//   cancelElsewhere for a hold in another process), so a payment the person already submitted is
//   never cut off: refused with payment_in_flight while it waits for the provider's answer.
// - already cancelled by the client: the same answer again (idempotent).
// - any other final status: job_already_final.

export const CANCELLED_BY_CLIENT = 'cancelled_by_client';

/** How often a running job's run reads its row to learn of a cancel made in any process. */
export const CANCEL_POLL_MS = 1_000;

export interface CancelDeps {
  db: Kysely<DB>;
  /**
   * The held tabs, wherever they are: this process's, and the other nodes' through their internal
   * port (cluster/live-tabs.ts), so the holder itself ends the hold and closes its tab.
   */
  sessions: Pick<BrowserSessions, 'cancel'>;
}

/** Tries before giving up on a job that keeps changing under the cancel (it moves at most a few times). */
const MAX_ROUNDS = 50;

/**
 * Cancels `jobId` for its owner. Only the job's owner may cancel it, whatever JOB_READ_ISOLATION
 * says about reads: someone else's job is job_not_found, exactly like a missing one. Returns the
 * job as it stands afterwards. Throws DomainError job_not_found, job_already_final or payment_in_flight.
 */
export async function cancelJob(deps: CancelDeps, owner: Reader, jobId: string): Promise<Job> {
  const notFound = () => new DomainError('job_not_found', `no job ${jobId}`);
  if (!JOB_ID_PATTERN.test(jobId)) throw notFound();
  const id = jobId.toLowerCase();
  for (let round = 0; round < MAX_ROUNDS; round++) {
    const row = await jobRowIn(deps.db, id);
    if (!row || row.owner_key !== ownerKey(owner)) throw notFound();
    const job = toJob(row);
    switch (job.status) {
      case 'pending':
      case 'running': {
        try {
          await transition(deps.db, id, {
            to: 'error',
            from: ['pending', 'running'],
            // No run owns the job any more: a run under way is fenced out of every later write.
            set: {
              run_id: null,
              summary: `Cancelled by the API client while ${job.status === 'pending' ? 'queued' : 'running'}; nothing was booked.`,
              error: JSON.stringify({ reason: CANCELLED_BY_CLIENT, step: null, provider: null, url: null, message: 'the API client cancelled the job' }),
            },
            event: {
              type: 'job_aborted',
              message: `The API client cancelled the job while it was ${job.status}; ${job.status === 'running' ? 'the run stops and ' : ''}nothing was booked.`,
              data: { reason: CANCELLED_BY_CLIENT, from: job.status },
            },
          });
        } catch (error) {
          // It moved meanwhile (started, paused, finished): decide again from where it is now.
          if (error instanceof DomainError && error.code === 'invalid_transition') continue;
          throw error;
        }
        continue;
      }
      case 'paused_payment': {
        const result = await deps.sessions.cancel(id, 'client');
        if (result === 'payment_in_flight') {
          throw new DomainError('payment_in_flight', "the person's payment for this booking is being processed by the provider; the job cannot be cancelled now: poll it for the outcome");
        }
        // 'ended' with the row still paused: the holder is writing the end it saw first (paid, expired).
        if (result === 'ended') await sleep(100);
        continue;
      }
      case 'error':
        if (job.error?.reason === CANCELLED_BY_CLIENT) return job;
        throw alreadyFinal(job);
      default:
        throw alreadyFinal(job);
    }
  }
  throw new Error(`job ${id} kept changing while it was being cancelled`);
}

function alreadyFinal(job: Job): DomainError {
  const reason = job.status === 'error' && typeof job.error?.reason === 'string' ? ` (${job.error.reason})` : '';
  return new DomainError('job_already_final', `job ${job.jobId} is already final: ${job.status}${reason}; there is nothing to cancel`);
}

/**
 * Watches a run's job row for a cancel (or anything else that took the job from this run): calls
 * `stop` once the row is no longer `running` under `runId`. A cancel may be made on any node, so the
 * row is the only place to learn of it. Returns the function that ends the watch.
 */
export function watchForCancel(db: Kysely<DB>, jobId: string, runId: string, stop: () => void, intervalMs = CANCEL_POLL_MS): () => void {
  let ended = false;
  const check = async () => {
    const row = await runOfJob(db, jobId);
    // A paused job belongs to its hold now; only a row taken from this run stops it.
    if (!ended && row && row.run_id !== runId) {
      ended = true;
      stop();
    }
  };
  const timer = setInterval(() => void check().catch(() => {}), intervalMs);
  timer.unref();
  return () => {
    ended = true;
    clearInterval(timer);
  };
}
