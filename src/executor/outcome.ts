import type { JobStatus } from '../jobs/types.ts';
import type { Driver, Held, PaymentPage } from '../providers/types.ts';
import type { Decisions, Failure } from './attempt.ts';
import { describeRequest } from './request.ts';
import type { SearchRequest } from '../providers/types.ts';

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

export function pausedSummary(driver: Driver, what: string, expiresAt: Date, decisions: Decisions): string {
  return `Held at ${driver.name}: ${what}.${decisionNotes(decisions)} Waiting for the card security code until ${expiresAt.toISOString().slice(0, 16).replace('T', ' ')} UTC.`;
}

export function completedSummary(driver: Driver, what: string, code: string, decisions: Decisions): string {
  return `Booked at ${driver.name}: ${what}. Confirmation ${code}. No card was needed: payment at the venue.${decisionNotes(decisions)}`;
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
