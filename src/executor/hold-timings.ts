import { QUERY_TIMEOUT_MS } from '../db/query-timeout.ts';

// The timings of a held booking (holds.ts), in a module of their own so that what reads a hold's
// outcome (the handoff page) need not load the browser-driving code that keeps it.

export const HEARTBEAT_MS = 5_000;
export const SWEEP_MS = 10_000;
/** A holder silent for this long is presumed gone. */
export const STALE_SECONDS = 20;
/**
 * How soon a hold whose holder died ends as hold_lost (documented in docs/handoff.md): the holder's
 * silence must pass STALE_SECONDS, and some node's sweep (every node runs one, web nodes too) comes
 * within SWEEP_MS after that. The person's page learns it within a second more (job-watch.ts).
 */
export const HOLD_LOST_WITHIN_MS = STALE_SECONDS * 1000 + SWEEP_MS;
/** The confirmation page stays on screen this long for the live view before the context closes. */
export const CONFIRMATION_GRACE_MS = 5_000;
/**
 * How long past its deadline a hold waits for a payment in flight before ending as uncertain; also
 * how long one request may stay unanswered and still count as a payment in flight (in-flight.ts).
 */
export const MAX_POSTPONE_MS = 60_000;
/** While a payment is in flight, the holder vouches for the hold this far ahead (hold_seen_at in the future): no other process's sweep ends it, no cancel there goes through. */
export const VOUCH_SECONDS = 15;
/** How long a payment leaving the tab may wait for the row to say so (a slow database must not hold up the person's Pay for long). */
export const WRITE_WAIT_MS = 2_000;
/** Waits between tries of a hold's ending the database failed to record (about 90 s in all). */
export const FINISH_RETRY_MS: readonly number[] = [500, 1_000, 2_000, 4_000, 8_000, 15_000, 30_000, 30_000];
/**
 * How long after a hold ending recorded by another process the holder may still record the
 * provider's confirmation of a payment in flight (which completes the job, confirmAfterHoldEnded):
 * the longest wait for the provider's answer, the holder's next heartbeat, and the write's tries
 * (each up to the query timeout) with the waits between them.
 */
export const LATE_CONFIRMATION_MS =
  MAX_POSTPONE_MS + HEARTBEAT_MS + FINISH_RETRY_MS.reduce((sum, wait) => sum + wait, 0) + (FINISH_RETRY_MS.length + 1) * QUERY_TIMEOUT_MS;
/** At shutdown, how long a payment in flight is waited for before its tab is closed. */
export const STOP_WAIT_MS = 10_000;
/** How long after the job ended its handoff link still shows the outcome (the job's, src/jobs/handoff-tokens.ts). */
export { RECEIPT_GRACE_MS } from '../jobs/handoff-tokens.ts';
