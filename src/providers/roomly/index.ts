import type { GuardedPage } from '../../executor/guard/page-api.ts';
import { amount, chooseSuggested, fillAll, gate, holdDeadline, priceIn, texts } from '../shared/pages.ts';
import { starsOf } from '../shared/stars.ts';
import type { Driver, SearchRequest } from '../types.ts';

// Roomly (hotels, second choice): a purple site with room cards, each its own little form, and a
// review grid of label/value pairs; EUR.

function hotel(request: SearchRequest) {
  if (request.scenario !== 'hotel') throw new Error('Roomly books hotels only');
  return request;
}

/** The review grid alternates <span>label</span><b>value</b>. */
async function grid(page: GuardedPage): Promise<Map<string, string>> {
  const cells = await page.rows('#rm-kv > *');
  const out = new Map<string, string>();
  for (let i = 0; i + 1 < cells.length; i += 2) out.set(cells[i]!.text, cells[i + 1]!.text);
  return out;
}

export const roomly: Driver = {
  id: 'roomly',
  name: 'Roomly',
  scenario: 'hotel',

  async search(page, startUrl, request) {
    const h = hotel(request);
    await page.goto(startUrl);
    await fillAll(page, [
      ['#rm-hotel-name', h.venue],
      ['#rm-city', h.city],
      ['#rm-checkin', h.checkIn],
      ['#rm-checkout', h.checkOut],
      ['#rm-guests', h.adults],
      ['#rm-room', h.roomPreference],
    ]);
    await page.submit('#rm-check', 'check availability');
  },

  availability: (page) =>
    gate(page, { offers: '#rm-room-list', none: '#rm-nothing', loginWall: '#roomly-login-wall', captcha: '#roomly-captcha' }, async () => {
      const stars = starsOf(await page.attr('#rm-rating', 'data-stars'));
      return (await page.rows('#rm-room-list article.room-card', { title: 'h3', detail: 'p', price: 'p b' })).map((r) => ({
        key: r.attrs['data-room-id'] ?? '',
        available: r.attrs['data-sold-out'] === 'false',
        label: r.cells.title ?? '',
        description: r.cells.detail ?? undefined,
        unitPrice: amount(r.cells.price),
        priceText: priceIn(r.cells.price),
        ...(stars ? { stars } : {}),
      }));
    }),

  chooseVenue: chooseSuggested,

  async choose(page, offer) {
    await page.submit(`#rm-room-list article.room-card[data-room-id="${offer.key}"] .rm-select`, `select the ${offer.label}`);
  },

  async guestDetails(page, t) {
    await fillAll(page, [
      ['#rm-given', t.givenName],
      ['#rm-family', t.familyName],
      ['#rm-mail', t.email],
      ['#rm-tel', t.phone],
    ]);
    await page.submit('#rm-guests-next', 'send the guest details');
  },

  async review(page) {
    if (!(await page.exists('#rm-review'))) return null;
    const kv = await grid(page);
    return {
      held: {
        venue: kv.get('Property') ?? '',
        when: kv.get('Dates') ?? '',
        quantity: `1 room, ${kv.get('Adults') ?? '?'} adults`,
        item: kv.get('Room'),
        price: kv.get('Total') ?? '',
        holdExpiresAt: await holdDeadline(page, '#rm-hold'),
      },
      noCardStep: await page.exists('#rm-confirm'),
    };
  },

  async confirmReview(page) {
    if (await page.exists('#rm-confirm')) await page.submit('#rm-confirm', 'confirm the booking (no card needed: pay at the hotel)');
    else await page.submit('#rm-go-pay', 'go to the payment page');
  },

  async payment(page) {
    if (!(await page.exists('#paymentForm'))) return null;
    return {
      price: priceIn(await page.text('#rm-pay')),
      cardOnFile: (await page.text('#rm-card')) ?? undefined,
      holdExpiresAt: await holdDeadline(page, '#rm-hold'),
      cardField: '#rm-cvv',
    };
  },

  async pay(page) {
    await page.submit('#rm-pay', 'pay for the room');
  },

  confirmation: (page) => page.attr('#rm-booking-code', 'data-confirmation-code'),
  formErrors: (page) => texts(page, '.rm-oops'),
};
