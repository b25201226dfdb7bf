import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Browser, BrowserContext } from 'playwright-core';
import { startSandbox, type Sandbox } from '../../sandbox/index.ts';
import { launchBrowser, SUITE_TIMEOUT } from '../sandbox/drivers.ts';
import { attempt, newContext } from './harness.ts';

// What the generic driver makes of pages that are not a booking going well: a CAPTCHA, a sign-in
// wall, "no availability", a page it cannot read (with the evidence), a site that books without a
// card step, and a full time moved within the consent.

describe('the generic driver on outcomes other than the pause', { timeout: SUITE_TIMEOUT * 2 }, () => {
  let sandbox: Sandbox;
  let browser: Browser;
  let context: BrowserContext;
  before(async () => {
    sandbox = await startSandbox();
    browser = await launchBrowser();
    context = await newContext(browser);
  });
  after(async () => {
    await browser?.close();
    await sandbox?.close();
  });

  const restaurant = (venue: string, time = '19:30') => ({ scenario: 'restaurant' as const, venue, city: 'Paris', date: '2026-12-12', time, partySize: 2 });
  const hotel = (venue: string) => ({ scenario: 'hotel' as const, venue, city: 'Paris', checkIn: '2026-12-12', checkOut: '2026-12-14', adults: 2 });
  const tablebook = () => ({ id: 'tablebook', name: 'TableBook', scenario: 'restaurant' as const, startUrl: `${sandbox.origin('tablebook')}/` });
  const staysearch = () => ({ id: 'staysearch', name: 'StaySearch', scenario: 'hotel' as const, startUrl: `${sandbox.origin('staysearch')}/` });

  test('a CAPTCHA ("verify you are human") is captcha', async () => {
    const o = await attempt(context, tablebook(), restaurant('Captcha Bistro'));
    assert.equal(o.kind, 'failed');
    if (o.kind === 'failed') {
      assert.equal(o.failure.kind, 'captcha');
      assert.match(o.failure.message, /verify you are human/i);
    }
  });

  test('a sign-in wall before any offer is login_wall', async () => {
    const o = await attempt(context, staysearch(), hotel('Members Club Hotel'));
    assert.equal(o.kind, 'failed');
    if (o.kind === 'failed') assert.equal(o.failure.kind, 'login_wall', o.failure.message);
  });

  test('an explicit "no availability" is no_availability, quoting the page', async () => {
    const o = await attempt(context, tablebook(), restaurant('Sold Out Grill'));
    assert.equal(o.kind, 'failed');
    if (o.kind === 'failed') {
      assert.equal(o.failure.kind, 'no_availability');
      assert.match(o.failure.message, /no tables available|no availability/i);
    }
  });

  test('a page it cannot read is unexpected_page, with the step, the URL, what it looked for and what it found', async () => {
    const o = await attempt(context, staysearch(), hotel('Broken Hotel'));
    assert.equal(o.kind, 'failed');
    if (o.kind === 'failed') {
      assert.equal(o.failure.kind, 'unexpected_page');
      assert.equal(o.failure.step, 'search');
      assert.match(o.failure.message, /availability step on http:\/\/staysearch\.localhost:\d+\//);
      assert.match(o.failure.message, /looked for options to choose/);
      assert.match(o.failure.message, /found/);
    }
  });

  test('a site that books without a card step completes with its own confirmation code', async () => {
    const o = await attempt(context, tablebook(), restaurant('Walk-in Diner'));
    assert.equal(o.kind, 'completed', o.kind === 'failed' ? o.failure.message : '');
    if (o.kind === 'completed') {
      const issued = sandbox.confirmations().filter((c) => c.provider === 'tablebook').at(-1);
      assert.equal(o.code, issued?.code);
      assert.equal(issued?.paidWithCard, false);
    }
  });

  test('a full time is moved to the nearest free one within the consent, quoting the options', async () => {
    const o = await attempt(context, tablebook(), restaurant('Busy Brasserie', '19:30'));
    assert.equal(o.kind, 'paused', o.kind === 'failed' ? o.failure.message : '');
    if (o.kind === 'paused') {
      assert.ok(o.decisions.adjusted, 'the time was adjusted');
      assert.notEqual(o.decisions.adjusted!.to, '19:30');
      assert.ok(o.events.some((e) => e.type === 'time_adjusted'));
      await o.page.close();
    }
  });
});
