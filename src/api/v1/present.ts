import type { JobLinks } from '../../jobs/handoff-url.ts';
import type { AuditEvent, Job } from '../../jobs/types.ts';

// The REST shapes of the core's records. Field names follow the contract exactly.
export function jobLinks(jobId: string) {
  return { self: `/api/v1/execution-jobs/${jobId}`, audit: `/api/v1/execution-jobs/${jobId}/audit` };
}

export function presentJob(job: Job, decisionLog: AuditEvent[], links: JobLinks) {
  return {
    jobId: job.jobId,
    status: job.status,
    scenario: job.scenario,
    organizationName: job.organizationName,
    handoffUrl: links.handoffUrl(job),
    sessionUrl: links.sessionUrl(job),
    summary: job.summary,
    decisionLog: decisionLog.map((e) => ({ timestamp: e.timestamp, type: e.type, message: e.message })),
    attemptCount: job.attemptCount,
    usedFallback: job.usedFallback,
    ...(job.confirmationCode ? { confirmationCode: job.confirmationCode } : {}),
    createdAt: job.createdAt,
    updatedAt: job.updatedAt,
    completedAt: job.completedAt,
    ...(job.status === 'error' ? { error: job.error ?? { reason: 'unknown' } } : {}),
    _links: jobLinks(job.jobId),
  };
}
