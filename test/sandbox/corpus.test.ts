/**
 * The development corpus (sandbox/corpus): every site books from its start URL
 * to the payment page and, after the person's code and Pay, to a confirmation
 * the sandbox records; each outcome (no availability, sign-in wall, CAPTCHA)
 * shows; no card code reaches a server before Pay. One shared Chromium, with
 * WebMCP on.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { CORPUS, CORPUS_IDS, PROVIDERS, startSandbox, type CorpusSite, type Sandbox } from '../../sandbox/index.ts';
import { payOnSite, walkToPayment, type Outcome, type Traveller, type WalkRequest } from '../helpers/corpus-walk.ts';
import { launchChromium } from '../helpers/chromium.ts';
import { until } from '../helpers/wait.ts';
import { rawRequest } from './drivers.ts';

const day = (offset: number) => new Date(Date.now() + offset * 86_400_000).toISOString().slice(0, 10);
const D = day(40);

function request(site: CorpusSite, venue: string): WalkRequest {
  switch (site.scenario) {
    case 'restaurant': return { scenario: 'restaurant', params: { restaurant_name: venue, city: 'Lisbon', date: D, time: '19:30', covers: 3 } };
    case 'hotel': return { scenario: 'hotel', params: { hotel_name: venue, city: 'Porto', checkin: D, checkout: day(43), adults: 3 } };
    // On an airline's own site the words come in a city name.
    case 'flight': return { scenario: 'flight', params: { origin: 'Lisbon', dest: venue === 'Grand Central' ? 'London' : `London ${venue}`, date: D, passengers: 2, cabin_class: 'business' } };
    case 'activity': return { scenario: 'activity', params: { event_name: venue, city: 'Madrid', event_date: D, num_tickets: 3 } };
  }
}

const TRAVELLERS: Traveller[] = [
  { first_name: 'Ada', last_name: 'Lovelace', email: 'ada@example.com', phone: '+44 20 7946 0958', dob: '1985-12-10', passport_number: 'P1234567', passport_country: 'GB' },
  { first_name: 'Charles', last_name: 'Babbage', email: 'charles@example.com', phone: '+44 20 7946 0959', dob: '1979-12-26', passport_number: 'P7654321', passport_country: 'GB' },
];

describe('corpus sites', { timeout: 180_000 }, () => {
  let sandbox: Sandbox;
  let browser: Browser;
  const contexts: BrowserContext[] = [];

  before(async () => {
    sandbox = await startSandbox();
    browser = await launchChromium();
  });
  after(async () => {
    await browser?.close();
    await sandbox?.close();
  });

  async function newPage(): Promise<Page> {
    const context = await browser.newContext();
    context.setDefaultTimeout(10_000);
    context.setDefaultNavigationTimeout(10_000);
    contexts.push(context);
    return context.newPage();
  }
  const codesAt = (id: string) => sandbox.cardCodesReceived().filter((r) => r.host.replace(/:\d+$/, '').endsWith(`${id}.localhost`));

  test('eight sites, every scenario twice, ids apart from the built-in eight', () => {
    assert.deepEqual(CORPUS.map((s) => s.id), [...CORPUS_IDS]);
    for (const scenario of ['restaurant', 'hotel', 'flight', 'activity']) assert.equal(CORPUS.filter((s) => s.scenario === scenario).length, 2, scenario);
    const builtIn = new Set<string>(PROVIDERS.map((p) => p.id));
    for (const s of CORPUS) assert.ok(!builtIn.has(s.id), s.id);
  });

  for (const site of CORPUS) {
    test(`${site.id}: books to the payment page; the code reaches the site only at Pay; the confirmation is recorded`, async () => {
      const page = await newPage();
      const outcome = await walkToPayment(page, site, sandbox.origin(site.id), request(site, 'Grand Central'), TRAVELLERS);
      assert.equal(outcome, 'payment');
      assert.deepEqual(codesAt(site.id), [], 'no card code before Pay');
      // The payment page as a person (or a screen reader) sees it: the card on file, and one field named as the card's code.
      const shown = await page.locator('body').innerText();
      assert.match(shown, /(•••• |ending in |ending )\d{4}/);
      assert.match(shown, site.scenario === 'flight' ? /Lisbon/ : /Grand Central/, 'what is held is named');
      assert.match(shown, /[€$£]\d[\d,]*\.\d\d/, 'and priced');
      const scope = site.id === 'aerolux' ? page.frameLocator('iframe[title="Secure payment"]') : page;
      assert.equal(await scope.getByRole('textbox', { name: /\b(CVC|CVV|CSC)\b|security code/i }).count(), 1);
      assert.ok(!sandbox.confirmations().some((c) => c.provider === site.id), 'nothing confirmed before Pay');
      const code = await payOnSite(page, site, '737');
      assert.ok(code.length >= 6, `confirmation code shown: "${code}"`);
      assert.ok(sandbox.confirmations().some((c) => c.provider === site.id && c.code === code && c.paidWithCard), `recorded ${code}`);
      assert.equal(codesAt(site.id).length, 1, 'exactly the one Pay carried a code');
      if (site.id === 'aerolux') {
        assert.equal(new URL(page.url()).hostname, 'book.aerolux.localhost');
        assert.match(codesAt(site.id)[0]!.host, /^pay\.aerolux\.localhost:/, 'the code went to the payment partner’s origin');
      }
    });
  }

  const OUTCOMES: Array<[string, Outcome]> = [['Sold Out', 'no_availability'], ['Members', 'needs_login'], ['Captcha', 'captcha']];
  for (const site of CORPUS) {
    test(`${site.id}: Sold Out, Members and Captcha stop before any offer`, async () => {
      const page = await newPage();
      for (const [word, expected] of OUTCOMES) {
        assert.equal(await walkToPayment(page, site, sandbox.origin(site.id), request(site, `${word} Bistro`), TRAVELLERS), expected, word);
      }
    });
  }

  test('a wrong or missing card code is refused with a message and confirms nothing', async () => {
    const site = CORPUS.find((s) => s.id === 'tavola')!;
    const page = await newPage();
    assert.equal(await walkToPayment(page, site, sandbox.origin(site.id), request(site, 'Grand Central'), TRAVELLERS), 'payment');
    const before = sandbox.confirmations().length;
    await page.click('button:has-text("deposit")');
    await page.getByRole('alert').filter({ hasText: 'security code' }).waitFor();
    await page.fill('#cvc', '12');
    await page.click('button:has-text("deposit")');
    await page.getByRole('alert').filter({ hasText: '3 or 4 digits' }).waitFor();
    assert.equal(sandbox.confirmations().length, before);
  });

  test('flyhop checks the search form in the browser before sending it', async () => {
    const page = await newPage();
    await page.goto(`${sandbox.origin('flyhop')}/`);
    await page.click('button:has-text("Search")');
    await page.getByRole('alert').filter({ hasText: 'Please select a destination' }).waitFor();
    assert.equal(await page.getAttribute('#to', 'aria-invalid'), 'true');
    assert.equal(new URL(page.url()).pathname, '/');
  });

  test('a corpus site answers on its subdomains; a built-in site still answers only on its own name', async () => {
    const apex = await rawRequest(sandbox.port, `aerolux.localhost:${sandbox.port}`, '/?from=Lisbon');
    assert.equal(apex.status, 301);
    assert.equal(apex.headers.location, `http://www.aerolux.localhost:${sandbox.port}/?from=Lisbon`);
    assert.equal((await rawRequest(sandbox.port, `www.aerolux.localhost:${sandbox.port}`, '/')).status, 200);
    assert.equal((await rawRequest(sandbox.port, `cdn.aerolux.localhost:${sandbox.port}`, '/')).status, 404);
    assert.equal((await rawRequest(sandbox.port, `www.tablebook.localhost:${sandbox.port}`, '/')).status, 404);
    assert.equal((await rawRequest(sandbox.port, `a.b.aerolux.localhost:${sandbox.port}`, '/')).status, 404);
  });

  test('mesa’s JSON API refuses bad input, a full slot, paying before review and after the hold, and confirms nothing', async () => {
    const held = await startSandbox({ holdSeconds: 1 });
    try {
      const api = async (method: string, path: string, body?: unknown) => {
        const r = await rawRequest(held.port, `mesa.localhost:${held.port}`, path, { method, body: body === undefined ? undefined : JSON.stringify(body), headers: { 'content-type': 'application/json' } });
        return { status: r.status, json: JSON.parse(r.body) as Record<string, unknown> };
      };
      const bad = await api('POST', '/api/v2/search', { venue: '', city: 'Lisbon', day: 'tomorrow', time: '19:30', partySize: 2 });
      assert.equal(bad.status, 422);
      assert.deepEqual(Object.keys(bad.json.errors as object).sort(), ['day', 'venue']);
      const busy = await api('POST', '/api/v2/search', { venue: 'Busy Bistro', city: 'Lisbon', day: D, time: '19:30', partySize: 2 });
      assert.equal(busy.status, 200);
      assert.equal((await api('POST', '/api/v2/holds', { searchId: busy.json.searchId, slotId: '1930' })).status, 409, 'the requested time is full');
      assert.equal((await api('POST', '/api/v2/holds', { searchId: 'nope', slotId: '1930' })).status, 404);
      assert.equal((await api('POST', '/api/v2/login', { email: 'a@example.com', password: 'x' })).status, 401);
      const hold = await api('POST', '/api/v2/holds', { searchId: busy.json.searchId, slotId: '2000' });
      assert.equal(hold.status, 201);
      const id = String(hold.json.holdId);
      assert.equal((await api('PUT', `/api/v2/holds/${id}/guest`, { firstName: 'Ada', lastName: 'Lovelace', email: 'not-an-email', phone: '+44 20 7946 0958' })).status, 422);
      assert.equal((await api('PUT', `/api/v2/holds/${id}/guest`, { firstName: 'Ada', lastName: 'Lovelace', email: 'ada@example.com', phone: '+44 20 7946 0958' })).status, 200);
      const early = await api('POST', `/api/v2/holds/${id}/payment`, { cvv: '737' });
      assert.equal(early.status, 422, 'no payment before the review');
      assert.equal((await api('POST', `/api/v2/holds/${id}/review`)).status, 200);
      await until('the hold expires', () => Date.now() > Date.parse(String(hold.json.expiresAt)), 5_000);
      const late = await api('POST', `/api/v2/holds/${id}/payment`, { cvv: '737' });
      assert.equal(late.status, 410);
      assert.match(String(late.json.message), /expired/);
      assert.deepEqual(held.confirmations(), []);
      assert.equal(held.cardCodesReceived().length, 2, 'both codes were seen arriving, neither confirmed anything');
    } finally {
      await held.close();
    }
  });

  test('sign-in walls never let anyone in', async () => {
    const r = await rawRequest(sandbox.port, `tavola.localhost:${sandbox.port}`, '/login', { method: 'POST', body: 'return=%2F&email=a%40example.com&password=x', headers: { 'content-type': 'application/x-www-form-urlencoded' } });
    assert.equal(r.status, 401);
    assert.match(r.body, /role="alert"/);
  });

  test('a search the server refuses comes back with messages on the fields (422)', async () => {
    const r = await rawRequest(sandbox.port, `staybird.localhost:${sandbox.port}`, `/searchresults?dest=Porto&ss=Hotel&checkin=${D}&checkout=${D}&group_adults=2`);
    assert.equal(r.status, 422);
    assert.match(r.body, /Check-out must be after check-in/);
    assert.match(r.body, /aria-invalid="true"/);
  });

  test('innkeep publishes WebMCP tools: a declarative search form, then imperative tools to list and hold rooms', async () => {
    const page = await newPage();
    await page.goto(`${sandbox.origin('innkeep')}/`);
    const home = await page.webmcp.tools();
    assert.deepEqual(home.map((t) => t.name), ['search_rooms']);
    await page.fill('#hotel', 'Grand Central');
    await page.fill('#town', 'Porto');
    await page.fill('#arrive', D);
    await page.fill('#depart', day(42));
    await page.click('button:has-text("Check availability")');
    await page.locator('table').waitFor();
    const tools = await page.webmcp.tools();
    assert.deepEqual(tools.map((t) => t.name).sort(), ['hold_room', 'list_rooms']);
    const listed = JSON.stringify(await page.webmcp.callTool('list_rooms', {}));
    assert.match(listed, /deluxe-king-room/);
    await page.webmcp.callTool('hold_room', { room_id: 'deluxe-king-room' });
    await page.waitForURL(/\/stay\/[^/]+\/guests$/);
    assert.ok((await page.webmcp.tools()).some((t) => t.name === 'enter_guest_details'));
  });

  test('staybird’s cookie wall covers the page until a choice is made', async () => {
    const page = await newPage();
    await page.goto(`${sandbox.origin('staybird')}/`);
    // What a click in the middle of the destination field would land on.
    const hit = () => page.$eval('#dest', (el) => {
      const r = el.getBoundingClientRect();
      const top = document.elementFromPoint(r.x + r.width / 2, r.y + r.height / 2);
      return top === el ? 'field' : top?.closest('#consent') ? 'cookie wall' : String(top?.tagName);
    });
    assert.equal(await hit(), 'cookie wall');
    await page.click('button:has-text("Reject all")');
    assert.equal(await hit(), 'field');
    await page.reload();
    assert.equal(await page.locator('#consent').count(), 0, 'the choice is remembered');
  });
});
