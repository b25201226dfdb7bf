import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { addProvider, listProviders, ProviderInputError, removeProvider, type NewProvider } from '../../src/providers/store.ts';
import { BACKENDS, startTestService, type TestService } from '../helpers/service.ts';

// Every check of a new provider, on each backend: a refusal names the flag and the problem, and
// writes nothing. (The CLI around these functions, its exit codes and its use of the production
// address policy: test/cli/providers.test.ts.)

const GOOD: NewProvider = { id: 'acme-tables', name: 'Acme Tables', scenario: 'restaurant', startUrl: 'https://acme.example/book' };
const OPEN = { allowPrivate: true };
const never = async (): Promise<string[]> => assert.fail('no DNS lookup expected');

const REFUSED: Array<[Partial<NewProvider>, RegExp]> = [
  [{ id: 'Acme' }, /^--id "Acme" is not a provider id: 2 to 40 lower-case letters, digits and hyphens/],
  [{ id: 'a' }, /^--id "a" is not a provider id/],
  [{ id: '-acme' }, /^--id "-acme" is not a provider id/],
  [{ id: 'acme_tables' }, /^--id "acme_tables" is not a provider id/],
  [{ id: 'acme tables' }, /is not a provider id/],
  [{ id: 'x'.repeat(41) }, /is not a provider id/],
  [{ id: 'tablebook' }, /^--id tablebook is a built-in provider's id/],
  [{ name: '  ' }, /^--name must be 1 to 100 characters/],
  [{ name: 'x'.repeat(101) }, /^--name must be 1 to 100 characters/],
  [{ name: 'Acme\nTables' }, /^--name must be 1 to 100 characters, without control characters/],
  [{ scenario: 'boat' }, /^--scenario must be one of restaurant, hotel, flight, activity \(got "boat"\)/],
  [{ driver: 'magic' }, /^--driver must be generic or a built-in driver \(tablebook, dinenow, staysearch, roomly, skyfare, jetdeck, tixhub, eventgo\); got "magic"/],
  [{ driver: 'skyfare' }, /^--driver skyfare books flight jobs, not restaurant jobs/],
  [{ startUrl: 'ftp://acme.example/' }, /^--url must be an http:\/\/ or https:\/\/ URL, not ftp:/],
  [{ startUrl: 'javascript:alert(1)' }, /^--url must be an http:\/\/ or https:\/\/ URL, not javascript:/],
  [{ startUrl: 'file:///etc/passwd' }, /^--url must be an http:\/\/ or https:\/\/ URL, not file:/],
  [{ startUrl: 'acme.example/book' }, /^--url "acme.example\/book" is not an absolute URL/],
  [{ startUrl: 'https://user:pw@acme.example/' }, /^--url must not carry a user name or password/],
  [{ startUrl: `https://acme.example/${'a'.repeat(2050)}` }, /^--url is longer than 2048 characters/],
  [{ priority: -1 }, /^--priority must be a whole number from 0 to 1000000 \(lower goes first\)/],
  [{ priority: 1.5 }, /^--priority must be a whole number/],
  [{ priority: Number.NaN }, /^--priority must be a whole number/],
  [{ priority: 1_000_001 }, /^--priority must be a whole number/],
  [{ mode: 'staging' }, /^--mode must be test or live \(got "staging"\)/],
];

for (const backend of BACKENDS) {
  describe(`registering providers on ${backend.name}`, () => {
    let service: TestService;
    before(async () => {
      service = await startTestService(backend.url);
    });
    after(() => service.close());
    const registered = async () => (await service.services.db.selectFrom('providers').selectAll().orderBy('id').execute()).map((r) => r.id);

    test('each invalid field is refused with a message naming it, and nothing is written', async () => {
      for (const [change, message] of REFUSED) {
        await assert.rejects(addProvider(service.services.db, { ...GOOD, ...change }, OPEN), (error: Error) => error instanceof ProviderInputError && message.test(error.message), JSON.stringify(change).slice(0, 80));
      }
      assert.deepEqual(await registered(), []);
    });

    test('a start URL on a private address is refused unless allowed, before anything is written', async () => {
      await assert.rejects(addProvider(service.services.db, { ...GOOD, startUrl: 'http://127.0.0.1:4100/' }, { allowPrivate: false, resolve: never }), /^ProviderInputError: --url points at 127\.0\.0\.1, which is not a public address: .*PROVIDER_ALLOW_PRIVATE_ADDRESSES=true/);
      await assert.rejects(addProvider(service.services.db, { ...GOOD, startUrl: 'https://tables.internal/' }, { allowPrivate: false, resolve: async () => ['10.0.0.8'] }), /resolves to 10\.0\.0\.8, which is not a public address/);
      assert.deepEqual(await registered(), []);
      const ok = await addProvider(service.services.db, { ...GOOD, id: 'public-tables' }, { allowPrivate: false, resolve: async () => ['93.184.216.34'] });
      assert.equal(ok.startUrl, 'https://acme.example/book');
      assert.equal(await removeProvider(service.services.db, 'public-tables'), 'removed');
    });

    test('defaults: generic driver, priority 100, live; a taken id is refused and the first registration stays', async () => {
      const first = await addProvider(service.services.db, GOOD, OPEN);
      assert.deepEqual({ ...first, createdAt: null }, { id: 'acme-tables', name: 'Acme Tables', scenario: 'restaurant', driver: 'generic', startUrl: 'https://acme.example/book', priority: 100, mode: 'live', builtIn: false, createdAt: null });
      await assert.rejects(addProvider(service.services.db, { ...GOOD, name: 'Other', scenario: 'hotel' }, OPEN), /^ProviderInputError: --id acme-tables: a provider acme-tables is already registered/);
      const listed = (await listProviders(service.services.db, { builtIns: true })).filter((p) => !p.builtIn);
      assert.deepEqual(listed.map((p) => [p.id, p.name, p.scenario]), [['acme-tables', 'Acme Tables', 'restaurant']]);
      // Where the sandbox's sites do not exist (production), neither do the built-ins: the registered ones alone.
      assert.deepEqual((await listProviders(service.services.db, { builtIns: false })).map((p) => [p.id, p.builtIn]), [['acme-tables', false]]);
      assert.ok((await listProviders(service.services.db, { builtIns: true })).some((p) => p.id === 'tablebook' && p.builtIn));
      assert.equal(await removeProvider(service.services.db, 'acme-tables'), 'removed');
      assert.equal(await removeProvider(service.services.db, 'acme-tables'), 'unknown');
      assert.equal(await removeProvider(service.services.db, 'dinenow'), 'built_in');
    });
  });
}
