import type { AuditEvent, Job } from '../jobs/types.ts';
import { providerName } from '../providers/registry.ts';
import { shown as str } from '../scenarios/fields.ts';
import { specOf, type HeldDates, type Pair } from '../scenarios/index.ts';

// Plain-words descriptions of a job for the person: what they asked for, what the provider holds,
// and the decisions taken on their behalf. Pure functions over the job and its audit events; each
// scenario's labels are its spec's (src/scenarios/).

export interface Line {
  label: string;
  value: string;
}

function lines(pairs: Pair[]): Line[] {
  return pairs.filter((p): p is [string, string] => p[1] !== null).map(([label, value]) => ({ label, value }));
}

/** What was asked, from the request's params. */
export function describeRequest(job: Job): Line[] {
  return lines(specOf(job.scenario).asked(job.params));
}

/** A one-line title for a job ("Casa Azul, Lisbon · 2031-05-16 19:00"). */
export function jobTitle(job: Job): string {
  return specOf(job.scenario).title(job.params);
}

function longDate(iso: string | null): string | null {
  if (!iso || !/^\d{4}-\d{2}-\d{2}$/.test(iso)) return null;
  const date = new Date(`${iso}T00:00:00Z`);
  if (Number.isNaN(date.getTime())) return null;
  return date.toLocaleDateString('en-GB', { weekday: 'long', day: 'numeric', month: 'long', year: 'numeric', timeZone: 'UTC' });
}

function moved(time: string | null, held: Record<string, unknown>): string | null {
  const adjusted = held.timeAdjusted as { from?: unknown; to?: unknown } | null | undefined;
  const from = str(adjusted?.from);
  return time && from && str(adjusted?.to) === time ? `${time} (moved from ${from})` : time;
}

/** The held booking's date lines, as its scenario's spec says the date reads. */
const DATED: Record<HeldDates, (date: string | null, time: string | null, held: Record<string, unknown>) => Pair[]> = {
  day: (date, time) => [['Date', date], ['Time', time]],
  stay: (date, _time, held) => [['Check-in', date], ['Check-out', longDate(str(held.checkOut))]],
  flight: (date, _time, held) => [['Date', date], ['Departure', moved(str(held.departure), held)], ['Arrival', str(held.arrival)]],
};

/**
 * The held booking, from the structured `held` the executor records on the paused_payment event (or
 * on job_completed, when the site booked with no card step): the provider, the venue, the date and
 * time, how many, the option, the price and the card on file as the site shows them, with any time
 * moved or venue switched. When nothing was recorded (the site asked for the card code before its
 * review page), what was asked and the executor's summary.
 */
export function describeHeld(job: Job, events: AuditEvent[]): Line[] {
  const recorded = [...events].reverse().find((e) => (e.type === 'paused_payment' || e.type === 'job_completed') && e.held && typeof e.held === 'object');
  const held = (recorded?.held ?? null) as Record<string, unknown> | null;
  const paused = [...events].reverse().find((e) => e.type === 'paused_payment');
  const provider = str(held?.providerName) ?? providerName(str(held?.provider) ?? str(paused?.providerId) ?? job.providerId);
  if (!held) return [...lines([['Provider', provider]]), ...describeRequest(job), ...lines([['Summary', str(job.summary)]])];
  const switched = held.venueSwitched as { from?: unknown } | null | undefined;
  const venue = str(held.venue);
  const date = longDate(str(held.date));
  const time = moved(str(held.time), held);
  const labels = specOf(job.scenario).held;
  const dated: Pair[] = DATED[labels.dates](date, time, held);
  // The site's own words when the date (or time) could not be read from them.
  const when: Pair[] = dated.every(([, v]) => v !== null) ? dated : [['When', str(held.when)]];
  return lines([
    ['Provider', provider],
    [labels.venue, venue && str(switched?.from) ? `${venue} (instead of ${str(switched?.from)})` : venue],
    ...when,
    [labels.quantity, str(held.quantity)],
    [labels.item, str(held.item)],
    ['Price', str(held.price)],
    ['Card on file', str(held.cardOnFile)],
  ]);
}

export interface Decision {
  at: string;
  type: string;
  title: string;
  message: string;
}

const TITLES: Record<string, string> = {
  job_created: 'Request received',
  job_started: 'Started',
  step_started: 'Step',
  step_attempt: 'Attempt',
  action_allowed: 'Allowed',
  action_denied: 'Blocked by the payment guard',
  time_adjusted: 'Time adjusted',
  venue_switched: 'Venue switched',
  provider_fallback: 'Switched provider',
  paused_payment: 'Waiting for you to pay',
  job_completed: 'Booked',
  job_failed: 'Failed',
  job_aborted: 'Stopped',
};

/** The audit trail as a readable timeline. */
export function timeline(events: AuditEvent[]): Decision[] {
  return events.map((e) => {
    let title = TITLES[e.type] ?? e.type;
    if (e.type === 'time_adjusted' && typeof e.fromTime === 'string' && typeof e.toTime === 'string') title = `Time adjusted ${e.fromTime} → ${e.toTime}`;
    return { at: e.timestamp, type: e.type, title, message: e.message };
  });
}

/**
 * Whether the held payment page asks for the card security code. A page that charges the card on
 * file at one press of Pay asks for none (the executor stopped before pressing it): the person then
 * approves the charge, and being told to type a code into a field that is not there would stall them.
 */
export function cardCodeAsked(events: AuditEvent[]): boolean {
  return [...events].reverse().find((e) => e.type === 'paused_payment')?.cardCodeAsked !== false;
}

/** The decisions worth showing beside the held booking: time changes and fallbacks, and why. */
export function adjustments(events: AuditEvent[]): Decision[] {
  return timeline(events.filter((e) => e.type === 'time_adjusted' || e.type === 'provider_fallback' || e.type === 'venue_switched'));
}

const STATUS_WORDS: Record<string, string> = {
  pending: 'Queued',
  running: 'Working on it',
  paused_payment: 'Waiting for your payment',
  completed: 'Booked',
  no_availability: 'Nothing available',
  needs_login: 'Needs a login',
  captcha: 'Blocked by a CAPTCHA',
  error: 'Stopped',
};

export function statusWords(job: Pick<Job, 'status' | 'error'>): string {
  if (job.status === 'error' && paymentUncertain(job)) return 'Payment not confirmed';
  if (job.status === 'error' && job.error?.reason === 'cancelled_by_user') return 'Cancelled by you';
  if (job.status === 'error' && job.error?.reason === 'cancelled_by_client') return 'Cancelled by the service that booked it';
  if (job.status === 'error' && job.error?.reason === 'handoff_expired') return 'Hold expired';
  if (job.status === 'error' && job.error?.reason === 'hold_lost') return 'Hold lost';
  return STATUS_WORDS[job.status] ?? job.status;
}

/** The hold ended after the person submitted a payment that the provider did not confirm: only the provider knows whether it charged. */
export function paymentUncertain(job: Pick<Job, 'error'>): boolean {
  return job.error?.paymentUncertain === true;
}

export interface Outcome {
  title: string;
  message: string;
  confirmationCode: string | null;
}

/**
 * How a handoff ended, in plain words: the receipt its link shows afterwards and the live view's
 * last message. "Nothing was charged" only where no payment was submitted; after one the provider
 * did not confirm, the person is told to check with the provider. A paused job past its hold is
 * not over yet: its holder is recording the expiry, or waiting for the answer to a payment in flight.
 */
export function handoffOutcome(job: Pick<Job, 'status' | 'error' | 'confirmationCode' | 'providerId'>): Outcome {
  if (job.status === 'completed') {
    return { title: 'Booked', message: 'The provider confirmed your booking.', confirmationCode: job.confirmationCode };
  }
  if (job.status === 'paused_payment') {
    return { title: 'Hold ending', message: 'The hold has run out. If you pressed Pay, the provider\'s answer is being checked; this page shows the outcome in a moment.', confirmationCode: null };
  }
  const reason = job.error?.reason;
  const provider = providerName(job.providerId) ?? 'the provider';
  const check = `Check with ${provider} whether your card was charged before booking again.`;
  const [title, message] =
    paymentUncertain(job) ? (reason === 'cancelled_by_user'
      ? ['Payment not confirmed', `You cancelled after a payment was submitted on the provider's page, and the provider did not confirm it. ${check}`]
      : ['Payment not confirmed', `The booking ended while a payment you submitted was not confirmed by the provider. ${check}`])
    : reason === 'cancelled_by_user' ? ['Booking cancelled', 'You cancelled this booking. The provider hold was released; nothing was charged.']
    : reason === 'cancelled_by_client' ? ['Booking cancelled', 'The service that made this booking for you cancelled it. The provider hold was released; nothing was charged.']
    : reason === 'handoff_expired' ? ['Hold expired', 'The hold ended before the payment was made. Nothing was charged.']
    : reason === 'hold_lost' ? ['Hold lost', `The server keeping your booking open at ${provider} stopped before you paid, so the hold was released. Nothing was charged. Ask for the booking again.`]
    : ['Booking not finished', 'The booking could not be finished.'];
  return { title, message, confirmationCode: null };
}

/** One line of the essentials (venue, when, how many, price) for the top of the handoff page. */
export function headline(held: Line[]): string {
  const skip = new Set(['Provider', 'Card on file', 'Summary', 'City']);
  return held.filter((l) => !skip.has(l.label)).map((l) => l.value).join(' · ');
}
