import type { GuardedPage } from '../../executor/guard/page-api.ts';
import { amount, fillAll, gate, holdDeadline, priceIn, texts } from '../shared/pages.ts';
import { fillPassengers, type PassengerPart } from '../shared/travellers.ts';
import type { Driver, SearchRequest } from '../types.ts';

// JetDeck (flights, second choice): a dark site with a results table and a Select button per row,
// one section per traveller, a recap definition list; fares are totals in EUR.

function flight(request: SearchRequest) {
  if (request.scenario !== 'flight') throw new Error('JetDeck books flights only');
  return request;
}

async function recap(page: GuardedPage): Promise<Map<string, string>> {
  const terms = await page.rows('#jd-recap > dt');
  const values = await page.rows('#jd-recap > dd');
  return new Map(terms.map((t, i) => [t.text, values[i]?.text ?? '']));
}

/** The id ending of each part of a passenger's section. */
const PASSENGER_IDS: Record<PassengerPart, string> = { given: 'first', family: 'last', birth: 'birth', passport: 'doc', ktn: 'ktn', country: 'nat' };

export const jetdeck: Driver = {
  id: 'jetdeck',
  name: 'JetDeck',
  scenario: 'flight',

  async search(page, startUrl, request) {
    const f = flight(request);
    await page.goto(startUrl);
    await fillAll(page, [
      ['#jd-origin', f.origin],
      ['#jd-destination', f.destination],
      ['#jd-date', f.date],
      ['#jd-return', f.returnDate],
      ['#jd-travellers', f.passengers],
      ['#jd-carrier', f.airline],
      ['#jd-time', f.departureTime],
    ]);
    if (f.cabin) await page.select('#jd-class', f.cabin);
    await page.submit('#jd-go', 'search for flights');
  },

  availability: (page) =>
    gate(page, { offers: '#jd-results', none: '#jd-empty', loginWall: '#jetdeck-login-wall', captcha: '#jetdeck-captcha' }, async () =>
      (await page.rows('#jd-results tbody tr', { select: 'button[name="flight"]', fare: 'td:nth-child(5)' })).map((r) => ({
        key: r.cellAttrs.select?.value ?? '',
        available: r.attrs['data-status'] === 'available' && r.cellAttrs.select?.value !== undefined,
        label: r.attrs['data-flight'] ?? '',
        flightNumber: r.attrs['data-flight'],
        time: r.attrs['data-dep'],
        total: amount(r.cells.fare),
        priceText: priceIn(r.cells.fare),
      })),
    ),

  async choose(page, offer) {
    await page.submit(`#jd-results button[name="flight"][value="${offer.key}"]`, `select flight ${offer.label} at ${offer.time}`);
  },

  async guestDetails(page, t) {
    // One section per passenger, in the order the profile names them (the lead first).
    await fillPassengers(page, t, (n, part) => `#jd-t${n}-${PASSENGER_IDS[part]}`, [['#jd-contact-email', t.email], ['#jd-contact-phone', t.phone]]);
    await page.submit('#jd-save-travellers', 'save the traveller details');
  },

  async review(page) {
    if (!(await page.exists('#jd-review'))) return null;
    const r = await recap(page);
    const travellers = (await page.rows('#jd-recap > dd ol > li')).length;
    return {
      held: {
        venue: `${r.get('Flight') ?? '?'}, ${r.get('Route') ?? '?'}`,
        // The date is with the route; a return fare's way back has its own (named after the way out's).
        when: r.has('Return') ? `${(r.get('Route') ?? '?').replace(/^[^,]*,\s*/, '')}, ${r.get('Schedule') ?? ''}; return ${r.get('Return')}` : (r.get('Schedule') ?? ''),
        quantity: `${travellers} traveller${travellers === 1 ? '' : 's'}`,
        item: r.get('Class'),
        price: r.get('Price') ?? '',
        holdExpiresAt: await holdDeadline(page, '#jd-clock'),
      },
      noCardStep: await page.exists('#jd-book'),
    };
  },

  async confirmReview(page) {
    if (await page.exists('#jd-book')) await page.submit('#jd-book', 'confirm the booking (no card needed: pay at the airport)');
    else await page.submit('#jd-proceed', 'proceed to checkout');
  },

  async payment(page) {
    if (!(await page.exists('#jd-checkout'))) return null;
    return {
      price: (await page.text('#jd-amount')) ?? undefined,
      cardOnFile: (await page.text('#jd-card-on-file')) ?? undefined,
      holdExpiresAt: await holdDeadline(page, '#jd-clock'),
      cardField: '#jd-cid',
    };
  },

  async pay(page) {
    await page.submit('#jd-pay', 'pay and book');
  },

  confirmation: (page) => page.attr('#jd-confirmation', 'data-confirmation-code'),
  formErrors: (page) => texts(page, '.jd-warn'),
};
