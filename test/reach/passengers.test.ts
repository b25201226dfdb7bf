import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { addProvider } from '../../src/providers/store.ts';
import { CORPUS, type CorpusId, type ProviderId } from '../../sandbox/index.ts';
import { startTestService, type TestService } from '../helpers/service.ts';
import { createJob, requests, waitForJob } from '../executor/helpers.ts';

// Several passengers with the generic driver, through REST: every flight site (the two built-in ones
// registered with `--driver generic`, and the corpus airlines) holds each traveller of the profile,
// the lead first, with their own passport, as the site itself recorded them.

const LEAD = { first_name: 'Grace', last_name: 'Hopper', email: 'grace@example.com', phone: '+1 202 555 0147', dob: '1976-12-09', passport_number: 'P9876543', passport_country: 'US' };
const OTHERS = [
  { first_name: 'Ada', last_name: 'Lovelace', dob: '2011-12-10', passport_number: 'GB1815121', passport_country: 'GB' },
  { first_name: 'Alan', last_name: 'Turing', dob: '1982-06-23', passport_number: 'AT1912062', passport_country: 'GB' },
];
const BUILT_IN: ProviderId[] = ['skyfare', 'jetdeck'];
const AIRLINES = CORPUS.filter((c) => c.scenario === 'flight').map((c) => c.id);

describe('the generic driver books three passengers on every flight site', { timeout: 10 * 60_000 }, () => {
  let service: TestService;
  let key: string;
  before(async () => {
    service = await startTestService('pglite:memory:', { WORKERS: '2' }, { sandbox: true });
    key = await service.mintKey();
  });
  after(() => service?.close());

  const sites: Array<{ id: string; site: ProviderId | CorpusId; startUrl: () => string }> = [
    ...BUILT_IN.map((site) => ({ id: `generic-${site}`, site, startUrl: () => `${service.sandbox!.origin(site)}/` })),
    ...AIRLINES.map((site) => ({ id: site, site, startUrl: () => `${service.sandbox!.origin(site)}${CORPUS.find((c) => c.id === site)!.startPath}` })),
  ];

  test('there are corpus airlines to book on', () => assert.ok(AIRLINES.length >= 2, AIRLINES.join(', ')));

  for (const { id, site, startUrl } of sites) {
    test(`${id}: paused_payment holding all three travellers with their own passports`, async () => {
      await addProvider(service.services.db, { id, name: `Site ${id}`, scenario: 'flight', startUrl: startUrl(), driver: 'generic', mode: 'test', priority: 500 }, { allowPrivate: true });
      const jobId = await createJob(service, key, { ...requests.flight({ passengers: 3 }, { allowedProviders: [id] }), profile: { ...LEAD, additional_travellers: OTHERS } });
      const paused = await waitForJob(service, key, jobId, { timeoutMs: 180_000 });
      assert.equal(paused.status, 'paused_payment', paused.summary);
      const held = service.sandbox!.passengersHeld().filter((h) => h.provider === site).at(-1);
      assert.ok(held, `${site} holds a booking with passengers`);
      assert.deepEqual(
        held.passengers.map((p) => [p.givenName, p.familyName, p.birthDate, p.passportNumber, p.passportCountry]),
        [LEAD, ...OTHERS].map((t) => [t.first_name, t.last_name, t.dob, t.passport_number, t.passport_country]),
      );
      await service.services.executor.holds.get(jobId)?.cancel();
    });
  }
});
