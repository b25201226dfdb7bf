import { z } from 'zod';
import { VERSION } from '../../version.ts';
import {
  activityParams,
  clientMetadataSchema,
  consentSchema,
  executionJobRequestSchema,
  flightParams,
  hotelParams,
  paramsByScenario,
  profileSchema,
  restaurantParams,
} from '../../jobs/schemas.ts';
import { SCENARIOS } from '../../jobs/types.ts';
import { AUDIT_LIMIT } from '../../jobs/audit.ts';
import type { QueryRange } from '../../jobs/clamp.ts';
import { METRICS_DAYS } from '../../jobs/provider-metrics.ts';
import { API_ERRORS, AUTH_ERROR_CODES, type ApiErrorCode } from './error-codes.ts';
import {
  createdJobSchema,
  errorSchema,
  executionJobSchema,
  jobAuditSchema,
  profileListSchema,
  providerMetricsSchema,
  storedProfileSchema,
  webhookDeliveryListSchema,
  webhookDeliverySchema,
  webhookEndpointListSchema,
  webhookEndpointSchema,
  webhookEndpointWithSecretSchema,
} from './response-schemas.ts';
import { webhookEndpointRequestSchema } from '../../webhooks/endpoints.ts';
import { DELIVERY_LIMIT } from './webhook-endpoints.ts';

// The OpenAPI 3.1 document of /api/v1, generated from the zod schemas the handlers validate with
// (jobs/schemas.ts) and the reply schemas present.ts is typed against (response-schemas.ts).
// Operations and their error codes are listed once, below; the reference page renders this document.

type JsonSchema = Record<string, unknown>;

/** The booking request as documented: `request` spelled out per scenario (the handler validates
 *  `params` against the scenario's schema in a second step, with these same schemas). */
const executionJobRequestDoc = executionJobRequestSchema.extend({
  request: z
    .discriminatedUnion(
      'scenario',
      SCENARIOS.map((scenario) => z.object({ scenario: z.literal(scenario), params: paramsByScenario[scenario] }).strict()) as unknown as [
        z.ZodObject,
        ...z.ZodObject[],
      ],
    )
    .describe('What to book: the scenario and its params'),
});

function components(): Record<string, JsonSchema> {
  const requests = z.registry<{ id: string }>();
  requests.add(executionJobRequestDoc, { id: 'ExecutionJobRequest' });
  requests.add(restaurantParams, { id: 'RestaurantParams' });
  requests.add(hotelParams, { id: 'HotelParams' });
  requests.add(flightParams, { id: 'FlightParams' });
  requests.add(activityParams, { id: 'ActivityParams' });
  requests.add(profileSchema, { id: 'Profile' });
  requests.add(consentSchema, { id: 'Consent' });
  requests.add(clientMetadataSchema, { id: 'ClientMetadata' });
  const replies = z.registry<{ id: string }>();
  replies.add(createdJobSchema, { id: 'CreatedJob' });
  replies.add(executionJobSchema, { id: 'ExecutionJob' });
  replies.add(jobAuditSchema, { id: 'JobAudit' });
  replies.add(providerMetricsSchema, { id: 'ProviderMetrics' });
  replies.add(storedProfileSchema, { id: 'StoredProfile' });
  replies.add(profileListSchema, { id: 'ProfileList' });
  replies.add(webhookEndpointSchema, { id: 'WebhookEndpoint' });
  replies.add(webhookEndpointWithSecretSchema, { id: 'WebhookEndpointWithSecret' });
  replies.add(webhookEndpointListSchema, { id: 'WebhookEndpointList' });
  replies.add(webhookDeliverySchema, { id: 'WebhookDelivery' });
  replies.add(webhookDeliveryListSchema, { id: 'WebhookDeliveryList' });
  requests.add(webhookEndpointRequestSchema, { id: 'WebhookEndpointRequest' });
  replies.add(errorSchema, { id: 'Error' });
  const uri = (id: string) => `#/components/schemas/${id}`;
  const out: Record<string, JsonSchema> = {};
  for (const [registry, io] of [[requests, 'input'], [replies, 'output']] as const) {
    const { schemas } = z.toJSONSchema(registry, { uri, io, unrepresentable: 'any' }) as { schemas: Record<string, JsonSchema> };
    for (const [id, schema] of Object.entries(schemas)) {
      const { $schema: _s, $id: _i, ...rest } = schema;
      out[id] = rest;
    }
  }
  // Rules that span fields, which JSON Schema can state: exactly one of profile and profileId.
  out.ExecutionJobRequest = {
    ...out.ExecutionJobRequest,
    oneOf: [{ required: ['profile'] }, { required: ['profileId'] }],
    description:
      'A booking request. Give exactly one of `profile` (inline) and `profileId` (a stored profile of your organisation). ' +
      'For flights the profile must also carry `dob`, `passport_number` and `passport_country`. Dates are real calendar dates, ' +
      'not in the past (a date is past when it is before today everywhere on Earth, UTC−12); hotel `checkout` is after `checkin`; ' +
      'flight `return_date` is not before `date` (a same-day return is allowed) and `dest` differs from `origin`.',
  };
  return out;
}

interface Parameter {
  name: string;
  in: 'path' | 'query';
  description: string;
  required: boolean;
  schema: JsonSchema;
}

interface Operation {
  method: 'get' | 'post' | 'delete';
  path: string;
  operationId: string;
  tag: string;
  summary: string;
  description: string;
  public?: boolean;
  parameters?: Parameter[];
  body?: { schema: string; description: string };
  success: { status: number; description: string; schema?: string; contentType?: string; headers?: Record<string, string> };
  errors: ApiErrorCode[];
}

/** A clamped query number, as jobs/clamp.ts reads it. */
const clampedText = (r: QueryRange) => `Default ${r.default}; clamped to ${r.min}..${r.max}; a value that is not a number means the default; a fraction is truncated.`;
const clampedSchema = (r: QueryRange): JsonSchema => ({ type: 'integer', default: r.default, minimum: r.min, maximum: r.max });

const jobIdParam: Parameter = { name: 'jobId', in: 'path', required: true, description: 'The job id (a UUID) from the 202 reply', schema: { type: 'string' } };
const profileIdParam: Parameter = { name: 'profileId', in: 'path', required: true, description: 'The stored profile id', schema: { type: 'integer', minimum: 1 } };
const endpointIdParam: Parameter = { name: 'endpointId', in: 'path', required: true, description: 'The webhook endpoint id', schema: { type: 'string' } };
const BODY_ERRORS: ApiErrorCode[] = ['invalid_json', 'invalid_request', 'payload_too_large', 'unsupported_media_type'];

export const OPERATIONS: readonly Operation[] = [
  {
    method: 'post',
    path: '/execution-jobs',
    operationId: 'createExecutionJob',
    tag: 'Execution jobs',
    summary: 'Start a booking job',
    description:
      'Validates the whole request (every problem is reported at once in `error.details`), checks the scenario against the key\'s ' +
      '`allowed_job_types`, stores the job with a `job_created` audit event and queues it. The booking runs asynchronously: poll ' +
      'the job every 3 to 5 s (10-minute ceiling). `clientMetadata.idempotencyKey` is scoped to your organisation: the same key ' +
      'and the same request returns the same job (202, header `Idempotent-Replayed: true`), also when many such requests arrive ' +
      'at once; the same key with a different request is 409.',
    body: { schema: 'ExecutionJobRequest', description: 'The booking request' },
    success: {
      status: 202,
      description: 'Accepted: the job exists and is queued',
      schema: 'CreatedJob',
      headers: { Location: 'The job URL (same as `_links.self`)', 'Idempotent-Replayed': '`true` when an earlier request with the same idempotencyKey created the job' },
    },
    errors: [...BODY_ERRORS, 'scenario_not_allowed', 'idempotency_key_reused', 'job_create_failed'],
  },
  {
    method: 'get',
    path: '/execution-jobs/{jobId}',
    operationId: 'getExecutionJob',
    tag: 'Execution jobs',
    summary: 'Read a job',
    description:
      'The job with its decision log. When a job is final: `completed`, `no_availability`, `needs_login`, `captcha` and `error` ' +
      'are final; `pending` and `running` are working; `paused_payment` is NOT final (the person is paying at `handoffUrl`, and the ' +
      'job becomes `completed` or `error` when they pay, cancel or the hold runs out). Use webhooks, or poll until `completed`/`error` ' +
      "or the hold's end: every 3 to 5 s while pending or running, every 30 s while paused_payment. A held booking ended as `error` " +
      "by a process that could not see the person's payment may still become `completed` within a few minutes, when the provider " +
      'confirms it (read once more 5 minutes after such an end). After a held booking ends, `handoffUrl` stays for 30 minutes and ' +
      'shows the outcome (the receipt). By default a key reads only its own organisation\'s jobs; another organisation\'s job is 404, exactly like a ' +
      'missing one (the operator can restore open reads with JOB_READ_ISOLATION=none; another organisation then reads the job, ' +
      'but its `handoffUrl` and `sessionUrl` are null: they are the owner\'s). A malformed id is 404 too.',
    parameters: [jobIdParam],
    success: { status: 200, description: 'The job', schema: 'ExecutionJob' },
    errors: ['missing_job_id', 'job_not_found'],
  },
  {
    method: 'post',
    path: '/execution-jobs/{jobId}/cancel',
    operationId: 'cancelExecutionJob',
    tag: 'Execution jobs',
    summary: 'Cancel a job',
    description:
      'Stops a `pending` or `running` job, or releases a booking held at `paused_payment` (the person\'s handoff link then shows ' +
      'it as cancelled). The job becomes `error` with `error.reason` `cancelled_by_client`, with a `job_aborted` audit event, and ' +
      'the reply is the job as `GET` shows it. No body. Idempotent: cancelling a job this API already cancelled answers 200 with the ' +
      'same job. A job that is already final otherwise is 409 `job_already_final`. A payment the person already submitted on the ' +
      'held booking is never cut off: while it waits for the provider\'s answer the cancel is 409 `payment_in_flight`; poll the ' +
      'job (it may end `completed`). Only the job\'s own organisation may cancel it (another organisation\'s job is 404, also when ' +
      'reads are open). A running job stops within about a second, on whichever worker runs it.',
    parameters: [jobIdParam],
    success: { status: 200, description: 'The job, cancelled', schema: 'ExecutionJob' },
    errors: ['missing_job_id', 'job_not_found', 'job_already_final', 'payment_in_flight'],
  },
  {
    method: 'get',
    path: '/execution-jobs/{jobId}/audit',
    operationId: 'getExecutionJobAudit',
    tag: 'Execution jobs',
    summary: "Read a job's audit log",
    description:
      'Every decision taken for the job, oldest first. 404 only when the job itself does not exist (for this key); a job without ' +
      'events gives an empty list. With open reads (JOB_READ_ISOLATION=none) another organisation reads the log without the ' +
      '`handoffUrl` of `paused_payment` events. Paginated by cursor: a reply holds at most `limit` events and `nextCursor`; pass it as `after` ' +
      'to read the next page, until `nextCursor` is null (the end of the log as it stood). Events appended while you page land ' +
      'after your cursor: none is lost or repeated. A client that ignores the cursor reads the first `limit` events, as before.',
    parameters: [
      jobIdParam,
      {
        name: 'limit',
        in: 'query',
        required: false,
        description: `At most this many events, oldest first. ${clampedText(AUDIT_LIMIT)}`,
        schema: clampedSchema(AUDIT_LIMIT),
      },
      {
        name: 'after',
        in: 'query',
        required: false,
        description: 'The `nextCursor` of the previous page, unchanged: the events after it. Absent: from the first event.',
        schema: { type: 'string' },
      },
    ],
    success: { status: 200, description: 'A page of the audit log', schema: 'JobAudit' },
    errors: ['missing_job_id', 'job_not_found', 'invalid_cursor'],
  },
  {
    method: 'get',
    path: '/metrics/providers/{providerId}',
    operationId: 'getProviderMetrics',
    tag: 'Provider metrics',
    summary: "A provider's success metrics",
    description:
      'Computed from the audit log of all organisations over the last `timeRangeDays` days. Every provider attempt ends with one ' +
      'event carrying `providerOutcome`: `accepted` (the provider held the booking for payment or confirmed it), `failed` (the ' +
      'attempt ended without a booking: no availability, a login wall, a CAPTCHA, an outage, a broken page, retries exhausted) or ' +
      '`manual_override` (a held booking the person cancelled or let expire at the handoff). totalAttempts = accepted + failed; ' +
      'successRate = accepted / totalAttempts (0 when there are no attempts); manual overrides are counted apart. With no matching ' +
      'events the reply is still 200 with zeros. Require totalAttempts of at least 5 before trusting successRate.',
    parameters: [
      { name: 'providerId', in: 'path', required: true, description: 'The provider id, as in consent.allowedProviders', schema: { type: 'string' } },
      {
        name: 'timeRangeDays',
        in: 'query',
        required: false,
        description: `The window in days. ${clampedText(METRICS_DAYS)}`,
        schema: clampedSchema(METRICS_DAYS),
      },
    ],
    success: { status: 200, description: 'The metrics', schema: 'ProviderMetrics' },
    errors: ['missing_provider_id'],
  },
  {
    method: 'post',
    path: '/profiles',
    operationId: 'createProfile',
    tag: 'Profiles',
    summary: 'Store a traveller profile',
    description:
      "Stores a profile for your organisation's bookings, validated like an inline profile. Reference it with `profileId` in a " +
      'booking request; only keys of the same organisation can read, delete or use it.',
    body: { schema: 'Profile', description: 'The profile' },
    success: { status: 201, description: 'Stored', schema: 'StoredProfile', headers: { Location: 'The profile URL' } },
    errors: BODY_ERRORS,
  },
  {
    method: 'get',
    path: '/profiles',
    operationId: 'listProfiles',
    tag: 'Profiles',
    summary: "List your organisation's profiles",
    description: 'Oldest first.',
    success: { status: 200, description: 'The profiles', schema: 'ProfileList' },
    errors: [],
  },
  {
    method: 'get',
    path: '/profiles/{profileId}',
    operationId: 'getProfile',
    tag: 'Profiles',
    summary: 'Read a stored profile',
    description: "Another organisation's profile is 404, like a missing one.",
    parameters: [profileIdParam],
    success: { status: 200, description: 'The profile', schema: 'StoredProfile' },
    errors: ['profile_not_found'],
  },
  {
    method: 'delete',
    path: '/profiles/{profileId}',
    operationId: 'deleteProfile',
    tag: 'Profiles',
    summary: 'Delete a stored profile',
    description: 'The profile is deleted from the database. Jobs already created with it keep their copy until their traveller data is erased (JOB_PERSONAL_DATA_RETENTION_DAYS after they end).',
    parameters: [profileIdParam],
    success: { status: 204, description: 'Deleted' },
    errors: ['profile_not_found'],
  },
  {
    method: 'post',
    path: '/webhook-endpoints',
    operationId: 'createWebhookEndpoint',
    tag: 'Webhooks',
    summary: 'Register a webhook endpoint',
    description:
      "Your organisation's jobs' events are POSTed to `url`, signed per Standard Webhooks (`webhook-id`, `webhook-timestamp`, " +
      '`webhook-signature`; verify with any Standard Webhooks library and the `secret` returned here, shown once). Events: ' +
      '`job.paused_payment` (with `handoffUrl`), `job.completed`, `job.no_availability`, `job.needs_login`, `job.captcha`, `job.error`, ' +
      'and a late `job.completed` (`data.late: true`) when the provider confirms a held booking recorded as ended. Body: ' +
      '`{"type", "timestamp", "data": {jobId, status, scenario, summary, confirmationCode?, error?, holdExpiresAt?, handoffUrl?, ' +
      'updatedAt, completedAt, clientMetadata, late?}}`. At least once: answer 2xx within 10 s; any other answer, a redirect (not ' +
      'followed) or no answer is retried with exponential backoff over about three days, with the same `webhook-id` (dedupe on ' +
      'it). An endpoint failing for three days is disabled (an audit event on the job). In production the URL must be https:// ' +
      'and public: loopback, private and link-local addresses are refused, also after DNS resolution. At most 20 per organisation.',
    body: { schema: 'WebhookEndpointRequest', description: 'The endpoint' },
    success: { status: 201, description: 'Registered; the only time the secret is shown', schema: 'WebhookEndpointWithSecret', headers: { Location: 'The endpoint URL' } },
    errors: [...BODY_ERRORS, 'webhook_endpoint_limit'],
  },
  {
    method: 'get',
    path: '/webhook-endpoints',
    operationId: 'listWebhookEndpoints',
    tag: 'Webhooks',
    summary: "List your organisation's webhook endpoints",
    description: 'Oldest first. Secrets are never listed.',
    success: { status: 200, description: 'The endpoints', schema: 'WebhookEndpointList' },
    errors: [],
  },
  {
    method: 'delete',
    path: '/webhook-endpoints/{endpointId}',
    operationId: 'deleteWebhookEndpoint',
    tag: 'Webhooks',
    summary: 'Remove a webhook endpoint',
    description: 'Nothing more is sent to it; deliveries waiting for a retry are dropped.',
    parameters: [endpointIdParam],
    success: { status: 204, description: 'Removed' },
    errors: ['webhook_endpoint_not_found'],
  },
  {
    method: 'post',
    path: '/webhook-endpoints/{endpointId}/rotate',
    operationId: 'rotateWebhookSecret',
    tag: 'Webhooks',
    summary: "Rotate an endpoint's signing secret",
    description:
      'Returns a new secret, shown once. For the overlap (WEBHOOK_SECRET_OVERLAP_SECONDS, 24 h by default; `previousSecretExpiresAt`) ' +
      'every delivery carries two signatures, one per secret, so a receiver verifying with either accepts it: deploy the new secret, then ' +
      'the old one stops being used.',
    parameters: [endpointIdParam],
    success: { status: 200, description: 'The endpoint with its new secret', schema: 'WebhookEndpointWithSecret' },
    errors: ['webhook_endpoint_not_found'],
  },
  {
    method: 'get',
    path: '/webhook-endpoints/{endpointId}/deliveries',
    operationId: 'listWebhookDeliveries',
    tag: 'Webhooks',
    summary: "An endpoint's delivery log",
    description: 'Newest first: each delivery with its status, attempts, and the last attempt\'s response code, latency and error.',
    parameters: [
      endpointIdParam,
      { name: 'limit', in: 'query', required: false, description: `At most this many deliveries. ${clampedText(DELIVERY_LIMIT)}`, schema: clampedSchema(DELIVERY_LIMIT) },
    ],
    success: { status: 200, description: 'The delivery log', schema: 'WebhookDeliveryList' },
    errors: ['webhook_endpoint_not_found'],
  },
  {
    method: 'post',
    path: '/webhook-endpoints/{endpointId}/deliveries/{deliveryId}/replay',
    operationId: 'replayWebhookDelivery',
    tag: 'Webhooks',
    summary: 'Send a delivery again',
    description: 'The same event with the same `webhook-id`, now; its retry schedule starts over. No body.',
    parameters: [endpointIdParam, { name: 'deliveryId', in: 'path', required: true, description: 'The delivery id (its webhook-id)', schema: { type: 'string' } }],
    success: { status: 202, description: 'Queued', schema: 'WebhookDelivery' },
    errors: ['webhook_endpoint_not_found', 'webhook_delivery_not_found', 'webhook_endpoint_disabled', 'webhook_delivery_in_progress'],
  },
  {
    method: 'get',
    path: '/openapi.json',
    operationId: 'getOpenApi',
    tag: 'Reference',
    summary: 'This document',
    description: 'OpenAPI 3.1, generated from the schemas the service validates with. Public: no API key needed.',
    public: true,
    success: { status: 200, description: 'The OpenAPI document', contentType: 'application/json' },
    errors: [],
  },
  {
    method: 'get',
    path: '/docs',
    operationId: 'getReference',
    tag: 'Reference',
    summary: 'The API reference page',
    description: 'This document rendered as one HTML page, served by the service itself (no external assets). Public: no API key needed.',
    public: true,
    success: { status: 200, description: 'HTML', contentType: 'text/html' },
    errors: [],
  },
];

function errorResponses(codes: readonly ApiErrorCode[]): Record<string, unknown> {
  const byStatus = new Map<number, ApiErrorCode[]>();
  for (const code of codes) {
    const status = API_ERRORS[code].status;
    byStatus.set(status, [...(byStatus.get(status) ?? []), code]);
  }
  const out: Record<string, unknown> = {};
  for (const [status, list] of [...byStatus].sort((a, b) => a[0] - b[0])) {
    out[String(status)] = {
      description: list.map((code) => `\`${code}\`: ${API_ERRORS[code].when}`).join('\n\n'),
      ...(status === 503 ? { headers: { 'Retry-After': { description: 'Seconds to wait before retrying', schema: { type: 'integer' } } } } : {}),
      ...(status === 401 ? { headers: { 'WWW-Authenticate': { description: 'Bearer realm="concierge-api"', schema: { type: 'string' } } } } : {}),
      content: {
        'application/json': {
          schema: { $ref: '#/components/schemas/Error' },
          examples: Object.fromEntries(list.map((code) => [code, { value: { error: { code, message: API_ERRORS[code].when } } }])),
        },
      },
    };
  }
  return out;
}

/** The error codes an operation can return, authentication and unexpected failures included. */
export function errorCodesOf(operation: Operation): ApiErrorCode[] {
  return operation.public ? [...operation.errors] : [...operation.errors, ...AUTH_ERROR_CODES, 'rate_limited', 'internal_error'];
}

export function buildOpenApiDocument(baseUrl: string): Record<string, unknown> {
  const paths: Record<string, Record<string, unknown>> = {};
  for (const op of OPERATIONS) {
    const success: Record<string, unknown> = { description: op.success.description };
    if (op.success.headers) {
      success.headers = Object.fromEntries(Object.entries(op.success.headers).map(([name, description]) => [name, { description, schema: { type: 'string' } }]));
    }
    if (op.success.schema) success.content = { 'application/json': { schema: { $ref: `#/components/schemas/${op.success.schema}` } } };
    else if (op.success.contentType) success.content = { [op.success.contentType]: {} };
    paths[op.path] ??= {};
    paths[op.path]![op.method] = {
      operationId: op.operationId,
      tags: [op.tag],
      summary: op.summary,
      description: op.description,
      ...(op.public ? { security: [] } : {}),
      ...(op.parameters ? { parameters: op.parameters } : {}),
      ...(op.body
        ? { requestBody: { required: true, description: op.body.description, content: { 'application/json': { schema: { $ref: `#/components/schemas/${op.body.schema}` } } } } }
        : {}),
      responses: { [String(op.success.status)]: success, ...errorResponses(errorCodesOf(op)) },
    };
  }
  return {
    openapi: '3.1.0',
    info: {
      title: 'Concierge Execution API',
      version: VERSION,
      description:
        'Book restaurants, hotels, flights and activities for the people you serve. A booking is a job: create it, then poll it. ' +
        'The service never submits a card security code: a job that reaches the payment step pauses with status `paused_payment` ' +
        'and `handoffUrl`, where the person completes the charge.\n\n' +
        'Every call except this document and the reference page needs `Authorization: Bearer <API_KEY>`; keys are minted by the ' +
        'operator. Every error is `{"error": {"code", "message", "details?"}}` with a stable snake_case code; unknown routes are 404 ' +
        '`not_found`, a known path with another method is 405 `method_not_allowed` (with Allow), bodies over 1 MiB are 413, bodies ' +
        'that are not application/json are 415. Version 1 is alpha: breaking changes are possible until it leaves alpha. Learn the ' +
        "outcome by webhooks, or poll until `completed`/`error` or the hold's end: `paused_payment` is not final. " +
        'The per-day rate limit stored with a key is not enforced.',
    },
    servers: [{ url: `${baseUrl}/api/v1` }],
    security: [{ apiKey: [] }],
    tags: [
      { name: 'Execution jobs', description: 'Create and poll booking jobs' },
      { name: 'Provider metrics', description: 'How providers fare, from the audit log' },
      { name: 'Profiles', description: "Your organisation's stored traveller profiles (profileId)" },
      { name: 'Webhooks', description: "Your organisation's webhook endpoints: signed job events, delivery log, replay" },
      { name: 'Reference', description: 'This documentation' },
    ],
    paths,
    components: {
      securitySchemes: {
        apiKey: {
          type: 'http',
          scheme: 'bearer',
          bearerFormat: 'svk_(live|test)_…',
          description: 'An API key minted by the operator (`concierge keys create`), sent as `Authorization: Bearer svk_…`.',
        },
      },
      schemas: components(),
    },
    'x-error-codes': Object.fromEntries(Object.entries(API_ERRORS).map(([code, e]) => [code, { status: e.status, when: e.when }])),
  };
}
