import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { addProvider } from '../../src/providers/store.ts';
import type { ProviderId } from '../../sandbox/index.ts';
import { startTestService, type TestService } from '../helpers/service.ts';
import { createJob, requests, venue, waitForJob } from '../executor/helpers.ts';

// Preferences the generic driver reads from the page itself, through REST: a hotel's star rating
// (stated on the sites as "4-star hotel" or "Rated 4 stars") is a minimum.

const HOTELS: ProviderId[] = ['staysearch', 'roomly'];

describe('the generic driver honours star_rating from what the page states', { timeout: 10 * 60_000 }, () => {
  let service: TestService;
  let key: string;
  before(async () => {
    service = await startTestService('pglite:memory:', { WORKERS: '2' }, { sandbox: true });
    key = await service.mintKey();
    for (const site of HOTELS) {
      await addProvider(service.services.db, { id: `generic-${site}`, name: `Site ${site}`, scenario: 'hotel', startUrl: `${service.sandbox!.origin(site)}/`, driver: 'generic', mode: 'test', priority: 500 }, { allowPrivate: true });
    }
  });
  after(() => service?.close());

  for (const site of HOTELS) {
    test(`generic-${site}: a 5-star property meets star_rating 4; a 2-star one is no_availability naming its rating`, async () => {
      const high = await createJob(service, key, requests.hotel({ hotel_name: venue('5-Star Palace'), star_rating: 4 }, { allowedProviders: [`generic-${site}`] }));
      const paused = await waitForJob(service, key, high, { timeoutMs: 180_000 });
      assert.equal(paused.status, 'paused_payment', paused.summary);
      await service.services.executor.holds.get(high)?.cancel();
      const low = await createJob(service, key, requests.hotel({ hotel_name: venue('2-Star Lodge'), star_rating: 3 }, { allowedProviders: [`generic-${site}`] }));
      const refused = await waitForJob(service, key, low, { timeoutMs: 180_000 });
      assert.equal(refused.status, 'no_availability', refused.summary);
      assert.match(refused.summary, /rated 2 stars, below the star_rating of at least 3 asked/);
    });
  }
});
