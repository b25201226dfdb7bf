import { consentSchema, type Consent } from '../jobs/schemas.ts';
import type { Job } from '../jobs/types.ts';
import { type Person, type SearchRequest, type Traveller, travellersOf } from '../driver/types.ts';
import { headcountOf, preferencesOf, searchRequestOf, specOf, type Preferences } from '../scenarios/index.ts';
import { str } from '../scenarios/fields.ts';

// The job as the executor needs it: the REST params normalised per scenario (by its spec, in
// src/scenarios/), the traveller from the profile, the consent with its defaults. Stored jobs were
// validated at creation; this only reshapes.
// The request's words live with the core (a job's summary needs them before any worker runs); the
// executor's modules take them from here, beside the plan they describe.
export { describeRequest } from '../scenarios/index.ts';

export interface BookingPlan {
  request: SearchRequest;
  traveller: Traveller;
  consent: Consent;
  /** Wishes the sites' search forms cannot express, applied when choosing among options (see Preferences). */
  preferences: Preferences;
}

export function planFor(job: Job): BookingPlan {
  const p = job.params;
  const consent = consentSchema.parse(job.consent ?? {});
  const request = searchRequestOf(job.scenario, p);
  const preferences = preferencesOf(job.scenario, p);
  const lead = personOf(job.profile);
  const others = Array.isArray(job.profile.additional_travellers) ? (job.profile.additional_travellers as Record<string, unknown>[]).map(personOf) : [];
  // The others have no contact of their own on most sites; where one is asked, it is the lead's.
  const traveller: Traveller = { ...lead, ...(others.length ? { additionalTravellers: others.map((o) => ({ ...o, email: o.email || lead.email, phone: o.phone || lead.phone })) } : {}) };
  return { request, traveller, consent, preferences };
}

function personOf(pr: Record<string, unknown>): Person {
  return {
    givenName: str(pr.first_name) ?? '',
    familyName: str(pr.last_name) ?? '',
    email: str(pr.email) ?? '',
    phone: str(pr.phone) ?? '',
    birthDate: str(pr.dob),
    passportNumber: str(pr.passport_number),
    passportCountry: str(pr.passport_country)?.toUpperCase(),
    knownTravelerNumber: str(pr.known_traveler_number),
  };
}

/** Why this plan cannot be booked at all (before any provider is tried), or null. */
export function planProblem(plan: BookingPlan): { reason: string; message: string } | null {
  const described = travellersOf(plan.traveller).length;
  const people = headcountOf(plan.request);
  if (specOf(plan.request.scenario).travellers === 'each' && people !== described) {
    // Refused at creation since additional_travellers exists; a job queued before then is told so here.
    // A careful agent does not invent the other passengers' passports.
    return { reason: 'missing_passenger_details', message: `the booking is for ${people} passengers but the profile describes ${described}; each passenger's name and passport details are needed (profile.additional_travellers)` };
  }
  return null;
}
