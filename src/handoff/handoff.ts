import type { Kysely } from 'kysely';
import type { DB } from '../db/schema.ts';
import { listAuditEvents } from '../jobs/audit.ts';
import { AUDIT_LIMIT_MAX, toJob } from '../jobs/service.ts';
import { transition } from '../jobs/transition.ts';
import { DomainError, type AuditEvent, type Job } from '../jobs/types.ts';
import { sha256 } from '../security/secrets.ts';
import type { BrowserSessions } from './browser-sessions.ts';

// The handoff: the person finishes a booking held at the card-code step. Who may open it:
// - a job created through an OAuth token: only its owner, signed in (anyone else learns nothing);
// - a job created with an API key: whoever holds the token (the API client forwards the URL).
// The token opens that one job only, and only while the job is paused and its hold lasts.

export interface HandoffDeps {
  db: Kysely<DB>;
  sessions: BrowserSessions;
  now?: () => Date;
}

/** Who is looking: the signed-in user, or nobody signed in. */
export type Visitor = { userId: number } | null;

export type HandoffAccess =
  /** No job has this token. */
  | { kind: 'not_found' }
  /** A user's job, and nobody is signed in: sign in, then come back. */
  | { kind: 'sign_in' }
  /** A user's job, and someone else is signed in. Carries nothing about the job. */
  | { kind: 'forbidden' }
  /** The hold or the job has ended: the token no longer opens anything. */
  | { kind: 'ended'; job: Job }
  | { kind: 'open'; job: Job; events: AuditEvent[] };

// Tokens are base64url; anything else is not a token (and is never looked up or echoed).
const TOKEN = /^[A-Za-z0-9_-]{32,128}$/;

export async function findJobByHandoffToken(db: Kysely<DB>, token: string): Promise<Job | null> {
  if (!TOKEN.test(token)) return null;
  const row = await db.selectFrom('jobs').selectAll().where('handoff_token_hash', '=', sha256(token)).executeTakeFirst();
  return row ? toJob(row) : null;
}

/** Whether a paused job's hold is still on: paused, and its hold window not over. */
export function holdIsOpen(job: Job, now: Date): boolean {
  return job.status === 'paused_payment' && (job.holdExpiresAt === null || Date.parse(job.holdExpiresAt) > now.getTime());
}

/** The access rule for one job (by token or by the owner's bookings page). */
export function accessTo(job: Job, visitor: Visitor, now: Date): HandoffAccess {
  if (job.ownerUserId !== null) {
    if (!visitor) return { kind: 'sign_in' };
    if (visitor.userId !== job.ownerUserId) return { kind: 'forbidden' };
  }
  return holdIsOpen(job, now) ? { kind: 'open', job, events: [] } : { kind: 'ended', job };
}

export async function openHandoff(deps: HandoffDeps, token: string, visitor: Visitor): Promise<HandoffAccess> {
  const job = await findJobByHandoffToken(deps.db, token);
  if (!job) return { kind: 'not_found' };
  const access = accessTo(job, visitor, deps.now?.() ?? new Date());
  if (access.kind === 'open') access.events = await listAuditEvents(deps.db, job.jobId, AUDIT_LIMIT_MAX);
  return access;
}

export const CANCELLED_BY_USER = 'cancelled_by_user';

export type CancelOutcome = HandoffAccess | { kind: 'cancelled'; job: Job };

/**
 * The person gives up the held booking: the job ends (`error`, reason `cancelled_by_user`, one audit
 * event) and the held browser session is closed, which lets the provider's hold lapse. If the
 * provider confirmed first, the job is already completed and the cancel changes nothing.
 */
export async function cancelHandoff(deps: HandoffDeps, token: string, visitor: Visitor): Promise<CancelOutcome> {
  const access = await openHandoff(deps, token, visitor);
  if (access.kind !== 'open') return access;
  const { jobId } = access.job;
  try {
    await transition(deps.db, jobId, {
      to: 'error',
      from: ['paused_payment'],
      event: {
        type: 'job_aborted',
        message: 'The person cancelled the booking at the handoff; the held session was closed and the provider hold released.',
        ...(access.job.providerId ? { providerId: access.job.providerId } : {}),
        data: { reason: CANCELLED_BY_USER },
      },
      set: { error: JSON.stringify({ reason: CANCELLED_BY_USER, message: 'cancelled by the person at the handoff' }) },
    });
  } catch (error) {
    if (!(error instanceof DomainError) || error.code !== 'invalid_transition') throw error;
    // Completed or expired a moment earlier: report what it is now.
    const now = await findJobByHandoffToken(deps.db, token);
    return now ? { kind: 'ended', job: now } : { kind: 'not_found' };
  }
  await deps.sessions.release(jobId).catch(() => {});
  const job = await findJobByHandoffToken(deps.db, token);
  return { kind: 'cancelled', job: job ?? access.job };
}
