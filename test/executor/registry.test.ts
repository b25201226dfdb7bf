import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mintApiKey } from '../../src/auth/api-keys.ts';
import { addProvider, removeProvider } from '../../src/providers/store.ts';
import { assertApiError, assertChangesNothing } from '../helpers/api-assert.ts';
import { call } from '../helpers/http.ts';
import { startTestService, type TestService } from '../helpers/service.ts';
import { assertCountersAgree, outcomes, requests, runJob, venue } from './helpers.ts';

// Registered providers end to end through REST, in real Chromium against the sandbox (PGlite: the
// storage side is in test/providers/store.test.ts and test/cli/providers.test.ts). A provider
// registered with a built-in driver books with that driver at its own start URL, under its own id
// and name; the running service uses a registry change from the next job on; test keys book only
// on test providers and live keys only on live ones, refused at creation otherwise.

describe('registered providers, booked through REST', () => {
  let service: TestService;
  let testKey: string;
  let liveKey: string;
  const OPEN = { allowPrivate: true };

  before(async () => {
    service = await startTestService('pglite:memory:', { WORKERS: '2' }, { sandbox: true });
    testKey = await service.mintKey();
    liveKey = (await mintApiKey(service.services.db, { organizationName: 'Acme Travel', allowedJobTypes: ['restaurant', 'hotel'], live: true, dailyLimit: null })).key;
    // The sandbox's TableBook site, registered again as a provider of its own with the built-in driver.
    await addProvider(service.services.db, { id: 'my-tables', name: 'My Tables', scenario: 'restaurant', startUrl: `${service.sandbox!.origin('tablebook')}/`, driver: 'tablebook', mode: 'test', priority: 300 }, OPEN);
  });
  after(() => service.close());

  const plan = (events: any[]) => events.find((e) => e.type === 'step_started' && e.step === 'plan');

  test('allowedProviders ["my-tables"] books only there, with its name in the summary and the held details; its metrics count it', async () => {
    const { job, events } = await runJob(service, testKey, requests.restaurant({ restaurant_name: venue('Registry') }, { allowedProviders: ['my-tables'] }));
    assertCountersAgree(job, events);
    assert.equal(job.status, 'paused_payment', job.summary);
    assert.match(job.summary, /My Tables/);
    assert.deepEqual(plan(events).providers, ['my-tables']);
    assert.match(plan(events).message, /^Provider chain for this restaurant: My Tables\. TableBook skipped \(not in consent\.allowedProviders\)/);
    const paused = events.at(-1);
    assert.equal(paused.type, 'paused_payment');
    assert.equal(paused.providerId, 'my-tables');
    assert.equal(paused.held.providerName, 'My Tables');
    assert.deepEqual(outcomes(events), [['my-tables', 'accepted']]);
    assert.ok(service.sandbox!.cardCodesReceived().length === 0, 'no card code reached the site');

    const metrics = await call(service.url, 'GET', '/api/v1/metrics/providers/my-tables', { key: testKey });
    assert.equal(metrics.status, 200, metrics.text);
    assert.equal(metrics.body.providerId, 'my-tables');
    assert.equal(metrics.body.acceptedCount, 1);
    assert.equal(metrics.body.totalAttempts, 1);
  });

  test('the running service uses a provider added or removed from the next job on, in priority order, after blockedProviders', async () => {
    const consent = { blockedProviders: ['tablebook', 'dinenow'] };
    await addProvider(service.services.db, { id: 'first-tables', name: 'First Tables', scenario: 'restaurant', startUrl: `${service.sandbox!.origin('tablebook')}/`, driver: 'tablebook', mode: 'test', priority: 1 }, OPEN);
    const added = await runJob(service, testKey, requests.restaurant({ restaurant_name: venue('Added') }, consent));
    assert.deepEqual(plan(added.events).providers, ['first-tables', 'my-tables']);
    assert.deepEqual(plan(added.events).skipped.map((s: any) => s.id), ['tablebook', 'dinenow']);
    assert.equal(added.job.status, 'paused_payment', added.job.summary);
    assert.equal(added.events.at(-1).providerId, 'first-tables');
    assert.match(added.job.summary, /First Tables/);

    assert.equal(await removeProvider(service.services.db, 'first-tables'), 'removed');
    const removed = await runJob(service, testKey, requests.restaurant({ restaurant_name: venue('Removed') }, consent));
    assert.deepEqual(plan(removed.events).providers, ['my-tables']);
    assert.equal(removed.events.at(-1).providerId, 'my-tables');
  });

  test('a test key naming only live providers, and a live key for a scenario without live providers, are refused at creation and store nothing', async () => {
    await addProvider(service.services.db, { id: 'live-tables', name: 'Live Tables', scenario: 'restaurant', startUrl: `${service.sandbox!.origin('tablebook')}/`, driver: 'tablebook', mode: 'live', priority: 100 }, OPEN);
    const testOnLive = await assertChangesNothing(service, () => call(service.url, 'POST', '/api/v1/execution-jobs', { key: testKey, body: requests.restaurant({}, { allowedProviders: ['live-tables'] }) }));
    assertApiError(testOnLive, 400, 'invalid_request');
    assert.deepEqual(testOnLive.body.error.details, [{ path: 'consent.allowedProviders', message: 'names only live providers (live-tables): jobs in test mode book only on test providers' }]);

    const liveOnTest = await assertChangesNothing(service, () => call(service.url, 'POST', '/api/v1/execution-jobs', { key: liveKey, body: requests.restaurant({}, { allowedProviders: ['tablebook'] }) }));
    assertApiError(liveOnTest, 400, 'invalid_request');
    assert.deepEqual(liveOnTest.body.error.details, [{ path: 'consent.allowedProviders', message: 'names only test providers (tablebook): jobs in live mode book only on live providers' }]);

    const noLiveHotel = await assertChangesNothing(service, () => call(service.url, 'POST', '/api/v1/execution-jobs', { key: liveKey, body: requests.hotel() }));
    assertApiError(noLiveHotel, 400, 'invalid_request');
    assert.deepEqual(noLiveHotel.body.error.details, [{ path: 'request.scenario', message: 'no live provider books hotel jobs: jobs in live mode book only on live providers' }]);
  });

  test('a live key books on the live provider only: the test providers of the scenario are skipped', async () => {
    const { job, events } = await runJob(service, liveKey, requests.restaurant({ restaurant_name: venue('Live') }));
    assert.equal(job.status, 'paused_payment', job.summary);
    assert.deepEqual(plan(events).providers, ['live-tables']);
    assert.ok(plan(events).skipped.some((s: any) => s.id === 'tablebook' && /a test provider, and this job was created in live mode/.test(s.reason)));
    assert.match(job.summary, /Live Tables/);
    // And the test key, on the same scenario, never reaches the live provider.
    const { events: testEvents } = await runJob(service, testKey, requests.restaurant({ restaurant_name: venue('Test') }, { blockedProviders: ['tablebook', 'dinenow', 'my-tables'] }));
    assert.deepEqual(plan(testEvents).providers, []);
    assert.ok(plan(testEvents).skipped.some((s: any) => s.id === 'live-tables' && /a live provider/.test(s.reason)));
  });
});
