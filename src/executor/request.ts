import { consentSchema, type Consent } from '../jobs/schemas.ts';
import { searchRequestOf } from '../jobs/search-request.ts';
import type { Job } from '../jobs/types.ts';
import type { SearchRequest, Traveller } from '../providers/types.ts';

// The job as the executor needs it: the REST params normalised per scenario, the traveller from the
// profile, the consent with its defaults. Stored jobs were validated at creation; this only reshapes.
// The request's words live with the core (a job's summary needs them before any worker runs); the
// executor's modules take them from here, beside the plan they describe.
export { describeRequest } from '../jobs/search-request.ts';

export interface BookingPlan {
  request: SearchRequest;
  traveller: Traveller;
  consent: Consent;
  /** Wishes the sites' search forms cannot express, applied when choosing among options. */
  /** targetPrice: the ceiling of a flight's fare per passenger. */
  preferences: { budgetPerUnit?: number; targetFlightNumber?: string; targetPrice?: number };
  /** Flights: a return date was asked for. */
  returnDate?: string;
}

const str = (v: unknown): string | undefined => (typeof v === 'string' && v.trim() !== '' ? v.trim() : undefined);
const num = (v: unknown): number | undefined => (typeof v === 'number' && Number.isFinite(v) ? v : undefined);

export function planFor(job: Job): BookingPlan {
  const p = job.params;
  const consent = consentSchema.parse(job.consent ?? {});
  const request = searchRequestOf(job.scenario, p);
  const preferences: BookingPlan['preferences'] = {};
  let returnDate: string | undefined;
  switch (job.scenario) {
    case 'hotel':
      preferences.budgetPerUnit = num(p.budget_max_per_night);
      break;
    case 'flight':
      preferences.targetFlightNumber = str(p.targetFlightNumber)?.replace(/\s+/g, '').toUpperCase();
      preferences.targetPrice = num(p.targetPrice);
      returnDate = str(p.return_date);
      break;
    case 'activity':
      preferences.budgetPerUnit = num(p.budget_max_per_ticket);
      break;
  }
  const pr = job.profile;
  const traveller: Traveller = {
    givenName: str(pr.first_name) ?? '',
    familyName: str(pr.last_name) ?? '',
    email: str(pr.email) ?? '',
    phone: str(pr.phone) ?? '',
    birthDate: str(pr.dob),
    passportNumber: str(pr.passport_number),
    passportCountry: str(pr.passport_country)?.toUpperCase(),
    knownTravelerNumber: str(pr.known_traveler_number),
  };
  return { request, traveller, consent, preferences, ...(returnDate ? { returnDate } : {}) };
}

/** Why this plan cannot be booked at all (before any provider is tried), or null. */
export function planProblem(plan: BookingPlan): { reason: string; message: string } | null {
  if (plan.request.scenario === 'flight' && plan.returnDate) {
    // The providers sell one-way fares; booking only the way out of a return trip would be a surprise.
    return { reason: 'unsupported_request', message: 'return flights are not offered by the flight providers (one-way fares only); book each way as its own job' };
  }
  if (plan.request.scenario === 'flight' && plan.request.passengers > 1) {
    // The profile describes one person; a careful agent does not invent the other passengers' passports.
    return { reason: 'missing_passenger_details', message: `the booking is for ${plan.request.passengers} passengers but the profile describes one traveller; the other passengers' names and passport details are needed` };
  }
  return null;
}
