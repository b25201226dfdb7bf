import type { DriverPage, Row } from '../../driver/page.ts';
import { priceIn } from '../shared/pages.ts';
import { scriptedDriver, type HeldOnReview } from '../shared/scripted.ts';
import type { Driver, Offer } from '../../driver/types.ts';

// DineNow (restaurants, second choice): a green site with a booking sidebar, times as radio buttons
// in 12-hour format (the 24-hour time sits in data-time), a review table, a GBP card guarantee.

/** "Mar 14, 2031 at 8:00 PM" is how the review table writes the slot. */
async function row(page: DriverPage, label: string): Promise<string | null> {
  const rows = await page.rows('#dn-check-table tr', { th: 'th', td: 'td' });
  return rows.find((r) => r.cells.th === label)?.cells.td ?? null;
}

async function held(page: DriverPage): Promise<HeldOnReview> {
  const guarantee = (await row(page, 'Card guarantee')) ?? '';
  return {
    venue: (await row(page, 'Restaurant')) ?? '',
    when: (await row(page, 'When')) ?? '',
    quantity: `${(await row(page, 'Guests')) ?? '?'} guests`,
    item: (await row(page, 'Area')) ?? undefined,
    price: priceIn(guarantee) ? `card guarantee ${guarantee}` : guarantee,
  };
}

/** A time: its radio (value, data-time) and its label. */
const time = (r: Row): Offer => ({ key: r.cellAttrs.radio?.value ?? '', available: r.cellAttrs.radio?.disabled === undefined, label: r.cells.label ?? '', time: r.cellAttrs.radio?.['data-time'] });

export const dinenow: Driver = scriptedDriver({
  id: 'dinenow', name: 'DineNow', scenario: 'restaurant', suggestsVenues: true, hold: '#dn-timer',
  search: { fields: (r) => [['#restaurantName', r.venue], ['#cityName', r.city], ['#bookingDate', r.date], ['#bookingTime', r.time], ['#covers', r.partySize]], submit: ['#dn-search-btn', 'search for availability'] },
  availability: { offers: '#dn-times', none: '#dn-empty', rows: '#dn-times li.dn-time', cells: { radio: 'input[name="time_slot"]', label: 'label' }, offer: time },
  choose: (offer) => ({ check: `#dn-times input[name="time_slot"][value="${offer.key}"]`, press: ['#dn-continue', `hold the ${offer.label} table`] }),
  guests: { given: '#dn-first', family: '#dn-last', email: '#dn-email', phone: '#dn-phone', submit: ['#dn-details-next', 'send the guest details'] },
  review: { page: '#dn-check', held, confirm: ['#dn-confirm', 'confirm the booking (no card needed: pay on the night)'], next: ['#dn-to-payment', 'proceed to the secure payment page'] },
  payment: { form: '#dn-pay-form', price: '#dn-amount', cardOnFile: '#dn-saved-card', cardField: '#dn-security-code', pay: ['#dn-pay-now', 'pay the card guarantee'] },
  confirmation: '#dn-ref', formErrors: '.dn-invalid, #dn-form-problems',
});
