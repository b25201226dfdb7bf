import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { PageTool } from '../../src/driver/webmcp.ts';
import type { SearchRequest } from '../../src/driver/types.ts';
import { fillInput } from '../../src/providers/generic/webmcp/inputs.ts';
import { nextPage, nothingAvailable, offersIn, readResult } from '../../src/providers/generic/webmcp/results.ts';
import { chooseTool } from '../../src/providers/generic/webmcp/tools.ts';

// Reading tools and their results the way sites shape them differently: the offers, the inputs,
// the next page. Pure functions over plain data (what the guard hands out).

const text = (value: unknown) => ({ content: [{ type: 'text', text: JSON.stringify(value) }] });
const restaurant: SearchRequest = { scenario: 'restaurant', venue: 'Harbour Table', city: 'Lisbon', date: '2030-06-01', time: '19:30', partySize: 2 };
const hotel: SearchRequest = { scenario: 'hotel', venue: 'Sea View', city: 'Porto', checkIn: '2030-06-01', checkOut: '2030-06-03', adults: 2 };

describe('WebMCP strategy: reading tools and results', () => {
  test('offers from lists of objects with ids, from slot lists keyed by time or flight number, and from bare lists of times', () => {
    const rooms = offersIn(readResult(text({ hotel: 'Sea View', rooms: [{ room_id: 'r1', name: 'Deluxe King', price_per_night: 120, total: 240, currency: 'EUR' }, { room_id: 'r2', name: 'Twin', price_per_night: '€95.50', available: false }] })).data);
    assert.deepEqual(rooms.map((r) => [r.idKey, r.id, r.offer.label, r.offer.unitPrice, r.offer.total, r.offer.available]), [['room_id', 'r1', 'Deluxe King', 120, 240, true], ['room_id', 'r2', 'Twin', 95.5, undefined, false]]);
    assert.equal(rooms[0]!.offer.priceText, 'EUR 120.00');
    const read = offersIn(readResult({ structuredContent: { results: [{ flight_number: 'nw 214', departure: '2030-06-01T08:15:00', fare: 99 }] } }).data);
    assert.deepEqual(read.map((f) => [f.idKey, f.id, f.offer.flightNumber, f.offer.time, f.offer.unitPrice]), [['flight_number', 'nw 214', 'NW214', '08:15', 99]]);
    const times = offersIn(readResult(text({ times: ['7:00 pm', '19:30'] })).data);
    assert.deepEqual(times.map((t) => [t.idKey, t.id, t.offer.time]), [['time', '7:00 pm', '19:00'], ['time', '19:30', '19:30']]);
    const plain = offersIn(readResult('not json at all').data);
    assert.deepEqual(plain, []);
  });

  test('the site\'s words that nothing is available are found in text and in data', () => {
    assert.match(nothingAvailable(readResult({ content: [{ type: 'text', text: 'Sorry, we are fully booked that night.' }] }))!, /fully booked/);
    assert.match(nothingAvailable(readResult(text({ slots: [], message: 'No rooms available for those dates' })))!, /No rooms available/);
    assert.equal(nothingAvailable(readResult(text({ slots: [{ id: 1, time: '19:00' }] }))), null);
  });

  test('inputs are filled from the request by name, format and enum, and a tool with a required input nobody can fill is left out', () => {
    const search: PageTool = { name: 'find_rooms', description: 'Find rooms', inputSchema: { type: 'object', properties: {
      city: { type: 'string', enum: ['lisbon', 'porto'] }, arrival: { type: 'string', format: 'date' }, departure_date: { type: 'string', format: 'date' },
      guests: { type: 'integer' }, promo: { type: 'string' } }, required: ['city', 'arrival', 'departure_date', 'guests'] } };
    assert.deepEqual(fillInput(search, { request: hotel, carried: new Map() })?.input, { city: 'porto', arrival: '2030-06-01', departure_date: '2030-06-03', guests: 2 });
    const needsCoupon: PageTool = { ...search, inputSchema: { ...search.inputSchema!, required: ['promo'] } };
    assert.equal(fillInput(needsCoupon, { request: hotel, carried: new Map() }), null);
  });

  test('how many goes into a form tool\'s list of numbers (a <select> published as an enum of strings) and into a text input named for it, never into one only described with "number of"', () => {
    const form: PageTool = { name: 'search_rooms', description: 'Search rooms', inputSchema: { type: 'object', properties: {
      arrive: { type: 'string', description: 'Check-in date, YYYY-MM-DD' }, depart: { type: 'string', description: 'Check-out date, YYYY-MM-DD' },
      guests: { type: 'string', enum: ['1', '2', '3', '4'], description: 'Number of adult guests' }, adults: { type: 'string' },
      contact: { type: 'string', description: 'Phone number of the lead guest' } } } };
    assert.deepEqual(fillInput(form, { request: { ...hotel, adults: 3 }, carried: new Map() })?.input, { arrive: '2030-06-01', depart: '2030-06-03', guests: '3', adults: '3' });
  });

  test('the hold tool takes the option under the input that reads as it; the guest tool gets the carried hold id', () => {
    const tools: PageTool[] = [
      { name: 'search_tables', description: 'Search', inputSchema: { type: 'object', properties: { date: { type: 'string', format: 'date' } }, required: ['date'] } },
      { name: 'reserve', description: 'Reserve a table', inputSchema: { type: 'object', properties: { restaurant_id: { type: 'string' }, slot: { type: 'string' } }, required: ['slot'] } },
      { name: 'contact_details', description: 'Who is coming', inputSchema: { type: 'object', properties: { booking_id: { type: 'string' }, name: { type: 'string' }, email: { type: 'string' } }, required: ['booking_id', 'name', 'email'] } },
    ];
    const hold = chooseTool(tools, 'hold', { request: restaurant, carried: new Map(), offer: { idKey: 'slot_id', id: 's-1' } });
    assert.deepEqual([hold?.tool.name, hold?.input], ['reserve', { slot: 's-1' }]);
    const traveller = { givenName: 'Ada', familyName: 'Lovelace', email: 'ada@example.com', phone: '1' };
    assert.equal(chooseTool(tools, 'guest', { request: restaurant, traveller, carried: new Map() }), null, 'no booking id yet');
    const guest = chooseTool(tools, 'guest', { request: restaurant, traveller, carried: new Map([['booking_id', 'b-9'], ['email', 'attacker@example.com']]) });
    assert.deepEqual(guest?.input, { booking_id: 'b-9', name: 'Ada Lovelace', email: 'ada@example.com' });
    assert.equal(chooseTool(tools, 'search', { request: restaurant, carried: new Map() })?.tool.name, 'search_tables');
  });

  test('a next page is followed only on the same site', () => {
    const here = 'https://www.example.com/book';
    assert.equal(nextPage({ next_url: '/checkout/1' }, here), 'https://www.example.com/checkout/1');
    assert.equal(nextPage({ checkoutUrl: 'https://pay.example.com/c/1' }, here), 'https://pay.example.com/c/1');
    assert.equal(nextPage({ next_url: 'https://evil.example.net/c/1' }, here), null);
    assert.equal(nextPage({ next_url: 'javascript:alert(1)' }, here), null);
    assert.equal(nextPage({ url: 'https://other.co.uk/x' }, 'https://shop.co.uk/'), null);
  });
});
