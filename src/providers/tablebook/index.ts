import type { GuardedPage } from '../../executor/guard/page-api.ts';
import { amount, chooseSuggested, fillAll, gate, holdDeadline, priceIn, texts } from '../shared/pages.ts';
import type { Driver, SearchRequest } from '../types.ts';

// TableBook (restaurants, first choice): a red site with one form per step, time slots as a grid of
// submit buttons (24-hour times, deposit in EUR), a review page as a definition list.

function restaurant(request: SearchRequest) {
  if (request.scenario !== 'restaurant') throw new Error('TableBook books restaurants only');
  return request;
}

export const tablebook: Driver = {
  id: 'tablebook',
  name: 'TableBook',
  scenario: 'restaurant',

  async search(page, startUrl, request) {
    const r = restaurant(request);
    await page.goto(startUrl);
    await fillAll(page, [
      ['#tb-restaurant', r.venue],
      ['#tb-city', r.city],
      ['#tb-date', r.date],
      ['#tb-time', r.time],
      ['#tb-party', r.partySize],
    ]);
    await page.submit('#tb-find-table', 'search for a table');
  },

  availability: (page) =>
    gate(page, { offers: '#tb-slots', none: '#tb-no-availability', loginWall: '#tablebook-login-wall', captcha: '#tablebook-captcha' }, async () =>
      (await page.rows('#tb-slots button.tb-slot', { detail: 'small' })).map((row) => ({
        key: row.attrs.value ?? '',
        available: row.attrs['data-available'] === 'true' && row.attrs.disabled === undefined,
        label: row.attrs['data-slot'] ?? row.text,
        time: row.attrs['data-slot'],
        description: row.cells.detail?.split('·')[0]?.trim(),
        total: amount(priceIn(row.cells.detail)),
        priceText: priceIn(row.cells.detail),
      })),
    ),

  chooseVenue: chooseSuggested,

  async choose(page, offer) {
    await page.submit(`#tb-slots button.tb-slot[value="${offer.key}"]`, `choose the ${offer.label} table`);
  },

  async guestDetails(page, t) {
    await fillAll(page, [
      ['#tb-given-name', t.givenName],
      ['#tb-family-name', t.familyName],
      ['#tb-email', t.email],
      ['#tb-tel', t.phone],
    ]);
    await page.submit('#tb-guest-continue', 'send the guest details');
  },

  async review(page) {
    if (!(await page.exists('#tb-review'))) return null;
    const field = (name: string) => page.text(`#tb-review-details dd[data-field="${name}"]`);
    const party = await field('party-size');
    const price = (await field('total')) ?? '';
    return {
      held: {
        venue: [await field('restaurant'), await field('city')].filter(Boolean).join(', '),
        when: [await field('date'), await field('time')].filter(Boolean).join(' at '),
        quantity: `party of ${party}`,
        item: (await field('seating')) ?? undefined,
        price: priceIn(price) ? `deposit ${price}` : price,
        holdExpiresAt: await holdDeadline(page, '#tb-hold'),
      },
      noCardStep: await page.exists('#tb-confirm-booking'),
    };
  },

  async confirmReview(page) {
    if (await page.exists('#tb-confirm-booking')) await page.submit('#tb-confirm-booking', 'confirm the booking (no card needed: pay at the restaurant)');
    else await page.submit('#tb-review-continue', 'continue to the payment page');
  },

  async payment(page) {
    if (!(await page.exists('#tb-payment-form'))) return null;
    return {
      price: (await page.text('#tb-amount')) ?? undefined,
      cardOnFile: (await page.text('#tb-card-on-file')) ?? undefined,
      holdExpiresAt: await holdDeadline(page, '#tb-hold'),
      cardField: '#tb-cvc',
    };
  },

  async pay(page) {
    await page.submit('#tb-pay', 'pay the deposit');
  },

  confirmation: (page: GuardedPage) => page.attr('#tb-confirmation-code', 'data-confirmation-code'),
  formErrors: (page) => texts(page, '.tb-errors li, .tb-err[role="alert"]'),
};
