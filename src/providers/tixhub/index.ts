import type { DriverPage } from '../../driver/page.ts';
import { ticketCard } from '../shared/pages.ts';
import { scriptedDriver, type HeldOnReview } from '../shared/scripted.ts';
import type { Driver } from '../../driver/types.ts';

// TixHub (activities, first choice): an orange site with seating sections as radio cards, an order
// table to review; USD.

async function order(page: DriverPage): Promise<Map<string, string>> {
  const rows = await page.rows('#tx-order tr', { label: 'td:nth-child(1)', value: 'td:nth-child(2)' });
  return new Map(rows.map((r) => [r.cells.label ?? '', r.cells.value ?? '']));
}

/** The order's "Tickets" row reads "2 × $69.00": the count is what is held (the total is read apart). */
function tickets(row: string | undefined): string {
  const count = /^\s*(\d+)\s*×/.exec(row ?? '')?.[1];
  return count ? `${count} ticket${count === '1' ? '' : 's'}` : `tickets: ${row ?? '?'}`;
}

async function held(page: DriverPage): Promise<HeldOnReview> {
  const o = await order(page);
  return { venue: `${o.get('Event') ?? '?'}, ${o.get('City') ?? '?'}`, when: o.get('Date') ?? '', quantity: tickets(o.get('Tickets')), item: o.get('Section'), price: o.get('Order total') ?? '' };
}

export const tixhub: Driver = scriptedDriver({
  id: 'tixhub', name: 'TixHub', scenario: 'activity', hold: '#tx-timer',
  search: { fields: (a) => [['#tx-event', a.venue], ['#tx-city', a.city], ['#tx-date', a.date], ['#tx-qty', a.tickets], ['#tx-seat', a.seatType]], submit: ['#tx-find', 'search for tickets'] },
  availability: { offers: '#tx-sections', none: '#tx-sold-out', rows: '#tx-sections label.tx-section', cells: { title: 'b', detail: 'small', price: 'span:last-child' }, offer: ticketCard('data-section') },
  choose: (offer) => ({ check: `#tx-sections input[name="section"][value="${offer.key}"]`, press: ['#tx-get-tickets', `get ${offer.label} tickets`] }),
  guests: { given: '#tx-first', family: '#tx-last', email: '#tx-email', phone: '#tx-phone', submit: ['#tx-buyer-next', 'send the buyer details'] },
  review: { page: '#tx-review', held, confirm: ['#tx-confirm', 'confirm the booking (no card needed: pay at the box office)'], next: ['#tx-checkout', 'go to checkout'] },
  payment: { form: '#tx-payment-form', price: '#tx-amount', cardOnFile: '#tx-card-on-file', cardField: '#tx-csc', pay: ['#tx-place-order', 'place the order'] },
  confirmation: '#tx-order-number', formErrors: '.tx-errors li, .tx-miss',
});
