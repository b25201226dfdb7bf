import type { JobLinks } from './handoff-url.ts';
import { ownerKey, type AuditEvent, type Job, type Reader } from './types.ts';

// JOB_READ_ISOLATION=none opens a job's data to every organisation, and nothing more. Its links are
// capabilities, not data: the handoff URL opens the person's payment screen, the session URL the
// live view of their booking. A write acts for the person too (cancelling their booking, answering
// their payment request). Both stay with the job's owner, whatever the read isolation says.

/** Whether `reader` owns the job. A null reader is the service itself, which acts for every owner. */
export function ownsJob(reader: Reader | null, job: Pick<Job, 'ownerKey'>): boolean {
  return reader === null || job.ownerKey === ownerKey(reader);
}

/** The job's links as `reader` may see them: all of them for its owner, none for anyone else. */
export function linksFor(links: JobLinks, reader: Reader | null): JobLinks {
  return {
    handoffUrl: (job) => (ownsJob(reader, job) ? links.handoffUrl(job) : null),
    sessionUrl: (job) => (ownsJob(reader, job) ? links.sessionUrl(job) : null),
    issuedHandoffUrl: (job) => (ownsJob(reader, job) ? links.issuedHandoffUrl(job) : null),
  };
}

const CAPABILITY_FIELDS = ['handoffUrl', 'sessionUrl'] as const;

/**
 * An audit event as someone other than the job's owner sees it. The stored events never hold a
 * usable link (the handoff URL is recomputed when read), but an event shows every recorded detail,
 * so a link that ever reached one is taken out here too.
 */
export function withoutCapabilities(event: AuditEvent): AuditEvent {
  if (!CAPABILITY_FIELDS.some((field) => field in event)) return event;
  const shown = { ...event };
  for (const field of CAPABILITY_FIELDS) delete shown[field];
  return shown;
}
