import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Browser, BrowserContext } from 'playwright-core';
import type { Scenario } from '../../src/jobs/types.ts';
import { genericDriver } from '../../src/providers/generic/index.ts';
import type { SearchRequest } from '../../src/driver/types.ts';
import { startSandbox, type ProviderId, type Sandbox } from '../../sandbox/index.ts';
import { launchBrowser, SUITE_TIMEOUT } from '../sandbox/drivers.ts';
import { attempt, newContext } from './harness.ts';

// The generic driver on the eight sandbox sites, which were written for their scripted drivers and
// not for it: from the start URL to the pause at the card-code field, with what the site holds read
// back correctly, no card code sent; then the person pays and the confirmation is recognised.

const SITES: Array<[ProviderId, Scenario]> = [
  ['tablebook', 'restaurant'], ['dinenow', 'restaurant'], ['staysearch', 'hotel'], ['roomly', 'hotel'],
  ['skyfare', 'flight'], ['jetdeck', 'flight'], ['tixhub', 'activity'], ['eventgo', 'activity'],
];

function requestFor(scenario: Scenario, venue: string): SearchRequest {
  switch (scenario) {
    case 'restaurant': return { scenario, venue, city: 'Paris', date: '2026-12-12', time: '19:30', partySize: 2 };
    case 'hotel': return { scenario, venue, city: 'Paris', checkIn: '2026-12-12', checkOut: '2026-12-14', adults: 2 };
    case 'flight': return { scenario, origin: 'LHR', destination: 'JFK', date: '2026-12-12', passengers: 1, ...(venue === 'Northwind Airways' ? {} : { airline: venue }) };
    case 'activity': return { scenario, venue, city: 'Paris', date: '2026-12-12', tickets: 2 };
  }
}

const VENUE: Record<Scenario, string> = { restaurant: 'Chez Nous', hotel: 'Hotel Lutetia', flight: 'Northwind Airways', activity: 'Jazz Night' };
const QUANTITY: Record<Scenario, RegExp> = { restaurant: /\b2 guests\b/, hotel: /\b2 adults\b/, flight: /\b1 passenger\b/, activity: /\b2 tickets\b/ };

describe('the generic driver on the eight sandbox sites', { timeout: SUITE_TIMEOUT * 3 }, () => {
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

  for (const [id, scenario] of SITES) {
    test(`${id}: booked to the pause at the card-code field, the hold read back, then paid by the person and confirmed`, async () => {
      const provider = { id, name: id, scenario, startUrl: `${sandbox.origin(id)}/` };
      const outcome = await attempt(context, provider, requestFor(scenario, VENUE[scenario]));
      assert.equal(outcome.kind, 'paused', outcome.kind === 'failed' ? outcome.failure.message : '');
      if (outcome.kind !== 'paused') return;
      try {
        assert.ok(outcome.field, 'the guard stopped at a card-code field');
        assert.ok(outcome.payment?.cardField);
        assert.match(outcome.held!.when, /2026|Dec/);
        assert.match(outcome.held!.quantity, QUANTITY[scenario]);
        if (scenario !== 'flight') assert.match(outcome.held!.venue, new RegExp(VENUE[scenario]));
        assert.match(outcome.held!.price, /[€$£]\s?\d/);
        assert.match(outcome.payment!.cardOnFile ?? '', /\d{4}/);
        assert.ok(outcome.events.some((e) => e.type === 'action_denied'), 'the pause is an action_denied event');
        assert.deepEqual(sandbox.cardCodesReceived().filter((r) => r.host.startsWith(`${id}.`)), [], 'no card code reached the site before the person paid');

        // The person types the code on the held page and pays.
        await outcome.page.locator(outcome.payment!.cardField).fill('123');
        const paymentUrl = outcome.page.url();
        await Promise.all([outcome.page.waitForURL((u) => u.href !== paymentUrl), outcome.page.keyboard.press('Enter')]);
        const code = await genericDriver(provider).confirmation(outcome.guarded);
        const issued = sandbox.confirmations().filter((c) => c.provider === id).at(-1);
        assert.ok(issued, 'the site confirmed');
        assert.equal(code, issued.code);
      } finally {
        await outcome.page.close();
      }
    });
  }
});
