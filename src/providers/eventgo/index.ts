import type { DriverPage } from '../../driver/page.ts';
import { priceIn, ticketCard } from '../shared/pages.ts';
import { scriptedDriver, type HeldOnReview } from '../shared/scripted.ts';
import type { Driver } from '../../driver/types.ts';

// EventGo (activities, second choice): a teal site with a ticket-type list and a Choose button per
// type, a basket block that says everything in sentences, bracketed field names; GBP.

/** The basket: <h3>event</h3><p>city · date · starts HH:MM</p><p>N × Section @ £x = <b>£y</b></p>. */
async function basket(page: DriverPage) {
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

async function held(page: DriverPage): Promise<HeldOnReview> {
  const b = await basket(page);
  return { venue: b.event, when: b.where, quantity: `${b.tickets} tickets`, item: b.section, price: b.total };
}

export const eventgo: Driver = scriptedDriver({
  id: 'eventgo', name: 'EventGo', scenario: 'activity', hold: '#eg-clock',
  search: { fields: (a) => [['#eg-what', a.venue], ['#eg-where', a.city], ['#eg-when', a.date], ['#eg-tickets', a.tickets], ['#eg-seat-type', a.seatType]], submit: ['#eg-search', 'search for tickets'] },
  availability: { offers: '#eg-ticket-types', none: '#eg-none', rows: '#eg-ticket-types > li', cells: { title: 'b', detail: 'small', price: 'span' }, offer: ticketCard('data-ticket-type') },
  choose: (offer) => ({ press: [`#eg-ticket-types button[name="ticket_type"][value="${offer.key}"]`, `choose ${offer.label} tickets`] }),
  guests: { given: '#eg-given', family: '#eg-family', email: '#eg-mail', phone: '#eg-phone', submit: ['#eg-attendee-next', 'send the attendee details'] },
  review: { page: '#eg-summary', held, confirm: ['#eg-confirm', 'confirm the booking (no card needed: pay on the door)'], next: ['#eg-pay-step', 'go to the payment page'] },
  payment: { form: '#eg-payment-form', price: async (page) => (await basket(page)).total || undefined, cardOnFile: '#eg-card', cardField: '#eg-cvc', pay: ['#eg-pay-button', 'pay for the tickets'] },
  confirmation: '#eg-code', formErrors: '.eg-no',
});
