import { z } from 'zod';
import { AUDIT_LIMIT } from '../../jobs/audit.ts';
import { clampToRange } from '../../jobs/clamp.ts';
import { getJobAudit } from '../../jobs/service.ts';
import { toolResult } from '../results.ts';
import { invalidArguments, runGuarded } from './guard.ts';
import { jobIdArgument, parseArguments } from './arguments.ts';
import { jobNotFound } from './get-job-status.ts';
import { jsonSchemaOf } from './schema.ts';
import type { ToolDefinition } from './types.ts';

const input = z
  .object({
    jobId: jobIdArgument,
    limit: z
      .number({ error: 'limit must be a number' })
      .int('limit must be a whole number')
      .optional()
      .describe('How many events to return, oldest first: default 500, clamped to 1..2000'),
    after: z.string({ error: 'after must be a string' }).optional().describe('The nextCursor of the previous page, unchanged, to read the events after it'),
  })
  .strict();

const hhmm = z.string().regex(/^\d{2}:\d{2}$/);

const event = z
  .looseObject({
    jobId: z.uuid().describe('The job'),
    stepIndex: z.number().int().describe('Order of the event within the job, from 0'),
    type: z.string().describe('job_created, job_started, step_started, step_attempt, action_allowed, action_denied, time_adjusted, venue_switched, provider_fallback, paused_payment, job_completed, job_failed or job_aborted'),
    timestamp: z.iso.datetime().describe('When it happened, ISO 8601'),
    message: z.string().describe('What was decided, in words'),
    providerId: z.string().optional().describe('The provider the decision concerns'),
    fromTime: hhmm.optional().describe('On time_adjusted: the requested time, HH:MM'),
    toTime: hhmm.optional().describe('On time_adjusted: the time booked instead, HH:MM'),
    handoffUrl: z.string().optional().describe('On paused_payment: where the user completes the payment'),
  })
  .describe('One decision the service took');

const output = z
  .object({
    jobId: z.uuid().describe('The job'),
    count: z.number().int().describe('How many events follow'),
    events: z.array(event).describe('The decisions taken for the job, oldest first'),
    nextCursor: z.string().nullable().describe('Pass as `after` to read the next page; null when this page reached the end of the log'),
  })
  .strict();

export const getJobAuditTool: ToolDefinition = {
  name: 'get_job_audit',
  title: 'Read a booking job\'s decision log',
  description:
    'Read the decisions the service took for a booking job, oldest first: which providers it tried and why it fell back, time adjustments (fromTime, toTime), actions allowed or denied by the user\'s consent, and where it paused for payment. ' +
    'Use it to explain to the user what happened, for example after an error. Read-only; the log is the same as the REST audit endpoint\'s. ' +
    'A long log comes in pages: call again with after = nextCursor until nextCursor is null.',
  scope: 'read',
  inputSchema: jsonSchemaOf(input, 'input'),
  outputSchema: jsonSchemaOf(output, 'output'),
  annotations: { readOnlyHint: true, destructiveHint: false, openWorldHint: false },
  run: (context, args) =>
    runGuarded(context, async () => {
      const parsed = parseArguments(input, args);
      if (!parsed.ok) return invalidArguments('get_job_audit', parsed.issues);
      const audit = await getJobAudit(context.services.jobs, context.caller.reader, parsed.value.jobId, clampToRange(parsed.value.limit, AUDIT_LIMIT), parsed.value.after);
      if (!audit) return jobNotFound(parsed.value.jobId);
      return toolResult({ ...audit });
    }),
};
