import type { DriverPage, Row } from '../../driver/page.ts';
import { amount, priceIn } from '../shared/pages.ts';
import { scriptedDriver, type HeldOnReview } from '../shared/scripted.ts';
import type { PassengerPart } from '../shared/travellers.ts';
import type { Driver, Offer } from '../../driver/types.ts';

// SkyFare (flights, first choice): a sky-blue site listing flights with radio buttons, one fieldset
// per passenger (passport details) and an itinerary table; USD.

/** The id ending of each part of a passenger's section. */
const PASSENGER_IDS: Record<PassengerPart, string> = { given: 'given', family: 'family', birth: 'dob', passport: 'passport', ktn: 'ktn', country: 'country' };

async function itinerary(page: DriverPage): Promise<Map<string, string>> {
  const rows = await page.rows('#sf-itinerary tr', { label: 'td:nth-child(1)', value: 'td:nth-child(2)' });
  return new Map(rows.map((r) => [r.cells.label ?? '', r.cells.value ?? '']));
}

async function held(page: DriverPage): Promise<HeldOnReview> {
  const it = await itinerary(page);
  const passengers = [...it.keys()].filter((k) => /^Passenger \d+$/.test(k)).length;
  return {
    venue: `${it.get('Flight') ?? '?'}, ${it.get('Route') ?? '?'}${it.has('Return flight') ? `, return ${it.get('Return flight')}` : ''}`,
    // The way out first (its date and time are what was chosen), then the way back.
    when: `${it.get('Date') ?? '?'}, ${it.get('Departs / arrives') ?? '?'}${it.has('Return date') ? `; return ${it.get('Return date')}, ${it.get('Return departs / arrives') ?? '?'}` : ''}`,
    quantity: `${passengers} passenger${passengers === 1 ? '' : 's'}`,
    item: it.get('Cabin'),
    price: it.get('Total') ?? '',
  };
}

/** A flight: its fare's radio, its number and departure in attributes, the fare per passenger in bold. */
const flight = (r: Row): Offer => ({
  key: r.cellAttrs.radio?.value ?? '', available: r.attrs['data-available'] === 'true' && r.cellAttrs.radio?.disabled === undefined,
  label: r.attrs['data-flight-number'] ?? '', flightNumber: r.attrs['data-flight-number'], time: r.attrs['data-departure'], unitPrice: amount(r.cells.price), priceText: priceIn(r.cells.price),
});

export const skyfare: Driver = scriptedDriver({
  id: 'skyfare', name: 'SkyFare', scenario: 'flight', hold: '#sf-fare-hold',
  search: { fields: (f) => [['#sf-from', f.origin], ['#sf-to', f.destination], ['#sf-date', f.date], ['#sf-return', f.returnDate], ['#sf-pax', f.passengers], ['#sf-airline', f.airline], ['#sf-dep-time', f.departureTime]], lists: (f) => [['#sf-cabin', f.cabin]], submit: ['#sf-search-flights', 'search for flights'] },
  availability: { offers: '#sf-flights', none: '#sf-no-flights', rows: '#sf-flights li.sf-flight', cells: { radio: 'input[name="fare"]', price: 'span:last-child b' }, offer: flight },
  choose: (offer) => ({ check: `#sf-flights input[name="fare"][value="${offer.key}"]`, press: ['#sf-continue', `choose flight ${offer.label} at ${offer.time}`] }),
  guests: { section: (n, part) => `#sf-p${n}-${PASSENGER_IDS[part]}`, email: '#sf-email', phone: '#sf-phone', submit: ['#sf-passengers-next', 'send the passenger details'] },
  review: { page: '#sf-review', held, confirm: ['#sf-confirm', 'confirm the booking (no card needed: pay at the airport)'], next: ['#sf-to-payment', 'continue to the payment page'] },
  payment: { form: '#sf-payment-form', price: '#sf-amount', cardOnFile: '#sf-card-on-file', cardField: '#sf-csc', pay: ['#sf-purchase', 'purchase the flight'] },
  confirmation: '#sf-pnr', formErrors: '.sf-oops li, .sf-bad',
});
