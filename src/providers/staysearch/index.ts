import { amount, chooseSuggested, fillAll, gate, holdDeadline, priceIn, texts } from '../shared/pages.ts';
import { starsOf } from '../shared/stars.ts';
import type { Driver, SearchRequest } from '../types.ts';

// StaySearch (hotels, first choice): a blue site with a room table, a Reserve button per row, a
// review list of "Label: value" lines, USD.

function hotel(request: SearchRequest) {
  if (request.scenario !== 'hotel') throw new Error('StaySearch books hotels only');
  return request;
}

async function line(page: Parameters<Driver['review']>[0], label: string): Promise<string | null> {
  const lines = await page.rows('#ss-summary-list li');
  const found = lines.find((l) => l.text.startsWith(`${label}:`));
  return found ? found.text.slice(label.length + 1).trim() : null;
}

export const staysearch: Driver = {
  id: 'staysearch',
  name: 'StaySearch',
  scenario: 'hotel',

  async search(page, startUrl, request) {
    const h = hotel(request);
    await page.goto(startUrl);
    await fillAll(page, [
      ['#ss-hotel', h.venue],
      ['#ss-city', h.city],
      ['#ss-checkin', h.checkIn],
      ['#ss-checkout', h.checkOut],
      ['#ss-adults', h.adults],
      ['#ss-room-pref', h.roomPreference],
    ]);
    await page.submit('#ss-search-submit', 'search for rooms');
  },

  availability: (page) =>
    gate(page, { offers: '#ss-rooms', none: '#ss-no-rooms', loginWall: '#staysearch-login-wall', captcha: '#staysearch-captcha' }, async () => {
      const stars = starsOf(await page.attr('#ss-rating', 'data-stars'));
      return (await page.rows('#ss-rooms tr.ss-room', { name: '.ss-room-name', detail: 'td small', total: 'td:nth-child(2)', perNight: 'td:nth-child(2) small' })).map((r) => ({
        key: r.attrs['data-room-type'] ?? '',
        available: r.attrs['data-available'] === 'true',
        label: r.cells.name ?? '',
        description: r.cells.detail ?? undefined,
        unitPrice: amount(r.cells.perNight),
        total: amount(r.cells.total),
        priceText: priceIn(r.cells.perNight),
        ...(stars ? { stars } : {}),
      }));
    }),

  chooseVenue: chooseSuggested,

  async choose(page, offer) {
    await page.submit(`#ss-rooms tr.ss-room[data-room-type="${offer.key}"] button[name="room"]`, `reserve the ${offer.label}`);
  },

  async guestDetails(page, t) {
    await fillAll(page, [
      ['#ss-first-name', t.givenName],
      ['#ss-last-name', t.familyName],
      ['#ss-email', t.email],
      ['#ss-phone', t.phone],
    ]);
    await page.submit('#ss-guest-next', 'send the guest details');
  },

  async review(page) {
    if (!(await page.exists('#ss-summary'))) return null;
    const total = (await line(page, 'Total price')) ?? '';
    return {
      held: {
        venue: (await line(page, 'Hotel')) ?? '',
        when: `check-in ${(await line(page, 'Check-in')) ?? '?'}, check-out ${(await line(page, 'Check-out')) ?? '?'}`,
        quantity: `1 room, ${(await line(page, 'Guests')) ?? '?'}`,
        item: (await line(page, 'Room')) ?? undefined,
        price: total,
        holdExpiresAt: await holdDeadline(page, '#ss-hold-banner'),
      },
      noCardStep: await page.exists('#ss-confirm-booking'),
    };
  },

  async confirmReview(page) {
    if (await page.exists('#ss-confirm-booking')) await page.submit('#ss-confirm-booking', 'confirm the booking (no card needed: pay at the property)');
    else await page.submit('#ss-summary-continue', 'continue to the payment page');
  },

  async payment(page) {
    if (!(await page.exists('#ss-pay-form'))) return null;
    return {
      price: (await page.text('#ss-amount')) ?? undefined,
      cardOnFile: (await page.text('#ss-card-on-file')) ?? undefined,
      holdExpiresAt: await holdDeadline(page, '#ss-hold-banner'),
      cardField: '#ss-card-cvc',
    };
  },

  async pay(page) {
    await page.submit('#ss-complete-booking', 'complete the booking');
  },

  confirmation: (page) => page.attr('#ss-confirmation-number', 'data-confirmation-code'),
  formErrors: (page) => texts(page, '.ss-errors li, .ss-error[role="alert"]'),
};
