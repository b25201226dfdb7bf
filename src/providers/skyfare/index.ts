import type { GuardedPage } from '../../executor/guard/page-api.ts';
import { amount, fillAll, gate, holdDeadline, priceIn, texts } from '../shared/pages.ts';
import { fillPassengers, type PassengerPart } from '../shared/travellers.ts';
import type { Driver, SearchRequest } from '../types.ts';

// SkyFare (flights, first choice): a sky-blue site listing flights with radio buttons, one fieldset
// per passenger (passport details) and an itinerary table; USD.

function flight(request: SearchRequest) {
  if (request.scenario !== 'flight') throw new Error('SkyFare books flights only');
  return request;
}

async function itinerary(page: GuardedPage): Promise<Map<string, string>> {
  const rows = await page.rows('#sf-itinerary tr', { label: 'td:nth-child(1)', value: 'td:nth-child(2)' });
  return new Map(rows.map((r) => [r.cells.label ?? '', r.cells.value ?? '']));
}

/** The id ending of each part of a passenger's section. */
const PASSENGER_IDS: Record<PassengerPart, string> = { given: 'given', family: 'family', birth: 'dob', passport: 'passport', ktn: 'ktn', country: 'country' };

export const skyfare: Driver = {
  id: 'skyfare',
  name: 'SkyFare',
  scenario: 'flight',

  async search(page, startUrl, request) {
    const f = flight(request);
    await page.goto(startUrl);
    await fillAll(page, [
      ['#sf-from', f.origin],
      ['#sf-to', f.destination],
      ['#sf-date', f.date],
      ['#sf-return', f.returnDate],
      ['#sf-pax', f.passengers],
      ['#sf-airline', f.airline],
      ['#sf-dep-time', f.departureTime],
    ]);
    if (f.cabin) await page.select('#sf-cabin', f.cabin);
    await page.submit('#sf-search-flights', 'search for flights');
  },

  availability: (page) =>
    gate(page, { offers: '#sf-flights', none: '#sf-no-flights', loginWall: '#skyfare-login-wall', captcha: '#skyfare-captcha' }, async () =>
      (await page.rows('#sf-flights li.sf-flight', { radio: 'input[name="fare"]', price: 'span:last-child b' })).map((r) => ({
        key: r.cellAttrs.radio?.value ?? '',
        available: r.attrs['data-available'] === 'true' && r.cellAttrs.radio?.disabled === undefined,
        label: r.attrs['data-flight-number'] ?? '',
        flightNumber: r.attrs['data-flight-number'],
        time: r.attrs['data-departure'],
        unitPrice: amount(r.cells.price),
        priceText: priceIn(r.cells.price),
      })),
    ),

  async choose(page, offer) {
    await page.check(`#sf-flights input[name="fare"][value="${offer.key}"]`);
    await page.submit('#sf-continue', `choose flight ${offer.label} at ${offer.time}`);
  },

  async guestDetails(page, t) {
    // One section per passenger, in the order the profile names them (the lead first).
    await fillPassengers(page, t, (n, part) => `#sf-p${n}-${PASSENGER_IDS[part]}`, [['#sf-email', t.email], ['#sf-phone', t.phone]]);
    await page.submit('#sf-passengers-next', 'send the passenger details');
  },

  async review(page) {
    if (!(await page.exists('#sf-review'))) return null;
    const it = await itinerary(page);
    const passengers = [...it.keys()].filter((k) => /^Passenger \d+$/.test(k)).length;
    return {
      held: {
        venue: `${it.get('Flight') ?? '?'}, ${it.get('Route') ?? '?'}${it.has('Return flight') ? `, return ${it.get('Return flight')}` : ''}`,
        // The way out first (its date and time are what was chosen), then the way back.
        when: `${it.get('Date') ?? '?'}, ${it.get('Departs / arrives') ?? '?'}${it.has('Return date') ? `; return ${it.get('Return date')}, ${it.get('Return departs / arrives') ?? '?'}` : ''}`,
        quantity: `${passengers} passenger${passengers === 1 ? '' : 's'}`,
        item: it.get('Cabin'),
        price: it.get('Total') ?? '',
        holdExpiresAt: await holdDeadline(page, '#sf-fare-hold'),
      },
      noCardStep: await page.exists('#sf-confirm'),
    };
  },

  async confirmReview(page) {
    if (await page.exists('#sf-confirm')) await page.submit('#sf-confirm', 'confirm the booking (no card needed: pay at the airport)');
    else await page.submit('#sf-to-payment', 'continue to the payment page');
  },

  async payment(page) {
    if (!(await page.exists('#sf-payment-form'))) return null;
    return {
      price: (await page.text('#sf-amount')) ?? undefined,
      cardOnFile: (await page.text('#sf-card-on-file')) ?? undefined,
      holdExpiresAt: await holdDeadline(page, '#sf-fare-hold'),
      cardField: '#sf-csc',
    };
  },

  async pay(page) {
    await page.submit('#sf-purchase', 'purchase the flight');
  },

  confirmation: (page) => page.attr('#sf-pnr', 'data-confirmation-code'),
  formErrors: (page) => texts(page, '.sf-oops li, .sf-bad'),
};
