import type { Job, JobStatus } from '../jobs/types.ts';

// The tool endpoint's status vocabulary (the contract's "Job status on the tool endpoint"). The
// core keeps the REST statuses; this is the one place that translates them.
export const MCP_STATUSES = ['queued', 'running', 'done', 'error', 'paused_payment', 'captcha', 'needs_login'] as const;
export type McpStatus = (typeof MCP_STATUSES)[number];

const STATUS: Record<JobStatus, McpStatus> = {
  pending: 'queued',
  running: 'running',
  paused_payment: 'paused_payment',
  completed: 'done',
  captcha: 'captcha',
  needs_login: 'needs_login',
  no_availability: 'error',
  error: 'error',
};

export function mcpStatus(status: JobStatus): McpStatus {
  return STATUS[status];
}

/**
 * When to poll next, in seconds (the contract asks for every 15 to 30 s); null = stop polling.
 * A held booking is polled slowly: it changes only when the person pays or the hold lapses.
 */
export function nextPollSeconds(status: McpStatus): number | null {
  switch (status) {
    case 'queued':
    case 'running':
      return 15;
    case 'paused_payment':
      return 30;
    default:
      return null;
  }
}

const DEFAULT_REASON: Partial<Record<JobStatus, string>> = {
  no_availability: 'no_availability',
  captcha: 'captcha',
  needs_login: 'needs_login',
  error: 'unknown',
};

/** Why a job ended without a booking: the executor's recorded reason, else the status's own. */
export function failureReason(job: Job): string | undefined {
  if (job.status === 'no_availability') return 'no_availability';
  const fallback = DEFAULT_REASON[job.status];
  if (fallback === undefined) return undefined;
  const recorded = job.error?.reason;
  return typeof recorded === 'string' && recorded !== '' ? recorded : fallback;
}

/** What get_job_status answers for a job (and what a booking tool answers about its new job). */
export interface StatusReport {
  jobId: string;
  status: McpStatus;
  scenario: Job['scenario'];
  summary: string;
  updatedAt: string;
  nextPollSeconds: number | null;
  instruction: string;
  confirmationCode?: string;
  handoffUrl?: string | null;
  holdExpiresAt?: string | null;
  /** While running: the read-only live view of the run, for the user to watch. */
  sessionUrl?: string | null;
  reason?: string;
  /** A final job whose traveller data was erased (jobs/retention.ts): when. */
  personalDataErasedAt?: string;
}

/**
 * `sessionUrl` is the job's read-only live view while it runs (null otherwise): the issue has it
 * for the API client or the user to watch, and a user connected through an agent has no other
 * way to it than this report.
 */
export function statusReport(job: Job, handoffUrl: string | null, sessionUrl: string | null = null): StatusReport {
  const status = mcpStatus(job.status);
  const base = {
    jobId: job.jobId,
    status,
    scenario: job.scenario,
    summary: job.summary,
    updatedAt: job.updatedAt,
    nextPollSeconds: nextPollSeconds(status),
    ...(job.personalDataErasedAt ? { personalDataErasedAt: job.personalDataErasedAt } : {}),
  };
  switch (status) {
    case 'queued':
      return { ...base, instruction: 'The booking is queued and will start within seconds. Call get_job_status again in 15 seconds.' };
    case 'running':
      return {
        ...base,
        sessionUrl,
        instruction:
          'The service is booking on the provider\'s website now. ' +
          (sessionUrl ? `The user can watch it live (read-only) at ${sessionUrl}, signed in as the account this connection belongs to. ` : '') +
          'Call get_job_status again in 15 to 30 seconds.',
      };
    case 'paused_payment':
      return {
        ...base,
        handoffUrl,
        holdExpiresAt: job.holdExpiresAt,
        instruction:
          (handoffUrl
            ? `The booking is held and waits for payment. The service never pays: ask the user to open ${handoffUrl} and complete the payment themselves`
            : 'The booking is held and waits for payment. The service never pays: ask the user to complete the payment themselves in the service\'s web application') +
          ', signed in as the account this connection belongs to. Then call get_job_status again to get the confirmation.',
      };
    case 'done':
      return {
        ...base,
        ...(job.confirmationCode ? { confirmationCode: job.confirmationCode } : {}),
        instruction: job.confirmationCode
          ? `The booking is confirmed. Give the user the confirmation code ${job.confirmationCode}. Stop polling.`
          // Completed with no code: the provider took a request it will answer itself (job summary says so).
          : 'The provider took a reservation request, not a booking: nothing is confirmed yet. Tell the user what the summary says; the provider answers them itself. Stop polling.',
      };
    case 'captcha':
      return { ...base, reason: failureReason(job), instruction: 'A CAPTCHA blocked the automated booking. Tell the user; they can book directly on the provider\'s website or try again later. Stop polling.' };
    case 'needs_login':
      return { ...base, reason: failureReason(job), instruction: 'The provider required a login the service could not get past. Tell the user; they can book directly on the provider\'s website. Stop polling.' };
    case 'error': {
      const reason = failureReason(job);
      return {
        ...base,
        reason,
        instruction:
          job.error?.paymentUncertain === true
            ? 'The booking ended after the user submitted a payment on the provider\'s page that the provider did not confirm. Tell the user to check with the provider whether their card was charged before booking again. Stop polling.'
            : reason === 'no_availability'
            ? 'Nothing matched the request: no availability. Tell the user and offer to try other dates, times or venues with a new booking call. Stop polling.'
            : 'The booking failed. Tell the user; a new booking call may succeed later. Stop polling.',
      };
    }
  }
}
