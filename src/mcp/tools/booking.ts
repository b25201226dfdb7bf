import { z } from 'zod';
import { createJob } from '../../jobs/service.ts';
import { additionalTravellerSchema, clientMetadataSchema, consentSchema, FLIGHT_PROFILE_FIELDS, MAX_ADDITIONAL_TRAVELLERS, paramsByScenario, parseExecutionJobRequest, profileSchema, type BookingRequest, type Issue } from '../../jobs/schemas.ts';
import { SCENARIOS, type Job, type Scenario } from '../../jobs/types.ts';
import { specOf } from '../../scenarios/index.ts';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { statusReport } from '../status.ts';
import { createdTask } from '../task-of-job.ts';
import { jobStatusOutput } from './status-output.ts';
import { toolResult } from '../results.ts';
import { jsonSchemaOf } from './schema.ts';
import { runGuarded, invalidArguments } from './guard.ts';
import type { ToolContext, ToolDefinition } from './types.ts';

// The four booking tools. Their arguments are the scenario's REST request params, flattened, plus
// the traveller's profile, optional consent and an optional idempotencyKey. They are validated by
// the very function REST uses (parseExecutionJobRequest), so both surfaces accept and refuse the
// same requests with the same messages; only the field paths are told in the tool's own terms. Each
// tool's title and what its description says first are its scenario's (src/scenarios/<name>.ts).

const EXTRA_FIELDS = ['profile', 'consent', 'idempotencyKey'] as const;

const PROFILE_DESCRIPTION = 'The traveller the booking is for: first_name, last_name, email and phone';
const FLIGHT_PROFILE_DESCRIPTION = `${PROFILE_DESCRIPTION}, and for flights also dob, passport_number and passport_country; a flight for several passengers names the others in additional_travellers, each with the same passport details`;

const FLIGHT_FIELDS = Object.fromEntries(FLIGHT_PROFILE_FIELDS.map((f) => [f, true])) as Record<(typeof FLIGHT_PROFILE_FIELDS)[number], true>;

/** A flight's profile as its tool shows it: the passport fields required of every traveller. */
const flightProfile = profileSchema.required(FLIGHT_FIELDS).extend({
  additional_travellers: additionalTravellerSchema
    .required(FLIGHT_FIELDS)
    .array()
    .max(MAX_ADDITIONAL_TRAVELLERS)
    .optional()
    .describe('The other passengers, exactly passengers − 1 of them: the lead\'s fields, passport details required, email and phone optional'),
});

function inputSchemaOf(scenario: Scenario) {
  // A booking that needs each traveller's documents (a flight) asks for them in its profile.
  const each = specOf(scenario).travellers === 'each';
  return z
    .object({
      ...paramsByScenario[scenario].shape,
      profile: (each ? flightProfile : profileSchema).describe(each ? FLIGHT_PROFILE_DESCRIPTION : PROFILE_DESCRIPTION),
      consent: consentSchema
        .optional()
        .describe('What the service may decide on the user\'s behalf; every field has a safe default, and payment always stops before the card security code'),
      idempotencyKey: clientMetadataSchema.shape.idempotencyKey.describe(
        'Your own key for this booking request (up to 200 characters): retrying with the same key and the same arguments returns the same job instead of booking twice',
      ),
    })
    .strict();
}

// A new job's answer is the first five fields; a booking run as an MCP task ends with the whole
// status report (confirmationCode and all) as the call's result, so the rest are allowed too.
const bookingResult = jobStatusOutput.partial({ summary: true, updatedAt: true });

const QUEUED_INSTRUCTION =
  'The booking now runs in the background, typically for 1 to 5 minutes. Call get_job_status with this jobId every 15 to 30 seconds until the status is done, paused_payment, error, captcha or needs_login. The service never pays: if the status becomes paused_payment, ask the user to open the handoffUrl and complete the payment themselves.';

/** Tool-shaped field paths: request.params.date → date, clientMetadata.idempotencyKey → idempotencyKey. */
function toolIssue(issue: Issue, args: Record<string, unknown>): Issue {
  const path = issue.path;
  if (path === 'request.params') return { path: '(arguments)', message: issue.message };
  if (path.startsWith('request.params.')) return { path: path.slice('request.params.'.length), message: issue.message };
  if (path === 'clientMetadata' || path.startsWith('clientMetadata.')) return { path: 'idempotencyKey', message: issue.message };
  if (path === 'profile' && args.profile === undefined) return { path: 'profile', message: 'profile is required' };
  return issue;
}

export function parseBookingArguments(scenario: Scenario, args: Record<string, unknown>): { ok: true; value: BookingRequest } | { ok: false; issues: Issue[] } {
  const params: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(args)) {
    if (!(EXTRA_FIELDS as readonly string[]).includes(key)) params[key] = value;
  }
  const body: Record<string, unknown> = { request: { scenario, params } };
  if (args.profile !== undefined) body.profile = args.profile;
  if (args.consent !== undefined) body.consent = args.consent;
  if (args.idempotencyKey !== undefined) body.clientMetadata = { idempotencyKey: args.idempotencyKey };
  const parsed = parseExecutionJobRequest(body);
  if (parsed.ok) return parsed;
  return { ok: false, issues: parsed.issues.map((issue) => toolIssue(issue, args)) };
}

/** Validates the arguments and creates the job (stored before this returns): the job, or the tool error to answer. */
async function startBooking(context: ToolContext, scenario: Scenario, args: Record<string, unknown>): Promise<{ job: Job } | { refused: CallToolResult }> {
  const parsed = parseBookingArguments(scenario, args);
  if (!parsed.ok) return { refused: invalidArguments(`book_${scenario}`, parsed.issues) };
  const { caller } = context;
  const { job } = await createJob(context.services.jobs, caller.owner, parsed.value, { allowedScenarios: caller.allowedScenarios, mode: caller.mode, dailyLimit: caller.dailyLimit });
  return { job };
}

const COMMON_DESCRIPTION =
  'Returns at once with a jobId and status "queued"; the booking then runs in the background for 1 to 5 minutes: call get_job_status with the jobId every 15 to 30 seconds. ' +
  'It never pays and never enters a card security code: when a card is needed the job stops at paused_payment and the user completes the payment themselves through a handoff link. ' +
  'Pass idempotencyKey so that a retried call returns the same job instead of booking twice. Invalid arguments come back as an error listing every problem; correct them and call again.';

function bookingTool(scenario: Scenario): ToolDefinition {
  return {
    name: `book_${scenario}`,
    title: specOf(scenario).tool.title,
    description: specOf(scenario).tool.description + COMMON_DESCRIPTION,
    scope: 'book',
    scenario,
    inputSchema: jsonSchemaOf(inputSchemaOf(scenario), 'input'),
    outputSchema: jsonSchemaOf(bookingResult, 'output'),
    annotations: { readOnlyHint: false, destructiveHint: false, openWorldHint: true },
    run: (context, args) =>
      runGuarded(context, async () => {
        const started = await startBooking(context, scenario, args);
        if ('refused' in started) return started.refused;
        const { job } = started;
        // A retried idempotencyKey may find its job further along: report where it is now.
        const report = statusReport(job, context.services.links.handoffUrl(job));
        const instruction = report.status === 'queued' ? QUEUED_INSTRUCTION : report.instruction;
        return toolResult({ jobId: job.jobId, status: report.status, scenario: job.scenario, nextPollSeconds: report.nextPollSeconds, instruction });
      }),
    startTask: (context, args) =>
      runGuarded(context, async () => {
        const started = await startBooking(context, scenario, args);
        return 'refused' in started ? started.refused : createdTask(started.job, context.services.links.handoffUrl(started.job));
      }),
  };
}

export const bookingTools: ToolDefinition[] = SCENARIOS.map(bookingTool);
