import type { DriverPage, Row } from '../../driver/page.ts';
import { amount, priceIn } from '../shared/pages.ts';
import { scriptedDriver, type HeldOnReview } from '../shared/scripted.ts';
import type { PassengerPart } from '../shared/travellers.ts';
import type { Driver, Offer } from '../../driver/types.ts';

// JetDeck (flights, second choice): a dark site with a results table and a Select button per row,
// one section per traveller, a recap definition list; fares are totals in EUR.

/** The id ending of each part of a passenger's section. */
const PASSENGER_IDS: Record<PassengerPart, string> = { given: 'first', family: 'last', birth: 'birth', passport: 'doc', ktn: 'ktn', country: 'nat' };

async function recap(page: DriverPage): Promise<Map<string, string>> {
  const terms = await page.rows('#jd-recap > dt');
  const values = await page.rows('#jd-recap > dd');
  return new Map(terms.map((t, i) => [t.text, values[i]?.text ?? '']));
}

async function held(page: DriverPage): Promise<HeldOnReview> {
  const r = await recap(page);
  const travellers = (await page.rows('#jd-recap > dd ol > li')).length;
  return {
    venue: `${r.get('Flight') ?? '?'}, ${r.get('Route') ?? '?'}`,
    // The date is with the route; a return fare's way back has its own (named after the way out's).
    when: r.has('Return') ? `${(r.get('Route') ?? '?').replace(/^[^,]*,\s*/, '')}, ${r.get('Schedule') ?? ''}; return ${r.get('Return')}` : (r.get('Schedule') ?? ''),
    quantity: `${travellers} traveller${travellers === 1 ? '' : 's'}`,
    item: r.get('Class'),
    price: r.get('Price') ?? '',
  };
}

/** A results row: its status, number and departure in attributes, a Select button (none when full), the fare in the fifth cell. */
const flight = (r: Row): Offer => ({
  key: r.cellAttrs.select?.value ?? '', available: r.attrs['data-status'] === 'available' && r.cellAttrs.select?.value !== undefined, label: r.attrs['data-flight'] ?? '',
  flightNumber: r.attrs['data-flight'], time: r.attrs['data-dep'], total: amount(r.cells.fare), priceText: priceIn(r.cells.fare),
});

export const jetdeck: Driver = scriptedDriver({
  id: 'jetdeck', name: 'JetDeck', scenario: 'flight', hold: '#jd-clock',
  search: { fields: (f) => [['#jd-origin', f.origin], ['#jd-destination', f.destination], ['#jd-date', f.date], ['#jd-return', f.returnDate], ['#jd-travellers', f.passengers], ['#jd-carrier', f.airline], ['#jd-time', f.departureTime]], lists: (f) => [['#jd-class', f.cabin]], submit: ['#jd-go', 'search for flights'] },
  availability: { offers: '#jd-results', none: '#jd-empty', rows: '#jd-results tbody tr', cells: { select: 'button[name="flight"]', fare: 'td:nth-child(5)' }, offer: flight },
  choose: (offer) => ({ press: [`#jd-results button[name="flight"][value="${offer.key}"]`, `select flight ${offer.label} at ${offer.time}`] }),
  guests: { section: (n, part) => `#jd-t${n}-${PASSENGER_IDS[part]}`, email: '#jd-contact-email', phone: '#jd-contact-phone', submit: ['#jd-save-travellers', 'save the traveller details'] },
  review: { page: '#jd-review', held, confirm: ['#jd-book', 'confirm the booking (no card needed: pay at the airport)'], next: ['#jd-proceed', 'proceed to checkout'] },
  payment: { form: '#jd-checkout', price: '#jd-amount', cardOnFile: '#jd-card-on-file', cardField: '#jd-cid', pay: ['#jd-pay', 'pay and book'] },
  confirmation: '#jd-confirmation', formErrors: '.jd-warn',
});
