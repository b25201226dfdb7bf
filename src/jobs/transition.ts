import type { Kysely, Updateable } from 'kysely';
import type { DB, JobsTable } from '../db/schema.ts';
import { appendAuditEvent, type NewAuditEvent } from './audit.ts';
import { DomainError, type JobStatus } from './types.ts';

// Every state change of a job goes through here: the row is locked, the move is checked against
// the table below, and the new state and its audit event are written in one transaction.
const ALLOWED: Record<JobStatus, readonly JobStatus[]> = {
  pending: ['running', 'error'],
  // running → running: a crashed worker's job is taken up again from the start.
  running: ['running', 'paused_payment', 'completed', 'no_availability', 'needs_login', 'captcha', 'error'],
  // The person finishes (or abandons) the held booking.
  paused_payment: ['completed', 'error'],
  completed: [],
  no_availability: [],
  needs_login: [],
  captcha: [],
  error: [],
};

export const TERMINAL_STATUSES: readonly JobStatus[] = ['paused_payment', 'completed', 'no_availability', 'needs_login', 'captcha', 'error'];

export interface TransitionInput {
  to: JobStatus;
  /** The move is made only from one of these (defaults to every status allowed to reach `to`). */
  from?: readonly JobStatus[];
  event: NewAuditEvent;
  set?: Omit<Updateable<JobsTable>, 'status' | 'updated_at' | 'id'>;
  /** Fencing: the move is made only while this executor run still owns the job (jobs.run_id). */
  runId?: string;
}

function assertRun(jobId: string, row: { run_id: string | null }, runId: string | undefined): void {
  if (runId !== undefined && row.run_id !== runId) {
    throw new DomainError('run_superseded', `job ${jobId} is now owned by another executor run`);
  }
}

export async function transition(db: Kysely<DB>, jobId: string, input: TransitionInput): Promise<{ from: JobStatus; to: JobStatus }> {
  return db.transaction().execute(async (trx) => {
    const row = await trx.selectFrom('jobs').select(['status', 'run_id']).where('id', '=', jobId).forUpdate().executeTakeFirst();
    if (!row) throw new DomainError('job_not_found', `job ${jobId} does not exist`);
    assertRun(jobId, row, input.runId);
    const from = row.status as JobStatus;
    const permitted = ALLOWED[from].includes(input.to) && (!input.from || input.from.includes(from));
    if (!permitted) throw new DomainError('invalid_transition', `job ${jobId} cannot move from ${from} to ${input.to}`);
    const terminal = TERMINAL_STATUSES.includes(input.to);
    await trx
      .updateTable('jobs')
      .set({
        ...input.set,
        status: input.to,
        updated_at: new Date(),
        ...(terminal ? { completed_at: new Date() } : {}),
      })
      .where('id', '=', jobId)
      .execute();
    await appendAuditEvent(trx, jobId, input.event);
    return { from, to: input.to };
  });
}

/** Records a decision that does not change the status (step_attempt, time_adjusted, …). */
export async function recordDecision(db: Kysely<DB>, jobId: string, event: NewAuditEvent, set?: TransitionInput['set'], options: { runId?: string } = {}): Promise<void> {
  await db.transaction().execute(async (trx) => {
    const row = await trx.selectFrom('jobs').select(['id', 'run_id']).where('id', '=', jobId).forUpdate().executeTakeFirst();
    if (!row) throw new DomainError('job_not_found', `job ${jobId} does not exist`);
    assertRun(jobId, row, options.runId);
    await trx.updateTable('jobs').set({ ...set, updated_at: new Date() }).where('id', '=', jobId).execute();
    await appendAuditEvent(trx, jobId, event);
  });
}
