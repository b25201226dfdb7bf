import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { checkHeld } from '../../src/executor/held.ts';
import { datesIn, firstTimeIn, monthYearIn, quantityIn, roomsIn, timesIn } from '../../src/driver/text.ts';
import { sameName } from '../../src/driver/names.ts';
import type { Held, SearchRequest } from '../../src/driver/types.ts';

// Reading back what a provider holds, as each sandbox site writes it on its review page (the strings
// below are theirs), and comparing it with the request: pure functions, no browser.

const dinner: SearchRequest = { scenario: 'restaurant', venue: 'Noma', city: 'Copenhagen', date: '2026-11-29', time: '19:30', partySize: 2 };
const stay: SearchRequest = { scenario: 'hotel', venue: 'Hotel Lutetia', city: 'Paris', checkIn: '2026-12-02', checkOut: '2026-12-04', adults: 2 };
const flight: SearchRequest = { scenario: 'flight', origin: 'LHR', destination: 'JFK', date: '2026-12-12', passengers: 1, airline: 'Northwind Airways', departureTime: '10:00' };
const show: SearchRequest = { scenario: 'activity', venue: 'Hamilton', city: 'London', date: '2026-12-07', tickets: 2 };
const held = (venue: string, when: string, quantity: string): Held => ({ venue, when, quantity, price: '€20.00' });

describe('reading a review page', () => {
  test('dates in every way the sites write them', () => {
    assert.deepEqual(datesIn('Sunday, 29 November 2026 at 19:30'), ['2026-11-29']);
    assert.deepEqual(datesIn('Nov 29, 2026 at 7:30 PM'), ['2026-11-29']);
    assert.deepEqual(datesIn('check-in Wednesday, 2 December 2026 (from 15:00), check-out Friday, 4 December 2026 (until 11:00)'), ['2026-12-02', '2026-12-04']);
    assert.deepEqual(datesIn('Dec 2, 2026 → Dec 4, 2026 (2 nights)'), ['2026-12-02', '2026-12-04']);
    assert.deepEqual(datesIn('2026-12-07, doors 20:00'), ['2026-12-07']);
    assert.deepEqual(datesIn('Sept 3 2026'), ['2026-09-03']);
    assert.deepEqual(datesIn('soon'), []);
  });

  test('the month a calendar\'s caption names, in the languages of booking sites and the page\'s own', () => {
    assert.equal(monthYearIn('December 2026'), 2026 * 12 + 11);
    assert.equal(monthYearIn('diciembre de 2026'), 2026 * 12 + 11);
    assert.equal(monthYearIn('‹ Juni 2030 ›'), 2030 * 12 + 5);
    assert.equal(monthYearIn('Prev Next Jun 2030'), 2030 * 12 + 5);
    assert.equal(monthYearIn('czerwiec 2030'), null, 'Polish is not among the languages of booking sites');
    assert.equal(monthYearIn('czerwiec 2030', 'pl'), 2030 * 12 + 5, 'the page\'s own language');
    assert.equal(monthYearIn('2030'), null, 'a year alone');
    assert.equal(monthYearIn('June'), null, 'a month without its year');
  });

  test('the first time of day, 24-hour', () => {
    assert.equal(firstTimeIn('Sunday, 29 November 2026 at 19:30'), '19:30');
    assert.equal(firstTimeIn('Nov 29, 2026 at 7:30 PM'), '19:30');
    assert.equal(firstTimeIn('Nov 29, 2026 at 12:15 am'), '00:15');
    assert.equal(firstTimeIn('Saturday, 12 December 2026, 10:00 → 12:15 (2h 15m)'), '10:00');
    assert.equal(firstTimeIn('Dec 12, 2026 · dep 9:05, arr 12:15'), '09:05');
    assert.equal(firstTimeIn('tonight'), null);
  });

  test('a flight\'s departure and arrival; a hotel\'s rooms', () => {
    assert.deepEqual(timesIn('Saturday, 12 December 2026, 10:00 → 12:15 (2h 15m)'), ['10:00', '12:15']);
    assert.deepEqual(timesIn('dep 9:05 PM, arr 11:40 PM'), ['21:05', '23:40']);
    assert.deepEqual(timesIn('at 25:00 or 19:30'), ['19:30'], 'not a time of day: skipped');
    assert.equal(roomsIn('1 room, 2 adults'), 1);
    assert.equal(roomsIn('2 rooms · 4 guests'), 2);
    assert.equal(roomsIn('2 adults'), null);
  });

  test('how many, per scenario', () => {
    assert.equal(quantityIn('restaurant', 'party of 2'), 2);
    assert.equal(quantityIn('restaurant', '4 guests'), 4);
    assert.equal(quantityIn('hotel', '1 room, 2 adults'), 2);
    assert.equal(quantityIn('flight', '1 passenger'), 1);
    assert.equal(quantityIn('flight', '3 travellers'), 3);
    assert.equal(quantityIn('activity', '2 × $69.00 tickets'), 2);
    assert.equal(quantityIn('activity', '5 tickets'), 5);
    assert.equal(quantityIn('restaurant', 'a table'), null);
  });
});

describe('what is held against what was asked', () => {
  test('every site\'s normal booking is as asked', () => {
    const cases: Array<[SearchRequest, Held, string | undefined]> = [
      [dinner, held('Noma, Copenhagen', 'Sunday, 29 November 2026 at 19:30', 'party of 2'), '19:30'],
      [dinner, held('Noma, Copenhagen', 'Nov 29, 2026 at 7:30 PM', '2 guests'), '19:30'],
      [stay, held('Hotel Lutetia, Paris', 'check-in Wednesday, 2 December 2026 (from 15:00), check-out Friday, 4 December 2026 (until 11:00)', '1 room, 2 adults'), undefined],
      [stay, held('Hotel Lutetia · Paris', 'Dec 2, 2026 → Dec 4, 2026 (2 nights)', '1 room, 2 adults'), undefined],
      [flight, held('NA 701 · Northwind Airways, LHR → JFK', 'Saturday, 12 December 2026, 10:00 → 12:15 (2h 15m)', '1 passenger'), '10:00'],
      [flight, held('Northwind Airways NA 701, LHR – JFK', 'Dec 12, 2026 · dep 10:00, arr 12:15 · 2h 15m', '1 traveller'), '10:00'],
      // JetDeck's review page gives the date with the route, the times on their own.
      [flight, held('Northwind Airways NA 701, LHR – JFK, Dec 12, 2026', 'dep 10:00, arr 12:15 · 2h 15m', '1 traveller'), '10:00'],
      [show, held('Hamilton, London', 'Monday, 7 December 2026, doors 20:00', '2 × $69.00 tickets'), undefined],
      [show, held('Hamilton · London', 'Dec 7, 2026 · starts 20:00', '2 tickets'), undefined],
      // Case, accents and punctuation are not a different venue.
      [{ ...stay, venue: 'Hôtel Lutétia' }, held('HOTEL LUTETIA — Paris', 'Dec 2, 2026 → Dec 4, 2026', '2 adults'), undefined],
    ];
    for (const [request, h, time] of cases) assert.deepEqual(checkHeld(request, h, time), { kind: 'as_asked' }, `${h.venue} ${h.when}`);
  });

  test('a consented time adjustment is the time chosen: it is as asked', () => {
    assert.deepEqual(checkHeld(dinner, held('Noma, Copenhagen', 'Nov 29, 2026 at 8:00 PM', '2 guests'), '20:00'), { kind: 'as_asked' });
  });

  test('another date, time or number is a mismatch, with a clear message', () => {
    const wrongDate = checkHeld(dinner, held('Noma, Copenhagen', 'Monday, 30 November 2026 at 19:30', 'party of 2'), '19:30');
    assert.deepEqual(wrongDate, { kind: 'mismatch', message: 'it holds 2026-11-30 ("Monday, 30 November 2026 at 19:30"), not 2026-11-29 as asked' });
    const wrongTime = checkHeld(dinner, held('Noma, Copenhagen', 'Sunday, 29 November 2026 at 21:00', 'party of 2'), '19:30');
    assert.deepEqual(wrongTime, { kind: 'mismatch', message: 'it holds 21:00, not the 19:30 chosen ("Sunday, 29 November 2026 at 21:00")' });
    const wrongParty = checkHeld(dinner, held('Noma, Copenhagen', 'Sunday, 29 November 2026 at 19:30', 'party of 4'), '19:30');
    assert.deepEqual(wrongParty, { kind: 'mismatch', message: 'it holds party of 4, not 2 as asked (party size)' });
    const wrongCheckOut = checkHeld(stay, held('Hotel Lutetia, Paris', 'Dec 2, 2026 → Dec 3, 2026 (1 night)', '1 room, 2 adults'), undefined);
    assert.equal(wrongCheckOut.kind, 'mismatch');
    assert.match(wrongCheckOut.kind === 'mismatch' ? wrongCheckOut.message : '', /2026-12-02 to 2026-12-03 .* not 2026-12-02 to 2026-12-04/);
    const tickets = checkHeld(show, held('Hamilton, London', 'Dec 7, 2026', '3 tickets'), undefined);
    assert.deepEqual(tickets, { kind: 'mismatch', message: 'it holds 3 tickets, not 2 as asked (number of tickets)' });
  });

  test('a return trip: both legs held, on the days asked, whether the date is with the times or with the route; a one-way fare is a mismatch', () => {
    const trip = { ...flight, returnDate: '2026-12-16' } as SearchRequest;
    assert.deepEqual(checkHeld(trip, held('NA 701 · Northwind Airways, LHR → JFK, return NA 965', 'Saturday, 12 December 2026, 10:00 → 12:15; return Wednesday, 16 December 2026, 17:40 → 19:55', '1 passenger'), '10:00'), { kind: 'as_asked' });
    assert.deepEqual(checkHeld(trip, held('Northwind Airways NA 701, LHR – JFK, Dec 12, 2026', 'dep 10:00, arr 12:15 · return NA 965, JFK – LHR, Dec 16, 2026, dep 17:40', '1 traveller'), '10:00'), { kind: 'as_asked' });
    assert.deepEqual(checkHeld({ ...flight, returnDate: '2026-12-12' } as SearchRequest, held('NA 701 · Northwind Airways, LHR → JFK', 'Saturday, 12 December 2026, 06:00 → 08:15; return Saturday, 12 December 2026, 17:40', '1 passenger'), '06:00'), { kind: 'as_asked' }, 'out and back the same day');
    assert.deepEqual(checkHeld(trip, held('NA 701 · Northwind Airways, LHR → JFK', 'Saturday, 12 December 2026, 10:00 → 12:15 (2h 15m)', '1 passenger'), '10:00'), {
      kind: 'mismatch',
      message: 'it holds 2026-12-12 ("Saturday, 12 December 2026, 10:00 → 12:15 (2h 15m)"), not the way out on 2026-12-12 and back on 2026-12-16 as asked',
    });
  });

  test('a one-way trip asked: a return fare held is a mismatch, in any of the languages; a one-way fare is as asked', () => {
    const oneWay = held('NA 701 · Northwind Airways, LHR → JFK', 'Saturday, 12 December 2026, 10:00 → 12:15', '1 passenger');
    assert.deepEqual(checkHeld(flight, oneWay, '10:00'), { kind: 'as_asked' });
    assert.deepEqual(checkHeld(flight, { ...oneWay, item: 'Economy · One way' }, '10:00'), { kind: 'as_asked' });
    assert.deepEqual(checkHeld(flight, held('NA 701 · Northwind Airways, LHR → JFK, return NA 965', 'Saturday, 12 December 2026, 10:00 → 12:15; return Wednesday, 16 December 2026, 17:40 → 19:55', '1 passenger'), '10:00'), {
      kind: 'mismatch',
      message: 'it holds a return fare ("Saturday, 12 December 2026, 10:00 → 12:15; return Wednesday, 16 December 2026, 17:40 → 19:55"), not the one-way trip asked',
    });
    assert.equal(checkHeld(flight, { ...oneWay, item: 'Turista · Ida y vuelta' }, '10:00').kind, 'mismatch', 'Spanish');
    assert.equal(checkHeld(flight, { ...oneWay, item: 'Economy, round trip' }, '10:00').kind, 'mismatch', 'round trip');
    assert.equal(checkHeld(flight, { ...oneWay, item: 'Economia · andata e ritorno' }, '10:00').kind, 'mismatch', 'Italian');
    assert.equal(checkHeld(flight, { ...oneWay, item: 'Economy · non-returnable fare' }, '10:00').kind, 'as_asked', 'a word that only starts with "return"');
  });

  test('what the page does not say cannot be checked: a mismatch too', () => {
    assert.deepEqual(checkHeld(dinner, held('Noma, Copenhagen', 'tonight', 'party of 2'), '19:30'), { kind: 'mismatch', message: 'the review page does not say which date it holds ("tonight")' });
    assert.deepEqual(checkHeld(dinner, held('Noma, Copenhagen', 'Sunday, 29 November 2026', 'party of 2'), '19:30'), { kind: 'mismatch', message: 'the review page does not say at what time ("Sunday, 29 November 2026")' });
    assert.deepEqual(checkHeld(dinner, held('Noma, Copenhagen', 'Sunday, 29 November 2026 at 19:30', 'a table'), '19:30'), { kind: 'mismatch', message: 'the review page does not say the party size ("a table")' });
  });

  test('another venue is a venue switch naming both; flights: another carrier', () => {
    assert.deepEqual(checkHeld(dinner, held('Noma Annex, Copenhagen', 'Sunday, 29 November 2026 at 19:30', 'party of 2'), '19:30'), { kind: 'venue_switch', from: 'Noma', to: 'Noma Annex' });
    assert.deepEqual(checkHeld(stay, held('Lutetia Annex · Paris', 'Dec 2, 2026 → Dec 4, 2026', '2 adults'), undefined), { kind: 'venue_switch', from: 'Hotel Lutetia', to: 'Lutetia Annex' });
    assert.deepEqual(checkHeld(flight, held('NC 310 · Northwind Connect, LHR → JFK', 'Saturday, 12 December 2026, 10:00 → 12:15', '1 passenger'), '10:00'), { kind: 'venue_switch', from: 'Northwind Airways', to: 'NC 310 · Northwind Connect, LHR → JFK' });
    assert.deepEqual(checkHeld({ ...flight, airline: undefined }, held('NC 310 · Northwind Connect, LHR → JFK', 'Saturday, 12 December 2026, 10:00', '1 passenger'), '10:00'), { kind: 'as_asked' }, 'no airline asked for: any carrier');
  });
});

describe('a venue name as sites write it', () => {
  test('the same place: a neighbourhood after a separator, the city, accents, "&", a generic word', () => {
    for (const [asked, shown, city] of [
      ['Casa Lumen', 'Casa Lumen Porto · Ribeira', 'Porto'],
      ['Cafe Lumiere', 'Café Lumière', 'Paris'],
      ['Hotel Lutetia', 'Lutetia — Paris Saint-Germain', 'Paris'],
      ['Barbs and Co', 'Barbs & Co.', 'Leeds'],
      ['Noma', 'Restaurant Noma (Copenhagen)', 'Copenhagen'],
    ] as const) {
      const m = sameName(asked, shown, city);
      assert.equal(m.same, true, `${asked} / ${shown}: ${m.evidence}`);
      assert.match(m.evidence, new RegExp(shown.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')));
    }
    assert.deepEqual(checkHeld(dinner, held('Noma Christianshavn · Copenhagen', 'Sunday, 29 November 2026 at 19:30', 'party of 2'), '19:30'), { kind: 'venue_switch', from: 'Noma', to: 'Noma Christianshavn' }, 'a word in the name itself that is not the city is another place');
  });

  test('another place: a sister venue\'s extra word, a missing word', () => {
    assert.equal(sameName('Casa Lumen', 'Casa Lumen Annex', 'Porto').same, false);
    assert.equal(sameName('Casa Lumen', 'Casa Azul · Lumen Street', 'Porto').same, false);
    assert.match(sameName('Casa Lumen', 'Casa Lumen Annex', 'Porto').evidence, /adds "annex"/);
  });
});
