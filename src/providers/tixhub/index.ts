import type { GuardedPage } from '../../executor/guard/page-api.ts';
import { amount, fillAll, gate, holdDeadline, priceIn, texts } from '../shared/pages.ts';
import type { Driver, SearchRequest } from '../types.ts';

// TixHub (activities, first choice): an orange site with seating sections as radio cards, an order
// table to review; USD.

function activity(request: SearchRequest) {
  if (request.scenario !== 'activity') throw new Error('TixHub books activities only');
  return request;
}

async function order(page: GuardedPage): Promise<Map<string, string>> {
  const rows = await page.rows('#tx-order tr', { label: 'td:nth-child(1)', value: 'td:nth-child(2)' });
  return new Map(rows.map((r) => [r.cells.label ?? '', r.cells.value ?? '']));
}

/** The order's "Tickets" row reads "2 × $69.00": the count is what is held (the total is read apart). */
function tickets(row: string | undefined): string {
  const count = /^\s*(\d+)\s*×/.exec(row ?? '')?.[1];
  return count ? `${count} ticket${count === '1' ? '' : 's'}` : `tickets: ${row ?? '?'}`;
}

export const tixhub: Driver = {
  id: 'tixhub',
  name: 'TixHub',
  scenario: 'activity',

  async search(page, startUrl, request) {
    const a = activity(request);
    await page.goto(startUrl);
    await fillAll(page, [
      ['#tx-event', a.venue],
      ['#tx-city', a.city],
      ['#tx-date', a.date],
      ['#tx-qty', a.tickets],
      ['#tx-seat', a.seatType],
    ]);
    await page.submit('#tx-find', 'search for tickets');
  },

  availability: (page) =>
    gate(page, { offers: '#tx-sections', none: '#tx-sold-out', loginWall: '#tixhub-login-wall', captcha: '#tixhub-captcha' }, async () =>
      (await page.rows('#tx-sections label.tx-section', { title: 'b', detail: 'small', price: 'span:last-child' })).map((r) => ({
        key: r.attrs['data-section'] ?? '',
        available: r.attrs['data-available'] === 'true',
        label: r.cells.title ?? '',
        description: r.cells.detail ?? undefined,
        unitPrice: amount(priceIn(r.cells.price)),
        priceText: priceIn(r.cells.price),
      })),
    ),

  async choose(page, offer) {
    await page.check(`#tx-sections input[name="section"][value="${offer.key}"]`);
    await page.submit('#tx-get-tickets', `get ${offer.label} tickets`);
  },

  async guestDetails(page, t) {
    await fillAll(page, [
      ['#tx-first', t.givenName],
      ['#tx-last', t.familyName],
      ['#tx-email', t.email],
      ['#tx-phone', t.phone],
    ]);
    await page.submit('#tx-buyer-next', 'send the buyer details');
  },

  async review(page) {
    if (!(await page.exists('#tx-review'))) return null;
    const o = await order(page);
    return {
      held: {
        venue: `${o.get('Event') ?? '?'}, ${o.get('City') ?? '?'}`,
        when: o.get('Date') ?? '',
        quantity: tickets(o.get('Tickets')),
        item: o.get('Section'),
        price: o.get('Order total') ?? '',
        holdExpiresAt: await holdDeadline(page, '#tx-timer'),
      },
      noCardStep: await page.exists('#tx-confirm'),
    };
  },

  async confirmReview(page) {
    if (await page.exists('#tx-confirm')) await page.submit('#tx-confirm', 'confirm the booking (no card needed: pay at the box office)');
    else await page.submit('#tx-checkout', 'go to checkout');
  },

  async payment(page) {
    if (!(await page.exists('#tx-payment-form'))) return null;
    return {
      price: (await page.text('#tx-amount')) ?? undefined,
      cardOnFile: (await page.text('#tx-card-on-file')) ?? undefined,
      holdExpiresAt: await holdDeadline(page, '#tx-timer'),
      cardField: '#tx-csc',
    };
  },

  async pay(page) {
    await page.submit('#tx-place-order', 'place the order');
  },

  confirmation: (page) => page.attr('#tx-order-number', 'data-confirmation-code'),
  formErrors: (page) => texts(page, '.tx-errors li, .tx-miss'),
};
