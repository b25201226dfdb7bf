import { z } from 'zod';
import { getJob } from '../../jobs/service.ts';
import { linksFor } from '../../jobs/ownership.ts';
import { statusReport } from '../status.ts';
import { toolError, toolResult } from '../results.ts';
import { invalidArguments, runGuarded } from './guard.ts';
import { jobIdArgument, parseArguments } from './arguments.ts';
import { jsonSchemaOf } from './schema.ts';
import { jobStatusOutput } from './status-output.ts';
import type { ToolDefinition } from './types.ts';

const input = z.object({ jobId: jobIdArgument }).strict();


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
  outputSchema: jsonSchemaOf(jobStatusOutput, 'output'),
  annotations: { readOnlyHint: true, destructiveHint: false, openWorldHint: false },
  run: (context, args) =>
    runGuarded(context, async () => {
      const parsed = parseArguments(input, args);
      if (!parsed.ok) return invalidArguments('get_job_status', parsed.issues);
      // Another owner's job reads exactly like a missing one.
      const job = await getJob(context.services.jobs, context.caller.reader, parsed.value.jobId);
      if (!job) return jobNotFound(parsed.value.jobId);
      const links = linksFor(context.services.links, context.caller.reader);
      return toolResult({ ...statusReport(job, links.handoffUrl(job), links.sessionUrl(job)) });
    }),
};

export function jobNotFound(jobId: string) {
  return toolError('job_not_found', `No job ${jobId} for this account. Use the jobId a book_* tool returned to this same connection.`);
}
