import type { FastifyInstance, FastifyRequest } from 'fastify';
import { AUDIT_LIMIT } from '../../jobs/audit.ts';
import { clampToRange } from '../../jobs/clamp.ts';
import { createJobFromRequest, getJobAudit, getJobWithLog } from '../../jobs/service.ts';
import { linksFor } from '../../jobs/ownership.ts';
import type { Services } from '../../services.ts';
import { cancelJob } from '../../executor/cancel.ts';
import { executionJobRequestSchema } from '../../jobs/schemas.ts';
import { ApiError } from './errors.ts';
import { principalOf, readerOf } from './auth.ts';
import { BODY_ERRORS, clampedParameter, type ParameterDoc } from './openapi.ts';
import { presentCreatedJob, presentJob } from './present.ts';
import { createdJobSchema, executionJobSchema, jobAuditSchema } from './response-schemas.ts';
import { idAfter, resource } from './routes.ts';

const notFound = (jobId: string) => new ApiError(404, 'job_not_found', `no job ${jobId}`);
const missingJobId = () => new ApiError(400, 'missing_job_id', 'the job id is missing from the path: /api/v1/execution-jobs/{jobId}');

const jobIdParam: Record<'jobId', ParameterDoc> = { jobId: { description: 'The job id (a UUID) from the 202 reply', schema: { type: 'string' } } };

/** The job id of the path; 400 missing_job_id when it is empty or blank. */
function jobIdOf(request: FastifyRequest): string {
  const jobId = idAfter(request, '/execution-jobs');
  if (jobId.trim() === '') throw missingJobId();
  return jobId;
}

export function executionJobRoutes(app: FastifyInstance, services: Services): void {
  resource(app, '/execution-jobs', {
    POST: {
      doc: {
        operationId: 'createExecutionJob',
        tag: 'Execution jobs',
        summary: 'Start a booking job',
        description:
          'Validates the whole request (every problem is reported at once in `error.details`), checks the scenario against the key\'s ' +
          '`allowed_job_types`, stores the job with a `job_created` audit event and queues it. The booking runs asynchronously: poll ' +
          'the job every 3 to 5 s (10-minute ceiling). `clientMetadata.idempotencyKey` is scoped to your organisation: the same key ' +
          'and the same request returns the same job (202, header `Idempotent-Replayed: true`), also when many such requests arrive ' +
          'at once; the same key with a different request is 409.',
        body: executionJobRequestSchema,
        success: {
          status: 202,
          description: 'Accepted: the job exists and is queued',
          schema: createdJobSchema,
          headers: { Location: 'The job URL (same as `_links.self`)', 'Idempotent-Replayed': '`true` when an earlier request with the same idempotencyKey created the job' },
        },
        errors: [...BODY_ERRORS, 'scenario_not_allowed', 'idempotency_key_reused', 'job_create_failed'],
      },
      handler: async (request, reply) => {
        const principal = principalOf(request);
        const { job, created } = await createJobFromRequest(
          services.jobs,
          { kind: 'organization', organizationName: principal.organizationName, apiKeyId: principal.apiKeyId },
          request.body,
          { allowedScenarios: principal.allowedJobTypes, mode: principal.mode, dailyLimit: principal.dailyLimit },
        );
        const body = presentCreatedJob(job);
        reply.code(202).header('location', body._links.self);
        if (!created) reply.header('idempotent-replayed', 'true');
        return body;
      },
    },
    // There is no job list: a GET here is a job read without its id.
    GET: {
      hidden: true,
      handler: async () => {
        throw missingJobId();
      },
    },
  });

  resource(app, '/execution-jobs/:jobId', {
    GET: {
      doc: {
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
        params: jobIdParam,
        success: { status: 200, description: 'The job', schema: executionJobSchema },
        errors: ['missing_job_id', 'job_not_found'],
      },
      handler: async (request) => {
        const jobId = jobIdOf(request);
        const reader = readerOf(request);
        const found = await getJobWithLog(services.jobs, reader, jobId);
        if (!found) throw notFound(jobId);
        return presentJob(found.job, found.decisionLog, linksFor(services.links, reader));
      },
    },
  });

  resource(app, '/execution-jobs/:jobId/cancel', {
    POST: {
      doc: {
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
        params: jobIdParam,
        success: { status: 200, description: 'The job, cancelled', schema: executionJobSchema },
        errors: ['missing_job_id', 'job_not_found', 'job_already_final', 'payment_in_flight'],
      },
      handler: async (request) => {
        const jobId = jobIdOf(request);
        const reader = readerOf(request);
        // cancelJob checks ownership itself: open reads never open a cancel to another organisation.
        const job = await cancelJob({ db: services.db, sessions: services.tabs.sessions }, reader, jobId);
        const found = await getJobWithLog(services.jobs, reader, job.jobId);
        if (!found) throw notFound(jobId);
        return presentJob(found.job, found.decisionLog, linksFor(services.links, reader));
      },
    },
  });

  resource(app, '/execution-jobs/:jobId/audit', {
    GET: {
      doc: {
        operationId: 'getExecutionJobAudit',
        tag: 'Execution jobs',
        summary: "Read a job's audit log",
        description:
          'Every decision taken for the job, oldest first. 404 only when the job itself does not exist (for this key); a job without ' +
          'events gives an empty list. With open reads (JOB_READ_ISOLATION=none) another organisation reads the log without the ' +
          '`handoffUrl` of `paused_payment` events. Paginated by cursor: a reply holds at most `limit` events and `nextCursor`; pass it as `after` ' +
          'to read the next page, until `nextCursor` is null (the end of the log as it stood). Events appended while you page land ' +
          'after your cursor: none is lost or repeated. A client that ignores the cursor reads the first `limit` events, as before.',
        params: jobIdParam,
        query: {
          limit: clampedParameter(AUDIT_LIMIT, 'At most this many events, oldest first.'),
          after: { description: 'The `nextCursor` of the previous page, unchanged: the events after it. Absent: from the first event.', schema: { type: 'string' } },
        },
        success: { status: 200, description: 'A page of the audit log', schema: jobAuditSchema },
        errors: ['missing_job_id', 'job_not_found', 'invalid_cursor'],
      },
      handler: async (request) => {
        const jobId = jobIdOf(request);
        const query = request.query as Record<string, unknown>;
        const limit = clampToRange(query.limit, AUDIT_LIMIT);
        // A repeated parameter is not one cursor: it is refused like any other that is not ours.
        const after = query.after === undefined ? undefined : typeof query.after === 'string' ? query.after : '';
        const audit = await getJobAudit(services.jobs, readerOf(request), jobId, limit, after);
        if (!audit) throw notFound(jobId);
        return audit;
      },
    },
  });
}
