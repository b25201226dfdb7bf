import type { JobLinks } from '../../jobs/handoff-url.ts';
import type { StoredProfile } from '../../jobs/profiles.ts';
import type { AuditEvent, Job } from '../../jobs/types.ts';
import type { CreatedJobReply, ExecutionJobReply, StoredProfileReply } from './response-schemas.ts';

// The REST shapes of the core's records. Field names follow the contract exactly; the return types
// are those of response-schemas.ts, from which the OpenAPI document is generated.
export function jobLinks(jobId: string) {
  return { self: `/api/v1/execution-jobs/${jobId}`, audit: `/api/v1/execution-jobs/${jobId}/audit` };
}

export function presentCreatedJob(job: Job): CreatedJobReply {
  return { jobId: job.jobId, status: job.status, scenario: job.scenario, organizationName: job.organizationName ?? '', _links: jobLinks(job.jobId) };
}

export function presentJob(job: Job, decisionLog: AuditEvent[], links: JobLinks): ExecutionJobReply {
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
    ...(job.personalDataErasedAt ? { personalDataErasedAt: job.personalDataErasedAt } : {}),
    ...(job.status === 'error' ? { error: job.error ?? { reason: 'unknown' } } : {}),
    _links: jobLinks(job.jobId),
  };
}

export function presentProfile(stored: StoredProfile): StoredProfileReply {
  // Stored profiles were validated with profileSchema when they were written.
  return { profileId: stored.id, profile: stored.profile as StoredProfileReply['profile'], createdAt: stored.createdAt };
}
