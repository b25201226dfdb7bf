import { z } from 'zod';
import { getJob } from '../../jobs/service.ts';
import { SCENARIOS } from '../../jobs/types.ts';
import { MCP_STATUSES, statusReport } from '../status.ts';
import { toolError, toolResult } from '../results.ts';
import { invalidArguments, runGuarded } from './guard.ts';
import { jobIdArgument, parseArguments } from './arguments.ts';
import { jsonSchemaOf } from './schema.ts';
import type { ToolDefinition } from './types.ts';

const input = z.object({ jobId: jobIdArgument }).strict();

const output = z
  .object({
    jobId: z.uuid().describe('The job'),
    status: z.enum(MCP_STATUSES).describe('queued, running, paused_payment (the user must pay), done, error, captcha or needs_login'),
    scenario: z.enum(SCENARIOS).describe('What is being booked'),
    summary: z.string().describe('One line on where the booking stands'),
    updatedAt: z.iso.datetime().describe('When the job last changed, ISO 8601'),
    nextPollSeconds: z.number().int().nullable().describe('Seconds to wait before polling again; null means stop polling'),
    instruction: z.string().describe('What to do next, and what to tell the user'),
    confirmationCode: z.string().optional().describe('On done: the booking\'s confirmation code'),
    handoffUrl: z.url().nullable().optional().describe('On paused_payment: where the user completes the payment themselves (null until the link exists)'),
    holdExpiresAt: z.iso.datetime().nullable().optional().describe('On paused_payment: when the provider releases the held booking'),
    sessionUrl: z.url().nullable().optional().describe('On running: a read-only live view of the booking in progress, for the user to watch (null once the run ends)'),
    reason: z.string().optional().describe('On error, captcha and needs_login: why, e.g. no_availability'),
    personalDataErasedAt: z.iso.datetime().optional().describe('Present once the traveller\'s personal data was erased from the finished job: the summary reads [erased] where it quoted it'),
  })
  .strict();

export const getJobStatusTool: ToolDefinition = {
  name: 'get_job_status',
  title: 'Get a booking job\'s status',
  description:
    'Poll a booking job started by book_restaurant, book_hotel, book_flight or book_activity. ' +
    'Returns its status (queued, running, paused_payment, done, error, captcha, needs_login), a one-line summary, when to poll next (nextPollSeconds; null means stop) and an instruction for what to do next. ' +
    'running carries a sessionUrl where the user can watch the booking live (read-only). done carries the confirmationCode to give the user. paused_payment carries a handoffUrl: the service never pays, so ask the user to open it and complete the payment themselves. ' +
    'error, captcha and needs_login carry a reason. Final statuses: done, error, captcha, needs_login (nextPollSeconds is null). paused_payment is NOT final: keep polling until done or error, or the hold\'s end (holdExpiresAt). ' +
    'Poll every 15 to 30 seconds; a booking typically takes 1 to 5 minutes. Read-only.',
  scope: 'read',
  inputSchema: jsonSchemaOf(input, 'input'),
  outputSchema: jsonSchemaOf(output, 'output'),
  annotations: { readOnlyHint: true, destructiveHint: false, openWorldHint: false },
  run: (context, args) =>
    runGuarded(context, async () => {
      const parsed = parseArguments(input, args);
      if (!parsed.ok) return invalidArguments('get_job_status', parsed.issues);
      // Another owner's job reads exactly like a missing one.
      const job = await getJob(context.services.jobs, context.caller.reader, parsed.value.jobId);
      if (!job) return jobNotFound(parsed.value.jobId);
      const { links } = context.services;
      return toolResult({ ...statusReport(job, links.handoffUrl(job), links.sessionUrl(job)) });
    }),
};

export function jobNotFound(jobId: string) {
  return toolError('job_not_found', `No job ${jobId} for this account. Use the jobId a book_* tool returned to this same connection.`);
}
