import type { SearchRequest } from '../providers/types.ts';
import type { Scenario } from './types.ts';

// What a job asks a provider to find, from its validated params, and the same in a few words. The
// core needs the words for a job's summary before any worker has seen it; the executor for its
// messages and its searches.

const str = (v: unknown): string | undefined => (typeof v === 'string' && v.trim() !== '' ? v.trim() : undefined);
const num = (v: unknown): number | undefined => (typeof v === 'number' && Number.isFinite(v) ? v : undefined);

/** The request a provider is searched for. Stored params were validated at creation; this only reshapes. */
export function searchRequestOf(scenario: Scenario, p: Record<string, unknown>): SearchRequest {
  switch (scenario) {
    case 'restaurant':
      return { scenario, venue: str(p.restaurant_name)!, city: str(p.city)!, date: str(p.date)!, time: str(p.time)!, partySize: num(p.covers)! };
    case 'hotel':
      return { scenario, venue: str(p.hotel_name)!, city: str(p.city)!, checkIn: str(p.checkin)!, checkOut: str(p.checkout)!, adults: num(p.adults)!, roomPreference: str(p.room_preference) };
    case 'flight':
      return {
        scenario,
        origin: str(p.origin)!,
        destination: str(p.dest)!,
        date: str(p.date)!,
        passengers: num(p.passengers)!,
        airline: str(p.targetAirline),
        departureTime: str(p.targetDepartureTime),
        cabin: str(p.cabin_class),
        returnDate: str(p.return_date),
      };
    case 'activity':
      return { scenario, venue: str(p.event_name)!, city: str(p.city)!, date: str(p.event_date)!, tickets: num(p.num_tickets)!, seatType: str(p.seat_type) };
  }
}

/** How many people the request is for: the party, the adults, the passengers or the tickets. */
export function headcountOf(r: SearchRequest): number {
  switch (r.scenario) {
    case 'restaurant': return r.partySize;
    case 'hotel': return r.adults;
    case 'flight': return r.passengers;
    case 'activity': return r.tickets;
  }
}

/** The request in a few words, for audit messages and summaries. */
export function describeRequest(r: SearchRequest): string {
  switch (r.scenario) {
    case 'restaurant': return `${r.venue}, ${r.city} on ${r.date} at ${r.time} for ${r.partySize}`;
    case 'hotel': return `${r.venue}, ${r.city} from ${r.checkIn} to ${r.checkOut} for ${r.adults} adult${r.adults === 1 ? '' : 's'}`;
    case 'flight': return `${r.origin} → ${r.destination} on ${r.date}${r.returnDate ? ` and back on ${r.returnDate}` : ''}${r.departureTime ? ` around ${r.departureTime}` : ''}${r.airline ? ` with ${r.airline}` : ''} for ${r.passengers}`;
    case 'activity': return `${r.venue}, ${r.city} on ${r.date}, ${r.tickets} ticket${r.tickets === 1 ? '' : 's'}`;
  }
}
