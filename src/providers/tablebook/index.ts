import type { DriverPage, Row } from '../../driver/page.ts';
import { amount, priceIn } from '../shared/pages.ts';
import { scriptedDriver, type HeldOnReview } from '../shared/scripted.ts';
import type { Driver, Offer } from '../../driver/types.ts';

// TableBook (restaurants, first choice): a red site with one form per step, time slots as a grid of
// submit buttons (24-hour times, deposit in EUR), a review page as a definition list.

async function held(page: DriverPage): Promise<HeldOnReview> {
  const field = (name: string) => page.text(`#tb-review-details dd[data-field="${name}"]`);
  const party = await field('party-size');
  const price = (await field('total')) ?? '';
  return {
    venue: [await field('restaurant'), await field('city')].filter(Boolean).join(', '),
    when: [await field('date'), await field('time')].filter(Boolean).join(' at '),
    quantity: `party of ${party}`,
    item: (await field('seating')) ?? undefined,
    price: priceIn(price) ? `deposit ${price}` : price,
  };
}

/** A slot button: its key in value, its time in data-slot, "Indoor · €30.00 deposit" in its small print. */
const slot = (row: Row): Offer => ({
  key: row.attrs.value ?? '', available: row.attrs['data-available'] === 'true' && row.attrs.disabled === undefined, label: row.attrs['data-slot'] ?? row.text, time: row.attrs['data-slot'],
  description: row.cells.detail?.split('·')[0]?.trim(), total: amount(priceIn(row.cells.detail)), priceText: priceIn(row.cells.detail),
});

export const tablebook: Driver = scriptedDriver({
  id: 'tablebook', name: 'TableBook', scenario: 'restaurant', suggestsVenues: true, hold: '#tb-hold',
  search: { fields: (r) => [['#tb-restaurant', r.venue], ['#tb-city', r.city], ['#tb-date', r.date], ['#tb-time', r.time], ['#tb-party', r.partySize]], submit: ['#tb-find-table', 'search for a table'] },
  availability: { offers: '#tb-slots', none: '#tb-no-availability', rows: '#tb-slots button.tb-slot', cells: { detail: 'small' }, offer: slot },
  choose: (offer) => ({ press: [`#tb-slots button.tb-slot[value="${offer.key}"]`, `choose the ${offer.label} table`] }),
  guests: { given: '#tb-given-name', family: '#tb-family-name', email: '#tb-email', phone: '#tb-tel', submit: ['#tb-guest-continue', 'send the guest details'] },
  review: { page: '#tb-review', held, confirm: ['#tb-confirm-booking', 'confirm the booking (no card needed: pay at the restaurant)'], next: ['#tb-review-continue', 'continue to the payment page'] },
  payment: { form: '#tb-payment-form', price: '#tb-amount', cardOnFile: '#tb-card-on-file', cardField: '#tb-cvc', pay: ['#tb-pay', 'pay the deposit'] },
  confirmation: '#tb-confirmation-code', formErrors: '.tb-errors li, .tb-err[role="alert"]',
});
