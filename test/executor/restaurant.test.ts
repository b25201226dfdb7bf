import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { sql } from 'kysely';
import { call } from '../helpers/http.ts';
import { BROWSER_BACKEND, startTestService, type TestService } from '../helpers/service.ts';
import { sha256 } from '../../src/security/secrets.ts';
import { assertCountersAgree, outcomes, requests, runJob, types, venue } from './helpers.ts';

// The restaurant chain end to end through REST, in a real headless Chromium: what the chain does
// across both providers (the final status when every provider fails, fallback, the consent's
// provider filters and time limits), the held session and handoff token, and the provider metrics.
// Each sandbox behaviour on each provider alone is in matrix.test.ts. The run's writes (counters,
// outcomes, fallbacks, metrics) are checked here on BROWSER_BACKEND (PostgreSQL when it is set) and
// on PGlite in matrix.test.ts: the same runs on both backends would only run Chromium twice.

for (const backend of [BROWSER_BACKEND]) {
  describe(`restaurant bookings on ${backend.name}`, () => {
    let service: TestService;
    let key: string;
    const jobIds: string[] = [];

    async function book(body: unknown) {
      const result = await runJob(service, key, body);
      jobIds.push(result.job.jobId);
      assertCountersAgree(result.job, result.events);
      return result;
    }

    before(async () => {
      service = await startTestService(backend.url, { WORKERS: '4', BASE_URL: 'http://concierge.test' }, { sandbox: true });
      key = await service.mintKey();
    });
    after(() => service.close());

    describe('restaurant bookings in the sandbox', { concurrency: 4 }, () => {
      test('a normal booking stops at the card code: paused_payment with a handoff URL, the held details and the session kept on the focused code field', async () => {
        const { job, events } = await book(requests.restaurant({ restaurant_name: 'Noma' }));
        assert.equal(job.status, 'paused_payment');
        assert.match(job.handoffUrl, /^http:\/\/concierge\.test\/handoff\/[A-Za-z0-9_-]{43}$/);
        for (const part of ['TableBook', 'Noma, Copenhagen', '19:30', 'party of 2', '€', 'Visa •••• 4242']) assert.ok(job.summary.includes(part), `summary names ${part}: ${job.summary}`);
        assert.equal(job.attemptCount, 1);
        assert.equal(job.usedFallback, false);

        assert.deepEqual(types(events).slice(0, 4), ['job_created', 'job_started', 'step_started', 'step_attempt']);
        assert.deepEqual(types(events).slice(-2), ['action_denied', 'paused_payment']);
        const steps = events.filter((e) => e.type === 'step_started' && e.providerId).map((e) => e.step);
        assert.deepEqual(steps, ['search', 'choose', 'guest_details', 'review', 'payment']);
        const denied = events.at(-2);
        assert.match(denied.message, /driver layer/);
        assert.match(denied.message, /'cvc'/);
        const paused = events.at(-1);
        assert.equal(paused.handoffUrl, job.handoffUrl);
        assert.equal(paused.providerId, 'tablebook');
        assert.deepEqual(outcomes(events), [['tablebook', 'accepted']]);

        // Only the token's hash is stored; the URL in the audit event is computed when read.
        const token = job.handoffUrl.split('/').pop();
        const row = await service.services.db.selectFrom('jobs').select(['handoff_token_hash', 'hold_instance']).where('id', '=', job.jobId).executeTakeFirstOrThrow();
        assert.equal(row.handoff_token_hash, sha256(token));
        const stored = await sql<{ n: number }>`select count(*)::int as n from audit_events where job_id = ${job.jobId} and (data::text like ${`%${token}%`} or message like ${`%${token}%`})`.execute(service.services.db);
        assert.equal(stored.rows[0]!.n, 0, 'the token is nowhere in the stored events');

        const held = service.services.executor.holds.get(job.jobId);
        assert.ok(held, 'the session is held');
        assert.equal(row.hold_instance, service.services.executor.holds.instanceId);
        assert.match(held.page.url(), /tablebook\.localhost:\d+\/reservations\/\w+\/payment$/);
        assert.equal(await held.page.evaluate(() => document.activeElement?.id), 'tb-cvc');
        assert.ok(held.expiresAt.getTime() > Date.now());
        assert.deepEqual(service.sandbox!.cardCodesReceived(), []);
      });

      test('Busy, time adjustment not allowed: no_availability on every provider', async () => {
        const { job, events } = await book(requests.restaurant({ restaurant_name: venue('Busy Bistro') }, { allowTimeAdjustment: false }));
        assert.equal(job.status, 'no_availability');
        assert.equal(events.filter((e) => e.type === 'time_adjusted').length, 0);
        assert.equal(job.attemptCount, 2);
        assert.equal(job.usedFallback, true);
        assert.match(events.find((e) => e.type === 'provider_fallback').message, /does not allow adjusting the time/);
        assert.deepEqual(outcomes(events), [['tablebook', 'failed'], ['dinenow', 'failed']]);
      });

      test('Busy, nearest slot beyond maxTimeAdjustmentMinutes: no_availability', async () => {
        const { job, events } = await book(requests.restaurant({ restaurant_name: venue('Busy Bistro') }, { maxTimeAdjustmentMinutes: 15 }));
        assert.equal(job.status, 'no_availability');
        assert.equal(events.filter((e) => e.type === 'time_adjusted').length, 0);
        assert.match(job.summary, /beyond the 15 minutes/);
      });

      test('Sold Out: no_availability after trying both providers', async () => {
        const { job, events } = await book(requests.restaurant({ restaurant_name: venue('Sold Out Grill') }));
        assert.equal(job.status, 'no_availability');
        assert.deepEqual(events.filter((e) => e.type === 'step_attempt').map((e) => e.providerId), ['tablebook', 'dinenow']);
        assert.equal(events.at(-1).type, 'job_failed');
        assert.equal(job.error, undefined);
      });

      test('Members: a login wall on every provider is needs_login', async () => {
        const { job, events } = await book(requests.restaurant({ restaurant_name: venue('Members Club') }));
        assert.equal(job.status, 'needs_login');
        const fallback = events.find((e) => e.type === 'provider_fallback');
        assert.equal(fallback.fromProvider, 'tablebook');
        assert.equal(fallback.toProvider, 'dinenow');
        assert.match(fallback.message, /TableBook .*sign in.*DineNow/);
      });

      test('Captcha: a CAPTCHA on every provider is captcha', async () => {
        const { job } = await book(requests.restaurant({ restaurant_name: venue('Captcha Cafe') }));
        assert.equal(job.status, 'captcha');
        assert.match(job.summary, /CAPTCHA/);
      });

      test('Sister, venue switch allowed (the default): the sister venue is held, with a venue_switched event naming both and the summary saying so', async () => {
        const asked = venue('Sister Bistro');
        const sister = `${asked.replace('Sister ', '')} Annex`;
        const { job, events } = await book(requests.restaurant({ restaurant_name: asked }));
        assert.equal(job.status, 'paused_payment');
        const switched = events.filter((e) => e.type === 'venue_switched');
        assert.equal(switched.length, 1);
        assert.equal(switched[0].providerId, 'tablebook');
        assert.equal(switched[0].fromVenue, asked);
        assert.equal(switched[0].toVenue, sister);
        assert.equal(switched[0].message, `Venue switched at TableBook from ${asked} to ${sister}: the site offers only ${sister}, and the consent allows switching venues.`);
        assert.ok(types(events).indexOf('venue_switched') < types(events).indexOf('paused_payment'));
        assert.ok(job.summary.startsWith(`Held at TableBook: ${sister}, Copenhagen`), job.summary);
        assert.ok(job.summary.includes(`The venue was switched from ${asked} to ${sister}, as the consent allows.`), job.summary);
        assert.deepEqual(outcomes(events), [['tablebook', 'accepted']]);
      });

      test('Sister, venue switch not allowed: neither provider has anything acceptable, no_availability, nothing switched', async () => {
        const asked = venue('Sister Bistro');
        const { job, events } = await book(requests.restaurant({ restaurant_name: asked }, { allowVenueSwitch: false }));
        assert.equal(job.status, 'no_availability');
        assert.equal(events.filter((e) => e.type === 'venue_switched').length, 0);
        const fallback = events.find((e) => e.type === 'provider_fallback');
        assert.equal(fallback.reason, 'no_availability');
        assert.match(fallback.message, /TableBook offers only .* Annex, not Sister Bistro \w+, and the consent does not allow switching venues \(consent\.allowVenueSwitch is false\)/);
        assert.match(job.summary, /^Nothing acceptable was available/);
        assert.deepEqual(outcomes(events), [['tablebook', 'failed'], ['dinenow', 'failed']]);
        assert.equal(events.filter((e) => e.type === 'paused_payment').length, 0);
      });

      test('Broken: an unexpected page moves on to the next provider, then error with step, provider, URL and message', async () => {
        const { job, events } = await book(requests.restaurant({ restaurant_name: venue('Broken Brasserie') }));
        assert.equal(job.status, 'error');
        assert.equal(job.error.reason, 'unexpected_page');
        assert.equal(job.error.step, 'search');
        assert.equal(job.error.provider, 'dinenow');
        assert.match(job.error.url, /^http:\/\/dinenow\.localhost:\d+\/find\/\w+$/);
        assert.match(job.error.message, /not an availability page/);
        assert.deepEqual(job.error.attempts.map((a: any) => a.provider), ['tablebook', 'dinenow']);
        assert.equal(events.filter((e) => e.type === 'provider_fallback').length, 1);
      });

      test('Flaky, no retries allowed (consent.maxRetries 0): one try per provider; alone, error transient_errors; with both, the chain falls back', async () => {
        const alone = await book(requests.restaurant({ restaurant_name: venue('Flaky Fondue') }, { maxRetries: 0, allowedProviders: ['tablebook'] }));
        assert.equal(alone.job.status, 'error');
        assert.equal(alone.job.error.reason, 'transient_errors');
        assert.equal(alone.job.error.provider, 'tablebook');
        assert.match(alone.job.error.message, /still failing after 1 try: the site answered HTTP 502/);
        assert.equal(alone.job.attemptCount, 1);
        assert.deepEqual(alone.events.filter((e) => e.type === 'step_attempt').map((e) => [e.attempt, e.maxAttempts]), [[1, 1]]);
        assert.deepEqual(outcomes(alone.events), [['tablebook', 'failed']]);

        // Flaky fails the first search at each site: DineNow, tried once too, fails the same way.
        const both = await book(requests.restaurant({ restaurant_name: venue('Flaky Fondue') }, { maxRetries: 0 }));
        const fallback = both.events.find((e) => e.type === 'provider_fallback');
        assert.deepEqual([fallback.fromProvider, fallback.toProvider, fallback.reason], ['tablebook', 'dinenow', 'transient']);
        assert.deepEqual(both.events.filter((e) => e.type === 'step_attempt').map((e) => e.providerId), ['tablebook', 'dinenow']);
        assert.equal(both.job.attemptCount, 2);
        assert.equal(both.job.status, 'error');
        assert.equal(both.job.error.reason, 'transient_errors');
        assert.deepEqual(outcomes(both.events), [['tablebook', 'failed'], ['dinenow', 'failed']]);
      });

      test('Flaky, one retry allowed (consent.maxRetries 1): the retry comes after a backoff of about 300 ms and books', async () => {
        const name = venue('Flaky Fondue');
        const { job, events } = await book(requests.restaurant({ restaurant_name: name }, { maxRetries: 1, allowedProviders: ['tablebook'] }));
        assert.equal(job.status, 'paused_payment', job.summary);
        assert.equal(job.attemptCount, 2);
        const tries = events.filter((e) => e.type === 'step_attempt');
        assert.deepEqual(tries.map((e) => [e.attempt, e.maxAttempts]), [[1, 2], [2, 2]]);
        assert.match(tries[1].message, /^Retrying TableBook from the search \(try 2 of up to 2\) after a transient error at search: the site answered HTTP 502\.$/);
        // The retry's step_attempt is written after the backoff of 300 ms ± 25 %, counted from the
        // moment the site answered 502 (the sandbox's clock; the database's is the same machine's).
        // The event's timestamp is taken as it is written, so a busy database only adds to the gap;
        // without a backoff it would be the moment to read the error page and close the tab.
        const flaky = service.sandbox!.flakySearches().find((f) => f.provider === 'tablebook' && f.venue === name);
        assert.ok(flaky?.retriedAt, 'the site saw the search again');
        const gap = Date.parse(tries[1].timestamp) - flaky.failedAt.getTime();
        assert.ok(gap >= 225, `the retry waited for the backoff: ${gap} ms`);
        assert.ok(gap < 30_000, `and not much longer: ${gap} ms`);
        assert.deepEqual(outcomes(events), [['tablebook', 'accepted']], 'retries are one attempt');
      });

      test('allowedProviders: only the listed provider is used', async () => {
        const { job, events } = await book(requests.restaurant({ restaurant_name: 'Geranium' }, { allowedProviders: ['dinenow'] }));
        assert.equal(job.status, 'paused_payment');
        assert.match(job.summary, /^Held at DineNow/);
        assert.deepEqual(events.filter((e) => e.type === 'step_attempt').map((e) => e.providerId), ['dinenow']);
        assert.match(events.find((e) => e.step === 'plan').message, /TableBook skipped \(not in consent\.allowedProviders\)/);
      });

      test('blockedProviders: a blocked provider is skipped; Outage then has nowhere to fall back', async () => {
        const { job, events } = await book(requests.restaurant({ restaurant_name: venue('Outage Osteria') }, { blockedProviders: ['dinenow'] }));
        assert.equal(job.status, 'error');
        assert.equal(job.error.reason, 'provider_outage');
        assert.equal(job.usedFallback, false);
        assert.deepEqual(events.filter((e) => e.type === 'step_attempt').map((e) => e.providerId), ['tablebook']);
      });

      test('a consent that leaves no provider is an error before any browsing', async () => {
        const { job, events } = await book(requests.restaurant({}, { allowedProviders: ['tablebook'], blockedProviders: ['tablebook'] }));
        assert.equal(job.status, 'error');
        assert.equal(job.error.reason, 'no_providers');
        assert.equal(job.attemptCount, 0);
        assert.equal(events.filter((e) => e.type === 'step_attempt').length, 0);
      });
    });

    describe('after the restaurant matrix', () => {
      test('no card code ever reached a provider', () => {
        assert.deepEqual(service.sandbox!.cardCodesReceived(), []);
      });

      test('provider metrics count each attempt\'s outcome from the audit log', async () => {
        const expected: Record<string, { accepted: number; failed: number }> = { tablebook: { accepted: 0, failed: 0 }, dinenow: { accepted: 0, failed: 0 } };
        for (const id of jobIds) {
          const audit = await call(service.url, 'GET', `/api/v1/execution-jobs/${id}/audit`, { key });
          for (const [provider, outcome] of outcomes(audit.body.events)) expected[provider]![outcome as 'accepted' | 'failed'] += 1;
        }
        for (const provider of ['tablebook', 'dinenow']) {
          const metrics = await call(service.url, 'GET', `/api/v1/metrics/providers/${provider}`, { key });
          assert.equal(metrics.status, 200);
          const { accepted, failed } = expected[provider]!;
          assert.equal(metrics.body.acceptedCount, accepted, provider);
          assert.equal(metrics.body.failedCount, failed, provider);
          assert.equal(metrics.body.totalAttempts, accepted + failed);
          assert.equal(metrics.body.successRate, accepted / (accepted + failed));
          assert.ok(accepted > 0 && failed > 0, `${provider} saw both outcomes`);
        }
      });
    });
  });
}
