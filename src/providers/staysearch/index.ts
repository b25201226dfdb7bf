import type { DriverPage, Row } from '../../driver/page.ts';
import { amount, priceIn } from '../shared/pages.ts';
import { scriptedDriver, type HeldOnReview } from '../shared/scripted.ts';
import type { Driver, Offer } from '../../driver/types.ts';

// StaySearch (hotels, first choice): a blue site with a room table, a Reserve button per row, a
// review list of "Label: value" lines, USD.

async function line(page: DriverPage, label: string): Promise<string | null> {
  const lines = await page.rows('#ss-summary-list li');
  const found = lines.find((l) => l.text.startsWith(`${label}:`));
  return found ? found.text.slice(label.length + 1).trim() : null;
}

async function held(page: DriverPage): Promise<HeldOnReview> {
  const total = (await line(page, 'Total price')) ?? '';
  return {
    venue: (await line(page, 'Hotel')) ?? '',
    when: `check-in ${(await line(page, 'Check-in')) ?? '?'}, check-out ${(await line(page, 'Check-out')) ?? '?'}`,
    quantity: `1 room, ${(await line(page, 'Guests')) ?? '?'}`,
    item: (await line(page, 'Room')) ?? undefined,
    price: total,
  };
}

/** A room row: the stay's total in the price cell, the price per night in its small print. */
const room = (r: Row): Offer => ({
  key: r.attrs['data-room-type'] ?? '', available: r.attrs['data-available'] === 'true', label: r.cells.name ?? '', description: r.cells.detail ?? undefined,
  unitPrice: amount(r.cells.perNight), total: amount(r.cells.total), priceText: priceIn(r.cells.perNight),
});

export const staysearch: Driver = scriptedDriver({
  id: 'staysearch', name: 'StaySearch', scenario: 'hotel', suggestsVenues: true, hold: '#ss-hold-banner',
  search: { fields: (h) => [['#ss-hotel', h.venue], ['#ss-city', h.city], ['#ss-checkin', h.checkIn], ['#ss-checkout', h.checkOut], ['#ss-adults', h.adults], ['#ss-room-pref', h.roomPreference]], submit: ['#ss-search-submit', 'search for rooms'] },
  availability: { offers: '#ss-rooms', none: '#ss-no-rooms', rating: '#ss-rating', rows: '#ss-rooms tr.ss-room', cells: { name: '.ss-room-name', detail: 'td small', total: 'td:nth-child(2)', perNight: 'td:nth-child(2) small' }, offer: room },
  choose: (offer) => ({ press: [`#ss-rooms tr.ss-room[data-room-type="${offer.key}"] button[name="room"]`, `reserve the ${offer.label}`] }),
  guests: { given: '#ss-first-name', family: '#ss-last-name', email: '#ss-email', phone: '#ss-phone', submit: ['#ss-guest-next', 'send the guest details'] },
  review: { page: '#ss-summary', held, confirm: ['#ss-confirm-booking', 'confirm the booking (no card needed: pay at the property)'], next: ['#ss-summary-continue', 'continue to the payment page'] },
  payment: { form: '#ss-pay-form', price: '#ss-amount', cardOnFile: '#ss-card-on-file', cardField: '#ss-card-cvc', pay: ['#ss-complete-booking', 'complete the booking'] },
  confirmation: '#ss-confirmation-number', formErrors: '.ss-errors li, .ss-error[role="alert"]',
});
