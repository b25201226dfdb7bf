import type { FastifyInstance, FastifyRequest } from 'fastify';
import { AUDIT_LIMIT } from '../../jobs/audit.ts';
import { clampToRange } from '../../jobs/clamp.ts';
import { createJobFromRequest, getJobAudit, getJobWithLog } from '../../jobs/service.ts';
import { linksFor } from '../../jobs/ownership.ts';
import type { Services } from '../../services.ts';
import { cancelJob } from '../../executor/cancel.ts';
import { ApiError } from './errors.ts';
import { principalOf, readerOf } from './auth.ts';
import { presentCreatedJob, presentJob } from './present.ts';
import { idAfter, resource } from './routes.ts';

const notFound = (jobId: string) => new ApiError(404, 'job_not_found', `no job ${jobId}`);
const missingJobId = () => new ApiError(400, 'missing_job_id', 'the job id is missing from the path: /api/v1/execution-jobs/{jobId}');

/** The job id of the path; 400 missing_job_id when it is empty or blank. */
function jobIdOf(request: FastifyRequest): string {
  const jobId = idAfter(request, '/execution-jobs');
  if (jobId.trim() === '') throw missingJobId();
  return jobId;
}

export function executionJobRoutes(app: FastifyInstance, services: Services): void {
  resource(app, '/execution-jobs', {
    POST: async (request, reply) => {
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
    // There is no job list: a GET here is a job read without its id.
    GET: async () => {
      throw missingJobId();
    },
  });

  resource(app, '/execution-jobs/:jobId', {
    GET: async (request) => {
      const jobId = jobIdOf(request);
      const reader = readerOf(request);
      const found = await getJobWithLog(services.jobs, reader, jobId);
      if (!found) throw notFound(jobId);
      return presentJob(found.job, found.decisionLog, linksFor(services.links, reader));
    },
  });

  resource(app, '/execution-jobs/:jobId/cancel', {
    POST: async (request) => {
      const jobId = jobIdOf(request);
      const reader = readerOf(request);
      // cancelJob checks ownership itself: open reads never open a cancel to another organisation.
      const job = await cancelJob({ db: services.db, sessions: services.tabs.sessions }, reader, jobId);
      const found = await getJobWithLog(services.jobs, reader, job.jobId);
      if (!found) throw notFound(jobId);
      return presentJob(found.job, found.decisionLog, linksFor(services.links, reader));
    },
  });

  resource(app, '/execution-jobs/:jobId/audit', {
    GET: async (request) => {
      const jobId = jobIdOf(request);
      const query = request.query as Record<string, unknown>;
      const limit = clampToRange(query.limit, AUDIT_LIMIT);
      // A repeated parameter is not one cursor: it is refused like any other that is not ours.
      const after = query.after === undefined ? undefined : typeof query.after === 'string' ? query.after : '';
      const audit = await getJobAudit(services.jobs, readerOf(request), jobId, limit, after);
      if (!audit) throw notFound(jobId);
      return audit;
    },
  });
}
