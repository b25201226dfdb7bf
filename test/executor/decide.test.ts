import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { choose, chooseVenue } from '../../src/executor/decide.ts';
import type { BookingPlan } from '../../src/executor/request.ts';
import { consentSchema } from '../../src/jobs/schemas.ts';
import type { Offer, SearchRequest } from '../../src/driver/types.ts';

// The executor's choices among a provider's options, within the consent: pure functions, no browser.

const traveller = { givenName: 'Ada', familyName: 'Lovelace', email: 'ada@example.com', phone: '+44 20 7946 0958' };
function plan(request: SearchRequest, consent: Record<string, unknown> = {}, preferences: BookingPlan['preferences'] = {}): BookingPlan {
  return { request, traveller, consent: consentSchema.parse(consent), preferences };
}
const dinner = { scenario: 'restaurant', venue: 'Noma', city: 'Copenhagen', date: '2031-03-14', time: '19:30', partySize: 2 } as const;
const slot = (time: string, available = true): Offer => ({ key: time.replace(':', ''), available, label: time, time });

describe('choosing within consent', () => {
  test('the exact time when it is free', () => {
    const c = choose(plan(dinner), [slot('19:00'), slot('19:30'), slot('20:00')]);
    assert.equal(c.kind === 'offer' && c.offer.time, '19:30');
    assert.equal(c.kind === 'offer' && c.adjusted, undefined);
  });

  test('the nearest free time when allowed and within the limit; the later one on a tie', () => {
    const c = choose(plan(dinner), [slot('18:30'), slot('19:30', false), slot('20:00')]);
    assert.deepEqual(c.kind === 'offer' && c.adjusted, { from: '19:30', to: '20:00', minutes: 30 });
    const tie = choose(plan(dinner), [slot('19:00'), slot('19:30', false), slot('20:00')]);
    assert.equal(tie.kind === 'offer' && tie.offer.time, '20:00');
  });

  test('no time shift without consent, and none beyond maxTimeAdjustmentMinutes', () => {
    const offers = [slot('18:30'), slot('19:30', false), slot('20:00')];
    const refused = choose(plan(dinner, { allowTimeAdjustment: false }), offers);
    assert.equal(refused.kind, 'none');
    assert.match(refused.kind === 'none' ? refused.why : '', /does not allow adjusting the time/);
    const far = choose(plan(dinner, { maxTimeAdjustmentMinutes: 29 }), offers);
    assert.equal(far.kind, 'none');
    const edge = choose(plan(dinner, { maxTimeAdjustmentMinutes: 30 }), offers);
    assert.equal(edge.kind === 'offer' && edge.offer.time, '20:00');
  });

  test('flights: a flight number asked for, else the departure time rule, else the cheapest', () => {
    const flight = { scenario: 'flight', origin: 'LHR', destination: 'JFK', date: '2031-03-14', passengers: 1 } as const;
    const offers: Offer[] = [
      { key: 'a', available: true, label: 'NA 100', flightNumber: 'NA 100', time: '07:00', unitPrice: 300 },
      { key: 'b', available: true, label: 'NA 200', flightNumber: 'NA 200', time: '10:45', unitPrice: 200 },
      { key: 'c', available: false, label: 'NA 300', flightNumber: 'NA 300', time: '10:00', unitPrice: 100 },
    ];
    assert.equal((choose(plan(flight, {}, { targetFlightNumber: 'NA100' }), offers) as { offer: Offer }).offer.key, 'a');
    assert.equal(choose(plan(flight, {}, { targetFlightNumber: 'NA300' }), offers).kind, 'none');
    const timed = choose(plan({ ...flight, departureTime: '10:00' }), offers);
    assert.deepEqual(timed.kind === 'offer' && timed.adjusted, { from: '10:00', to: '10:45', minutes: 45 });
    assert.equal((choose(plan(flight), offers) as { offer: Offer }).offer.key, 'b');
  });

  test('hotels and activities: the best match of the preference, cheapest first; a budget is a hard limit', () => {
    const hotel = { scenario: 'hotel', venue: 'Lutetia', city: 'Paris', checkIn: '2031-03-14', checkOut: '2031-03-16', adults: 2, roomPreference: 'king bed' } as const;
    const rooms: Offer[] = [
      { key: 's', available: true, label: 'Standard Double Room', description: '1 double bed', unitPrice: 100 },
      { key: 'k', available: true, label: 'Deluxe King Room', description: '1 king bed', unitPrice: 150 },
      { key: 'j', available: true, label: 'Junior Suite', description: '1 king bed + sofa bed', unitPrice: 200 },
    ];
    assert.equal((choose(plan(hotel), rooms) as { offer: Offer }).offer.key, 'k');
    assert.equal((choose(plan({ ...hotel, roomPreference: undefined }), rooms) as { offer: Offer }).offer.key, 's');
    assert.equal(choose(plan(hotel, {}, { budgetPerUnit: 90 }), rooms).kind, 'none');
    assert.equal((choose(plan(hotel, {}, { budgetPerUnit: 120 }), rooms) as { offer: Offer }).offer.key, 's');
    const refused = choose(plan(hotel, {}, { budgetPerUnit: 90 }), rooms);
    assert.equal(refused.kind === 'none' && refused.why, 'nothing available within the budget of 90 per night (cheapest: 100)');
  });

  test('with a budget, an option whose price cannot be read is not acceptable; without one, it may be chosen', () => {
    const hotel = { scenario: 'hotel', venue: 'Lutetia', city: 'Paris', checkIn: '2031-03-14', checkOut: '2031-03-16', adults: 2 } as const;
    const rooms: Offer[] = [
      { key: 'u', available: true, label: 'Mystery Room' },
      { key: 'k', available: true, label: 'Deluxe King Room', unitPrice: 150, priceText: '€150.00' },
    ];
    assert.equal((choose(plan(hotel, {}, { budgetPerUnit: 200 }), rooms) as { offer: Offer }).offer.key, 'k', 'the priced room within the budget, not the unknown one');
    const none = choose(plan(hotel, {}, { budgetPerUnit: 100 }), rooms);
    assert.equal(none.kind === 'none' && none.why, 'nothing available within the budget of 100 per night (cheapest: €150.00; 1 with no readable price)');
    const unpriced = choose(plan(hotel, {}, { budgetPerUnit: 100 }), [rooms[0]!]);
    assert.equal(unpriced.kind === 'none' && unpriced.why, 'nothing available within the budget of 100 per night (1 with no readable price)');
    assert.equal(choose(plan(hotel), [rooms[0]!]).kind, 'offer', 'no budget: an unknown price is no obstacle');
  });

  test('flights: targetPrice is a ceiling per passenger; the cheaper of equally good fares wins; nothing within it says the cheapest fare seen', () => {
    const flight = { scenario: 'flight', origin: 'LHR', destination: 'JFK', date: '2031-03-14', passengers: 1 } as const;
    const fare = (key: string, time: string, unitPrice: number | undefined, available = true): Offer =>
      ({ key, available, label: `NA ${key}`, flightNumber: `NA ${key}`, time, unitPrice, ...(unitPrice === undefined ? {} : { priceText: `$${unitPrice}` }) });
    const fares = [fare('100', '10:00', 450), fare('200', '10:00', 380), fare('300', '10:30', 250), fare('400', '09:00', undefined)];

    // At the time asked for, the cheaper of the two 10:00 fares, within the ceiling.
    const timed = choose(plan({ ...flight, departureTime: '10:00' }, {}, { targetPrice: 400 }), fares);
    assert.equal(timed.kind === 'offer' && timed.offer.key, '200');
    assert.match(timed.kind === 'offer' ? timed.why : '', /within the targetPrice of 400/);
    // A lower ceiling moves to the nearest departure that fits it, within the consent's time shift.
    const shifted = choose(plan({ ...flight, departureTime: '10:00' }, {}, { targetPrice: 300 }), fares);
    assert.equal(shifted.kind === 'offer' && shifted.offer.key, '300');
    // Nothing within it: none, naming the cheapest fare seen; an unreadable price never fits a ceiling.
    const missed = choose(plan({ ...flight, departureTime: '10:00' }, {}, { targetPrice: 200 }), fares);
    assert.equal(missed.kind, 'none');
    assert.match(missed.kind === 'none' ? missed.why : '', /within the targetPrice of 200 per passenger; the cheapest fare seen is \$250 \(NA 300\)/);
    // Without a departure time: the cheapest within the ceiling, or none with the cheapest seen.
    const any = choose(plan(flight, {}, { targetPrice: 400 }), fares);
    assert.equal(any.kind === 'offer' && any.offer.key, '300');
    const none = choose(plan(flight, {}, { targetPrice: 100 }), fares);
    assert.match(none.kind === 'none' ? none.why : '', /within the budget of 100 per passenger \(cheapest: \$250; 1 with no readable price\): the targetPrice of 100 per passenger is a ceiling/);
    // The flight asked for by number, above the ceiling: none, saying its price.
    const numbered = choose(plan(flight, {}, { targetFlightNumber: 'NA100', targetPrice: 400 }), fares);
    assert.equal(numbered.kind === 'none' && numbered.why, 'flight NA 100 costs $450 per passenger, above the targetPrice of 400');
    assert.equal(choose(plan(flight, {}, { targetFlightNumber: 'NA200', targetPrice: 400 }), fares).kind, 'offer');
    // A site that shows each fare's total for everyone (JetDeck): the ceiling is per passenger, so a
    // €700 total for two is €350 each.
    const pair = { ...flight, passengers: 2 };
    const totals: Offer[] = [{ key: 'T1', available: true, label: 'NA T1', time: '10:00', total: 700, priceText: '€700' }];
    assert.equal(choose(plan(pair, {}, { targetPrice: 350 }), totals).kind, 'offer');
    assert.equal(choose(plan(pair, {}, { targetPrice: 349 }), totals).kind, 'none');
  });

  test('restaurant budget_per_person bounds the deposit per cover where the site shows one: a dearer table is passed over, none within is no_availability naming the cheapest', () => {
    const priced = (time: string, total: number | undefined): Offer => ({ ...slot(time), ...(total === undefined ? {} : { total, priceText: `€${total}` }) });
    // A party of 2: €50 for the table is €25 a cover.
    const c = choose(plan(dinner, {}, { budgetPerUnit: 20 }), [priced('19:30', 50), priced('20:00', 30)]);
    assert.equal(c.kind === 'offer' && c.offer.time, '20:00');
    assert.match(c.kind === 'offer' ? c.why : '', /passed over for costing more per cover than the budget_per_person of 20: 19:30/);
    const none = choose(plan(dinner, {}, { budgetPerUnit: 10 }), [priced('19:30', 50), priced('20:00', 30)]);
    assert.deepEqual(none, { kind: 'none', why: 'every free table costs more per cover than the budget_per_person of 10 (cheapest: €30 for 20:00)' });
    // A site that shows no price: the budget has nothing to bound.
    const unpriced = choose(plan(dinner, {}, { budgetPerUnit: 10 }), [priced('19:30', undefined)]);
    assert.equal(unpriced.kind === 'offer' && unpriced.offer.time, '19:30');
  });

  test('hotel star_rating is a minimum read from the site: met, below it, or not shown', () => {
    const stay = { scenario: 'hotel', venue: 'Lutetia', city: 'Paris', checkIn: '2031-03-14', checkOut: '2031-03-16', adults: 2 } as const;
    const room = (label: string, stars?: number): Offer => ({ key: label, available: true, label, unitPrice: 100, ...(stars === undefined ? {} : { stars }) });
    const met = choose(plan(stay, {}, { minStars: 4 }), [room('Double', 4)]);
    assert.equal(met.kind, 'offer');
    assert.match(met.kind === 'offer' ? met.why : '', /rated 4 stars \(at least 4 asked\)/);
    assert.deepEqual(choose(plan(stay, {}, { minStars: 4 }), [room('Double', 3)]), { kind: 'none', why: 'the property is rated 3 stars, below the star_rating of at least 4 asked' });
    assert.deepEqual(choose(plan(stay, {}, { minStars: 2 }), [room('Double')]), { kind: 'none', why: 'the site shows no star rating, so the star_rating of at least 2 cannot be checked' });
  });

  test('a missing venue: the suggestion matching the cuisine and neighborhood asked is chosen, naming those passed over; never without consent or anything to choose by', () => {
    const suggested: Offer[] = [
      { key: '0', available: true, label: 'Trattoria Verde', cuisine: 'Italian', neighborhood: 'Old Town' },
      { key: '1', available: true, label: 'Sakura House', cuisine: 'Japanese', neighborhood: 'Harbour' },
      { key: '2', available: true, label: 'Sushi Bar', cuisine: 'Japanese', neighborhood: 'Old Town' },
    ];
    const both = chooseVenue(plan(dinner, {}, { cuisine: 'japanese', neighborhood: 'Old Town' }), suggested);
    assert.equal(both.kind === 'offer' && both.offer.label, 'Sushi Bar');
    assert.equal(both.kind === 'offer' ? both.why : '', 'Noma is not on the site; Sushi Bar (Japanese, Old Town) has the cuisine "japanese" and the neighborhood "Old Town"; passed over: Trattoria Verde (Italian, Old Town); Sakura House (Japanese, Harbour)');
    const one = chooseVenue(plan(dinner, {}, { cuisine: 'Japanese' }), suggested);
    assert.equal(one.kind === 'offer' && one.offer.label, 'Sakura House', 'the site\'s order breaks a tie');
    assert.match((chooseVenue(plan(dinner, { allowVenueSwitch: false }, { cuisine: 'Japanese' }), suggested) as { why: string }).why, /consent does not allow switching venues/);
    assert.match((chooseVenue(plan(dinner), suggested) as { why: string }).why, /gives no cuisine, neighborhood or star_rating to choose among them by/);
    assert.deepEqual(chooseVenue(plan(dinner, {}, { cuisine: 'Mexican' }), suggested), { kind: 'none', why: 'Noma is not on the site, and none of the venues it suggests matches the cuisine "Mexican" asked (Trattoria Verde (Italian, Old Town); Sakura House (Japanese, Harbour); Sushi Bar (Japanese, Old Town))' });
  });
});
