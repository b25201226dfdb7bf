import type { NewAuditEvent } from '../jobs/audit.ts';
import type { Driver } from '../driver/types.ts';
import { describeRequest, type BookingPlan } from './request.ts';

// consent.maxJobDurationSeconds, as the contract calls it: a soft cap. When it passes, the step under
// way finishes and a hold it reaches is kept for the person; no new step, retry or provider starts,
// and the job ends as it stands. A run that hangs in a step is stopped by the hard ceiling.

/** The hard ceiling is this many times the cap (documented in docs/executor.md). */
export const HARD_CEILING_FACTOR = 2;

/** The job_aborted event, the error and the summary of a run stopped by the cap (soft) or the ceiling (hard). */
export function durationEnding(kind: 'soft' | 'hard', plan: BookingPlan, driver: Driver | null, progress: { step: string | null; url: string | null }): [NewAuditEvent, Record<string, unknown>, string] {
  const seconds = plan.consent.maxJobDurationSeconds;
  const at = driver ? ` while working at ${driver.name}` : '';
  const step = progress.step ? progress.step.replace('_', ' ') : null;
  const message = kind === 'soft'
    ? `Stopped: the job passed its ${seconds} s limit (consent.maxJobDurationSeconds, a soft cap)${at}; the step under way was finished${step ? ` (${step})` : ''} and no new step, retry or provider was started.`
    : `Stopped: the job ran past its hard ceiling of ${seconds * HARD_CEILING_FACTOR} s (${HARD_CEILING_FACTOR} × consent.maxJobDurationSeconds of ${seconds} s)${at}${step ? `, stuck in ${step}` : ''}.`;
  return [
    { type: 'job_aborted', ...(driver ? { providerId: driver.id } : {}), message, data: { reason: 'max_duration_exceeded', cap: kind, ...(driver ? { providerOutcome: 'failed' } : {}) } },
    {
      reason: 'max_duration_exceeded',
      step: progress.step,
      provider: driver?.id ?? null,
      url: progress.url,
      message: kind === 'soft'
        ? `the job passed consent.maxJobDurationSeconds (${seconds} s)${step ? ` after ${step}` : ''}; no new step was started`
        : `the job ran past the hard ceiling of ${seconds * HARD_CEILING_FACTOR} s${step ? ` during ${step}` : ''}`,
    },
    `Stopped after ${kind === 'soft' ? seconds : seconds * HARD_CEILING_FACTOR} s (the job's time limit${kind === 'soft' ? '' : `'s hard ceiling`}) before anything was booked: ${describeRequest(plan.request)}.`,
  ];
}
