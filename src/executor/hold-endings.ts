import type { NewAuditEvent } from '../jobs/audit.ts';
import type { HoldEndingReason } from '../jobs/transition.ts';

// How the end of a held booking is recorded (holds.ts): the status, the audit event, the job's error
// and summary. One wording per ending, used by the holder and by other processes (a sweep, a cancel
// that reached them). `uncertain`: the person submitted a payment the provider did not confirm, so
// only the provider knows whether the card was charged; "nothing was booked" is said only otherwise.
// `what` is what was held, when the writer knows it.

/** How a hold's end is recorded. */
export interface Ending {
  to: 'completed' | 'error';
  event: NewAuditEvent;
  /** A held booking's end is one of the reasons a confirmation seen later may override (transition.ts). */
  error?: { reason: HoldEndingReason; message: string; paymentUncertain?: boolean };
  confirmationCode?: string;
  summary: string;
}

/** Who cancels a held booking: the person at the handoff, or the API client that created the job (POST …/cancel). */
export type Canceller = 'person' | 'client';

export function cancelEnding(providerId: string | undefined, P: string, what: string | null, uncertain: boolean, by: Canceller = 'person'): Ending {
  if (by === 'client') return clientCancelEnding(providerId, P, what, uncertain);
  const held = what ? ` (it held: ${what})` : '';
  return uncertain ? {
    to: 'error',
    event: { type: 'job_aborted', providerId, message: `The person cancelled the booking held at ${P} after submitting a payment on its page that ${P} did not confirm; whether the card was charged is not known: check with ${P}.`, data: { reason: 'cancelled_by_user', providerOutcome: 'manual_override', paymentUncertain: true } },
    error: { reason: 'cancelled_by_user', message: `the person cancelled at the handoff after submitting a payment that ${P} did not confirm; check with ${P} whether the card was charged`, paymentUncertain: true },
    summary: `Cancelled by the person at the handoff after submitting a payment that ${P} did not confirm: check with ${P} whether the card was charged${held}.`,
  } : {
    to: 'error',
    event: { type: 'job_aborted', providerId, message: `The person cancelled the booking held at ${P}; the hold is released.`, data: { reason: 'cancelled_by_user', providerOutcome: 'manual_override' } },
    error: { reason: 'cancelled_by_user', message: 'the person cancelled at the handoff' },
    summary: `Cancelled by the person at the handoff; nothing was booked at ${P}${held}.`,
  };
}

/** The API client that created the job cancelled it while it was held for the person (POST /execution-jobs/{id}/cancel). */
function clientCancelEnding(providerId: string | undefined, P: string, what: string | null, uncertain: boolean): Ending {
  const held = what ? ` (it held: ${what})` : '';
  return uncertain ? {
    to: 'error',
    event: { type: 'job_aborted', providerId, message: `The API client cancelled the booking held at ${P} after the person submitted a payment on its page that ${P} did not confirm; whether the card was charged is not known: check with ${P}.`, data: { reason: 'cancelled_by_client', providerOutcome: 'manual_override', paymentUncertain: true } },
    error: { reason: 'cancelled_by_client', message: `the API client cancelled after the person submitted a payment that ${P} did not confirm; check with ${P} whether the card was charged`, paymentUncertain: true },
    summary: `Cancelled by the API client after the person submitted a payment that ${P} did not confirm: check with ${P} whether the card was charged${held}.`,
  } : {
    to: 'error',
    event: { type: 'job_aborted', providerId, message: `The API client cancelled the booking held at ${P}; the hold is released.`, data: { reason: 'cancelled_by_client', providerOutcome: 'manual_override' } },
    error: { reason: 'cancelled_by_client', message: 'the API client cancelled the held booking' },
    summary: `Cancelled by the API client; nothing was booked at ${P}${held}.`,
  };
}

export function expiryEnding(providerId: string | undefined, P: string, what: string | null, uncertain: boolean): Ending {
  const held = what ? ` (it held: ${what})` : '';
  return uncertain ? {
    to: 'error',
    event: { type: 'job_failed', providerId, message: `The hold at ${P} ran out after the person submitted a payment that ${P} did not confirm; whether the card was charged is not known: check with ${P}.`, data: { reason: 'handoff_expired', providerOutcome: 'manual_override', paymentUncertain: true } },
    error: { reason: 'handoff_expired', message: `the hold ran out after a payment was submitted that ${P} did not confirm; check with ${P} whether the card was charged`, paymentUncertain: true },
    summary: `The hold at ${P} ran out after the person submitted a payment that ${P} did not confirm: check with ${P} whether the card was charged${held}.`,
  } : {
    to: 'error',
    event: { type: 'job_failed', providerId, message: `The hold at ${P} ran out before the card security code was entered; nothing was booked.`, data: { reason: 'handoff_expired', providerOutcome: 'manual_override' } },
    error: { reason: 'handoff_expired', message: 'the hold ran out before the person paid' },
    summary: `The hold at ${P} ran out before the person paid; nothing was booked${held}.`,
  };
}

export function lossEnding(providerId: string | undefined, P: string, reason: string, what: string | null, uncertain: boolean): Ending {
  const held = what ? ` (it held: ${what})` : '';
  return uncertain ? {
    to: 'error',
    event: { type: 'job_failed', providerId, message: `The held booking at ${P} was lost (${reason}) after the person submitted a payment that ${P} did not confirm; whether the card was charged is not known: check with ${P}.`, data: { reason: 'hold_lost', paymentUncertain: true } },
    error: { reason: 'hold_lost', message: `${reason}, after a payment was submitted that ${P} did not confirm; check with ${P} whether the card was charged`, paymentUncertain: true },
    summary: `The booking held at ${P} was lost (${reason}) after the person submitted a payment that ${P} did not confirm: check with ${P} whether the card was charged${held}.`,
  } : {
    to: 'error',
    event: { type: 'job_failed', providerId, message: `The held booking at ${P} was lost (${reason}); nothing was booked.`, data: { reason: 'hold_lost' } },
    error: { reason: 'hold_lost', message: reason },
    summary: `The booking held at ${P} was lost (${reason}); nothing was booked${held}.`,
  };
}
