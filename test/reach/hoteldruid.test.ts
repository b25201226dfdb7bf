import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { createServer, type AddressInfo } from 'node:net';
import { after, before, describe, test } from 'node:test';
import type { Browser, BrowserContext } from 'playwright-core';
import { checkNewProvider, insertProvider, providerAddressPolicy } from '../../src/providers/store.ts';
import { attempt, newContext } from '../generic/harness.ts';
import { createJob, requests, waitForJob } from '../executor/helpers.ts';
import { startTestService } from '../helpers/service.ts';
import { launchBrowser, SUITE_TIMEOUT } from '../sandbox/drivers.ts';

// Real booking software nobody here wrote (issue 25): HotelDruid, Debian's hotel property-management
// system, unmodified, set up by scripts/hoteldruid-setup (installed by scripts/ensure-deps) from an
// empty database on a loopback port and booked through its public "Check availability" page. Its
// flow ends in a reservation *request* the hotel answers itself: the attempt completes with the
// site's own words and no code, and HotelDruid received exactly what was asked. Its first try,
// before any tuning, is in docs/reach.md.

/** A port nothing listens on now (a server left behind by a run that was killed must not fail the next one). */
async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

const PORT = process.env.HOTELDRUID_PORT ? Number(process.env.HOTELDRUID_PORT) : await freePort();
const SETUP = new URL('../../scripts/hoteldruid-setup', import.meta.url).pathname;

function setup(...args: string[]): string {
  return execFileSync(SETUP, [...args, String(PORT)], { encoding: 'utf8', timeout: 120_000, stdio: ['ignore', 'pipe', 'pipe'] });
}

/** The reservation requests in HotelDruid's own table, oldest first. */
function received(): Array<Record<string, unknown>> {
  return setup('requests').trim().split('\n').filter(Boolean).map((l) => JSON.parse(l));
}

const ASKED = { checkIn: '2030-06-10', checkOut: '2030-06-12', people: 2, name: 'Ada', surname: 'Lovelace', email: 'ada@example.com' };
const asked = (r: Record<string, unknown> | undefined) => r && { checkIn: r.checkIn, checkOut: r.checkOut, people: r.people, name: r.name, surname: r.surname, email: r.email };

describe('HotelDruid, real hotel software, booked by the generic driver', { timeout: SUITE_TIMEOUT }, () => {
  let startUrl = '';
  let browser: Browser;
  let context: BrowserContext;
  before(async () => {
    const out = setup('--reset');
    startUrl = /^start=(.+)$/m.exec(out)?.[1] ?? '';
    assert.match(startUrl, /^http:\/\/127\.0\.0\.1:\d+\/pages\/availability_tpl\.php$/, out);
    browser = await launchBrowser();
    context = await newContext(browser);
  });
  after(async () => {
    await browser?.close();
    setup('stop');
  });

  test('Hotel Belvedere, Lucca, 10 to 12 June 2030 for 2 adults: a request sent, in HotelDruid\'s words, and received as asked', async () => {
    const provider = { id: 'hoteldruid', name: 'Hotel Belvedere', scenario: 'hotel' as const, startUrl };
    const o = await attempt(context, provider, { scenario: 'hotel', venue: 'Hotel Belvedere', city: 'Lucca', checkIn: '2030-06-10', checkOut: '2030-06-12', adults: 2 });
    assert.equal(o.kind, 'completed', o.kind === 'failed' ? `${o.failure.kind} at ${o.failure.step}: ${o.failure.message}` : o.kind);
    if (o.kind !== 'completed') return;
    assert.equal(o.code, null, 'a request claims no confirmation');
    assert.match(o.requestSent ?? '', /Request for reservation sent/);
    const all = received();
    assert.equal(all.length, 1, JSON.stringify(all));
    assert.deepEqual(asked(all[0]), ASKED);
  });

  test('the same, as an operator runs it: registered as `concierge providers add` does, a job created with an API key over REST, polled to completed', async () => {
    const before = received().length;
    const service = await startTestService('pglite:memory:', { WORKERS: '1' });
    try {
      // The CLI's own path: the address checked under the service's policy, then stored.
      const checked = await checkNewProvider({ id: 'hoteldruid', name: 'Hotel Belvedere', scenario: 'hotel', startUrl, driver: 'generic', mode: 'test', priority: 500 }, providerAddressPolicy(service.config));
      await insertProvider(service.services.db, checked);
      const key = await service.mintKey();
      const jobId = await createJob(service, key, requests.hotel({ hotel_name: 'Hotel Belvedere', city: 'Lucca', checkin: ASKED.checkIn, checkout: ASKED.checkOut, adults: 2 }, { allowedProviders: ['hoteldruid'] }));
      const done = await waitForJob(service, key, jobId, { until: ['completed', 'error', 'no_availability', 'failed'], timeoutMs: 240_000 });
      assert.equal(done.status, 'completed', done.summary);
      assert.equal(done.confirmationCode ?? null, null, 'a request claims no confirmation');
      assert.equal(done.handoffUrl, null, 'nothing for the person to pay');
      assert.match(done.summary, /^Reservation request sent to Hotel Belvedere .*; nothing is booked yet\. The site says: "[^"]*Request for reservation sent[^"]*"/);
      const fresh = received().slice(before);
      assert.equal(fresh.length, 1, JSON.stringify(fresh));
      assert.deepEqual(asked(fresh[0]), ASKED);
    } finally {
      await service.close();
    }
  });
});
