import type { JobStatus } from '../jobs/types.ts';
import type { Driver, Held, PaymentPage, SearchRequest } from '../driver/types.ts';
import type { Decisions, Failure } from './attempt.ts';
import { heldDates } from './held.ts';
import { quantityIn, roomsIn, timesIn } from '../driver/text.ts';
import { describeRequest } from './request.ts';

// The job's final word: its status when no provider booked, and the summary text the API shows.
// A paused job's summary says exactly what is held, as the provider's own pages show it.

/** Failures that say something about the booking itself, not about a site being unfit to ask. */
const CONCLUSIVE: ReadonlySet<Failure['kind']> = new Set(['no_availability', 'login_wall', 'captcha']);

const ERROR_REASON: Partial<Record<Failure['kind'], string>> = { outage: 'provider_outage', transient: 'transient_errors' };

/**
 * After every provider failed. When each said something conclusive (nothing acceptable, a sign-in
 * wall, a CAPTCHA): needs_login if any asked to sign in (signing in could open availability), else
 * captcha if any showed one, else no_availability. When any provider could not be asked (an outage,
 * a broken page, errors that outlasted the retries, anything unexpected), nobody knows whether it had
 * something: error, described by the last such failure (`cause`); the job's details list every
 * provider's outcome.
 */
export function finalStatus(failures: Failure[]): { status: JobStatus; reason: string; cause: Failure | undefined } {
  const cause = failures.findLast((f) => !CONCLUSIVE.has(f.kind));
  if (cause) return { status: 'error', reason: ERROR_REASON[cause.kind] ?? cause.kind, cause };
  if (failures.length === 0) return { status: 'error', reason: 'no_providers', cause: undefined };
  const last = failures[failures.length - 1];
  if (failures.some((f) => f.kind === 'login_wall')) return { status: 'needs_login', reason: 'login_wall', cause: last };
  if (failures.some((f) => f.kind === 'captcha')) return { status: 'captcha', reason: 'captcha', cause: last };
  return { status: 'no_availability', reason: 'no_availability', cause: last };
}

function decisionNotes({ adjusted, switched }: Decisions): string {
  return (switched ? ` The venue was switched from ${switched.from} to ${switched.to}, as the consent allows.` : '')
    + (adjusted ? ` The time was moved from ${adjusted.from} to ${adjusted.to}, as the consent allows.` : '');
}

/** What a provider holds, as its pages show it: venue, when, how many, what, price and card on file. */
export function heldDescription(request: SearchRequest, held: Held | undefined, payment: PaymentPage | undefined, step: string): string {
  if (!held) return `${describeRequest(request)} (the site asks for the card security code at the ${step.replace('_', ' ')} step)`;
  const price = payment?.price ?? held.price;
  const card = payment?.cardOnFile ? `, card on file ${payment.cardOnFile}` : '';
  return `${held.venue} · ${held.when} · ${held.quantity}${held.item ? ` · ${held.item}` : ''} · ${price}${card}`;
}

/**
 * What a provider holds, as data: recorded as `held` on the paused_payment event (and on
 * job_completed when no card was needed), so that the handoff page and the person's bookings show it
 * without reading it back out of a sentence. Texts are as the site shows them (venue, when, quantity,
 * option, price, card on file); dates, times and counts are read from those texts, null when the
 * site's wording does not say.
 */
export interface HeldRecord {
  provider: string;
  providerName: string;
  /** The restaurant, hotel or event (with the city the site adds), or the flight and its route. */
  venue: string;
  /** The date and time as the site writes them. */
  when: string;
  /** YYYY-MM-DD; hotels: the check-in. */
  date: string | null;
  /** Hotels: YYYY-MM-DD. */
  checkOut?: string | null;
  /** HH:MM: the table, the event's start, the flight's departure. Not for hotels. */
  time?: string | null;
  /** Flights: HH:MM. */
  departure?: string | null;
  arrival?: string | null;
  /** Party, rooms and guests, passengers or tickets, as the site says it. */
  quantity: string;
  partySize?: number | null;
  rooms?: number | null;
  guests?: number | null;
  passengers?: number | null;
  tickets?: number | null;
  /** Table area, room, cabin, section. */
  item: string | null;
  /** The payment page's amount, else the review page's. */
  price: string;
  cardOnFile: string | null;
  /** The time moved within the consent. */
  timeAdjusted: { from: string; to: string } | null;
  /** A sister venue held instead of the one named, as the consent allows. */
  venueSwitched: { from: string; to: string } | null;
}

export function heldRecord(driver: Driver, request: SearchRequest, held: Held, payment: PaymentPage | undefined, decisions: Decisions): HeldRecord {
  const dates = heldDates(held);
  const times = timesIn(held.when);
  const count = quantityIn(request.scenario, held.quantity);
  const when: Partial<HeldRecord> =
    request.scenario === 'hotel' ? { checkOut: dates[1] ?? null, rooms: roomsIn(held.quantity), guests: count }
    : request.scenario === 'flight' ? { time: times[0] ?? null, departure: times[0] ?? null, arrival: times[1] ?? null, passengers: count }
    : request.scenario === 'restaurant' ? { time: times[0] ?? null, partySize: count }
    : { time: times[0] ?? null, tickets: count };
  return {
    provider: driver.id,
    providerName: driver.name,
    venue: held.venue,
    when: held.when,
    date: dates[0] ?? null,
    ...when,
    quantity: held.quantity,
    item: held.item ?? null,
    price: payment?.price ?? held.price,
    cardOnFile: payment?.cardOnFile ?? held.cardOnFile ?? null,
    timeAdjusted: decisions.adjusted ? { from: decisions.adjusted.from, to: decisions.adjusted.to } : null,
    venueSwitched: decisions.switched ? { from: decisions.switched.from, to: decisions.switched.to } : null,
  };
}

/** `codeAsked` false: the payment page charges the card on file with no code; the person approves the charge. */
export function pausedSummary(driver: Driver, what: string, expiresAt: Date, decisions: Decisions, codeAsked = true): string {
  const until = `until ${expiresAt.toISOString().slice(0, 16).replace('T', ' ')} UTC.`;
  return `Held at ${driver.name}: ${what}.${decisionNotes(decisions)} ${codeAsked ? 'Waiting for the card security code' : 'Waiting for the person to approve the charge'} ${until}`;
}

export function completedSummary(driver: Driver, what: string, code: string, decisions: Decisions): string {
  return `Booked at ${driver.name}: ${what}. Confirmation ${code}. No card was needed: payment at the venue.${decisionNotes(decisions)}`;
}

export function requestedSummary(driver: Driver, asked: string, words: string, email: string | undefined, decisions: Decisions): string {
  const quoted = /[.!?]$/.test(words) ? `"${words}"` : `"${words}".`;
  return `Reservation request sent to ${driver.name} for ${asked}; nothing is booked yet. The site says: ${quoted} It will answer ${email ? `at ${email}` : 'the person'} itself; no card was asked for.${decisionNotes(decisions)}`;
}

export function failedSummary(status: JobStatus, request: SearchRequest, failures: Failure[], providerNames: Record<string, string>): string {
  const tried = failures.map((f) => `${providerNames[f.provider] ?? f.provider}: ${f.message}`).join('; ');
  const lead: Partial<Record<JobStatus, string>> = {
    no_availability: 'Nothing acceptable was available',
    needs_login: 'The providers require signing in',
    captcha: 'The providers blocked the booking with a CAPTCHA',
    error: 'The booking could not be made',
  };
  return `${lead[status] ?? 'Not booked'} for ${describeRequest(request)}.${tried ? ` ${tried}.` : ''}`;
}
