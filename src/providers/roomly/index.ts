import type { DriverPage, Row } from '../../driver/page.ts';
import { amount, priceIn } from '../shared/pages.ts';
import { scriptedDriver, type HeldOnReview } from '../shared/scripted.ts';
import type { Driver, Offer } from '../../driver/types.ts';

// Roomly (hotels, second choice): a purple site with room cards, each its own little form, and a
// review grid of label/value pairs; EUR.

/** The review grid alternates <span>label</span><b>value</b>. */
async function grid(page: DriverPage): Promise<Map<string, string>> {
  const cells = await page.rows('#rm-kv > *');
  const out = new Map<string, string>();
  for (let i = 0; i + 1 < cells.length; i += 2) out.set(cells[i]!.text, cells[i + 1]!.text);
  return out;
}

async function held(page: DriverPage): Promise<HeldOnReview> {
  const kv = await grid(page);
  return { venue: kv.get('Property') ?? '', when: kv.get('Dates') ?? '', quantity: `1 room, ${kv.get('Adults') ?? '?'} adults`, item: kv.get('Room'), price: kv.get('Total') ?? '' };
}

/** A room card: sold out or not in data-sold-out, the price per night in bold. */
const room = (r: Row): Offer => ({
  key: r.attrs['data-room-id'] ?? '', available: r.attrs['data-sold-out'] === 'false', label: r.cells.title ?? '', description: r.cells.detail ?? undefined,
  unitPrice: amount(r.cells.price), priceText: priceIn(r.cells.price),
});

export const roomly: Driver = scriptedDriver({
  id: 'roomly', name: 'Roomly', scenario: 'hotel', suggestsVenues: true, hold: '#rm-hold',
  search: { fields: (h) => [['#rm-hotel-name', h.venue], ['#rm-city', h.city], ['#rm-checkin', h.checkIn], ['#rm-checkout', h.checkOut], ['#rm-guests', h.adults], ['#rm-room', h.roomPreference]], submit: ['#rm-check', 'check availability'] },
  availability: { offers: '#rm-room-list', none: '#rm-nothing', rating: '#rm-rating', rows: '#rm-room-list article.room-card', cells: { title: 'h3', detail: 'p', price: 'p b' }, offer: room },
  choose: (offer) => ({ press: [`#rm-room-list article.room-card[data-room-id="${offer.key}"] .rm-select`, `select the ${offer.label}`] }),
  guests: { given: '#rm-given', family: '#rm-family', email: '#rm-mail', phone: '#rm-tel', submit: ['#rm-guests-next', 'send the guest details'] },
  review: { page: '#rm-review', held, confirm: ['#rm-confirm', 'confirm the booking (no card needed: pay at the hotel)'], next: ['#rm-go-pay', 'go to the payment page'] },
  payment: { form: '#paymentForm', price: async (page) => priceIn(await page.text('#rm-pay')), cardOnFile: '#rm-card', cardField: '#rm-cvv', pay: ['#rm-pay', 'pay for the room'] },
  confirmation: '#rm-booking-code', formErrors: '.rm-oops',
});
