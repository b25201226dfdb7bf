import type { Kysely, Transaction, Updateable } from 'kysely';
import type { DB, JobsTable } from '../db/schema.ts';
import { appendAuditEvent, type NewAuditEvent } from './audit.ts';
import { recordWebhookEvents } from './webhook-outbox.ts';
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

interface TransitionMove {
  to: JobStatus;
  /** The move is made only from one of these (defaults to every status allowed to reach `to`). */
  from?: readonly JobStatus[];
  /** Fencing: the move is made only while this executor run still owns the job (jobs.run_id). */
  runId?: string;
}

export interface TransitionInput extends TransitionMove {
  event: NewAuditEvent;
  set?: Omit<Updateable<JobsTable>, 'status' | 'updated_at' | 'id'>;
}

/**
 * A move whose event and changes depend on what the row says under its lock, once the move is
 * allowed (not a moment before): `decide` gives them; throwing a DomainError refuses the move.
 */
export interface DecidedTransition extends TransitionMove {
  decide: (trx: Transaction<DB>) => Promise<Pick<TransitionInput, 'event' | 'set'>>;
}

function assertRun(jobId: string, row: { run_id: string | null }, runId: string | undefined): void {
  if (runId !== undefined && row.run_id !== runId) {
    throw new DomainError('run_superseded', `job ${jobId} is now owned by another executor run`);
  }
}

export async function transition(db: Kysely<DB>, jobId: string, input: TransitionInput | DecidedTransition): Promise<{ from: JobStatus; to: JobStatus }> {
  return db.transaction().execute(async (trx) => {
    const row = await trx.selectFrom('jobs').select(['status', 'run_id']).where('id', '=', jobId).forUpdate().executeTakeFirst();
    if (!row) throw new DomainError('job_not_found', `job ${jobId} does not exist`);
    assertRun(jobId, row, input.runId);
    const from = row.status as JobStatus;
    const permitted = ALLOWED[from].includes(input.to) && (!input.from || input.from.includes(from));
    if (!permitted) throw new DomainError('invalid_transition', `job ${jobId} cannot move from ${from} to ${input.to}`);
    const { event, set } = 'decide' in input ? await input.decide(trx) : input;
    const terminal = TERMINAL_STATUSES.includes(input.to);
    await trx
      .updateTable('jobs')
      .set({
        ...set,
        status: input.to,
        updated_at: new Date(),
        ...(terminal ? { completed_at: new Date() } : {}),
      })
      .where('id', '=', jobId)
      .execute();
    await appendAuditEvent(trx, jobId, event);
    // The pause and every final status go to the organisation's webhook endpoints, committed with the change.
    if (terminal) await recordWebhookEvents(trx, jobId);
    return { from, to: input.to };
  });
}

/** How a held booking may have been ended by a process that could not see its tab (executor/hold-endings.ts writes them). */
export const HOLD_ENDINGS = ['cancelled_by_user', 'cancelled_by_client', 'handoff_expired', 'hold_lost'] as const;
export type HoldEndingReason = (typeof HOLD_ENDINGS)[number];

/**
 * Whether a job's error is a held booking's end (one a provider's later confirmation may override).
 * The reason alone does not say: an API client's cancel of a queued or running job is also
 * cancelled_by_client, but nothing was held, so nothing can be confirmed; a hold's end is at the
 * payment step.
 */
export function isHoldEnding(error: { reason?: unknown; step?: unknown } | null | undefined): boolean {
  const reason = error?.reason;
  return typeof reason === 'string' && (HOLD_ENDINGS as readonly string[]).includes(reason) && error?.step === 'payment';
}

/**
 * The one move out of a final status. A held booking ended by a process that could not see the held
 * tab (a cancel or a sweep in another process, while the person's payment was on its way) whose
 * tab then showed the provider's confirmation: the provider booked and charged, and a job that says
 * `error` would send the person to book again. The job becomes `completed`; the audit log keeps
 * both events. `change` gets the earlier ending's reason. Returns false (nothing written) unless
 * the job is an `error` with one of HOLD_ENDINGS.
 */
export async function confirmAfterHoldEnded(db: Kysely<DB>, jobId: string, change: (previousReason: string) => { event: NewAuditEvent; set: TransitionInput['set'] }): Promise<boolean> {
  return db.transaction().execute(async (trx) => {
    const row = await trx.selectFrom('jobs').select(['status', 'error']).where('id', '=', jobId).forUpdate().executeTakeFirst();
    if (row?.status !== 'error' || !isHoldEnding(row.error)) return false;
    const { event, set } = change(String(row.error!.reason));
    const now = new Date();
    await trx.updateTable('jobs').set({ ...set, error: null, status: 'completed', updated_at: now, completed_at: now }).where('id', '=', jobId).execute();
    await appendAuditEvent(trx, jobId, event);
    // The late completed: a client told of the error learns the booking was made after all.
    await recordWebhookEvents(trx, jobId, { late: true });
    return true;
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
