import { z } from 'zod';
import { SCENARIOS } from '../../jobs/types.ts';
import { MCP_STATUSES } from '../status.ts';

/** What get_job_status answers (status.ts statusReport), and a booking task's final result. */
export const jobStatusOutput = z
  .object({
    jobId: z.uuid().describe('The job'),
    status: z.enum(MCP_STATUSES).describe('queued, running, paused_payment (the user must pay), done, error, captcha or needs_login'),
    scenario: z.enum(SCENARIOS).describe('What is being booked'),
    summary: z.string().describe('One line on where the booking stands'),
    updatedAt: z.iso.datetime().describe('When the job last changed, ISO 8601'),
    nextPollSeconds: z.number().int().nullable().describe('Seconds to wait before polling again; null means stop polling'),
    instruction: z.string().describe('What to do next, and what to tell the user'),
    confirmationCode: z.string().optional().describe('On done: the booking\'s confirmation code'),
    handoffUrl: z.url().nullable().optional().describe('On paused_payment: where the user completes the payment themselves (null until the link exists, and for anyone but the job\'s owner)'),
    holdExpiresAt: z.iso.datetime().nullable().optional().describe('On paused_payment: when the provider releases the held booking'),
    sessionUrl: z.url().nullable().optional().describe('On running: a read-only live view of the booking in progress, for the user to watch (null once the run ends, and for anyone but the job\'s owner)'),
    reason: z.string().optional().describe('On error, captcha and needs_login: why, e.g. no_availability'),
    personalDataErasedAt: z.iso.datetime().optional().describe('Present once the traveller\'s personal data was erased from the finished job: the summary reads [erased] where it quoted it'),
  })
  .strict();
