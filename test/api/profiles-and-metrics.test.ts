import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { sql } from 'kysely';
import { BACKENDS, FLIGHT_PROFILE, PROFILE, requests, restaurantRequest, startTestService, type TestService } from '../helpers/service.ts';
import { call, rawCall } from '../helpers/http.ts';
import { assertApiError, assertChangesNothing } from '../helpers/api-assert.ts';
import { recordDecision } from '../../src/jobs/transition.ts';
import { getJob } from '../../src/jobs/service.ts';
import { profileListSchema, providerMetricsSchema, storedProfileSchema } from '../../src/api/v1/response-schemas.ts';

/** A flight whose traveller is named by profileId. */
const flightRequest = (params: Record<string, unknown> = {}) => ({ request: requests.flight(params).request });

for (const backend of BACKENDS) {
  describe(`profiles and provider metrics on ${backend.name}`, () => {
    let service: TestService;
    before(async () => {
      service = await startTestService(backend.url);
    });
    after(() => service.close());

    describe('stored profiles', () => {
      let acme: string;
      let globex: string;
      before(async () => {
        acme = await service.mintKey('Acme Travel');
        globex = await service.mintKey('Globex');
      });

      const store = async (profile: unknown, key = acme) => {
        const reply = await call(service.url, 'POST', '/api/v1/profiles', { key, body: profile });
        assert.equal(reply.status, 201, reply.text);
        return storedProfileSchema.parse(reply.body);
      };

      test('POST stores a validated profile: 201 with its id and a Location header', async () => {
        const reply = await call(service.url, 'POST', '/api/v1/profiles', { key: acme, body: { ...PROFILE, first_name: '  Grace ' } });
        assert.equal(reply.status, 201);
        const stored = storedProfileSchema.parse(reply.body);
        assert.equal(reply.headers.get('location'), `/api/v1/profiles/${stored.profileId}`);
        assert.equal(stored.profile.first_name, 'Grace');
        const read = await call(service.url, 'GET', `/api/v1/profiles/${stored.profileId}`, { key: acme });
        assert.equal(read.status, 200);
        assert.deepEqual(read.body, reply.body);
      });

      test('an invalid profile is 400 invalid_request with every problem', async () => {
        const reply = await assertChangesNothing(service, () => call(service.url, 'POST', '/api/v1/profiles', { key: acme, body: { first_name: 'Ada', email: 'no', phone: '1', nickname: 'A' } }));
        assertApiError(reply, 400, 'invalid_request');
        assert.deepEqual(reply.body.error.details, [
          { path: 'last_name', message: 'last_name is required' },
          { path: 'email', message: 'email must be a valid email address' },
          { path: 'phone', message: 'phone must be a phone number, e.g. +44 20 7946 0958' },
          { path: 'nickname', message: 'nickname is not a known field' },
        ]);
        assertApiError(await assertChangesNothing(service, () => call(service.url, 'POST', '/api/v1/profiles', { key: acme, raw: '[1]', headers: { 'content-type': 'application/json' } })), 400, 'invalid_request');
      });

      test('a name PostgreSQL cannot store (U+0000, an unpaired surrogate) is 400 invalid_request, not a 500', async () => {
        const reply = await assertChangesNothing(service, () => call(service.url, 'POST', '/api/v1/profiles', { key: acme, body: { ...PROFILE, first_name: 'A\u0000da', last_name: '\ud800' } }));
        assertApiError(reply, 400, 'invalid_request');
        assert.deepEqual(reply.body.error.details, [
          { path: 'first_name', message: 'first_name must not contain the character U+0000 or an unpaired UTF-16 surrogate' },
          { path: 'last_name', message: 'last_name must not contain the character U+0000 or an unpaired UTF-16 surrogate' },
        ]);
      });

      test('GET lists only the organisation\'s own profiles, oldest first', async () => {
        const a1 = await store(PROFILE);
        const a2 = await store({ ...PROFILE, first_name: 'Second' });
        const g1 = await store(PROFILE, globex);
        const list = profileListSchema.parse((await call(service.url, 'GET', '/api/v1/profiles', { key: acme })).body);
        const ids = list.profiles.map((p) => p.profileId);
        assert.ok(ids.includes(a1.profileId) && ids.includes(a2.profileId));
        assert.ok(!ids.includes(g1.profileId));
        assert.deepEqual(ids, [...ids].sort((x, y) => x - y));
        assert.equal(list.count, list.profiles.length);
      });

      test('one organisation can neither read, delete nor book with another\'s profile', async () => {
        const theirs = await store(PROFILE, globex);
        assertApiError(await call(service.url, 'GET', `/api/v1/profiles/${theirs.profileId}`, { key: acme }), 404, 'profile_not_found');
        assertApiError(await assertChangesNothing(service, () => call(service.url, 'DELETE', `/api/v1/profiles/${theirs.profileId}`, { key: acme })), 404, 'profile_not_found');
        const booking = await assertChangesNothing(service, () => call(service.url, 'POST', '/api/v1/execution-jobs', { key: acme, body: { request: restaurantRequest().request, profileId: theirs.profileId } }));
        assertApiError(booking, 400, 'invalid_request');
        assert.deepEqual(booking.body.error.details, [{ path: 'profileId', message: `no stored profile ${theirs.profileId} for this organization` }]);
        assert.equal((await call(service.url, 'GET', `/api/v1/profiles/${theirs.profileId}`, { key: globex })).status, 200, 'still there for its owner');
      });

      test('a profileId problem is reported with every other problem of the body, in one reply', async () => {
        const theirs = await store(PROFILE, globex);
        const restaurant = restaurantRequest({ covers: 0 }).request;
        const other = await assertChangesNothing(service, () => call(service.url, 'POST', '/api/v1/execution-jobs', { key: acme, body: { request: restaurant, profileId: theirs.profileId, consent: { maxRetries: 11 } } }));
        assertApiError(other, 400, 'invalid_request');
        assert.deepEqual(other.body.error.details, [
          { path: 'consent.maxRetries', message: 'maxRetries must be at most 10' },
          { path: 'request.params.covers', message: 'covers must be at least 1' },
          { path: 'profileId', message: `no stored profile ${theirs.profileId} for this organization` },
        ]);
        const plain = await store(PROFILE);
        const flight = { ...flightRequest({ dest: 'LHR' }), profileId: plain.profileId };
        const lacking = await assertChangesNothing(service, () => call(service.url, 'POST', '/api/v1/execution-jobs', { key: acme, body: flight }));
        assertApiError(lacking, 400, 'invalid_request');
        assert.deepEqual(lacking.body.error.details, [
          { path: 'request.params.dest', message: 'dest must differ from origin' },
          { path: 'profileId.dob', message: 'stored profile lacks dob, required for flights' },
          { path: 'profileId.passport_number', message: 'stored profile lacks passport_number, required for flights' },
          { path: 'profileId.passport_country', message: 'stored profile lacks passport_country, required for flights' },
        ]);
        // A profileId that is itself invalid is reported once, as such, and never looked up.
        const bad = await call(service.url, 'POST', '/api/v1/execution-jobs', { key: acme, body: { request: restaurant, profileId: 1.5 } });
        assertApiError(bad, 400, 'invalid_request');
        assert.deepEqual(bad.body.error.details.map((i: { path: string }) => i.path), ['profileId', 'request.params.covers']);
      });

      test('a booking with profileId uses the stored profile', async () => {
        const mine = await store({ ...PROFILE, first_name: 'Stored' });
        const booking = await call(service.url, 'POST', '/api/v1/execution-jobs', { key: acme, body: { request: restaurantRequest().request, profileId: mine.profileId } });
        assert.equal(booking.status, 202, booking.text);
        const job = await getJob(service.services.jobs, null, booking.body.jobId);
        assert.equal(job!.profile.first_name, 'Stored');
      });

      test('a flight with a stored profile lacking passport fields is 400 invalid_request', async () => {
        const plain = await store(PROFILE);
        const reply = await assertChangesNothing(service, () => call(service.url, 'POST', '/api/v1/execution-jobs', { key: acme, body: { ...flightRequest(), profileId: plain.profileId } }));
        assertApiError(reply, 400, 'invalid_request');
        assert.deepEqual(reply.body.error.details, [
          { path: 'profileId.dob', message: 'stored profile lacks dob, required for flights' },
          { path: 'profileId.passport_number', message: 'stored profile lacks passport_number, required for flights' },
          { path: 'profileId.passport_country', message: 'stored profile lacks passport_country, required for flights' },
        ]);
        const traveller = await store(FLIGHT_PROFILE);
        const ok = await call(service.url, 'POST', '/api/v1/execution-jobs', { key: acme, body: { ...flightRequest(), profileId: traveller.profileId } });
        assert.equal(ok.status, 202, ok.text);
        // A stored family: every other traveller's passport fields, and one traveller per passenger.
        const family = await store({ ...FLIGHT_PROFILE, additional_travellers: [{ first_name: 'Ada', last_name: 'Byron', passport_number: 'Y7654321', passport_country: 'GB' }] });
        const partial = await assertChangesNothing(service, () => call(service.url, 'POST', '/api/v1/execution-jobs', { key: acme, body: { ...flightRequest({ passengers: 3 }), profileId: family.profileId } }));
        assertApiError(partial, 400, 'invalid_request');
        assert.deepEqual(partial.body.error.details, [
          { path: 'profileId.additional_travellers.0.dob', message: 'stored profile lacks additional_travellers[0].dob, required for flights' },
          { path: 'request.params.passengers', message: 'passengers is 3 but the profile describes 2 travellers (the lead and 1 in additional_travellers): give one entry in additional_travellers for each passenger after the lead' },
        ]);
      });

      test('DELETE removes the profile; later bookings cannot use it; jobs keep their copy', async () => {
        const doomed = await store({ ...PROFILE, first_name: 'Doomed' });
        const booking = await call(service.url, 'POST', '/api/v1/execution-jobs', { key: acme, body: { request: restaurantRequest().request, profileId: doomed.profileId } });
        assert.equal(booking.status, 202);
        const deleted = await call(service.url, 'DELETE', `/api/v1/profiles/${doomed.profileId}`, { key: acme });
        assert.equal(deleted.status, 204);
        assert.equal(deleted.text, '');
        assertApiError(await call(service.url, 'GET', `/api/v1/profiles/${doomed.profileId}`, { key: acme }), 404, 'profile_not_found');
        assertApiError(await assertChangesNothing(service, () => call(service.url, 'DELETE', `/api/v1/profiles/${doomed.profileId}`, { key: acme })), 404, 'profile_not_found');
        assertApiError(await assertChangesNothing(service, () => call(service.url, 'POST', '/api/v1/execution-jobs', { key: acme, body: { request: restaurantRequest().request, profileId: doomed.profileId } })), 400, 'invalid_request');
        assert.equal((await getJob(service.services.jobs, null, booking.body.jobId))!.profile.first_name, 'Doomed');
      });

      test('DELETE with Content-Type: application/json and no body (as many clients send) deletes', async () => {
        const doomed = await store({ ...PROFILE, first_name: 'Declared' });
        const path = `/api/v1/profiles/${doomed.profileId}`;
        const deleted = await rawCall(service.url, 'DELETE', path, { authorization: `Bearer ${acme}`, 'content-type': 'application/json', 'content-length': '0' }, '');
        assert.equal(deleted.status, 204, deleted.text);
        assertApiError(await call(service.url, 'GET', path, { key: acme }), 404, 'profile_not_found');
        // The same header on OPTIONS is no body either; on POST, where a body is expected, it is invalid_json.
        const options = await rawCall(service.url, 'OPTIONS', path, { authorization: `Bearer ${acme}`, 'content-type': 'application/json', 'content-length': '0' }, '');
        assert.equal(options.status, 204);
        const post = await rawCall(service.url, 'POST', '/api/v1/profiles', { authorization: `Bearer ${acme}`, 'content-type': 'application/json', 'content-length': '0' }, '');
        assertApiError(post, 400, 'invalid_json');
      });

      test('a replay of a booking whose stored profile was deleted since still answers with its job', async () => {
        const doomed = await store({ ...PROFILE, first_name: 'Replayed' });
        const body = { request: restaurantRequest().request, profileId: doomed.profileId, clientMetadata: { idempotencyKey: 'replay-after-delete' } };
        const first = await call(service.url, 'POST', '/api/v1/execution-jobs', { key: acme, body });
        assert.equal(first.status, 202, first.text);
        assert.equal((await call(service.url, 'DELETE', `/api/v1/profiles/${doomed.profileId}`, { key: acme })).status, 204);
        const replay = await call(service.url, 'POST', '/api/v1/execution-jobs', { key: acme, body });
        assert.equal(replay.status, 202, replay.text);
        assert.equal(replay.body.jobId, first.body.jobId);
        assert.equal(replay.headers.get('idempotent-replayed'), 'true');
      });

      test('ids that are not positive whole numbers are 404 profile_not_found', async () => {
        for (const id of ['abc', '0', '-1', '1.5', '99999999999999999999', '1e3']) {
          assertApiError(await call(service.url, 'GET', `/api/v1/profiles/${id}`, { key: acme }), 404, 'profile_not_found');
        }
      });
    });

    describe('provider metrics', () => {
      let key: string;
      before(async () => {
        key = await service.mintKey('Metrics Org');
      });

      const metrics = async (providerId: string, query = '') => {
        const reply = await call(service.url, 'GET', `/api/v1/metrics/providers/${providerId}${query}`, { key });
        assert.equal(reply.status, 200, reply.text);
        return providerMetricsSchema.parse(reply.body);
      };
      const newJob = async () => (await call(service.url, 'POST', '/api/v1/execution-jobs', { key, body: restaurantRequest() })).body.jobId as string;

      test('a provider without events: 200 with zeros', async () => {
        assert.deepEqual(await metrics('nobody'), {
          providerId: 'nobody',
          successRate: 0,
          totalAttempts: 0,
          acceptedCount: 0,
          manualOverrideCount: 0,
          failedCount: 0,
          lastEventAt: null,
          timeRangeDays: 30,
        });
      });

      test('counts follow the documented definitions, from events recorded on real jobs', async () => {
        const db = service.services.db;
        const outcome = async (providerId: string, providerOutcome: string, type: 'step_attempt' | 'provider_fallback' | 'paused_payment' = 'step_attempt') => {
          const jobId = await newJob();
          await recordDecision(db, jobId, { type, message: `${providerId}: ${providerOutcome}`, providerId, data: { providerOutcome } });
          return jobId;
        };
        for (let i = 0; i < 3; i++) await outcome('resy', 'accepted', 'paused_payment');
        await outcome('resy', 'failed');
        await outcome('resy', 'failed', 'provider_fallback');
        await outcome('resy', 'manual_override');
        await outcome('opentable', 'accepted');
        // Events without an outcome (a step started, an action allowed) are not attempts.
        const busy = await newJob();
        await recordDecision(db, busy, { type: 'step_started', message: 'opening resy', providerId: 'resy' });
        await recordDecision(db, busy, { type: 'action_allowed', message: 'clicked', providerId: 'resy', data: { action: 'click' } });
        const last = await outcome('resy', 'failed');
        const audit = await call(service.url, 'GET', `/api/v1/execution-jobs/${last}/audit`, { key });
        const lastTimestamp = audit.body.events.at(-1).timestamp;

        const resy = await metrics('resy');
        assert.deepEqual(resy, {
          providerId: 'resy',
          successRate: 0.5,
          totalAttempts: 6,
          acceptedCount: 3,
          manualOverrideCount: 1,
          failedCount: 3,
          lastEventAt: lastTimestamp,
          timeRangeDays: 30,
        });
        const opentable = await metrics('opentable');
        assert.equal(opentable.totalAttempts, 1);
        assert.equal(opentable.successRate, 1);
      });

      test('timeRangeDays selects the window, and is clamped to 1..365 with default 30', async () => {
        const db = service.services.db;
        const jobId = await newJob();
        await recordDecision(db, jobId, { type: 'step_attempt', message: 'old', providerId: 'thefork', data: { providerOutcome: 'accepted' } });
        await recordDecision(db, jobId, { type: 'step_attempt', message: 'older', providerId: 'thefork', data: { providerOutcome: 'failed' } });
        await recordDecision(db, jobId, { type: 'step_attempt', message: 'recent', providerId: 'thefork', data: { providerOutcome: 'failed' } });
        // Age two events: 40 days and 400 days.
        await sql`update audit_events set created_at = now() - interval '40 days' where provider_id = 'thefork' and message = 'old'`.execute(db);
        await sql`update audit_events set created_at = now() - interval '400 days' where provider_id = 'thefork' and message = 'older'`.execute(db);

        const cases: Array<[string, number, number]> = [
          ['', 30, 1],
          ['?timeRangeDays=45', 45, 2],
          ['?timeRangeDays=1', 1, 1],
          ['?timeRangeDays=0', 1, 1],
          ['?timeRangeDays=-9', 1, 1],
          ['?timeRangeDays=365', 365, 2],
          ['?timeRangeDays=366', 365, 2],
          ['?timeRangeDays=100000', 365, 2],
          ['?timeRangeDays=44.9', 44, 2],
          ['?timeRangeDays=abc', 30, 1],
          ['?timeRangeDays=', 30, 1],
          ['?timeRangeDays=NaN', 30, 1],
        ];
        for (const [query, days, attempts] of cases) {
          const m = await metrics('thefork', query);
          assert.equal(m.timeRangeDays, days, query);
          assert.equal(m.totalAttempts, attempts, query);
        }
        const wide = await metrics('thefork', '?timeRangeDays=45');
        assert.equal(wide.acceptedCount, 1);
        assert.equal(wide.successRate, 0.5);
      });

      test('provider ids are taken verbatim (percent-decoded)', async () => {
        assert.equal((await metrics('open%20table')).providerId, 'open table');
        // No provider id can hold U+0000 (PostgreSQL text cannot): no event matches, as for any unknown id.
        const nul = await metrics('resy%00');
        assert.equal(nul.providerId, 'resy\u0000');
        assert.equal(nul.totalAttempts, 0);
      });
    });
  });
}
