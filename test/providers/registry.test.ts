import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { BUILT_IN_PROVIDERS, builtInsExist, DRIVERS, driverFor, modeForPeople, modeProblem, providerChain, type Provider } from '../../src/providers/registry.ts';

// How a job's chain is made from the registry: order by priority (built-ins first on a tie, then
// registered providers in the order added), the job's mode, and the consent's allowed/blocked lists.
// Pure functions over the provider list; the database side is tested end to end in
// test/executor/registry.test.ts.

function registered(id: string, priority: number, extra: Partial<Provider> = {}): Provider {
  return { id, name: `${id} name`, scenario: 'restaurant', driver: 'tablebook', startUrl: `https://${id}.example/`, priority, mode: 'test', builtIn: false, ...extra };
}

/** As loadProviders orders them: built-ins first, registered in the order added, then a stable sort by priority. */
function registry(...added: Provider[]): Provider[] {
  return [...BUILT_IN_PROVIDERS, ...added].sort((a, b) => a.priority - b.priority);
}

const ids = (chain: { providers: Provider[] }) => chain.providers.map((p) => p.id);

describe('the provider chain', () => {
  test('by priority, lower first: built-ins rank 100 and 200, win a tie, and registered ties keep the order they were added in', () => {
    const all = registry(registered('late-tie', 100), registered('first', 5), registered('between', 150), registered('last', 900), registered('early-tie', 100, { scenario: 'hotel', driver: 'staysearch' }));
    assert.deepEqual(ids(providerChain(all, 'restaurant', {}, 'test')), ['first', 'tablebook', 'late-tie', 'between', 'dinenow', 'last']);
    assert.deepEqual(ids(providerChain(all, 'hotel', {}, 'test')), ['staysearch', 'early-tie', 'roomly']);
    assert.deepEqual(ids(providerChain(registry(), 'flight', {}, 'test')), ['skyfare', 'jetdeck'], 'without registered providers, the built-in order of today');
  });

  test('allowedProviders and blockedProviders filter registered providers exactly like built-ins (ids compared in lower case)', () => {
    const all = registry(registered('acme-tables', 50), registered('bistro-net', 300));
    assert.deepEqual(ids(providerChain(all, 'restaurant', { allowedProviders: ['ACME-TABLES'] }, 'test')), ['acme-tables']);
    const blocked = providerChain(all, 'restaurant', { blockedProviders: ['acme-tables', 'tablebook'] }, 'test');
    assert.deepEqual(ids(blocked), ['dinenow', 'bistro-net']);
    assert.deepEqual(blocked.skipped, [
      { id: 'acme-tables', reason: 'listed in consent.blockedProviders' },
      { id: 'tablebook', reason: 'listed in consent.blockedProviders' },
    ]);
    assert.deepEqual(ids(providerChain(all, 'restaurant', { allowedProviders: ['bistro-net', 'dinenow'], blockedProviders: ['dinenow'] }, 'test')), ['bistro-net']);
  });

  test("the chain keeps only providers of the job's mode; a job from before modes (null) keeps all", () => {
    const all = registry(registered('real-tables', 10, { mode: 'live' }), registered('staging-tables', 20));
    assert.deepEqual(ids(providerChain(all, 'restaurant', {}, 'live')), ['real-tables']);
    const test_ = providerChain(all, 'restaurant', {}, 'test');
    assert.deepEqual(ids(test_), ['staging-tables', 'tablebook', 'dinenow']);
    assert.deepEqual(test_.skipped, [{ id: 'real-tables', reason: 'a live provider, and this job was created in test mode' }]);
    assert.deepEqual(ids(providerChain(all, 'restaurant', {}, null)), ['real-tables', 'staging-tables', 'tablebook', 'dinenow']);
  });
});

describe('mode problems at job creation', () => {
  const all = registry(registered('real-tables', 10, { mode: 'live' }));
  test('a live job for a scenario with no live provider names request.scenario; a test job for it is fine', () => {
    assert.deepEqual(modeProblem(all, 'hotel', {}, 'live'), { path: 'request.scenario', message: 'no live provider books hotel jobs: jobs in live mode book only on live providers' });
    assert.equal(modeProblem(all, 'hotel', {}, 'test'), null);
    assert.equal(modeProblem(all, 'restaurant', {}, 'live'), null);
  });
  test('allowedProviders naming only providers of the other mode names consent.allowedProviders, both ways', () => {
    assert.deepEqual(modeProblem(all, 'restaurant', { allowedProviders: ['real-tables'] }, 'test'), { path: 'consent.allowedProviders', message: 'names only live providers (real-tables): jobs in test mode book only on test providers' });
    assert.deepEqual(modeProblem(all, 'restaurant', { allowedProviders: ['tablebook', 'dinenow'] }, 'live'), { path: 'consent.allowedProviders', message: 'names only test providers (tablebook, dinenow): jobs in live mode book only on live providers' });
    assert.equal(modeProblem(all, 'restaurant', { allowedProviders: ['real-tables', 'tablebook'] }, 'test'), null, 'one provider of the mode is enough');
    assert.equal(modeProblem(all, 'restaurant', { allowedProviders: ['nobody'] }, 'test'), null, 'unknown ids are left to the run, as before modes');
  });
});

describe('the built-in providers in production', () => {
  test('they exist only outside production (their sites are the sandbox\'s): a provider list without them is store.test.ts\'s', () => {
    assert.equal(builtInsExist('production'), false);
    assert.equal(builtInsExist('development'), true);
    assert.equal(builtInsExist('test'), true);
  });
});

describe("the mode of a person's jobs (OAuth, no key)", () => {
  test('live in production, test in development and tests', () => {
    assert.equal(modeForPeople('production'), 'live');
    assert.equal(modeForPeople('development'), 'test');
    assert.equal(modeForPeople('test'), 'test');
  });
});

describe('the driver of a provider', () => {
  test('a built-in books at its origin from PROVIDER_URL_TEMPLATE; a registered one with a built-in driver at its start URL, under its own id and name', () => {
    const builtIn = driverFor(BUILT_IN_PROVIDERS.find((p) => p.id === 'roomly')!, 'http://{provider}.localhost:4100');
    assert.equal(builtIn.driver, DRIVERS.roomly);
    assert.equal(builtIn.startUrl, 'http://roomly.localhost:4100/');
    const mine = driverFor(registered('acme-tables', 50, { startUrl: 'https://acme.example/book?lang=en' }), 'http://{provider}.localhost:4100');
    assert.equal(mine.startUrl, 'https://acme.example/book?lang=en');
    assert.equal(mine.driver.id, 'acme-tables');
    assert.equal(mine.driver.name, 'acme-tables name');
    assert.equal(mine.driver.search, DRIVERS.tablebook.search);
    assert.equal(DRIVERS.tablebook.id, 'tablebook', 'the built-in driver itself is unchanged');
  });

  test('a driver that cannot be made is an error naming it (the run leaves that provider out, with the reason)', () => {
    assert.throws(() => driverFor(registered('odd-tables', 50, { driver: 'magic' }), 'http://{provider}.localhost:4100'), /unknown driver magic/);
  });
});
