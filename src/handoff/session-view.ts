import { createHmac } from 'node:crypto';
import type { Kysely } from 'kysely';
import type { DB } from '../db/schema.ts';
import { toJob } from '../jobs/service.ts';
import { JOB_ID_PATTERN, type Job } from '../jobs/types.ts';
import { digestsEqual, sha256 } from '../security/secrets.ts';
import type { Visitor } from './handoff.ts';
import { loadJob } from '../jobs/job-reads.ts';

// `sessionUrl`: a read-only live view of a running job's browser tab, for the API client or the
// person to watch. The link's token is an HMAC of the job id under the service's secret key: it
// is as unguessable as a random token, needs no storage, and the job row can show it on every poll.
// It opens nothing once the run ends (`sessionUrl` is null then).

const PURPOSE = 'concierge session view v1:';

export function sessionViewToken(secretKey: string, jobId: string): string {
  return createHmac('sha256', secretKey).update(PURPOSE + jobId).digest('base64url');
}

export function sessionViewPath(secretKey: string, jobId: string): string {
  return `/watch/${jobId}/${sessionViewToken(secretKey, jobId)}`;
}

/** The job's `sessionUrl`: set while it runs, null otherwise. */
export function sessionUrlOf(baseUrl: string, secretKey: string, job: Pick<Job, 'jobId' | 'status'>): string | null {
  return job.status === 'running' ? `${baseUrl}${sessionViewPath(secretKey, job.jobId)}` : null;
}

export type SessionViewAccess =
  | { kind: 'not_found' }
  | { kind: 'sign_in' }
  | { kind: 'forbidden' }
  | { kind: 'ended'; job: Job }
  | { kind: 'open'; job: Job };

export async function openSessionView(deps: { db: Kysely<DB>; secretKey: string }, jobId: string, token: string, visitor: Visitor): Promise<SessionViewAccess> {
  if (token.length > 128 || !JOB_ID_PATTERN.test(jobId)) return { kind: 'not_found' };
  // Compared as digests so the comparison takes the same time whatever the input's length.
  if (!digestsEqual(sha256(token), sha256(sessionViewToken(deps.secretKey, jobId)))) return { kind: 'not_found' };
  const row = await loadJob(deps.db, jobId);
  if (!row) return { kind: 'not_found' };
  const job = toJob(row);
  if (job.ownerUserId !== null) {
    if (!visitor) return { kind: 'sign_in' };
    if (visitor.userId !== job.ownerUserId) return { kind: 'forbidden' };
  }
  return job.status === 'running' ? { kind: 'open', job } : { kind: 'ended', job };
}
