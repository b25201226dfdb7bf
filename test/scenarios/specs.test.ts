import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { z } from 'zod';
import { describeHeld, describeRequest as askedLines, jobTitle } from '../../src/handoff/describe.ts';
import { planFor } from '../../src/executor/request.ts';
import { paramsByScenario } from '../../src/jobs/schemas.ts';
import { SCENARIOS, type Job, type Scenario } from '../../src/jobs/types.ts';
import { bookingTools } from '../../src/mcp/tools/booking.ts';
import { describeRequest, headcountOf, SCENARIO_SPECS, searchRequestOf, specOf, type Params } from '../../src/scenarios/index.ts';
import { requests } from '../helpers/service.ts';

// Each scenario in one module (issue 27 §2): every spec is complete, and what each says (the search
// request and preferences made of the params, the headcount, the words of summaries and handoff
// pages, the MCP tool's text) is what the code it replaced produced for the test requests. The
// expected values below were taken from that code (jobs/search-request.ts, executor/request.ts,
// handoff/describe.ts, mcp/tools/booking.ts before the move).

/** The params as stored: a test request's, validated by its scenario's schema. */
function paramsOf(scenario: Scenario, extra: Params = {}): Params {
  return SCENARIO_SPECS[scenario].params.parse(requests[scenario](extra).request.params) as Params;
}

const jobOf = (scenario: Scenario, params: Params): Job =>
  ({ scenario, params, profile: requests[scenario]().profile, consent: {}, summary: 'S', providerId: 'tablebook' }) as unknown as Job;

const EXTRA: Record<Scenario, Params> = {
  restaurant: { cuisine: 'Nordic', neighborhood: 'Christianshavn', budget_per_person: 300 },
  hotel: { star_rating: 4, neighborhood: 'Saint-Germain', budget_max_per_night: 500, room_preference: 'king bed' },
  flight: { return_date: '2099-01-01', cabin_class: 'business', targetPrice: 900, targetFlightNumber: 'ba117' },
  activity: { seat_type: 'stalls', budget_max_per_ticket: 120 },
};

interface Expected {
  request: unknown;
  preferences: unknown;
  headcount: number;
  words: string;
  asked: Array<[string, string]>;
  title: string;
}

/** What the old code produced, for the test request (`extra` false) and with every optional field (`extra` true). */
const EXPECTED: { [S in Scenario]: (p: Params, extra: boolean) => Expected } = {
  restaurant: (p, extra) => ({
    request: { scenario: 'restaurant', venue: 'Noma', city: 'Copenhagen', date: p.date, time: '19:30', partySize: 2 },
    preferences: extra ? { budgetPerUnit: 300, cuisine: 'Nordic', neighborhood: 'Christianshavn' } : { budgetPerUnit: undefined, cuisine: undefined, neighborhood: undefined },
    headcount: 2,
    words: `Noma, Copenhagen on ${p.date} at 19:30 for 2`,
    asked: [['Restaurant', 'Noma'], ['City', 'Copenhagen'], ['Date', p.date as string], ['Time', '19:30'], ['Party', '2 people']],
    title: `Noma · ${p.date} 19:30`,
  }),
  hotel: (p, extra) => ({
    request: { scenario: 'hotel', venue: 'Hotel Lutetia', city: 'Paris', checkIn: p.checkin, checkOut: p.checkout, adults: 2, roomPreference: extra ? 'king bed' : undefined },
    preferences: extra ? { budgetPerUnit: 500, minStars: 4, neighborhood: 'Saint-Germain' } : { budgetPerUnit: undefined, minStars: undefined, neighborhood: undefined },
    headcount: 2,
    words: `Hotel Lutetia, Paris from ${p.checkin} to ${p.checkout} for 2 adults`,
    asked: [['Hotel', 'Hotel Lutetia'], ['City', 'Paris'], ['Check-in', p.checkin as string], ['Check-out', p.checkout as string], ['Guests', '2 adults'], ...(extra ? [['Room', 'king bed'] as [string, string]] : [])],
    title: `Hotel Lutetia · ${p.checkin} → ${p.checkout}`,
  }),
  flight: (p, extra) => ({
    request: {
      scenario: 'flight', origin: 'LHR', destination: 'JFK', date: p.date, passengers: 1, airline: 'Northwind Airways', departureTime: '10:00',
      cabin: extra ? 'business' : undefined, returnDate: extra ? '2099-01-01' : undefined,
    },
    preferences: extra ? { targetFlightNumber: 'BA117', targetPrice: 900 } : { targetFlightNumber: undefined, targetPrice: undefined },
    headcount: 1,
    words: `LHR → JFK on ${p.date}${extra ? ' and back on 2099-01-01' : ''} around 10:00 with Northwind Airways for 1`,
    asked: [
      ['From', 'LHR'], ['To', 'JFK'], ['Date', p.date as string], ...(extra ? [['Return', '2099-01-01'] as [string, string]] : []), ['Passengers', '1'],
      ['Airline', 'Northwind Airways'], ['Departure', '10:00'], ...(extra ? [['Cabin', 'business'] as [string, string]] : []),
    ],
    title: `LHR → JFK · ${p.date}`,
  }),
  activity: (p, extra) => ({
    request: { scenario: 'activity', venue: 'Hamilton', city: 'London', date: p.event_date, tickets: 2, seatType: extra ? 'stalls' : undefined },
    preferences: extra ? { budgetPerUnit: 120 } : { budgetPerUnit: undefined },
    headcount: 2,
    words: `Hamilton, London on ${p.event_date}, 2 tickets`,
    asked: [['Event', 'Hamilton'], ['City', 'London'], ['Date', p.event_date as string], ['Tickets', '2'], ...(extra ? [['Seats', 'stalls'] as [string, string]] : [])],
    title: `Hamilton · ${p.event_date}`,
  }),
};

/** The held booking as the handoff page read it, for a held { date 2031-05-16, time 19:30, check-out 2031-05-18, 10:00 → 22:00 }. */
const HELD: Record<Scenario, Array<[string, string]>> = {
  restaurant: [['Restaurant', 'V'], ['Date', 'Friday, 16 May 2031'], ['Time', '19:30'], ['Party', 'Q'], ['Table', 'I']],
  hotel: [['Hotel', 'V'], ['Check-in', 'Friday, 16 May 2031'], ['Check-out', 'Sunday, 18 May 2031'], ['Rooms and guests', 'Q'], ['Room', 'I']],
  flight: [['Flight', 'V'], ['Date', 'Friday, 16 May 2031'], ['Departure', '10:00'], ['Arrival', '22:00'], ['Passengers', 'Q'], ['Cabin', 'I']],
  activity: [['Event', 'V'], ['Date', 'Friday, 16 May 2031'], ['Time', '19:30'], ['Tickets', 'Q'], ['Seats', 'I']],
};

/** The booking tools' titles and their descriptions' first, scenario's own part. */
const TOOLS: Record<Scenario, { title: string; description: string }> = {
  restaurant: {
    title: "Book a restaurant table",
    description: "Start booking a table at a named restaurant for the user: city, date, time and number of guests (covers), plus the guest's contact details in profile. The service drives the restaurant's booking websites in a real browser and falls back between booking providers; if the exact time is taken it may shift it by up to consent.maxTimeAdjustmentMinutes (default 90). ",
  },
  hotel: {
    title: "Book a hotel room",
    description: "Start booking a room at a named hotel for the user: city, check-in and check-out dates (check-out after check-in) and number of adults, plus the guest's contact details in profile. The service drives hotel booking websites in a real browser and falls back between providers. ",
  },
  flight: {
    title: "Book a flight (preview)",
    description: "Preview. Start booking a flight for the user: origin and destination airports (IATA codes), departure date and number of passengers, optionally a return date, cabin class and a preferred airline, flight number, departure time or price. profile must also carry the passenger's dob, passport_number and passport_country; for more than 1 passenger, profile.additional_travellers names the others (passengers − 1 entries, each with the same passport details). The service drives airline booking websites in a real browser and falls back between providers. With return_date the trip is booked as one return fare (both legs held; the preferences choose the way out) on a site that sells return fares; sites that sell one-way fares only are passed over. ",
  },
  activity: {
    title: "Book event or activity tickets (preview)",
    description: "Start booking tickets for a named event in a city on a date: number of tickets, optionally a seat type and a maximum price per ticket, plus the buyer's contact details in profile. The service drives ticketing websites in a real browser and falls back between providers. ",
  },
};

describe('scenario specs', () => {
  test('one spec per scenario, each under its own name and complete', () => {
    assert.deepEqual(Object.keys(SCENARIO_SPECS).sort(), [...SCENARIOS].sort());
    for (const scenario of SCENARIOS) {
      const spec = specOf(scenario);
      assert.equal(spec.scenario, scenario);
      assert.ok(spec.params instanceof z.ZodObject, `${scenario}: params is a zod object`);
      assert.equal(paramsByScenario[scenario], spec.params, `${scenario}: REST validates with the spec's schema`);
      for (const f of ['request', 'preferences', 'headcount', 'describe', 'aims', 'asked', 'title'] as const) assert.equal(typeof spec[f], 'function', `${scenario}: ${f}`);
      assert.match(spec.unit, /^\w+$/, `${scenario}: unit`);
      assert.ok(['time', 'fare', 'rated', 'preference'].includes(spec.choice), `${scenario}: choice`);
      assert.ok(['day', 'stay', 'flight'].includes(spec.held.dates), `${scenario}: held.dates`);
      // Before specs, `scenario === 'flight'` decided whose details a booking needs: a flight each passenger's, with passports.
      assert.equal(spec.travellers, scenario === 'flight' ? 'each' : 'lead', `${scenario}: travellers`);
      for (const label of [spec.held.venue, spec.held.quantity, spec.held.item, spec.tool.title, spec.tool.description]) assert.ok(label.trim() !== '', `${scenario}: a label is empty`);
    }
  });

  for (const scenario of SCENARIOS) {
    for (const extra of [false, true]) {
      test(`${scenario}${extra ? ' with every optional field' : ''}: request, preferences, headcount and words as before`, () => {
        const p = paramsOf(scenario, extra ? EXTRA[scenario] : {});
        const spec = specOf(scenario);
        const want = EXPECTED[scenario](p, extra);
        const request = spec.request(p);
        assert.deepStrictEqual(request, want.request);
        assert.deepStrictEqual(spec.preferences(p), want.preferences);
        assert.equal(spec.headcount(request), want.headcount);
        assert.equal(spec.describe(request), want.words);
        assert.deepStrictEqual(spec.asked(p).filter(([, v]) => v !== null), want.asked);
        assert.equal(spec.title(p), want.title);
        // The callers read the same spec: the core's summary, the executor's plan, the handoff page.
        assert.deepStrictEqual(searchRequestOf(scenario, p), want.request);
        assert.equal(headcountOf(request), want.headcount);
        assert.equal(describeRequest(request), want.words);
        const job = jobOf(scenario, p);
        const plan = planFor(job);
        assert.deepStrictEqual(plan.request, want.request);
        assert.deepStrictEqual(plan.preferences, want.preferences);
        assert.deepStrictEqual(askedLines(job).map((l) => [l.label, l.value]), want.asked);
        assert.equal(jobTitle(job), want.title);
      });
    }

    test(`${scenario}: the held booking's labels and the booking tool's text as before`, () => {
      const held = { venue: 'V', date: '2031-05-16', time: '19:30', checkOut: '2031-05-18', departure: '10:00', arrival: '22:00', quantity: 'Q', item: 'I', price: 'P' };
      const lines = describeHeld(jobOf(scenario, paramsOf(scenario)), [{ jobId: 'j', stepIndex: 0, type: 'paused_payment', timestamp: '', message: '', held }]);
      assert.deepStrictEqual(lines.map((l) => [l.label, l.value]), [['Provider', 'TableBook'], ...HELD[scenario], ['Price', 'P']]);
      assert.deepStrictEqual(specOf(scenario).tool, TOOLS[scenario]);
      const tool = bookingTools.find((t) => t.name === `book_${scenario}`)!;
      assert.equal(tool.title, TOOLS[scenario].title);
      assert.ok(tool.description.startsWith(TOOLS[scenario].description), `book_${scenario}'s description begins with its scenario's words`);
    });
  }
});
