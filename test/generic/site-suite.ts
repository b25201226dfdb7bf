import assert from 'node:assert/strict';
import { after, before } from 'node:test';
import type { AttemptOutcome } from '../../src/executor/attempt.ts';
import { launchBrowser } from '../sandbox/drivers.ts';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import type { RunningSites, SiteBooking } from './fixtures/site-engine.ts';
import { attempt, newContext, type Recorded } from './harness.ts';

// For the suites of restaurant sites on the engine (fixtures/site-engine.ts: the pattern sites, the
// widget gauntlet): the sites and one browser for the suite, and the booking every one of their
// tests makes, to the pause at the card code, paid there by the person, the site's record read back.

export const WANT = { date: '2030-06-10', time: '19:30', party: 3 };

/** The person types a code into the held tab's card field and pays; the site's own record of the booking once it shows "Booked". */
export async function payAndReadBack(page: Page, sites: RunningSites, site: string): Promise<SiteBooking | undefined> {
  await page.locator('input[autocomplete="cc-csc"]').fill('123');
  await Promise.all([page.waitForURL(/\/pay\//), page.locator('form button').last().click()]);
  await page.getByRole('heading', { name: 'Booked' }).waitFor();
  return sites.bookings.find((b) => b.site === site);
}

type Paused = Extract<AttemptOutcome, { kind: 'paused' }> & { events: Recorded[] };

/** Starts the sites and a browser before the suite's tests, closes them after (call inside describe). */
export function sitesSuite<S extends RunningSites>(start: () => Promise<S>): { sites: S; context: BrowserContext } {
  const suite = {} as { sites: S; context: BrowserContext; browser?: Browser };
  before(async () => {
    suite.sites = await start();
    suite.browser = await launchBrowser();
    suite.context = await newContext(suite.browser);
  });
  after(async () => {
    await suite.browser?.close();
    await suite.sites?.close();
  });
  return suite;
}

/**
 * Books `site` for WANT, as `venue`: paused at the card code with no card code sent and no venue
 * switch; `atPause` checks what else the test asks there; then the person pays, and the site's own
 * record must be what was asked. Returns that record.
 */
export async function bookAndPay(suite: { sites: RunningSites; context: BrowserContext }, site: string, venue: string, atPause: (o: Paused) => unknown = () => {}): Promise<SiteBooking> {
  const { sites, context } = suite;
  const codesBefore = sites.cardCodes;
  const provider = { id: site, name: venue, scenario: 'restaurant' as const, startUrl: sites.url(site) };
  const o = await attempt(context, provider, { scenario: 'restaurant', venue, city: 'Porto', date: WANT.date, time: WANT.time, partySize: WANT.party });
  assert.equal(o.kind, 'paused', o.kind === 'failed' ? `${o.failure.kind}: ${o.failure.message}` : '');
  if (o.kind !== 'paused') throw new Error('not paused');
  try {
    assert.equal(sites.cardCodes, codesBefore, 'no card code reached the site');
    assert.equal(o.decisions.switched, undefined, 'no venue switch');
    await atPause(o);
    const booked = await payAndReadBack(o.page, sites, site);
    assert.deepEqual(booked && { date: booked.date, time: booked.time, party: booked.party, name: booked.name, email: booked.email }, { ...WANT, name: 'Ada Lovelace', email: 'ada@example.com' });
    return booked!;
  } finally {
    await o.page.close();
  }
}
