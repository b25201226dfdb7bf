import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { addProvider } from '../../src/providers/store.ts';
import { CORPUS, type CorpusId, type ProviderId } from '../../sandbox/index.ts';
import { startTestService, type TestService } from '../helpers/service.ts';
import { createJob, requests, waitForJob } from '../executor/helpers.ts';
import { datesIn } from '../../src/driver/text.ts';

// Flights with the generic driver, through REST, on every flight site (the two built-in ones
// registered with `--driver generic`, and the corpus airlines): several passengers, each held with
// their own passport as the site itself recorded them, the lead first; and round trips, held as one
// return fare where the site sells them and refused in words where it sells one-way fares only.

const LEAD = { first_name: 'Grace', last_name: 'Hopper', email: 'grace@example.com', phone: '+1 202 555 0147', dob: '1976-12-09', passport_number: 'P9876543', passport_country: 'US' };
const OTHERS = [
  { first_name: 'Ada', last_name: 'Lovelace', dob: '2011-12-10', passport_number: 'GB1815121', passport_country: 'GB' },
  { first_name: 'Alan', last_name: 'Turing', dob: '1982-06-23', passport_number: 'AT1912062', passport_country: 'GB' },
];
const BUILT_IN: ProviderId[] = ['skyfare', 'jetdeck'];
const AIRLINES = CORPUS.filter((c) => c.scenario === 'flight').map((c) => c.id);

describe('the generic driver books flights: several passengers, round trips', { timeout: 10 * 60_000 }, () => {
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

  before(async () => {
    for (const { id, startUrl } of sites) await addProvider(service.services.db, { id, name: `Site ${id}`, scenario: 'flight', startUrl: startUrl(), driver: 'generic', mode: 'test', priority: 500 }, { allowPrivate: true });
  });

  for (const { id, site } of sites) {
    test(`${id}: paused_payment holding all three travellers with their own passports`, async () => {
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

  const out = requests.flight().request.params.date as string;
  const back = new Date(Date.parse(`${out}T00:00:00Z`) + 4 * 86400_000).toISOString().slice(0, 10);
  for (const id of BUILT_IN.map((site) => `generic-${site}`)) {
    test(`${id}: a round trip is held as one return fare, the way out and the way back in the summary`, async () => {
      const jobId = await createJob(service, key, requests.flight({ return_date: back }, { allowedProviders: [id] }));
      const paused = await waitForJob(service, key, jobId, { timeoutMs: 180_000 });
      assert.equal(paused.status, 'paused_payment', paused.summary);
      assert.deepEqual([...new Set(datesIn(paused.summary).filter((d) => d === out || d === back))], [out, back], paused.summary);
      await service.services.executor.holds.get(jobId)?.cancel();
    });
  }

  test('a site whose search asks for no return date sells one-way fares: a round trip there is no_availability, said in words', async () => {
    const site = AIRLINES[0]!;
    const heldBefore = service.sandbox!.passengersHeld().filter((h) => h.provider === site).length;
    const jobId = await createJob(service, key, requests.flight({ return_date: back }, { allowedProviders: [site] }));
    const done = await waitForJob(service, key, jobId, { timeoutMs: 180_000 });
    assert.equal(done.status, 'no_availability', done.summary);
    assert.match(done.summary, /sells no return fares \(its search form asks for no return date\), and the trip asked for is a return on \d{4}-\d{2}-\d{2}/);
    assert.equal(service.sandbox!.passengersHeld().filter((h) => h.provider === site).length, heldBefore, 'nothing was held there');
  });
});
