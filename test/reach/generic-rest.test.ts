import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { Browser, ElementHandle, Page } from 'playwright-core';
import { addProvider } from '../../src/providers/store.ts';
import type { Scenario } from '../../src/jobs/types.ts';
import { CORPUS, type CorpusId, type ProviderId } from '../../sandbox/index.ts';
import { startTestService, type TestService } from '../helpers/service.ts';
import { until } from '../helpers/wait.ts';
import { createJob, requests, venue, waitForJob } from '../executor/helpers.ts';
import { launchChromium, waitForLiveFrames } from '../handoff/browsers.ts';
import { startedTogether } from '../helpers/together.ts';
import { startPatternSites, type PatternSites } from '../generic/fixtures/patterns.ts';

// Booking reach, end to end as a new provider would meet it: a site registered with
// `--driver generic` (here through the store the CLI uses), booked over REST, paused at the card
// code with what is held in the summary, paid by the person on the handoff page's live view, and
// completed with the site's own confirmation code. No card code reaches the site before the person
// types it (asserted on the site's side).

// What the generic driver books end to end: the eight built-in sites and the eight corpus sites.
// The executor has already compared the date, time and number held with the request before the
// pause; the summary must also say the price. Mesa's "Continue to payment" is a script POST with no
// body (fetch(url, { method: 'POST' })): the network layer lets a body-less request through, since
// streamed bodies (which the interception cannot see either) are refused in the page instead
// (src/executor/guard/unseen-script.ts).
const BUILT_IN: Array<[ProviderId, Scenario]> = [
  ['tablebook', 'restaurant'], ['dinenow', 'restaurant'], ['staysearch', 'hotel'], ['roomly', 'hotel'],
  ['skyfare', 'flight'], ['jetdeck', 'flight'], ['tixhub', 'activity'], ['eventgo', 'activity'],
];
const CORPUS_BOOKED: CorpusId[] = ['tavola', 'staybird', 'mesa', 'innkeep', 'aerolux', 'flyhop', 'tickety', 'wanderly'];

/** The held tab's input that has focus (the executor focuses the card-code field at the pause), in any frame. */
async function focusedField(tab: Page): Promise<ElementHandle> {
  for (const frame of tab.frames()) {
    const handle = await frame.evaluateHandle(() => {
      const active = document.activeElement;
      return active instanceof HTMLInputElement ? active : null;
    }).catch(() => null);
    const element = handle?.asElement();
    if (element) return element as ElementHandle;
  }
  throw new Error('no input has focus in the held tab');
}

/** The person clicks the card-code field on the live view, types a code and presses Enter; `then` runs while the page is still open. */
async function payOnHandoff(browser: Browser, handoffUrl: string, tab: Page, code: string, then: () => Promise<void>): Promise<void> {
  const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
  try {
    const page = await context.newPage();
    assert.equal((await page.goto(handoffUrl))?.status(), 200);
    await waitForLiveFrames(page, tab);
    const field = await focusedField(tab);
    const box = await field.boundingBox();
    assert.ok(box, 'the card-code field is on screen in the held tab');
    const canvas = (await page.locator('[data-live-view] canvas').boundingBox())!;
    const [w, h] = ((await page.getAttribute('[data-live-view]', 'data-frame-size')) ?? '0x0').split('x').map(Number) as [number, number];
    await page.mouse.click(canvas.x + ((box.x + box.width / 2) * canvas.width) / w, canvas.y + ((box.y + box.height / 2) * canvas.height) / h);
    await until('the card-code field has focus', () => field.evaluate((e) => e === e.ownerDocument?.activeElement), 10_000);
    await page.keyboard.type(code, { delay: 20 });
    await until('the code is in the field', () => field.evaluate((e, c) => (e as HTMLInputElement).value === c, code), 10_000);
    await page.keyboard.press('Enter');
    await then();
  } finally {
    await context.close();
  }
}

describe('the generic driver, registered and booked through REST, paid on the handoff page', { timeout: 30 * 60_000 }, () => {
  let service: TestService;
  let key: string;
  let person: Browser;
  let patterns: PatternSites;
  before(async () => {
    [service, person, patterns] = await startedTogether([startTestService('pglite:memory:', { WORKERS: '2' }, { sandbox: true }), launchChromium(), startPatternSites()]);
    key = await service.mintKey();
  });
  after(async () => {
    await person?.close();
    await service?.close();
    await patterns?.close();
  });

  test('a site that takes requests: completed, no confirmation code, no handoff, a summary that says nothing is booked yet', async () => {
    await addProvider(service.services.db, { id: 'pedido', name: 'Casa Pedido', scenario: 'restaurant', startUrl: patterns.url('pedido'), driver: 'generic', mode: 'test', priority: 500 }, { allowPrivate: true });
    const jobId = await createJob(service, key, requests.restaurant({ restaurant_name: 'Casa Pedido', city: 'Porto', covers: 3 }, { allowedProviders: ['pedido'] }));
    const done = await waitForJob(service, key, jobId, { until: ['completed', 'error', 'no_availability'], timeoutMs: 240_000 });
    assert.equal(done.status, 'completed', done.summary);
    assert.equal(done.confirmationCode ?? null, null);
    assert.equal(done.handoffUrl, null);
    assert.match(done.summary, /^Reservation request sent to Casa Pedido for .*; nothing is booked yet\. The site says: "Request for reservation sent\. Thank you, .* will confirm your table for 3 on .* by email within 24 hours\." It will answer at \S+@\S+ itself; no card was asked for\.$/);
    assert.equal(patterns.requests.filter((r) => r.site === 'pedido').length, 1, 'the site received the request once');
    assert.equal(patterns.bookings.some((b) => b.site === 'pedido'), false);
  });

  const sites: Array<{ id: string; scenario: Scenario; startUrl: () => string; site: ProviderId | CorpusId }> = [
    ...BUILT_IN.map(([site, scenario]) => ({ id: `generic-${site}`, scenario, site, startUrl: () => `${service.sandbox!.origin(site)}/` })),
    ...CORPUS_BOOKED.map((site) => {
      const corpus = CORPUS.find((c) => c.id === site)!;
      return { id: site, scenario: corpus.scenario, site, startUrl: () => `${service.sandbox!.origin(site)}${corpus.startPath}` };
    }),
  ];

  for (const { id, scenario, site, startUrl } of sites) {
    test(`${id}: paused_payment with what is held, paid on the handoff page, completed with the site's code`, async () => {
      await addProvider(service.services.db, { id, name: `Site ${id}`, scenario, startUrl: startUrl(), driver: 'generic', mode: 'test', priority: 500 }, { allowPrivate: true });
      const params = scenario === 'flight' ? {} : scenario === 'restaurant' ? { restaurant_name: venue('Casa') } : {};
      const jobId = await createJob(service, key, requests[scenario](params, { allowedProviders: [id] }));
      const paused = await waitForJob(service, key, jobId, { timeoutMs: 240_000 });
      assert.equal(paused.status, 'paused_payment', paused.summary);
      assert.match(paused.summary, new RegExp(`Site ${id}`));
      assert.match(paused.summary, /[€$£]\s?\d/, 'the summary says the price held');
      assert.equal(service.sandbox!.cardCodesReceived().filter((r) => r.host.includes(site)).length, 0, 'no card code reached the site before the person typed one');

      const tab = service.services.executor.holds.get(jobId)?.page;
      assert.ok(tab, 'the executor holds the tab');
      const before = service.sandbox!.confirmations().length;
      let done: any;
      await payOnHandoff(person, paused.handoffUrl, tab, '737', async () => {
        done = await waitForJob(service, key, jobId, { until: ['completed', 'error'], timeoutMs: 60_000 });
      });
      assert.equal(done.status, 'completed', done.summary);
      const confirmation = service.sandbox!.confirmations().slice(before).find((c) => c.provider === site);
      assert.ok(confirmation, 'the site confirmed a booking');
      assert.equal(done.confirmationCode, confirmation.code);
    });
  }
});
