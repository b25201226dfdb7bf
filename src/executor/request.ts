import { consentSchema, type Consent } from '../jobs/schemas.ts';
import type { Job } from '../jobs/types.ts';
import type { SearchRequest, Traveller } from '../providers/types.ts';

// The job as the executor needs it: the REST params normalised per scenario, the traveller from the
// profile, the consent with its defaults. Stored jobs were validated at creation; this only reshapes.

export interface BookingPlan {
  request: SearchRequest;
  traveller: Traveller;
  consent: Consent;
  /** Wishes the sites' search forms cannot express, applied when choosing among options. */
  preferences: { budgetPerUnit?: number; targetFlightNumber?: string };
  /** Flights: a return date was asked for. */
  returnDate?: string;
}

const str = (v: unknown): string | undefined => (typeof v === 'string' && v.trim() !== '' ? v.trim() : undefined);
const num = (v: unknown): number | undefined => (typeof v === 'number' && Number.isFinite(v) ? v : undefined);

export function planFor(job: Job): BookingPlan {
  const p = job.params;
  const consent = consentSchema.parse(job.consent ?? {});
  let request: SearchRequest;
  const preferences: BookingPlan['preferences'] = {};
  let returnDate: string | undefined;
  switch (job.scenario) {
    case 'restaurant':
      request = { scenario: 'restaurant', venue: str(p.restaurant_name)!, city: str(p.city)!, date: str(p.date)!, time: str(p.time)!, partySize: num(p.covers)! };
      break;
    case 'hotel':
      request = { scenario: 'hotel', venue: str(p.hotel_name)!, city: str(p.city)!, checkIn: str(p.checkin)!, checkOut: str(p.checkout)!, adults: num(p.adults)!, roomPreference: str(p.room_preference) };
      preferences.budgetPerUnit = num(p.budget_max_per_night);
      break;
    case 'flight':
      request = {
        scenario: 'flight',
        origin: str(p.origin)!,
        destination: str(p.dest)!,
        date: str(p.date)!,
        passengers: num(p.passengers)!,
        airline: str(p.targetAirline),
        departureTime: str(p.targetDepartureTime),
        cabin: str(p.cabin_class),
      };
      preferences.targetFlightNumber = str(p.targetFlightNumber)?.replace(/\s+/g, '').toUpperCase();
      returnDate = str(p.return_date);
      break;
    case 'activity':
      request = { scenario: 'activity', venue: str(p.event_name)!, city: str(p.city)!, date: str(p.event_date)!, tickets: num(p.num_tickets)!, seatType: str(p.seat_type) };
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

/** The request in a few words, for audit messages and summaries. */
export function describeRequest(r: SearchRequest): string {
  switch (r.scenario) {
    case 'restaurant': return `${r.venue}, ${r.city} on ${r.date} at ${r.time} for ${r.partySize}`;
    case 'hotel': return `${r.venue}, ${r.city} from ${r.checkIn} to ${r.checkOut} for ${r.adults} adult${r.adults === 1 ? '' : 's'}`;
    case 'flight': return `${r.origin} → ${r.destination} on ${r.date}${r.departureTime ? ` around ${r.departureTime}` : ''}${r.airline ? ` with ${r.airline}` : ''} for ${r.passengers}`;
    case 'activity': return `${r.venue}, ${r.city} on ${r.date}, ${r.tickets} ticket${r.tickets === 1 ? '' : 's'}`;
  }
}
