import type { Kysely } from 'kysely';
import type { DB } from '../db/schema.ts';
import { AUDIT_LIMIT_MAX, listAuditEvents } from '../jobs/audit.ts';
import type { AuditEvent, Job } from '../jobs/types.ts';
import { findJobByHandoffToken, handoffEndedAt, handoffOpen } from '../jobs/handoff-tokens.ts';
import { LATE_CONFIRMATION_MS, RECEIPT_GRACE_MS } from '../executor/hold-timings.ts';
import { isHoldEnding } from '../jobs/transition.ts';
import type { BrowserSessions } from '../executor/browser-sessions.ts';

// The handoff: the person finishes a booking held at the card-code step. Who may open it:
// - a job created through an OAuth token: only its owner, signed in (anyone else learns nothing);
// - a job created with an API key: whoever holds the token (the API client forwards the URL).
// The token opens that one job only. While the job is paused and its hold lasts it opens the
// payment (live view, cancel); once the job has ended it opens only the outcome, to the same people,
// for RECEIPT_GRACE_MS: a person whose phone locked mid-payment comes back to their confirmation
// code, not to a dead link. After that the token is dead (the issue: it "dies when the hold ends or
// the job ends"), and says nothing of the job.

/**
 * Whether the job's end may still turn into a booking: a hold ending recorded by a process that
 * could not see the person's payment in flight on the held tab. If the provider then confirms, the
 * holder records it and the job is completed, so a page showing the ending keeps asking until then.
 */
export function confirmationMayFollow(job: Pick<Job, 'status' | 'error' | 'completedAt'>, now = Date.now()): boolean {
  return job.status === 'error' && isHoldEnding(job.error) && job.completedAt !== null && now - Date.parse(job.completedAt) < LATE_CONFIRMATION_MS;
}

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
  /** The hold or the job has ended: the token opens the outcome, and no longer the payment. */
  | { kind: 'ended'; job: Job; events: AuditEvent[] }
  /** The job ended more than RECEIPT_GRACE_MS ago: the token opens nothing. Carries nothing about the job. */
  | { kind: 'gone' }
  | { kind: 'open'; job: Job; events: AuditEvent[] };

/** Whether the handoff is open: the job paused and its hold not run out (the executor's rule). */
export function holdIsOpen(job: Job, now: Date): boolean {
  return handoffOpen(job, now);
}

/** The access rule for one job's handoff link. */
export function accessTo(job: Job, visitor: Visitor, now: Date): HandoffAccess {
  const open = holdIsOpen(job, now);
  // Past the receipt's window the link is dead for everyone, owner or not, and says only that.
  if (!open && now.getTime() - handoffEndedAt(job).getTime() > RECEIPT_GRACE_MS) return { kind: 'gone' };
  if (job.ownerUserId !== null) {
    if (!visitor) return { kind: 'sign_in' };
    if (visitor.userId !== job.ownerUserId) return { kind: 'forbidden' };
  }
  return { kind: open ? 'open' : 'ended', job, events: [] };
}

export async function openHandoff(deps: HandoffDeps, token: string, visitor: Visitor): Promise<HandoffAccess> {
  const job = await findJobByHandoffToken(deps.db, token);
  if (!job) return { kind: 'not_found' };
  const access = accessTo(job, visitor, deps.now?.() ?? new Date());
  if (access.kind === 'open' || access.kind === 'ended') access.events = await listAuditEvents(deps.db, job.jobId, AUDIT_LIMIT_MAX);
  return access;
}

export const CANCELLED_BY_USER = 'cancelled_by_user';

export type CancelOutcome =
  | HandoffAccess
  | { kind: 'cancelled'; job: Job; events: AuditEvent[] }
  /** The person's payment is waiting for the provider's answer: nothing may end the hold now. */
  | { kind: 'payment_in_flight'; job: Job };

/**
 * The person gives up the held booking: the job ends (`error`, reason `cancelled_by_user`, one audit
 * event) and the held browser session is closed, which lets the provider's hold lapse. If the
 * provider confirmed first, the job is already completed and the cancel changes nothing. While a
 * payment submitted from the tab awaits the provider's answer the cancel is refused: the card may
 * be charged as it runs, and a cancel would tell the person nothing was.
 */
export async function cancelHandoff(deps: HandoffDeps, token: string, visitor: Visitor): Promise<CancelOutcome> {
  const access = await openHandoff(deps, token, visitor);
  if (access.kind !== 'open') return access;
  // The process holding the session ends the job and closes the tab; a process that does not hold it
  // ends the job in the row (unless the holder vouches for a payment in flight there).
  const handled = await deps.sessions.cancel(access.job.jobId);
  if (handled === 'payment_in_flight') return { kind: 'payment_in_flight', job: access.job };
  // Completed or expired a moment earlier: the cancel changed nothing, and says so.
  const after = await openHandoff(deps, token, visitor);
  if (after.kind !== 'ended') return after;
  return after.job.status === 'error' && after.job.error?.reason === CANCELLED_BY_USER ? { ...after, kind: 'cancelled' } : after;
}
