import type { Job } from '../jobs/types.ts';
import { CANCELLED_BY_CLIENT } from '../executor/cancel.ts';
import { toolError, toolResult } from './results.ts';
import { statusReport, type StatusReport } from './status.ts';

// A booking job seen as a task of the Tasks extension (io.modelcontextprotocol/tasks, protocol
// revision 2026-07-28): the job IS the task (taskId = jobId), so its state lives in the jobs table
// and any node answers for it, after any restart. This file only translates; src/mcp/tasks.ts
// reads and changes the job.
//
//   pending, running            → working (statusMessage: the latest audit event)
//   paused_payment              → input_required: a URL-mode elicitation asking the person to pay
//                                 at the handoff URL (the card code never passes through the client);
//                                 once the client accepted it, working ("waiting for the payment")
//   completed                   → completed, result = the tool result with confirmationCode
//   error cancelled_by_client   → cancelled
//   any other final status      → completed with isError: true (the job failed; the JSON-RPC call
//                                 did not, and the extension keeps `failed` for JSON-RPC errors)

export const TASKS_EXTENSION = 'io.modelcontextprotocol/tasks';

export type TaskStatus = 'working' | 'input_required' | 'completed' | 'cancelled' | 'failed';

export type Task = {
  taskId: string;
  status: TaskStatus;
  statusMessage?: string;
  createdAt: string;
  lastUpdatedAt: string;
  ttlMs: number | null;
  pollIntervalMs?: number;
};

export type ElicitationInputRequest = {
  method: 'elicitation/create';
  params: { mode: 'url'; message: string; url: string; elicitationId: string };
};

export type DetailedTask = Task & { inputRequests?: Record<string, ElicitationInputRequest>; result?: Record<string, unknown> };

/** The client's answers to the payment request so far, oldest first (table task_input_answers). */
export interface InputAnswer {
  key: string;
  action: 'accept' | 'decline' | 'cancel';
}

// A job is polled every 2 s while it runs (a booking takes seconds to minutes; a task read is one
// indexed query), every 5 s while the person pays. Jobs are kept for good: no ttl.
const POLL_WORKING_MS = 2_000;
const POLL_PAYING_MS = 5_000;

/**
 * The key of the payment request the task asks now. Keys are never reused in a task's life: a
 * request the client dismissed (`cancel`) is asked again under the next key.
 */
export function paymentInputKey(answers: readonly InputAnswer[]): string {
  const dismissed = answers.filter((a) => a.action === 'cancel').length;
  return dismissed === 0 ? 'payment' : `payment-${dismissed + 1}`;
}

function base(job: Job, status: TaskStatus, statusMessage: string, pollIntervalMs?: number): Task {
  return {
    taskId: job.jobId,
    status,
    statusMessage,
    createdAt: job.createdAt,
    lastUpdatedAt: job.updatedAt,
    ttlMs: null,
    ...(pollIntervalMs === undefined ? {} : { pollIntervalMs }),
  };
}

/** The booking call's own result, as this revision writes a tools/call result (resultType and all). */
function finalResult(report: StatusReport): Record<string, unknown> {
  if (report.status === 'done') return { resultType: 'complete', ...toolResult({ ...report }) };
  const { jobId, status, scenario, summary, updatedAt, reason, instruction } = report;
  return { resultType: 'complete', ...toolError(reason ?? 'unknown', instruction, undefined, { jobId, status, scenario, summary, updatedAt }) };
}

/**
 * The task as tasks/get shows it. `latestMessage` is the message the job's decisionLog ends on (the
 * working message); `answers` the client's answers to its payment requests; `handoffUrl` where the
 * person pays.
 */
export function taskOfJob(job: Job, latestMessage: string | null, answers: readonly InputAnswer[], handoffUrl: string | null): DetailedTask {
  switch (job.status) {
    case 'pending':
    case 'running':
      return base(job, 'working', latestMessage ?? job.summary, POLL_WORKING_MS);
    case 'paused_payment': {
      const until = job.holdExpiresAt ? ` before the hold ends at ${job.holdExpiresAt}` : '';
      if (!handoffUrl) return base(job, 'working', `${job.summary} The payment page is being prepared.`, POLL_WORKING_MS);
      if (answers.some((a) => a.action === 'accept')) {
        return base(job, 'working', `The booking is held; waiting for the person to complete the payment at ${handoffUrl}${until}.`, POLL_PAYING_MS);
      }
      const key = paymentInputKey(answers);
      const message = `The booking is held and waits for payment. The service never pays and never sees the card security code: the person completes the payment themselves at this link${until}.`;
      return {
        ...base(job, 'input_required', `${job.summary} Waiting for the person to pay${until}.`, POLL_PAYING_MS),
        inputRequests: { [key]: { method: 'elicitation/create', params: { mode: 'url', message, url: handoffUrl, elicitationId: `${job.jobId}:${key}` } } },
      };
    }
    default: {
      const report = statusReport(job, handoffUrl);
      if (job.status === 'error' && job.error?.reason === CANCELLED_BY_CLIENT) return base(job, 'cancelled', job.summary);
      return { ...base(job, 'completed', job.summary), result: finalResult(report) };
    }
  }
}

/** The task as a booking tool's call answers it (CreateTaskResult): the seed state, no payload. */
export function createdTask(job: Job, handoffUrl: string | null): Task & { resultType: 'task' } {
  const { inputRequests: _requests, result: _result, ...task } = taskOfJob(job, null, [], handoffUrl);
  return { resultType: 'task', ...task };
}
