import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { BACKENDS, FLIGHT_PROFILE, PROFILE, daysFromNow, requests, restaurantRequest, startTestService, type TestService } from '../helpers/service.ts';
import { call } from '../helpers/http.ts';
import { assertApiError, assertChangesNothing } from '../helpers/api-assert.ts';
import { getJob } from '../../src/jobs/service.ts';
import { earliestBookableDate } from '../../src/jobs/schemas.ts';

type Issue = { path: string; message: string };

const { hotel, flight, activity } = requests;
/** A flight request for another traveller. */
const flightFor = (profile: Record<string, unknown>, params: Record<string, unknown> = {}) => ({ ...flight(params), profile });

// Every validation rule of POST /api/v1/execution-jobs, with the message a client reads. A
// rejected request changes nothing.
for (const backend of BACKENDS) {
  describe(`POST /api/v1/execution-jobs validation on ${backend.name}`, () => {
    let service: TestService;
    let key: string;
    before(async () => {
      service = await startTestService(backend.url);
      key = await service.mintKey('Validation Org');
    });
    after(() => service.close());

    /**
     * Posts, expects 400 invalid_request, and returns the issues; nothing may have been stored. A
     * `raw` body is sent as it is, for JSON that JSON.stringify cannot write (1e400).
     */
    async function rejected(body: unknown, { raw = false } = {}): Promise<Issue[]> {
      const options = raw ? { key, raw: body as string, headers: { 'content-type': 'application/json' } } : { key, body };
      const reply = await assertChangesNothing(service, () => call(service.url, 'POST', '/api/v1/execution-jobs', options));
      assertApiError(reply, 400, 'invalid_request');
      assert.ok(Array.isArray(reply.body.error.details) && reply.body.error.details.length > 0);
      for (const issue of reply.body.error.details) {
        assert.deepEqual(Object.keys(issue).sort(), ['message', 'path']);
        assert.doesNotMatch(issue.message, /Invalid input|expected .+, received/, `zod's default wording leaked: ${issue.message}`);
      }
      return reply.body.error.details;
    }
    async function accepted(body: unknown): Promise<string> {
      const reply = await call(service.url, 'POST', '/api/v1/execution-jobs', { key, body });
      assert.equal(reply.status, 202, reply.text);
      return reply.body.jobId;
    }
    const has = (issues: Issue[], path: string, message: string | RegExp) =>
      assert.ok(
        issues.some((i) => i.path === path && (typeof message === 'string' ? i.message === message : message.test(i.message))),
        `expected ${path}: ${String(message)} in ${JSON.stringify(issues)}`,
      );

    describe('the request envelope', () => {
      test('an empty object names the two missing parts', async () => {
        assert.deepEqual(await rejected({}), [
          { path: 'request', message: 'request is required' },
          { path: 'profile', message: 'profile or profileId is required' },
        ]);
      });

      test('an unknown scenario lists the known ones', async () => {
        has(await rejected({ request: { scenario: 'boat', params: {} }, profile: PROFILE }), 'request.scenario', 'scenario must be one of "restaurant", "hotel", "flight", "activity"');
      });

      test('params must be an object', async () => {
        has(await rejected({ request: { scenario: 'restaurant', params: [] }, profile: PROFILE }), 'request.params', 'params must be an object, not a list');
        has(await rejected({ request: { scenario: 'restaurant' }, profile: PROFILE }), 'request.params', 'params is required');
      });

      test('unknown fields are named at their own path', async () => {
        const issues = await rejected({ ...restaurantRequest({ smoking: true }), extra: 1, request: { ...restaurantRequest({ smoking: true }).request, note: 'x' } });
        has(issues, 'extra', 'extra is not a known field');
        has(issues, 'request.note', 'note is not a known field');
        has(issues, 'request.params.smoking', 'smoking is not a known field');
      });

      test('exactly one of profile and profileId', async () => {
        has(await rejected({ request: restaurantRequest().request }), 'profile', 'profile or profileId is required');
        has(await rejected({ ...restaurantRequest(), profileId: 1 }), 'profile', 'give exactly one of profile and profileId, not both');
      });

      test('profileId must be a positive whole number', async () => {
        const base = { request: restaurantRequest().request };
        has(await rejected({ ...base, profileId: '1' }), 'profileId', 'profileId must be a number, not a string');
        has(await rejected({ ...base, profileId: 0 }), 'profileId', 'profileId must be greater than 0');
        has(await rejected({ ...base, profileId: 1.5 }), 'profileId', 'profileId must be a whole number');
      });

      test('every problem is reported at once', async () => {
        const issues = await rejected({
          request: { scenario: 'restaurant', params: { restaurant_name: '', city: 3, date: '2020-01-01', time: '25:00', covers: 0 } },
          profile: { first_name: 'Ada', email: 'nope', phone: '+44 20 7946 0958' },
          consent: { paymentPolicy: 'charge_card' },
          clientMetadata: { agentId: 7 },
        });
        assert.deepEqual(
          issues.map((i) => i.path).sort(),
          [
            'clientMetadata.agentId',
            'consent.paymentPolicy',
            'profile.email',
            'profile.last_name',
            'request.params.city',
            'request.params.covers',
            'request.params.date',
            'request.params.restaurant_name',
            'request.params.time',
          ].sort(),
        );
      });

      // PostgreSQL stores neither (in text or jsonb): taken as valid, such a body failed the write as
      // 500 job_create_failed, whose advice (retry with the same key) could never succeed.
      test('free text PostgreSQL cannot store (U+0000, an unpaired surrogate) is refused at its field, not a 500', async () => {
        const message = (field: string) => `${field} must not contain the character U+0000 or an unpaired UTF-16 surrogate`;
        const issues = await rejected({
          request: { scenario: 'restaurant', params: { ...restaurantRequest().request.params, restaurant_name: 'No\u0000ma', city: 'Copen\ud800hagen', cuisine: '\udc00' } },
          profile: { ...PROFILE, last_name: 'Love\u0000lace', known_traveler_number: 'KT\ud83d' },
          consent: { blockedProviders: ['resy\u0000'], allowedProviders: ['\ud800'] },
          clientMetadata: { agentId: 'a\u0000', userId: '\udfff', sessionId: 's\u0000', idempotencyKey: 'k\ud800' },
        });
        assert.deepEqual(issues, [
          { path: 'profile.last_name', message: message('last_name') },
          { path: 'profile.known_traveler_number', message: message('known_traveler_number') },
          { path: 'consent.allowedProviders.0', message: message('allowedProviders[0]') },
          { path: 'consent.blockedProviders.0', message: message('blockedProviders[0]') },
          { path: 'clientMetadata.agentId', message: message('agentId') },
          { path: 'clientMetadata.userId', message: message('userId') },
          { path: 'clientMetadata.sessionId', message: message('sessionId') },
          { path: 'clientMetadata.idempotencyKey', message: message('idempotencyKey') },
          { path: 'request.params.restaurant_name', message: message('restaurant_name') },
          { path: 'request.params.city', message: message('city') },
          { path: 'request.params.cuisine', message: message('cuisine') },
        ]);
        // Characters outside the Basic Multilingual Plane come as surrogate pairs: those are text.
        const jobId = await accepted({ ...restaurantRequest({ restaurant_name: 'Sushi 🍣 Saitō', city: '𠮷野' }), clientMetadata: { idempotencyKey: 'key-🔑' } });
        assert.equal((await getJob(service.services.jobs, null, jobId))!.params.restaurant_name, 'Sushi 🍣 Saitō');
      });
    });

    describe('restaurant', () => {
      test('a valid request is accepted, text trimmed', async () => {
        const jobId = await accepted(restaurantRequest({ restaurant_name: '  Noma  ', cuisine: 'Nordic', neighborhood: 'Christianshavn', budget_per_person: 250 }));
        const job = await getJob(service.services.jobs, null, jobId);
        assert.equal(job!.params.restaurant_name, 'Noma');
      });

      for (const field of ['restaurant_name', 'city', 'date', 'time', 'covers']) {
        test(`${field} is required`, async () => {
          const body = restaurantRequest();
          delete (body.request.params as Record<string, unknown>)[field];
          assert.deepEqual(await rejected(body), [{ path: `request.params.${field}`, message: `${field} is required` }]);
        });
      }

      test('dates are YYYY-MM-DD, real, and not in the past', async () => {
        for (const date of ['2030-1-05', '05/01/2030', '2030-01-05T19:00:00Z', 'tomorrow']) {
          assert.deepEqual(await rejected(restaurantRequest({ date })), [{ path: 'request.params.date', message: 'date must be a date as YYYY-MM-DD' }], date);
        }
        for (const date of ['2030-02-30', '2031-02-29', '2030-13-01', '2030-04-31']) {
          assert.deepEqual(await rejected(restaurantRequest({ date })), [{ path: 'request.params.date', message: 'date is not a real calendar date' }], date);
        }
        assert.deepEqual(await rejected(restaurantRequest({ date: '2020-01-01' })), [{ path: 'request.params.date', message: 'date is in the past' }]);
        const earliest = earliestBookableDate();
        const dayBefore = new Date(Date.parse(`${earliest}T00:00:00Z`) - 86400_000).toISOString().slice(0, 10);
        assert.deepEqual(await rejected(restaurantRequest({ date: dayBefore })), [{ path: 'request.params.date', message: 'date is in the past' }]);
        await accepted(restaurantRequest({ date: earliest, restaurant_name: 'Earliest' }));
        await accepted(restaurantRequest({ date: '2032-02-29', restaurant_name: 'Leap day' }));
      });

      test('times are 24-hour HH:MM', async () => {
        for (const time of ['7pm', '24:00', '19:60', '9:30', '19:30:00', '']) {
          assert.deepEqual(await rejected(restaurantRequest({ time })), [{ path: 'request.params.time', message: 'time must be a 24-hour time as HH:MM' }], time);
        }
        await accepted(restaurantRequest({ time: '00:00', restaurant_name: 'Midnight' }));
        await accepted(restaurantRequest({ time: '23:59', restaurant_name: 'Late' }));
      });

      test('covers is a whole number from 1 to 50', async () => {
        const cases: Array<[unknown, string]> = [
          [0, 'covers must be at least 1'],
          [-2, 'covers must be at least 1'],
          [2.5, 'covers must be a whole number'],
          ['2', 'covers must be a number, not a string'],
          [null, 'covers must be a number, not null'],
          [51, 'covers must be at most 50'],
        ];
        for (const [covers, message] of cases) assert.deepEqual(await rejected(restaurantRequest({ covers })), [{ path: 'request.params.covers', message }], String(covers));
      });

      test('a number too large for a double (it parses as infinity) is named as such', async () => {
        const withLiteral = (params: Record<string, unknown>, literal: string) => JSON.stringify(restaurantRequest(params)).replace('"LITERAL"', literal);
        assert.deepEqual(await rejected(withLiteral({ covers: 'LITERAL' }, '1e400'), { raw: true }), [
          { path: 'request.params.covers', message: 'covers must be a number, not an infinite number' },
        ]);
        assert.deepEqual(await rejected(withLiteral({ budget_per_person: 'LITERAL' }, '-1e400'), { raw: true }), [
          { path: 'request.params.budget_per_person', message: 'budget_per_person must be a number, not an infinite number' },
        ]);
      });

      test('names are non-empty strings of at most 200 characters', async () => {
        has(await rejected(restaurantRequest({ restaurant_name: '   ' })), 'request.params.restaurant_name', 'restaurant_name must not be empty');
        has(await rejected(restaurantRequest({ restaurant_name: 'x'.repeat(201) })), 'request.params.restaurant_name', 'restaurant_name must be at most 200 characters long');
        has(await rejected(restaurantRequest({ city: ['Copenhagen'] })), 'request.params.city', 'city must be a string, not a list');
      });

      test('budgets are positive numbers', async () => {
        has(await rejected(restaurantRequest({ budget_per_person: 0 })), 'request.params.budget_per_person', 'budget_per_person must be greater than 0');
        has(await rejected(restaurantRequest({ budget_per_person: '50' })), 'request.params.budget_per_person', 'budget_per_person must be a number, not a string');
        has(await rejected(restaurantRequest({ budget_per_person: 1_000_001 })), 'request.params.budget_per_person', 'budget_per_person must be at most 1000000');
        await accepted(restaurantRequest({ budget_per_person: 1_000_000, restaurant_name: 'Budget ceiling' }));
      });
    });

    describe('hotel', () => {
      test('a valid request is accepted', async () => {
        await accepted(hotel({ star_rating: 5, budget_max_per_night: 400, room_preference: 'king bed', neighborhood: 'Innere Stadt' }));
      });

      test('checkout is after checkin', async () => {
        assert.deepEqual(await rejected(hotel({ checkout: daysFromNow(10) })), [{ path: 'request.params.checkout', message: 'checkout must be after checkin' }]);
        assert.deepEqual(await rejected(hotel({ checkout: daysFromNow(9) })), [{ path: 'request.params.checkout', message: 'checkout must be after checkin' }]);
      });

      test('the checkout rule is reported alongside other problems', async () => {
        const issues = await rejected(hotel({ checkout: daysFromNow(9), star_rating: 6 }));
        has(issues, 'request.params.checkout', 'checkout must be after checkin');
        has(issues, 'request.params.star_rating', 'star_rating must be at most 5');
      });

      test('checkin in the past, adults bounds', async () => {
        has(await rejected(hotel({ checkin: '2021-05-01' })), 'request.params.checkin', 'checkin is in the past');
        has(await rejected(hotel({ adults: 0 })), 'request.params.adults', 'adults must be at least 1');
        has(await rejected(hotel({ adults: 21 })), 'request.params.adults', 'adults must be at most 20');
      });
    });

    describe('flight', () => {
      test('a valid request is accepted; airport and country codes are upper-cased', async () => {
        const jobId = await accepted(flightFor({ ...FLIGHT_PROFILE, passport_country: 'gb' }, { origin: 'lhr', dest: 'jfk', return_date: daysFromNow(27), cabin_class: 'business', targetAirline: 'BA', targetPrice: 450, targetDepartureTime: '08:15', targetFlightNumber: 'BA117' }));
        const job = await getJob(service.services.jobs, null, jobId);
        assert.equal(job!.params.origin, 'LHR');
        assert.equal(job!.params.dest, 'JFK');
        assert.equal(job!.profile.passport_country, 'GB');
      });

      test('airports are three-letter IATA codes, and differ', async () => {
        for (const origin of ['LHRX', 'L1R', '', 'London']) {
          has(await rejected(flight({ origin })), 'request.params.origin', 'origin must be a three-letter IATA airport code, e.g. LHR');
        }
        assert.deepEqual(await rejected(flight({ dest: 'lhr' })), [{ path: 'request.params.dest', message: 'dest must differ from origin' }]);
      });

      test('the return is not before the departure; a same-day return (out and back) is a real trip', async () => {
        assert.deepEqual(await rejected(flight({ return_date: daysFromNow(19) })), [{ path: 'request.params.return_date', message: 'return_date must not be before date' }]);
        const sameDay = await accepted(flight({ date: daysFromNow(20), return_date: daysFromNow(20), targetAirline: 'Same day' }));
        const stored = (await getJob(service.services.jobs, null, sameDay))!.params;
        assert.equal(stored.return_date, stored.date, 'booked as asked: back the same day');
        await accepted(flight({ return_date: daysFromNow(21), targetAirline: 'Next day' }));
      });

      test('passengers, cabin class and flight number', async () => {
        has(await rejected(flight({ passengers: 10 })), 'request.params.passengers', 'passengers must be at most 9');
        has(await rejected(flight({ cabin_class: 'steerage' })), 'request.params.cabin_class', 'cabin_class must be one of "economy", "premium_economy", "business", "first"');
        has(await rejected(flight({ targetFlightNumber: 'Speedbird' })), 'request.params.targetFlightNumber', 'targetFlightNumber must be a flight number like BA117');
        has(await rejected(flight({ targetDepartureTime: '8am' })), 'request.params.targetDepartureTime', 'targetDepartureTime must be a 24-hour time as HH:MM');
      });

      test('the profile must carry date of birth and passport for flights (and only for flights)', async () => {
        assert.deepEqual(await rejected(flightFor(PROFILE)), [
          { path: 'profile.dob', message: 'dob is required for flights' },
          { path: 'profile.passport_number', message: 'passport_number is required for flights' },
          { path: 'profile.passport_country', message: 'passport_country is required for flights' },
        ]);
        await accepted({ ...restaurantRequest({ restaurant_name: 'Passport not needed' }), profile: FLIGHT_PROFILE });
      });

      test('several passengers: one traveller per passenger (the lead and additional_travellers), each with passport details, or 400 naming the field', async () => {
        const companion = { first_name: 'Ada', last_name: 'Byron', dob: '2010-03-04', passport_number: 'Y7654321', passport_country: 'gb' };
        const jobId = await accepted(flightFor({ ...FLIGHT_PROFILE, additional_travellers: [companion, { ...companion, first_name: 'Allegra', email: 'allegra@example.com' }] }, { passengers: 3 }));
        const stored = (await getJob(service.services.jobs, null, jobId))!.profile as { additional_travellers: Array<Record<string, string>> };
        assert.equal(stored.additional_travellers.length, 2);
        assert.equal(stored.additional_travellers[0]!.passport_country, 'GB', 'kept as given, upper-cased like the lead\'s');
        assert.deepEqual(await rejected(flight({ passengers: 2 })), [
          { path: 'request.params.passengers', message: 'passengers is 2 but the profile describes 1 traveller (the lead and 0 in additional_travellers): give one entry in additional_travellers for each passenger after the lead' },
        ]);
        has(await rejected(flightFor({ ...FLIGHT_PROFILE, additional_travellers: [companion] }, { passengers: 1 })), 'request.params.passengers', /^passengers is 1 but the profile describes 2 travellers/);
        const missing = await rejected(flightFor({ ...FLIGHT_PROFILE, additional_travellers: [{ first_name: 'Ada', last_name: 'Byron' }] }, { passengers: 2 }));
        assert.deepEqual(missing, [
          { path: 'profile.additional_travellers.0.dob', message: 'dob is required for flights' },
          { path: 'profile.additional_travellers.0.passport_number', message: 'passport_number is required for flights' },
          { path: 'profile.additional_travellers.0.passport_country', message: 'passport_country is required for flights' },
        ]);
        has(await rejected(flightFor({ ...FLIGHT_PROFILE, additional_travellers: [{ ...companion, nickname: 'A' }] }, { passengers: 2 })), 'profile.additional_travellers.0.nickname', 'nickname is not a known field');
        has(await rejected(flightFor({ ...FLIGHT_PROFILE, additional_travellers: [{ ...companion, passport_number: 'AB' }] }, { passengers: 2 })), 'profile.additional_travellers.0.passport_number', 'passport_number must be 5 to 20 letters and digits');
        has(await rejected(flightFor({ ...FLIGHT_PROFILE, additional_travellers: 'Ada' }, { passengers: 2 })), 'profile.additional_travellers', 'additional_travellers must be a list, not a string');
        // Elsewhere the booking is in the lead's name: companions are accepted, but not more people than booked for.
        await accepted({ ...restaurantRequest({ restaurant_name: 'Table for two', covers: 2 }), profile: { ...PROFILE, additional_travellers: [{ first_name: 'Ada', last_name: 'Byron' }] } });
        assert.deepEqual(await rejected({ ...restaurantRequest({ covers: 1 }), profile: { ...PROFILE, additional_travellers: [{ first_name: 'Ada', last_name: 'Byron' }] } }), [
          { path: 'profile.additional_travellers', message: 'additional_travellers names 1 person, but the booking is for 1 including the lead' },
        ]);
      });

      test('passport fields are checked for form', async () => {
        const issues = await rejected(flightFor({ ...FLIGHT_PROFILE, dob: '2999-01-01', passport_number: 'AB', passport_country: 'G1' }));
        has(issues, 'profile.dob', 'dob must be in the past');
        has(issues, 'profile.passport_number', 'passport_number must be 5 to 20 letters and digits');
        has(issues, 'profile.passport_country', 'passport_country must be an ISO 3166 country code, e.g. GB');
      });
    });

    describe('activity', () => {
      test('a valid request is accepted (execution is a preview)', async () => {
        await accepted(activity({ seat_type: 'stalls', budget_max_per_ticket: 120 }));
      });
      test('required params and bounds', async () => {
        has(await rejected(activity({ event_name: undefined })), 'request.params.event_name', 'event_name is required');
        has(await rejected(activity({ num_tickets: 21 })), 'request.params.num_tickets', 'num_tickets must be at most 20');
        has(await rejected(activity({ event_date: '2030-02-31' })), 'request.params.event_date', 'event_date is not a real calendar date');
      });
    });

    describe('dates in the past, in every scenario', () => {
      // The last date that is past everywhere on Earth, and one long gone.
      const earliest = earliestBookableDate();
      const dayBefore = new Date(Date.parse(`${earliest}T00:00:00Z`) - 86400_000).toISOString().slice(0, 10);
      const cases: Array<[string, (date: string) => unknown, string]> = [
        ['restaurant date', (date) => restaurantRequest({ date }), 'date'],
        ['hotel checkin', (date) => hotel({ checkin: date }), 'checkin'],
        ['hotel checkout', (date) => hotel({ checkout: date }), 'checkout'],
        ['flight date', (date) => flight({ date }), 'date'],
        ['flight return_date', (date) => flight({ return_date: date }), 'return_date'],
        ['activity event_date', (date) => activity({ event_date: date }), 'event_date'],
      ];
      for (const [name, body, field] of cases) {
        test(`${name} is refused in the past, and only for that (no cross-field rule piles on)`, async () => {
          for (const date of [dayBefore, '2020-01-01']) {
            assert.deepEqual(await rejected(body(date)), [{ path: `request.params.${field}`, message: `${field} is in the past` }], date);
          }
        });
      }
    });

    describe('profile', () => {
      test('contact fields are required and checked', async () => {
        const issues = await rejected({ ...restaurantRequest(), profile: { first_name: 'Ada', email: 'ada@', phone: 'call me' } });
        assert.deepEqual(issues, [
          { path: 'profile.last_name', message: 'last_name is required' },
          { path: 'profile.email', message: 'email must be a valid email address' },
          { path: 'profile.phone', message: 'phone must be a phone number, e.g. +44 20 7946 0958' },
        ]);
      });
      test('the profile must be an object', async () => {
        has(await rejected({ ...restaurantRequest(), profile: 'Ada Lovelace' }), 'profile', 'profile must be an object, not a string');
      });
    });

    describe('consent', () => {
      test('defaults are applied when consent is absent or partial', async () => {
        const jobId = await accepted(restaurantRequest({ restaurant_name: 'Defaults' }));
        const job = await getJob(service.services.jobs, null, jobId);
        assert.deepEqual(job!.consent, {
          allowTimeAdjustment: true,
          maxTimeAdjustmentMinutes: 90,
          allowVenueSwitch: true,
          maxRetries: 3,
          paymentPolicy: 'stop_before_cvc',
          allowedProviders: null,
          blockedProviders: [],
          maxJobDurationSeconds: 420,
        });
        const partial = await accepted({ ...restaurantRequest({ restaurant_name: 'Partial' }), consent: { maxRetries: 0, allowedProviders: ['resy'] } });
        const partialJob = await getJob(service.services.jobs, null, partial);
        assert.equal(partialJob!.consent.maxRetries, 0);
        assert.deepEqual(partialJob!.consent.allowedProviders, ['resy']);
        assert.equal(partialJob!.consent.maxJobDurationSeconds, 420);
      });

      test('paymentPolicy accepts only stop_before_cvc', async () => {
        assert.deepEqual(await rejected({ ...restaurantRequest(), consent: { paymentPolicy: 'auto_charge' } }), [
          { path: 'consent.paymentPolicy', message: 'paymentPolicy must be "stop_before_cvc": the service always stops before the card security code' },
        ]);
        await accepted({ ...restaurantRequest({ restaurant_name: 'Policy' }), consent: { paymentPolicy: 'stop_before_cvc' } });
      });

      test('bounds and types', async () => {
        const cases: Array<[Record<string, unknown>, string, string]> = [
          [{ allowTimeAdjustment: 'yes' }, 'consent.allowTimeAdjustment', 'allowTimeAdjustment must be true or false, not a string'],
          [{ maxTimeAdjustmentMinutes: -1 }, 'consent.maxTimeAdjustmentMinutes', 'maxTimeAdjustmentMinutes must be at least 0'],
          [{ maxTimeAdjustmentMinutes: 721 }, 'consent.maxTimeAdjustmentMinutes', 'maxTimeAdjustmentMinutes must be at most 720'],
          [{ maxTimeAdjustmentMinutes: 30.5 }, 'consent.maxTimeAdjustmentMinutes', 'maxTimeAdjustmentMinutes must be a whole number'],
          [{ maxRetries: -1 }, 'consent.maxRetries', 'maxRetries must be at least 0'],
          [{ maxRetries: 1.5 }, 'consent.maxRetries', 'maxRetries must be a whole number'],
          [{ maxRetries: 11 }, 'consent.maxRetries', 'maxRetries must be at most 10'],
          [{ maxJobDurationSeconds: 29 }, 'consent.maxJobDurationSeconds', 'maxJobDurationSeconds must be at least 30'],
          [{ maxJobDurationSeconds: 3601 }, 'consent.maxJobDurationSeconds', 'maxJobDurationSeconds must be at most 3600'],
          [{ allowedProviders: 'resy' }, 'consent.allowedProviders', 'allowedProviders must be a list, not a string'],
          [{ blockedProviders: [''] }, 'consent.blockedProviders.0', 'blockedProviders[0] must not be empty'],
          [{ allowVenueSwitch: null }, 'consent.allowVenueSwitch', 'allowVenueSwitch must be true or false, not null'],
          [{ surprise: true }, 'consent.surprise', 'surprise is not a known field'],
          [{ allowedProviders: Array.from({ length: 33 }, (_, i) => `p${i}`) }, 'consent.allowedProviders', 'allowedProviders must have at most 32 items'],
          [{ blockedProviders: Array.from({ length: 33 }, (_, i) => `p${i}`) }, 'consent.blockedProviders', 'blockedProviders must have at most 32 items'],
          [{ blockedProviders: ['x'.repeat(65)] }, 'consent.blockedProviders.0', 'blockedProviders[0] must be at most 64 characters long'],
        ];
        for (const [consent, path, message] of cases) {
          assert.deepEqual(await rejected({ ...restaurantRequest(), consent }), [{ path, message }], JSON.stringify(consent));
        }
        await accepted({ ...restaurantRequest({ restaurant_name: 'Null providers' }), consent: { allowedProviders: null } });
      });
    });

    describe('clientMetadata', () => {
      test('fields are strings; unknown fields are refused', async () => {
        has(await rejected({ ...restaurantRequest(), clientMetadata: { userId: 42 } }), 'clientMetadata.userId', 'userId must be a string, not a number');
        has(await rejected({ ...restaurantRequest(), clientMetadata: { idempotencyKey: '' } }), 'clientMetadata.idempotencyKey', 'idempotencyKey must not be empty');
        has(await rejected({ ...restaurantRequest(), clientMetadata: { traceparent: 'x' } }), 'clientMetadata.traceparent', 'traceparent is not a known field');
        has(await rejected({ ...restaurantRequest(), clientMetadata: 'agent-7' }), 'clientMetadata', 'clientMetadata must be an object, not a string');
        for (const field of ['agentId', 'userId', 'sessionId', 'idempotencyKey']) {
          has(await rejected({ ...restaurantRequest(), clientMetadata: { [field]: 'x'.repeat(201) } }), `clientMetadata.${field}`, `${field} must be at most 200 characters long`);
        }
        await accepted({ ...restaurantRequest({ restaurant_name: 'Metadata' }), clientMetadata: { agentId: 'a', userId: 'u', sessionId: 's' } });
      });
    });
  });
}
