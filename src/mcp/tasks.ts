import { ProtocolError, ProtocolErrorCode } from '@modelcontextprotocol/server';
import { cancelJob } from '../executor/cancel.ts';
import { getJobWithLatestMessage, getOwnJob } from '../jobs/service.ts';
import { linksFor } from '../jobs/ownership.ts';
import { DomainError, type Job } from '../jobs/types.ts';
import { paymentInputKey, taskOfJob, type DetailedTask, type InputAnswer } from './task-of-job.ts';
import type { ToolContext } from './tools/types.ts';

// tasks/get, tasks/update and tasks/cancel of the Tasks extension, over the booking job that is
// the task. Ownership is the job's: another owner's task reads exactly like a missing one, and with
// open reads (JOB_READ_ISOLATION=none) it is readable but never changed by anyone else.

const ANSWER_ACTIONS: ReadonlySet<string> = new Set(['accept', 'decline', 'cancel']);

function taskNotFound(): ProtocolError {
  return new ProtocolError(ProtocolErrorCode.InvalidParams, 'Failed to retrieve task: Task not found');
}

async function answersOf(context: ToolContext, jobId: string): Promise<InputAnswer[]> {
  const rows = await context.services.db
    .selectFrom('task_input_answers')
    .select(['input_key', 'action'])
    .where('job_id', '=', jobId)
    .orderBy('answered_at')
    .execute();
  return rows.map((row) => ({ key: row.input_key, action: row.action }));
}

export async function getTask(context: ToolContext, taskId: string): Promise<DetailedTask> {
  // The job and the one audit message a working task shows, in one statement.
  const found = await getJobWithLatestMessage(context.services.jobs, context.caller.reader, taskId);
  if (!found) throw taskNotFound();
  const { job, latestMessage } = found;
  // Only a held job asks for input; every other state needs no second read.
  const answers = job.status === 'paused_payment' ? await answersOf(context, job.jobId) : [];
  return taskOfJob(job, latestMessage, answers, linksFor(context.services.links, context.caller.reader).handoffUrl(job));
}

/** Cancels the job (cooperatively: a final job, or a payment the person already submitted, stays as it is). */
export async function cancelTask(context: ToolContext, taskId: string): Promise<void> {
  try {
    await cancelJob({ db: context.services.db, sessions: context.services.tabs.sessions }, context.caller.reader, taskId);
  } catch (error) {
    if (!(error instanceof DomainError)) throw error;
    if (error.code === 'job_not_found') throw taskNotFound();
    // job_already_final, payment_in_flight: acknowledged; tasks/get tells how the task ended.
  }
}

/**
 * The client's answers. Only the payment request outstanding now counts (the extension: answers to
 * keys not outstanding are ignored). accept: the person was sent to the payment page, and the task
 * waits for the payment as `working`; decline: the person will not pay, so the hold is released
 * (the job is cancelled); cancel: dismissed without a choice, so the request is asked again under
 * a new key.
 */
export async function updateTask(context: ToolContext, taskId: string, inputResponses: Record<string, unknown>): Promise<void> {
  // The job's state only: its audit log is tasks/get's, not needed to take an answer. An answer
  // accepts or declines the person's payment: only the job's owner gives one, whatever reads allow.
  const job = await getOwnJob(context.services.jobs, context.caller.reader, taskId);
  if (!job) throw taskNotFound();
  if (job.status !== 'paused_payment') return;
  const answers = await answersOf(context, job.jobId);
  if (answers.some((a) => a.action === 'accept')) return;
  const key = paymentInputKey(answers);
  const response = inputResponses[key];
  if (response === undefined) return;
  const action = typeof response === 'object' && response !== null ? (response as { action?: unknown }).action : undefined;
  if (typeof action !== 'string' || !ANSWER_ACTIONS.has(action)) {
    throw new ProtocolError(ProtocolErrorCode.InvalidParams, `Invalid params for tasks/update: inputResponses.${key} must be an elicitation result with action accept, decline or cancel`);
  }
  await context.services.db
    .insertInto('task_input_answers')
    .values({ job_id: job.jobId, input_key: key, action: action as InputAnswer['action'] })
    .onConflict((oc) => oc.doNothing())
    .execute();
  if (action === 'decline') await declined(context, job);
}

async function declined(context: ToolContext, job: Job): Promise<void> {
  context.log.info({ jobId: job.jobId }, 'the MCP client declined the payment request: releasing the hold');
  await cancelTask(context, job.jobId);
}
