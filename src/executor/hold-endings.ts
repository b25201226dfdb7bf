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

/** The words of a cancel, by who cancels. */
const CANCELLERS = {
  person: { reason: 'cancelled_by_user', Who: 'The person', who: 'the person', at: ' at the handoff', submitted: 'after submitting', released: 'the person cancelled at the handoff' },
  client: { reason: 'cancelled_by_client', Who: 'The API client', who: 'the API client', at: '', submitted: 'after the person submitted', released: 'the API client cancelled the held booking' },
} as const;

export function cancelEnding(providerId: string | undefined, P: string, what: string | null, uncertain: boolean, by: Canceller = 'person'): Ending {
  const c = CANCELLERS[by];
  const held = what ? ` (it held: ${what})` : '';
  return uncertain ? {
    to: 'error',
    event: { type: 'job_aborted', providerId, message: `${c.Who} cancelled the booking held at ${P} ${c.submitted} a payment on its page that ${P} did not confirm; whether the card was charged is not known: check with ${P}.`, data: { reason: c.reason, providerOutcome: 'manual_override', paymentUncertain: true } },
    error: { reason: c.reason, message: `${c.who} cancelled${c.at} ${c.submitted} a payment that ${P} did not confirm; check with ${P} whether the card was charged`, paymentUncertain: true },
    summary: `Cancelled by ${c.who}${c.at} ${c.submitted} a payment that ${P} did not confirm: check with ${P} whether the card was charged${held}.`,
  } : {
    to: 'error',
    event: { type: 'job_aborted', providerId, message: `${c.Who} cancelled the booking held at ${P}; the hold is released.`, data: { reason: c.reason, providerOutcome: 'manual_override' } },
    error: { reason: c.reason, message: c.released },
    summary: `Cancelled by ${c.who}${c.at}; nothing was booked at ${P}${held}.`,
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

/** What an ending writes besides the status, whoever records it: the hold let go, and the job's error says where it happened. */
export function endingColumns(ending: Ending, provider: string | null, url?: string) {
  return {
    summary: ending.summary,
    hold_instance: null,
    ...(ending.confirmationCode ? { confirmation_code: ending.confirmationCode } : {}),
    ...(ending.error ? { error: JSON.stringify({ ...ending.error, step: 'payment', provider, ...(url === undefined ? {} : { url }) }) } : {}),
  };
}
export type EndingColumns = ReturnType<typeof endingColumns>;
