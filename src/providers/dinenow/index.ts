import { chooseSuggested, fillAll, gate, holdDeadline, priceIn, texts } from '../shared/pages.ts';
import type { Driver, SearchRequest } from '../types.ts';

// DineNow (restaurants, second choice): a green site with a booking sidebar, times as radio buttons
// in 12-hour format (the 24-hour time sits in data-time), a review table, a GBP card guarantee.

function restaurant(request: SearchRequest) {
  if (request.scenario !== 'restaurant') throw new Error('DineNow books restaurants only');
  return request;
}

/** "Mar 14, 2031 at 8:00 PM" is how the review table writes the slot. */
async function row(page: Parameters<Driver['review']>[0], label: string): Promise<string | null> {
  const rows = await page.rows('#dn-check-table tr', { th: 'th', td: 'td' });
  return rows.find((r) => r.cells.th === label)?.cells.td ?? null;
}

export const dinenow: Driver = {
  id: 'dinenow',
  name: 'DineNow',
  scenario: 'restaurant',

  async search(page, startUrl, request) {
    const r = restaurant(request);
    await page.goto(startUrl);
    await fillAll(page, [
      ['#restaurantName', r.venue],
      ['#cityName', r.city],
      ['#bookingDate', r.date],
      ['#bookingTime', r.time],
      ['#covers', r.partySize],
    ]);
    await page.submit('#dn-search-btn', 'search for availability');
  },

  availability: (page) =>
    gate(page, { offers: '#dn-times', none: '#dn-empty', loginWall: '#dinenow-login-wall', captcha: '#dinenow-captcha' }, async () =>
      (await page.rows('#dn-times li.dn-time', { radio: 'input[name="time_slot"]', label: 'label' })).map((r) => ({
        key: r.cellAttrs.radio?.value ?? '',
        available: r.cellAttrs.radio?.disabled === undefined,
        label: r.cells.label ?? '',
        time: r.cellAttrs.radio?.['data-time'],
      })),
    ),

  chooseVenue: chooseSuggested,

  async choose(page, offer) {
    await page.check(`#dn-times input[name="time_slot"][value="${offer.key}"]`);
    await page.submit('#dn-continue', `hold the ${offer.label} table`);
  },

  async guestDetails(page, t) {
    await fillAll(page, [
      ['#dn-first', t.givenName],
      ['#dn-last', t.familyName],
      ['#dn-email', t.email],
      ['#dn-phone', t.phone],
    ]);
    await page.submit('#dn-details-next', 'send the guest details');
  },

  async review(page) {
    if (!(await page.exists('#dn-check'))) return null;
    const guarantee = (await row(page, 'Card guarantee')) ?? '';
    return {
      held: {
        venue: (await row(page, 'Restaurant')) ?? '',
        when: (await row(page, 'When')) ?? '',
        quantity: `${(await row(page, 'Guests')) ?? '?'} guests`,
        item: (await row(page, 'Area')) ?? undefined,
        price: priceIn(guarantee) ? `card guarantee ${guarantee}` : guarantee,
        holdExpiresAt: await holdDeadline(page, '#dn-timer'),
      },
      noCardStep: await page.exists('#dn-confirm'),
    };
  },

  async confirmReview(page) {
    if (await page.exists('#dn-confirm')) await page.submit('#dn-confirm', 'confirm the booking (no card needed: pay on the night)');
    else await page.submit('#dn-to-payment', 'proceed to the secure payment page');
  },

  async payment(page) {
    if (!(await page.exists('#dn-pay-form'))) return null;
    return {
      price: (await page.text('#dn-amount')) ?? undefined,
      cardOnFile: (await page.text('#dn-saved-card')) ?? undefined,
      holdExpiresAt: await holdDeadline(page, '#dn-timer'),
      cardField: '#dn-security-code',
    };
  },

  async pay(page) {
    await page.submit('#dn-pay-now', 'pay the card guarantee');
  },

  confirmation: (page) => page.attr('#dn-ref', 'data-confirmation-code'),
  formErrors: (page) => texts(page, '.dn-invalid, #dn-form-problems'),
};
