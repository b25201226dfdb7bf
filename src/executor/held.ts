import { headcountOf } from '../scenarios/index.ts';
import type { Held, SearchRequest } from '../driver/types.ts';
import { nameWords, sameName } from '../driver/names.ts';
import { datesIn, firstTimeIn, quantityIn, tripIn } from '../driver/text.ts';

// Is what a provider holds what was asked for? Read from the review page as the site writes it
// (each site its own way: "Sunday, 29 November 2026 at 19:30", "Nov 29, 2026 at 7:30 PM", "party of
// 2", "2 × $69.00 tickets"), compared with the request: the date (hotels: both dates), the time
// chosen (the one asked for, or the consented adjustment), and how many. A different venue is not a
// mismatch but a venue switch, which the consent decides on.

export type HeldCheck =
  | { kind: 'as_asked' }
  | { kind: 'mismatch'; message: string }
  | { kind: 'venue_switch'; from: string; to: string };

/** The dates a review page shows for what it holds: with the times, else (JetDeck) with the route. */
export function heldDates(held: Held): string[] {
  const whenDates = datesIn(held.when);
  return whenDates.length ? whenDates : datesIn(held.venue);
}

/**
 * The venue's name as the site shows it, when it is not the one asked for (null when it is): by
 * meaning, not byte for byte (names.ts: the city, a neighbourhood after a separator, accents and
 * punctuation are the same name). Flights: the airline asked for must be the carrier.
 */
function otherVenue(request: SearchRequest, held: Held): string | null {
  if (request.scenario === 'flight') {
    if (!request.airline) return null;
    return ` ${nameWords(held.venue).join(' ')} `.includes(` ${nameWords(request.airline).join(' ')} `) ? null : held.venue;
  }
  if (held.venue.trim() === '' || sameName(request.venue, held.venue, request.city).same) return null;
  // The name without the city the site appended, as the site writes it.
  return held.venue.replace(new RegExp(`\\s*[,·(–-]?\\s*${request.city.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}\\)?\\s*$`, 'i'), '').trim() || held.venue;
}

const THINGS: Record<SearchRequest['scenario'], string> = { restaurant: 'party size', hotel: 'number of guests', flight: 'number of passengers', activity: 'number of tickets' };

/** The venue the request names (a flight's: its airline, or none). */
export function venueAsked(request: SearchRequest): string {
  return request.scenario === 'flight' ? (request.airline ?? '') : request.venue;
}

/** Compares what the review page says is held with the request; `time` is the time chosen (restaurants, flights). */
export function checkHeld(request: SearchRequest, held: Held, time: string | undefined): HeldCheck {
  if (request.scenario === 'flight' && request.returnDate) {
    // A return fare: the way out and the way back are both held (a one-way fare is not half a return).
    // Sites put a leg's date with its route or with its times: both are read.
    const shown = [...new Set([...datesIn(held.when), ...datesIn(held.venue)])];
    const missing = [request.date, request.returnDate].filter((d) => !shown.includes(d));
    if (missing.length) return { kind: 'mismatch', message: `it holds ${shown.length ? shown.join(' and ') : 'no date it says'} ("${held.when}"), not the way out on ${request.date} and back on ${request.returnDate} as asked` };
  } else {
    // A one-way trip asked: a return fare held is another trip, whatever its way out.
    if (request.scenario === 'flight' && tripIn([held.when, held.venue, held.item ?? ''].join(' · ')) === 'return') {
      return { kind: 'mismatch', message: `it holds a return fare ("${[held.item, held.when].filter(Boolean).join(', ')}"), not the one-way trip asked` };
    }
    // Some sites put the date with the route (JetDeck: "LHR – JFK, Dec 12, 2026"), not with the times.
    const dates = heldDates(held);
    const wanted = request.scenario === 'hotel' ? [request.checkIn, request.checkOut] : [request.date];
    const what = request.scenario === 'hotel' ? 'dates' : 'date';
    if (dates.length < wanted.length) return { kind: 'mismatch', message: `the review page does not say which ${what} it holds ("${held.when}")` };
    if (wanted.some((d, i) => dates[i] !== d)) return { kind: 'mismatch', message: `it holds ${dates.slice(0, wanted.length).join(' to ')} ("${held.when}"), not ${wanted.join(' to ')} as asked` };
  }
  if (time && (request.scenario === 'restaurant' || request.scenario === 'flight')) {
    const shown = firstTimeIn(held.when);
    if (shown !== time) return { kind: 'mismatch', message: shown ? `it holds ${shown}, not the ${time} chosen ("${held.when}")` : `the review page does not say at what time ("${held.when}")` };
  }
  const count = quantityIn(request.scenario, held.quantity);
  const asked = headcountOf(request);
  if (count === null) return { kind: 'mismatch', message: `the review page does not say the ${THINGS[request.scenario]} ("${held.quantity}")` };
  if (count !== asked) return { kind: 'mismatch', message: `it holds ${held.quantity}, not ${asked} as asked (${THINGS[request.scenario]})` };
  const other = otherVenue(request, held);
  if (other) return { kind: 'venue_switch', from: venueAsked(request), to: other };
  return { kind: 'as_asked' };
}
