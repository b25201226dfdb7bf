import type { JobStatus } from '../jobs/types.ts';
import type { Driver, Held, PaymentPage } from '../providers/types.ts';
import type { Failure, TimeAdjustment } from './attempt.ts';
import { describeRequest } from './request.ts';
import type { SearchRequest } from '../providers/types.ts';

// The job's final word: its status when no provider booked, and the summary text the API shows.
// A paused job's summary says exactly what is held, as the provider's own pages show it.

const STATUS_BY_KIND: Partial<Record<Failure['kind'], JobStatus>> = {
  no_availability: 'no_availability',
  login_wall: 'needs_login',
  captcha: 'captcha',
};

/**
 * After every provider failed: nothing acceptable anywhere → no_availability; else a login wall on
 * the providers that could be reached → needs_login; else a CAPTCHA → captcha; anything else
 * (outages, broken pages, exhausted retries) → error with the last provider's details.
 */
export function finalStatus(failures: Failure[]): { status: JobStatus; reason: string } {
  for (const kind of ['no_availability', 'login_wall', 'captcha'] as const) {
    if (failures.some((f) => f.kind === kind)) return { status: STATUS_BY_KIND[kind]!, reason: kind };
  }
  const last = failures[failures.length - 1];
  const reason = !last ? 'no_providers' : last.kind === 'outage' ? 'provider_outage' : last.kind === 'transient' ? 'transient_errors' : last.kind;
  return { status: 'error', reason };
}

function adjustedNote(adjusted?: TimeAdjustment): string {
  return adjusted ? ` The time was moved from ${adjusted.from} to ${adjusted.to}, as the consent allows.` : '';
}

/** What a provider holds, as its pages show it: venue, when, how many, what, price and card on file. */
export function heldDescription(request: SearchRequest, held: Held | undefined, payment: PaymentPage | undefined, step: string): string {
  if (!held) return `${describeRequest(request)} (the site asks for the card security code at the ${step.replace('_', ' ')} step)`;
  const price = payment?.price ?? held.price;
  const card = payment?.cardOnFile ? `, card on file ${payment.cardOnFile}` : '';
  return `${held.venue} · ${held.when} · ${held.quantity}${held.item ? ` · ${held.item}` : ''} · ${price}${card}`;
}

export function pausedSummary(driver: Driver, what: string, expiresAt: Date, adjusted?: TimeAdjustment): string {
  return `Held at ${driver.name}: ${what}.${adjustedNote(adjusted)} Waiting for the card security code until ${expiresAt.toISOString().slice(0, 16).replace('T', ' ')} UTC.`;
}

export function completedSummary(driver: Driver, what: string, code: string, adjusted?: TimeAdjustment): string {
  return `Booked at ${driver.name}: ${what}. Confirmation ${code}. No card was needed: payment at the venue.${adjustedNote(adjusted)}`;
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
