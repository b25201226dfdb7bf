import type { Job } from './types.ts';

// Where the person finishes the payment, and where a running job can be watched. The executor
// owns the held session and the handoff token (src/jobs/handoff-tokens.ts implements these).
export interface JobLinks {
  /** While the handoff link opens something: the payment (paused_payment, hold not run out), then the outcome for 30 minutes after the job ended; null otherwise. */
  handoffUrl(job: Job): string | null;
  sessionUrl(job: Job): string | null;
  /** The handoff URL issued when the job paused, whatever its status now: the paused_payment event shows it. */
  issuedHandoffUrl(job: Job): string | null;
}
