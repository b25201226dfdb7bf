import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Browser, BrowserContext } from 'playwright-core';
import { genericDriver } from '../../src/providers/generic/index.ts';
import { until } from '../helpers/wait.ts';
import { launchBrowser, SUITE_TIMEOUT } from '../sandbox/drivers.ts';
import { startSpa, type SpaSite } from './fixtures/spa.ts';
import { attempt, newContext } from './harness.ts';

// The generic driver on a page built from today's habits rather than for it (see fixtures/spa.ts):
// it must answer the consent banner with "reject all", leave the header search and the newsletter
// alone, pick the day in a custom date picker, step the guests up, wait for results rendered after
// fetch, fill the guest details in a modal by autocomplete token, and stop at the card-code field
// that a payment partner's cross-origin iframe holds.

describe('the generic driver on a single-page app', { timeout: SUITE_TIMEOUT }, () => {
  let site: SpaSite;
  let browser: Browser;
  let context: BrowserContext;
  before(async () => {
    site = await startSpa();
    browser = await launchBrowser();
    context = await newContext(browser);
  });
  after(async () => {
    await browser?.close();
    await site?.close();
  });

  test('books to the pause at the iframe card field, then recognises the schema.org Reservation once the person pays', async () => {
    const provider = { id: 'luma', name: 'Luma', scenario: 'restaurant' as const, startUrl: site.url };
    const o = await attempt(context, provider, { scenario: 'restaurant', venue: 'Luma', city: 'Lisbon', date: '2026-12-12', time: '19:30', partySize: 3 });
    assert.equal(o.kind, 'paused', o.kind === 'failed' ? o.failure.message : '');
    if (o.kind !== 'paused') return;
    try {
      assert.equal(site.consent, 'reject', 'the cookie banner was answered with "reject all"');
      assert.deepEqual(site.newsletter, [], 'the newsletter box was left alone');
      assert.deepEqual(site.siteSearches, [], 'the header search box was left alone');
      assert.deepEqual(site.holds.map((h) => [h.date, h.time, h.guests, h.name, h.email]), [['2026-12-12', '19:30', 3, 'Ada Lovelace', 'ada@example.com']]);
      assert.equal(o.field, 'card iframe', 'the guard paused at the card frame');
      assert.match(o.held!.when, /12 December 2026/);
      assert.match(o.held!.when, /19:30/);
      assert.match(o.held!.quantity, /\b3 guests\b/);
      assert.match(o.held!.venue, /Luma/);
      assert.equal(o.payment?.price, '€30.00');
      assert.match(o.payment?.cardOnFile ?? '', /Visa •••• 4242/);
      assert.equal(site.cardCodes, 0, 'no card code reached the site');

      // The person types the code in the partner's frame and pays.
      await o.page.frameLocator('iframe').locator('input').fill('123');
      await o.page.getByRole('button', { name: /^Pay/ }).click();
      await until('the site confirms', () => site.reference !== null, 10_000);
      await o.page.getByRole('heading', { name: 'See you soon' }).waitFor();
      assert.equal(await genericDriver(provider).confirmation(o.guarded), site.reference);
    } finally {
      await o.page.close();
    }
  });
});
