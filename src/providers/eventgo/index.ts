import type { GuardedPage } from '../../executor/guard/page-api.ts';
import { amount, fillAll, gate, holdDeadline, priceIn, texts } from '../shared/pages.ts';
import type { Driver, SearchRequest } from '../types.ts';

// EventGo (activities, second choice): a teal site with a ticket-type list and a Choose button per
// type, a basket block that says everything in sentences, bracketed field names; GBP.

function activity(request: SearchRequest) {
  if (request.scenario !== 'activity') throw new Error('EventGo books activities only');
  return request;
}

/** The basket: <h3>event</h3><p>city · date · starts HH:MM</p><p>N × Section @ £x = <b>£y</b></p>. */
async function basket(page: GuardedPage) {
  const lines = (await page.rows('#eg-basket p')).map((r) => r.text);
  const items = lines.find((l) => /×/.test(l)) ?? '';
  const m = /^(\d+)\s*×\s*(.+?)\s*@/.exec(items);
  return {
    event: (await page.text('#eg-basket h3')) ?? '',
    where: lines[0] ?? '',
    tickets: m?.[1] ?? '?',
    section: m?.[2],
    total: (await page.text('#eg-basket p b')) ?? priceIn(items) ?? '',
  };
}

export const eventgo: Driver = {
  id: 'eventgo',
  name: 'EventGo',
  scenario: 'activity',

  async search(page, startUrl, request) {
    const a = activity(request);
    await page.goto(startUrl);
    await fillAll(page, [
      ['#eg-what', a.venue],
      ['#eg-where', a.city],
      ['#eg-when', a.date],
      ['#eg-tickets', a.tickets],
      ['#eg-seat-type', a.seatType],
    ]);
    await page.submit('#eg-search', 'search for tickets');
  },

  availability: (page) =>
    gate(page, { offers: '#eg-ticket-types', none: '#eg-none', loginWall: '#eventgo-login-wall', captcha: '#eventgo-captcha' }, async () =>
      (await page.rows('#eg-ticket-types > li', { title: 'b', detail: 'small', line: 'span' })).map((r) => ({
        key: r.attrs['data-ticket-type'] ?? '',
        available: r.attrs['data-available'] === 'true',
        label: r.cells.title ?? '',
        description: r.cells.detail ?? undefined,
        unitPrice: amount(priceIn(r.cells.line)),
        priceText: priceIn(r.cells.line),
      })),
    ),

  async choose(page, offer) {
    await page.submit(`#eg-ticket-types button[name="ticket_type"][value="${offer.key}"]`, `choose ${offer.label} tickets`);
  },

  async guestDetails(page, t) {
    await fillAll(page, [
      ['#eg-given', t.givenName],
      ['#eg-family', t.familyName],
      ['#eg-mail', t.email],
      ['#eg-phone', t.phone],
    ]);
    await page.submit('#eg-attendee-next', 'send the attendee details');
  },

  async review(page) {
    if (!(await page.exists('#eg-summary'))) return null;
    const b = await basket(page);
    return {
      held: {
        venue: b.event,
        when: b.where,
        quantity: `${b.tickets} tickets`,
        item: b.section,
        price: b.total,
        holdExpiresAt: await holdDeadline(page, '#eg-clock'),
      },
      noCardStep: await page.exists('#eg-confirm'),
    };
  },

  async confirmReview(page) {
    if (await page.exists('#eg-confirm')) await page.submit('#eg-confirm', 'confirm the booking (no card needed: pay on the door)');
    else await page.submit('#eg-pay-step', 'go to the payment page');
  },

  async payment(page) {
    if (!(await page.exists('#eg-payment-form'))) return null;
    return {
      price: (await basket(page)).total || undefined,
      cardOnFile: (await page.text('#eg-card')) ?? undefined,
      holdExpiresAt: await holdDeadline(page, '#eg-clock'),
      cardField: '#eg-cvc',
    };
  },

  async pay(page) {
    await page.submit('#eg-pay-button', 'pay for the tickets');
  },

  confirmation: (page) => page.attr('#eg-code', 'data-confirmation-code'),
  formErrors: (page) => texts(page, '.eg-no'),
};
