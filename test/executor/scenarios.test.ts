import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { BROWSER_BACKEND, startTestService, type TestService } from '../helpers/service.ts';
import { cookieHeader } from '../helpers/http.ts';
import { rawRequest } from '../sandbox/drivers.ts';
import { datesIn } from '../../src/driver/text.ts';
import { assertCountersAgree, outcomes, requests, runJob, venue } from './helpers.ts';

// Hotels, flights and activities run end to end like restaurants (the contract's "activity is not
// executed yet" is behind us): each scenario's own decisions (room and seat preferences, budgets,
// passengers) and a chain that fails on both providers. A normal booking and every sandbox behaviour
// on each provider are in matrix.test.ts.

// The scenarios' decisions are the executor's; what a run writes is checked on both backends
// (matrix.test.ts on PGlite, restaurant.test.ts on BROWSER_BACKEND), so these Chromium runs take one.
for (const backend of [BROWSER_BACKEND]) {
  describe(`scenarios on ${backend.name}`, () => {
    let service: TestService;
    let key: string;

    async function book(body: unknown) {
      const result = await runJob(service, key, body);
      assertCountersAgree(result.job, result.events);
      return result;
    }

    before(async () => {
      service = await startTestService(backend.url, { WORKERS: '4' }, { sandbox: true });
      key = await service.mintKey();
    });
    after(() => service.close());

    describe('hotel, flight and activity bookings in the sandbox', { concurrency: 4 }, () => {
      test('hotel: a room preference picks the matching room; a budget per night excludes dearer rooms', async () => {
        const { job } = await book(requests.hotel({ room_preference: 'king bed' }));
        assert.equal(job.status, 'paused_payment');
        assert.match(job.summary, /Deluxe King Room/);
        const tight = await book(requests.hotel({ budget_max_per_night: 20 }));
        assert.equal(tight.job.status, 'no_availability');
        assert.match(tight.job.summary, /budget of 20 per night/);
      });

      test('hotel star_rating is a minimum read from each site: a 5-star property is booked, a 2-star one is no_availability saying its rating', async () => {
        for (const provider of ['staysearch', 'roomly']) {
          const high = await book(requests.hotel({ hotel_name: venue('5-Star Palace'), star_rating: 4 }, { allowedProviders: [provider] }));
          assert.equal(high.job.status, 'paused_payment', `${provider}: ${high.job.summary}`);
          assert.ok(high.events.some((e) => /rated 5 stars \(at least 4 asked\)/.test(e.message)), 'the choice quotes the rating read');
          await service.services.executor.holds.get(high.job.jobId)?.cancel();
          const low = await book(requests.hotel({ hotel_name: venue('2-Star Lodge'), star_rating: 3 }, { allowedProviders: [provider] }));
          assert.equal(low.job.status, 'no_availability', provider);
          assert.match(low.job.summary, /rated 2 stars, below the star_rating of at least 3 asked/);
        }
      });

      test('restaurant Missing: the venue is not on the site; the suggestion with the cuisine asked is booked under allowVenueSwitch, audited with those passed over; refused without consent', async () => {
        for (const provider of ['tablebook', 'dinenow']) {
          const asked = venue('Missing Noma');
          const { job, events } = await book(requests.restaurant({ restaurant_name: asked, cuisine: 'Japanese' }, { allowedProviders: [provider] }));
          assert.equal(job.status, 'paused_payment', `${provider}: ${job.summary}`);
          const switched = events.filter((e) => e.type === 'venue_switched');
          assert.equal(switched.length, 1, 'one switch, recorded once');
          assert.equal(switched[0].fromVenue, asked);
          assert.equal(switched[0].toVenue, 'Sakura House');
          assert.deepEqual(switched[0].passedOver, ['Trattoria Verde', 'Bistro Lumière']);
          assert.match(switched[0].message, /Sakura House \(Japanese, Harbour\) has the cuisine "Japanese"; passed over: Trattoria Verde \(Italian, Old Town\); Bistro Lumière \(French, Riverside\)/);
          assert.match(job.summary, /Sakura House/);
          await service.services.executor.holds.get(job.jobId)?.cancel();
        }
        const refused = await book(requests.restaurant({ restaurant_name: venue('Missing Noma'), cuisine: 'Japanese' }, { allowedProviders: ['tablebook'], allowVenueSwitch: false }));
        assert.equal(refused.job.status, 'no_availability');
        assert.match(refused.job.summary, /consent does not allow switching venues/);
      });

      test('hotel Missing: neighborhood and star_rating choose among the properties suggested', async () => {
        const { job, events } = await book(requests.hotel({ hotel_name: venue('Missing Lutetia'), neighborhood: 'Riverside', star_rating: 4 }, { allowedProviders: ['staysearch'] }));
        assert.equal(job.status, 'paused_payment', job.summary);
        const switched = events.find((e) => e.type === 'venue_switched');
        assert.equal(switched.toVenue, 'Riverside Suites');
        assert.match(switched.message, /has the neighborhood "Riverside" and at least 4 stars/);
        await service.services.executor.holds.get(job.jobId)?.cancel();
      });

      test('restaurant budget_per_person bounds the deposit per cover TableBook shows: within it booked, below every deposit no_availability', async () => {
        const within = await book(requests.restaurant({ budget_per_person: 100 }, { allowedProviders: ['tablebook'] }));
        assert.equal(within.job.status, 'paused_payment', within.job.summary);
        await service.services.executor.holds.get(within.job.jobId)?.cancel();
        const below = await book(requests.restaurant({ budget_per_person: 1 }, { allowedProviders: ['tablebook'] }));
        assert.equal(below.job.status, 'no_availability', below.job.summary);
        assert.match(below.job.summary, /costs more per cover than the budget_per_person of 1 \(cheapest: €\d+\.\d\d for \d\d:\d\d\)/);
      });

      test('hotel Outage at StaySearch, nothing within the budget at Roomly: error, not no_availability (StaySearch was never asked), naming each provider\'s outcome', async () => {
        const { job, events } = await book(requests.hotel({ hotel_name: venue('Outage Lodge'), budget_max_per_night: 20 }));
        assert.equal(job.status, 'error');
        assert.equal(job.error.reason, 'provider_outage');
        assert.equal(job.error.provider, 'staysearch', 'described by the failure that makes it an error');
        assert.deepEqual(job.error.attempts.map((a: any) => [a.provider, a.kind]), [['staysearch', 'outage'], ['roomly', 'no_availability']]);
        const failed = events.at(-1);
        assert.equal(failed.type, 'job_failed');
        assert.match(failed.message, /StaySearch: the site is unavailable \(HTTP 503\); Roomly: nothing acceptable at Roomly: nothing available within the budget of 20 per night/);
        assert.match(job.summary, /^The booking could not be made/);
        assert.deepEqual(outcomes(events), [['staysearch', 'failed'], ['roomly', 'failed']]);
      });

      test('flight Sister: the airline asked for is not the carrier; switched by default, refused without consent', async () => {
        const airline = venue('Sister Skyways');
        const allowed = await book(requests.flight({ targetAirline: airline }));
        assert.equal(allowed.job.status, 'paused_payment');
        const switched = allowed.events.find((e) => e.type === 'venue_switched');
        assert.equal(switched.fromVenue, airline);
        assert.match(switched.toVenue, / Connect, LHR → JFK$/);
        assert.match(allowed.job.summary, /The venue was switched from Sister Skyways \w+ to .* Connect/);
        const refused = await book(requests.flight({ targetAirline: venue('Sister Skyways') }, { allowVenueSwitch: false }));
        assert.equal(refused.job.status, 'no_availability');
        assert.ok(!refused.events.some((e) => e.type === 'venue_switched'));
      });

      test('flight targetPrice: a ceiling met books within it; one no fare meets is no_availability naming the cheapest fare seen', async () => {
        const met = await book(requests.flight({ targetPrice: 100_000 }));
        assert.equal(met.job.status, 'paused_payment', met.job.summary);
        assert.ok(met.events.some((e) => /^Choosing .*within the targetPrice of 100000/.test(e.message)), 'the choice names the ceiling');
        const missed = await book(requests.flight({ targetPrice: 1 }));
        assert.equal(missed.job.status, 'no_availability');
        const failed = missed.events.at(-1);
        assert.match(failed.message, /within the targetPrice of 1 per passenger; the cheapest fare seen is [$€£]\s?[\d,.]+/);
      });

      test('flight round trip: each airline site holds the way out and the way back as one return fare, both named in the summary; the outbound preferences choose the fare', async () => {
        const out = requests.flight().request.params.date as string;
        const back = new Date(Date.parse(`${out}T00:00:00Z`) + 5 * 86400_000).toISOString().slice(0, 10);
        for (const provider of ['skyfare', 'jetdeck']) {
          const { job, events } = await book(requests.flight({ return_date: back }, { allowedProviders: [provider] }));
          assert.equal(job.status, 'paused_payment', `${provider}: ${job.summary}`);
          const review = events.find((e) => e.type === 'step_started' && e.step === 'review');
          assert.ok(review, 'the review step is recorded');
          // The way out at the time asked (targetDepartureTime 10:00), then the way back on the day asked.
          assert.match(review.message, /10:00/);
          assert.match(review.message, /return/i);
          const held = service.services.executor.holds.get(job.jobId)!;
          assert.deepEqual([...new Set(datesIn(job.summary).filter((d) => d === out || d === back))], [out, back], `the summary names the way out, then the way back: ${job.summary}`);
          assert.match(job.summary, /return/i);
          await held.cancel();
        }
      });

      test('flight for three passengers: each airline site holds every traveller\'s own identity documents (birth date, passport, issuing country, known traveler number), the lead first', async () => {
        const lead = { first_name: 'Grace', last_name: 'Hopper', email: 'grace@example.com', phone: '+1 202 555 0147', dob: '1906-12-09', passport_number: 'p9876543', passport_country: 'us', known_traveler_number: 'KT4455667' };
        const others = [
          { first_name: 'Ada', last_name: 'Lovelace', dob: '1815-12-10', passport_number: 'GB1815121', passport_country: 'gb' },
          { first_name: 'Alan', last_name: 'Turing', dob: '1912-06-23', passport_number: 'AT1912062', passport_country: 'GB', known_traveler_number: 'KT1234' },
        ];
        // Where each site lists the travellers it holds (its review page), from the payment page the session is held on.
        const reviewOf: Record<string, (payment: string) => string> = {
          skyfare: (path) => path.replace(/\/payment$/, '/review'),
          jetdeck: (path) => path.replace(/\/checkout$/, '/confirm-details'),
        };
        const expected: Record<string, string[]> = {
          skyfare: [
            'Passenger 1 Grace Hopper · born 1906-12-09 · passport P9876543 (United States) · KTN KT4455667',
            'Passenger 2 Ada Lovelace · born 1815-12-10 · passport GB1815121 (United Kingdom)',
            'Passenger 3 Alan Turing · born 1912-06-23 · passport AT1912062 (United Kingdom) · KTN KT1234',
          ],
          jetdeck: [
            'HOPPER/Grace — DOB 1906-12-09, passport P9876543 US (United States), KTN KT4455667',
            'LOVELACE/Ada — DOB 1815-12-10, passport GB1815121 GB (United Kingdom)',
            'TURING/Alan — DOB 1912-06-23, passport AT1912062 GB (United Kingdom), KTN KT1234',
          ],
        };
        for (const provider of ['skyfare', 'jetdeck']) {
          const { job } = await book({ ...requests.flight({ passengers: 3 }, { allowedProviders: [provider] }), profile: { ...lead, additional_travellers: others } });
          assert.equal(job.status, 'paused_payment', `${provider}: ${job.summary}`);
          assert.match(job.summary, /3 (passengers|travellers)/, 'the summary says how many are held');
          const held = service.services.executor.holds.get(job.jobId)!;
          const url = new URL(held.page.url());
          const cookie = await cookieHeader(held.page.context(), url.origin);
          const review = await rawRequest(Number(url.port), url.host, reviewOf[provider]!(url.pathname), { headers: { cookie } });
          assert.equal(review.status, 200, provider);
          const listed = review.body.replace(/<[^>]+>/g, ' ').replace(/\s+/g, ' ');
          for (const line of expected[provider]!) assert.ok(listed.includes(line), `${provider} holds the traveller as given (${line}): ${listed.slice(listed.indexOf('Grace') - 40, listed.indexOf('Grace') + 400)}`);
          await held.cancel();
        }
      });

      test('activity: a seat type picks the matching section; Sold Out everywhere is no_availability', async () => {
        const { job } = await book(requests.activity({ seat_type: 'VIP' }));
        assert.equal(job.status, 'paused_payment');
        assert.match(job.summary, /VIP box/);
        const sold = await book(requests.activity({ event_name: venue('Sold Out Show') }));
        assert.equal(sold.job.status, 'no_availability');
        assert.equal(sold.job.attemptCount, 2);
      });

    });

    describe('after the scenarios', () => {
      test('no card code reached any provider', () => {
        assert.deepEqual(service.sandbox!.cardCodesReceived(), []);
      });
    });
  });
}
