import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Browser, BrowserContext } from 'playwright-core';
import { genericDriver } from '../../src/providers/generic/index.ts';
import { until } from '../helpers/wait.ts';
import { launchBrowser, SUITE_TIMEOUT } from '../sandbox/drivers.ts';
import { startClassic, TYPED, type ClassicSite } from './fixtures/classic.ts';
import { startSpa, type SpaSite } from './fixtures/spa.ts';
import { startStay, STAY_PICKERS } from './fixtures/stays.ts';
import { daysFromNow } from '../helpers/service.ts';
import { attempt, newContext, TRAVELLER } from './harness.ts';

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

describe('the generic driver on a server-rendered site of the older style', { timeout: SUITE_TIMEOUT }, () => {
  let site: ClassicSite;
  let browser: Browser;
  let context: BrowserContext;
  before(async () => {
    site = await startClassic();
    browser = await launchBrowser();
    context = await newContext(browser);
  });
  after(async () => {
    await browser?.close();
    await site?.close();
  });
  const provider = () => ({ id: 'casa', name: 'Casa Hotels', scenario: 'hotel' as const, startUrl: site.url });
  const stay = (venue: string) => ({ scenario: 'hotel' as const, venue, city: 'Porto', checkIn: '2026-12-12', checkOut: '2026-12-14', adults: 2 });

  test('types DD/MM/YYYY dates, picks "2 adults", chooses the cheapest microdata offer, reads "Label: value" lines, pauses at the same-origin card frame', async () => {
    const o = await attempt(context, provider(), stay('Casa Azul'));
    assert.equal(o.kind, 'paused', o.kind === 'failed' ? o.failure.message : '');
    if (o.kind !== 'paused') return;
    try {
      assert.deepEqual(site.searches.at(-1), { hotel: 'Casa Azul', town: 'Porto', ci: '12/12/2026', co: '14/12/2026', ad: 'a2' });
      const chose = o.events.find((e) => e.type === 'step_started' && /Choosing/.test(e.message));
      assert.match(chose?.message ?? '', /Attic Room, twin beds/, 'the cheapest available room, quoted as the page shows it');
      assert.match(o.held!.when, /12 December 2026.*14 December 2026/);
      assert.match(o.held!.quantity, /2 adults/);
      assert.match(o.held!.venue, /Casa Azul/);
      assert.equal(o.held!.price, '€160.00');
      assert.equal(o.field, 'card iframe');
      assert.match(o.payment?.cardOnFile ?? '', /Mastercard ending in 4444/);
      assert.equal(site.cardCodes, 0);

      const frame = o.page.frameLocator('iframe');
      await frame.locator('input').fill('123');
      await frame.getByRole('button').click();
      await until('the card frame saved the code', () => site.cardCodes === 1, 10_000);
      await Promise.all([o.page.waitForURL(/\/done\//), o.page.getByRole('button', { name: /^Pay/ }).click()]);
      assert.equal(await genericDriver(provider()).confirmation(o.guarded), site.confirmations.at(-1));
    } finally {
      await o.page.close();
    }
  });

  test('a search the site keeps sending back is sent once more with its dates as it asks, not again and again; its words are the evidence', async () => {
    const refusing = await startClassic({ ...TYPED, read: () => null });
    try {
      const o = await attempt(context, { ...provider(), startUrl: refusing.url }, stay('Casa Azul'));
      assert.equal(o.kind === 'failed' && o.failure.kind, 'unexpected_page', o.kind === 'failed' ? o.failure.message : o.kind);
      if (o.kind === 'failed') assert.match(o.failure.message, /Please enter the dates as DD\/MM\/YYYY/);
      assert.equal(refusing.searches.length, 2, 'the search, then once with the dates written as the refusal says');
    } finally {
      await refusing.close();
    }
  });

  test('a reCAPTCHA frame is captcha', async () => {
    const o = await attempt(context, provider(), stay('Captcha Inn'));
    assert.equal(o.kind === 'failed' && o.failure.kind, 'captcha', o.kind === 'failed' ? o.failure.message : o.kind);
  });

  test('a role=status notice of no rooms is no_availability, in the page\'s words', async () => {
    const o = await attempt(context, provider(), stay('Full House'));
    assert.equal(o.kind === 'failed' && o.failure.kind, 'no_availability', o.kind === 'failed' ? o.failure.message : o.kind);
    if (o.kind === 'failed') assert.match(o.failure.message, /We have no rooms left for these dates/);
  });

  test('guest details the page refuses end the attempt with its messages (the browser\'s own for a required field left empty)', async () => {
    const o = await attempt(context, provider(), stay('Casa Verde'), { traveller: { ...TRAVELLER, phone: '' } });
    assert.equal(o.kind === 'failed' && o.failure.kind, 'error', o.kind === 'failed' ? o.failure.message : o.kind);
    if (o.kind === 'failed') assert.match(o.failure.message, /did not accept the guest details: Phone: \S/);
  });

  test('guest details the server refuses end the attempt with the site\'s own messages', async () => {
    const o = await attempt(context, provider(), stay('Casa Verde'), { traveller: { ...TRAVELLER, email: 'ada@example' } });
    assert.equal(o.kind === 'failed' && o.failure.kind, 'error', o.kind === 'failed' ? o.failure.message : o.kind);
    if (o.kind === 'failed') assert.match(o.failure.message, /Enter a valid email address/);
  });
});

// The same hotel site with its stay asked through one range picker from npm (fixtures/stays.ts):
// arrival and departure are two clicks in one calendar, not two boxes. First tries in docs/reach.md.
describe('the generic driver on hotel range pickers from npm', { timeout: SUITE_TIMEOUT }, () => {
  let browser: Browser;
  let context: BrowserContext;
  before(async () => {
    browser = await launchBrowser();
    context = await newContext(browser);
  });
  after(async () => {
    await browser?.close();
  });
  // A month and a half ahead: a month away from the one the picker opens on, whatever today is.
  const checkIn = daysFromNow(45);
  const checkOut = daysFromNow(47);

  for (const [id, { library, widget, gap }] of Object.entries(STAY_PICKERS)) {
    test(`${library}: ${widget}`, { todo: gap }, async () => {
      const site = await startStay(id);
      try {
        const provider = { id, name: 'Casa Hotels', scenario: 'hotel' as const, startUrl: site.url };
        const o = await attempt(context, provider, { scenario: 'hotel', venue: 'Casa Azul', city: 'Porto', checkIn, checkOut, adults: 2 });
        assert.equal(o.kind, 'paused', o.kind === 'failed' ? `${o.failure.kind}: ${o.failure.message}` : o.kind);
        if (o.kind !== 'paused') return;
        try {
          assert.deepEqual(STAY_PICKERS[id]!.read(new URLSearchParams(site.searches.at(-1))), { ci: checkIn, co: checkOut }, 'the site was sent the stay asked for');
          assert.equal(site.searches.at(-1)?.ad, 'a2');
          assert.equal(o.held!.price, '€160.00', 'two nights of the cheapest room');
          assert.equal(site.cardCodes, 0);
        } finally {
          await o.page.close();
        }
      } finally {
        await site.close();
      }
    });
  }
});
