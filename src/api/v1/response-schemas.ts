import { z } from 'zod';
import { AUDIT_EVENT_TYPES, JOB_STATUSES, SCENARIOS } from '../../jobs/types.ts';
import { profileSchema } from '../../jobs/schemas.ts';
import { METRICS_DAYS } from '../../jobs/provider-metrics.ts';

// The shapes the REST API answers with. present.ts builds its replies to satisfy these types, the
// OpenAPI document is generated from them, and the tests parse real replies with them: the
// document cannot drift from what the service sends.

const isoTime = z.iso.datetime({ offset: true }).describe('ISO 8601 timestamp (UTC)');

export const jobLinksSchema = z
  .object({
    self: z.string().describe('/api/v1/execution-jobs/{jobId}'),
    audit: z.string().describe('/api/v1/execution-jobs/{jobId}/audit'),
  })
  .strict();

export const createdJobSchema = z
  .object({
    jobId: z.uuid().describe('The job id'),
    status: z.enum(JOB_STATUSES).describe('`pending` for a new job; the current status when an idempotent request is replayed'),
    scenario: z.enum(SCENARIOS),
    organizationName: z.string().describe("The API key's organisation"),
    _links: jobLinksSchema,
  })
  .strict();

export const decisionLogEntrySchema = z
  .object({
    timestamp: isoTime,
    type: z.string().describe('An audit event type'),
    message: z.string(),
  })
  .strict();

export const executionJobSchema = z
  .object({
    jobId: z.uuid(),
    status: z.enum(JOB_STATUSES).describe('Final: completed, no_availability, needs_login, captcha, error. Not final: pending, running, and paused_payment (the person is paying)'),
    scenario: z.enum(SCENARIOS),
    organizationName: z.string().nullable().describe('The owning organisation (null for a job created through OAuth on the tool endpoint)'),
    handoffUrl: z.string().nullable().describe('Where the person completes the payment while paused_payment; after the held booking ended, the same link shows the outcome (the receipt) for 30 minutes, then null. Shown to the job\'s owner only (null for another organisation reading it under open reads)'),
    sessionUrl: z.string().nullable().describe('A live view of the browser session, when one is held. Shown to the job\'s owner only'),
    summary: z.string().describe('One line on where the job stands'),
    decisionLog: z.array(decisionLogEntrySchema).describe('The audit log, oldest first (at most 2000 entries; the audit endpoint has the full events)'),
    attemptCount: z.number().int().describe('Provider attempts so far'),
    usedFallback: z.boolean().describe('Whether the job moved on from its first provider'),
    confirmationCode: z.string().optional().describe("The provider's confirmation code, once there is one"),
    createdAt: isoTime,
    updatedAt: isoTime,
    completedAt: isoTime.nullable().describe('When the job reached a terminal status'),
    personalDataErasedAt: isoTime
      .optional()
      .describe("Present once the traveller's personal data was erased from the job (JOB_PERSONAL_DATA_RETENTION_DAYS after it ended): the summary, decision log and error then read [erased] where they quoted it"),
    error: z.record(z.string(), z.unknown()).optional().describe('Present on status error: what went wrong, as an object with at least `reason`'),
    _links: jobLinksSchema,
  })
  .strict();

export const auditEventSchema = z
  .object({
    jobId: z.uuid(),
    stepIndex: z.number().int().describe('0 for job_created, then +1 per event'),
    type: z.enum(AUDIT_EVENT_TYPES),
    timestamp: isoTime,
    message: z.string(),
    providerId: z.string().optional().describe('The provider the event concerns'),
    fromTime: z.string().optional().describe('HH:MM, on time_adjusted events'),
    toTime: z.string().optional().describe('HH:MM, on time_adjusted events'),
    handoffUrl: z.string().optional().describe('On paused_payment events, for the job\'s owner'),
  })
  .catchall(z.unknown())
  .describe('One decision or lifecycle step. Events may carry further fields (providerOutcome, reason, …).');

export const jobAuditSchema = z
  .object({
    jobId: z.uuid(),
    count: z.number().int().describe('Number of events returned'),
    events: z.array(auditEventSchema).describe('Oldest first'),
    nextCursor: z
      .string()
      .nullable()
      .describe('Pass as `after` to read the next page; null when this page reached the end of the log. Opaque: use it unchanged.'),
  })
  .strict();

export const providerMetricsSchema = z
  .object({
    providerId: z.string(),
    successRate: z.number().min(0).max(1).describe('acceptedCount / totalAttempts; 0 when there were no attempts'),
    totalAttempts: z.number().int().describe('acceptedCount + failedCount'),
    acceptedCount: z.number().int().describe('Attempts where the provider held or confirmed the booking'),
    manualOverrideCount: z.number().int().describe('Held bookings the person cancelled or let expire at the handoff'),
    failedCount: z.number().int().describe('Attempts that ended without a booking'),
    lastEventAt: isoTime.nullable().describe('The latest counted event; null when none is in the range'),
    timeRangeDays: z.number().int().min(METRICS_DAYS.min).max(METRICS_DAYS.max).describe('The window actually used, after clamping'),
  })
  .strict();

export const storedProfileSchema = z
  .object({
    profileId: z.number().int().describe('Use as `profileId` in a booking request'),
    profile: profileSchema,
    createdAt: isoTime,
  })
  .strict();

export const profileListSchema = z
  .object({
    count: z.number().int(),
    profiles: z.array(storedProfileSchema).describe('Oldest first'),
  })
  .strict();

export const errorSchema = z
  .object({
    error: z
      .object({
        code: z.string().describe('snake_case, stable: branch on this'),
        message: z.string().describe('For people; may change'),
        details: z
          .array(z.object({ path: z.string().describe('Dotted path of the field, `(body)` for the whole body'), message: z.string() }).strict())
          .optional()
          .describe('On invalid_request: every problem found, at once'),
      })
      .strict(),
  })
  .strict();

export const webhookEndpointSchema = z
  .object({
    id: z.uuid().describe('The endpoint id'),
    url: z.string().describe('Where events are POSTed'),
    status: z.enum(['enabled', 'disabled']).describe('disabled: its deliveries failed for days (WEBHOOK_DISABLE_AFTER_SECONDS); nothing more is sent'),
    createdAt: isoTime,
    disabledAt: isoTime.nullable(),
    disabledReason: z.string().nullable(),
    secretRotatedAt: isoTime.nullable(),
    previousSecretExpiresAt: isoTime.nullable().describe('During a rotation\'s overlap: until then deliveries carry a signature with the previous secret too'),
  })
  .strict();

export const webhookEndpointWithSecretSchema = webhookEndpointSchema
  .extend({ secret: z.string().describe('The Standard Webhooks signing secret (whsec_…). Shown once, here: store it now') })
  .strict();

export const webhookEndpointListSchema = z.object({ count: z.number().int(), endpoints: z.array(webhookEndpointSchema).describe('Oldest first') }).strict();

export const webhookDeliverySchema = z
  .object({
    id: z.string().describe('The webhook-id header: the same on every attempt and replay (dedupe on it)'),
    type: z.string().describe('job.paused_payment, job.completed, job.no_availability, job.needs_login, job.captcha or job.error'),
    jobId: z.uuid().nullable(),
    status: z.enum(['pending', 'retrying', 'delivered', 'failed', 'cancelled']).describe('failed: every retry failed; cancelled: the endpoint was removed or disabled first'),
    attempts: z.number().int(),
    responseCode: z.number().int().nullable().describe('The HTTP status of the last attempt; null when the endpoint did not answer (or the URL was refused)'),
    latencyMs: z.number().int().nullable().describe('How long the last attempt took'),
    error: z.string().nullable().describe('Why the last attempt failed'),
    createdAt: isoTime,
    lastAttemptAt: isoTime.nullable(),
    nextAttemptAt: isoTime.nullable(),
    deliveredAt: isoTime.nullable(),
  })
  .strict();

export const webhookDeliveryListSchema = z.object({ count: z.number().int(), deliveries: z.array(webhookDeliverySchema).describe('Newest first') }).strict();

export type ExecutionJobReply = z.output<typeof executionJobSchema>;
export type CreatedJobReply = z.output<typeof createdJobSchema>;
export type StoredProfileReply = z.output<typeof storedProfileSchema>;
