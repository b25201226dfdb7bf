import type { Job } from './types.ts';

// Where the person finishes the payment, and where a running job can be watched. The executor
// owns the held session and the handoff token; until it records one, there is nothing to show.
export interface JobLinks {
  handoffUrl(job: Job): string | null;
  sessionUrl(job: Job): string | null;
}

export const noLinks: JobLinks = {
  handoffUrl: () => null,
  sessionUrl: () => null,
};
