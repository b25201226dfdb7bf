/**
 * Minimal per-provider page drivers used by the sandbox tests. They rely only
 * on the hooks documented in sandbox/README.md, which is the point: if these
 * break, the documentation is wrong.
 */
import assert from 'node:assert/strict';
import http from 'node:http';
import { type Browser, type BrowserContext, type Page, type Response } from 'playwright-core';
import type { ProviderId, Sandbox, Scenario } from '../../sandbox/index.ts';
import { launchChromium } from '../helpers/chromium.ts';

export function launchBrowser(): Promise<Browser> {
  return launchChromium();
}

/**
 * A browser context with the tests' own default limits (launchChromium's: a broken page fails, a
 * loaded machine is waited for). It once set 10 s, too short for a cross-origin frame's submit on a
 * loaded machine (a newcomer's run at load 14, 2026-12-05).
 */
export function newContext(browser: Browser): Promise<BrowserContext> {
  return browser.newContext();
}

/** Upper bound for one describe() block of browser tests (generous: CI machines may be loaded). */
export const SUITE_TIMEOUT = 120_000;

export interface Hooks {
  scenario: Scenario;
  searchSubmit: string;
  /** Option elements, the attribute holding the key (time or id), and how availability is marked. */
  option: { selector: string; key: string; availableAttr: string; availableValue: string | null };
  /** Picks an available option (optionally the one with `key`) and submits. */
  choose: (page: Page, key?: string) => Promise<void>;
  noAvailability: string;
  detailsSubmit: string;
  hold: string;
  reviewContinue: string;
  walkInConfirm: string;
  cardOnFile: string;
  cardOnFileText: string;
  cvcInput: string;
  cvcName: string;
  cvcValue: string;
  pay: string;
  confirmationCode: RegExp;
}

const click = (sel: string) => async (page: Page) => {
  await page.click(sel);
};

export const HOOKS: Record<ProviderId, Hooks> = {
  tablebook: {
    scenario: 'restaurant',
    searchSubmit: '#tb-find-table',
    option: { selector: '#tb-slots button.tb-slot', key: 'data-slot', availableAttr: 'data-available', availableValue: 'true' },
    choose: async (page, key) => click(key ? `button.tb-slot[data-slot="${key}"]` : 'button.tb-slot[data-available="true"] >> nth=0')(page),
    noAvailability: '#tb-no-availability',
    detailsSubmit: '#tb-guest-continue',
    hold: '#tb-hold',
    reviewContinue: '#tb-review-continue',
    walkInConfirm: '#tb-confirm-booking',
    cardOnFile: '#tb-card-on-file',
    cardOnFileText: 'Visa •••• 4242',
    cvcInput: '#tb-cvc',
    cvcName: 'cvc',
    cvcValue: '123',
    pay: '#tb-pay',
    confirmationCode: /^TB-[A-Z2-9]{6}$/,
  },
  dinenow: {
    scenario: 'restaurant',
    searchSubmit: '#dn-search-btn',
    option: { selector: '#dn-times input[name="time_slot"]', key: 'data-time', availableAttr: 'disabled', availableValue: null },
    choose: async (page, key) => {
      await page.check(key ? `input[name="time_slot"][data-time="${key}"]` : 'input[name="time_slot"]:not([disabled]) >> nth=0');
      await page.click('#dn-continue');
    },
    noAvailability: '#dn-empty',
    detailsSubmit: '#dn-details-next',
    hold: '#dn-timer',
    reviewContinue: '#dn-to-payment',
    walkInConfirm: '#dn-confirm',
    cardOnFile: '#dn-saved-card',
    cardOnFileText: 'VISA ending in 4242',
    cvcInput: '#dn-security-code',
    cvcName: 'security_code',
    cvcValue: '321',
    pay: '#dn-pay-now',
    confirmationCode: /^DN-\d{8}$/,
  },
  staysearch: {
    scenario: 'hotel',
    searchSubmit: '#ss-search-submit',
    option: { selector: '#ss-rooms tr.ss-room', key: 'data-room-type', availableAttr: 'data-available', availableValue: 'true' },
    choose: async (page, key) => click(key ? `tr.ss-room[data-room-type="${key}"] button[name="room"]` : 'tr.ss-room[data-available="true"] button[name="room"] >> nth=0')(page),
    noAvailability: '#ss-no-rooms',
    detailsSubmit: '#ss-guest-next',
    hold: '#ss-hold-banner',
    reviewContinue: '#ss-summary-continue',
    walkInConfirm: '#ss-confirm-booking',
    cardOnFile: '#ss-card-on-file',
    cardOnFileText: 'Mastercard •••• 5454',
    cvcInput: '#ss-card-cvc',
    cvcName: 'card_cvc',
    cvcValue: '456',
    pay: '#ss-complete-booking',
    confirmationCode: /^SS-\d{10}$/,
  },
  roomly: {
    scenario: 'hotel',
    searchSubmit: '#rm-check',
    option: { selector: '#rm-room-list article.room-card', key: 'data-room-id', availableAttr: 'data-sold-out', availableValue: 'false' },
    choose: async (page, key) => click(key ? `article.room-card[data-room-id="${key}"] .rm-select` : 'article.room-card[data-sold-out="false"] .rm-select >> nth=0')(page),
    noAvailability: '#rm-nothing',
    detailsSubmit: '#rm-guests-next',
    hold: '#rm-hold',
    reviewContinue: '#rm-go-pay',
    walkInConfirm: '#rm-confirm',
    cardOnFile: '#rm-card',
    cardOnFileText: 'Visa ending 1111',
    cvcInput: '#rm-cvv',
    cvcName: 'cvv',
    cvcValue: '789',
    pay: '#rm-pay',
    confirmationCode: /^RMY-[A-Z]{4}-[A-Z]{4}$/,
  },
  skyfare: {
    scenario: 'flight',
    searchSubmit: '#sf-search-flights',
    option: { selector: '#sf-flights li.sf-flight', key: 'data-departure', availableAttr: 'data-available', availableValue: 'true' },
    choose: async (page, key) => {
      await page.check(key ? `li.sf-flight[data-departure="${key}"] input[name="fare"]` : 'li.sf-flight[data-available="true"] input[name="fare"] >> nth=0');
      await page.click('#sf-continue');
    },
    noAvailability: '#sf-no-flights',
    detailsSubmit: '#sf-passengers-next',
    hold: '#sf-fare-hold',
    reviewContinue: '#sf-to-payment',
    walkInConfirm: '#sf-confirm',
    cardOnFile: '#sf-card-on-file',
    cardOnFileText: 'Visa •••• 4242',
    cvcInput: '#sf-csc',
    cvcName: 'card_security_code',
    cvcValue: '123',
    pay: '#sf-purchase',
    confirmationCode: /^[A-Z2-9]{6}$/,
  },
  jetdeck: {
    scenario: 'flight',
    searchSubmit: '#jd-go',
    option: { selector: '#jd-results tbody tr', key: 'data-dep', availableAttr: 'data-status', availableValue: 'available' },
    choose: async (page, key) => click(key ? `#jd-results tr[data-dep="${key}"] button[name="flight"]` : '#jd-results tr[data-status="available"] button[name="flight"] >> nth=0')(page),
    noAvailability: '#jd-empty',
    detailsSubmit: '#jd-save-travellers',
    hold: '#jd-clock',
    reviewContinue: '#jd-proceed',
    walkInConfirm: '#jd-book',
    cardOnFile: '#jd-card-on-file',
    cardOnFileText: 'American Express ending 1005',
    cvcInput: '#jd-cid',
    cvcName: 'cid',
    cvcValue: '1234',
    pay: '#jd-pay',
    confirmationCode: /^JD-[A-Z2-9]{6}$/,
  },
  tixhub: {
    scenario: 'activity',
    searchSubmit: '#tx-find',
    option: { selector: '#tx-sections label.tx-section', key: 'data-section', availableAttr: 'data-available', availableValue: 'true' },
    choose: async (page, key) => {
      await page.check(key ? `label.tx-section[data-section="${key}"] input[name="section"]` : 'label.tx-section[data-available="true"] input[name="section"] >> nth=0');
      await page.click('#tx-get-tickets');
    },
    noAvailability: '#tx-sold-out',
    detailsSubmit: '#tx-buyer-next',
    hold: '#tx-timer',
    reviewContinue: '#tx-checkout',
    walkInConfirm: '#tx-confirm',
    cardOnFile: '#tx-card-on-file',
    cardOnFileText: 'Mastercard ending in 5100',
    cvcInput: '#tx-csc',
    cvcName: 'csc',
    cvcValue: '555',
    pay: '#tx-place-order',
    confirmationCode: /^TXH-\d{4}-\d{4}$/,
  },
  eventgo: {
    scenario: 'activity',
    searchSubmit: '#eg-search',
    option: { selector: '#eg-ticket-types li', key: 'data-ticket-type', availableAttr: 'data-available', availableValue: 'true' },
    choose: async (page, key) => click(key ? `li[data-ticket-type="${key}"] button[name="ticket_type"]` : '#eg-ticket-types li[data-available="true"] button[name="ticket_type"] >> nth=0')(page),
    noAvailability: '#eg-none',
    detailsSubmit: '#eg-attendee-next',
    hold: '#eg-clock',
    reviewContinue: '#eg-pay-step',
    walkInConfirm: '#eg-confirm',
    cardOnFile: '#eg-card',
    cardOnFileText: 'Visa •••• 4242',
    cvcInput: '#eg-cvc',
    cvcName: 'payment[cvc]',
    cvcValue: '987',
    pay: '#eg-pay-button',
    confirmationCode: /^EG[A-Z2-9]{8}$/,
  },
};

export const DATE = '2031-05-16';

/** Search form values for a scenario; `venue` goes into the behaviour field. */
export function searchValues(scenario: Scenario, venue: string, passengers = 2): Record<string, string> {
  switch (scenario) {
    case 'restaurant': return { restaurant_name: venue, city: 'Lisbon', date: DATE, time: '19:00', party_size: '2' };
    case 'hotel': return { hotel_name: venue, city: 'Porto', check_in: DATE, check_out: '2031-05-19', adults: '2', room_preference: 'king' };
    case 'flight': return { origin: 'Lisbon', destination: 'Berlin', date: DATE, passengers: String(passengers), airline: venue, departure_time: '10:00', cabin: 'economy' };
    case 'activity': return { event_name: venue, city: 'Madrid', event_date: DATE, tickets: '2', seat_type: 'premium' };
  }
}

/** A plain venue name for normal flows (flights: the airline). */
export function normalVenue(scenario: Scenario): string {
  return { restaurant: 'Casa Azul', hotel: 'Hotel Miramar', flight: 'Northwind Airways', activity: 'Fado Night' }[scenario];
}

/** Clicks `selector` and returns the main-frame response the click navigated to (after redirects). */
export async function clickAndNavigate(page: Page, selector: string): Promise<Response> {
  const [resp] = await Promise.all([page.waitForNavigation(), page.click(selector)]);
  if (!resp) throw new Error(`no navigation after clicking ${selector}`);
  return resp;
}

/** Opens the provider's home page, fills the search form by field name and submits it. */
export async function search(page: Page, origin: string, id: ProviderId, values: Record<string, string>): Promise<Response> {
  await page.goto(`${origin}/`);
  await assertLabelled(page);
  for (const [name, value] of Object.entries(values)) {
    const el = page.locator(`[name="${name}"]`);
    if ((await el.evaluate((e) => e.tagName)) === 'SELECT') await el.selectOption(value);
    else await el.fill(value);
  }
  return clickAndNavigate(page, HOOKS[id].searchSubmit);
}

/**
 * Faster search: every home page pre-fills its search form from the query
 * string (same field names), so open it pre-filled and press the provider's
 * search button.
 */
export async function quickSearch(page: Page, origin: string, id: ProviderId, values: Record<string, string>): Promise<Response> {
  await page.goto(`${origin}/?${new URLSearchParams(values).toString()}`);
  return clickAndNavigate(page, HOOKS[id].searchSubmit);
}

export async function listOptions(page: Page, id: ProviderId): Promise<Array<{ key: string; available: boolean }>> {
  const o = HOOKS[id].option;
  return page.$$eval(o.selector, (els, [key, attr, value]) => els.map((e) => ({
    key: e.getAttribute(key as string) ?? '',
    available: value === null ? !e.hasAttribute(attr as string) : e.getAttribute(attr as string) === value,
  })), [o.key, o.availableAttr, o.availableValue] as const);
}

/** Valid guest-details form values (standard field names). */
export function guestForm(scenario: Scenario, passengers = 2): Record<string, string> {
  const v: Record<string, string> = { email: 'ada@example.com', tel: '+44 20 7946 0000' };
  if (scenario === 'flight') {
    for (let n = 1; n <= passengers; n++) {
      Object.assign(v, {
        [`p${n}_given_name`]: 'Ada', [`p${n}_family_name`]: 'Lovelace', [`p${n}_birth_date`]: '1985-12-10',
        [`p${n}_passport_number`]: `X123456${n}`, [`p${n}_passport_country`]: 'GB',
      });
    }
  } else {
    Object.assign(v, { given_name: 'Ada', family_name: 'Lovelace' });
  }
  return v;
}

/** Fills the guest/passenger form with valid data (by standard field names) and submits. */
export async function fillDetails(page: Page, id: ProviderId, passengers = 2): Promise<Response> {
  await assertLabelled(page);
  if (HOOKS[id].scenario === 'flight') {
    for (let n = 1; n <= passengers; n++) {
      await page.fill(`[name="p${n}_given_name"]`, n === 1 ? 'Ada' : 'Charles');
      await page.fill(`[name="p${n}_family_name"]`, n === 1 ? 'Lovelace' : 'Babbage');
      await page.fill(`[name="p${n}_birth_date"]`, n === 1 ? '1985-12-10' : '1981-12-26');
      await page.fill(`[name="p${n}_passport_number"]`, n === 1 ? 'X1234567' : 'Y7654321');
      await page.selectOption(`[name="p${n}_passport_country"]`, 'GB');
    }
  } else {
    await page.fill('input[autocomplete="given-name"]', 'Ada');
    await page.fill('input[autocomplete="family-name"]', 'Lovelace');
    await page.fill('[name="special_requests"]', 'Window seat please');
  }
  await page.fill('input[autocomplete="email"]', 'ada@example.com');
  await page.fill('input[autocomplete="tel"]', '+44 20 7946 0000');
  return clickAndNavigate(page, HOOKS[id].detailsSubmit);
}

/** Walks search -> choose -> details -> review and returns on the review page. */
export async function walkToReview(page: Page, origin: string, id: ProviderId, venue: string, quick = false): Promise<void> {
  // quick mode (behaviour tests): pre-filled search form and a single passenger
  const values = searchValues(HOOKS[id].scenario, venue, quick ? 1 : 2);
  const resp = await (quick ? quickSearch : search)(page, origin, id, values);
  if (resp.status() !== 200) throw new Error(`search answered ${resp.status()}`);
  await Promise.all([page.waitForNavigation(), HOOKS[id].choose(page)]);
  const r = await fillDetails(page, id, quick ? 1 : 2);
  if (r.status() !== 200) throw new Error(`details answered ${r.status()}: ${await page.textContent('body')}`);
}

/** Node-side request with an explicit Host header (Node may not resolve *.localhost). */
export function rawRequest(port: number, host: string, path: string, opts: { method?: string; body?: string | Buffer; headers?: Record<string, string> } = {}): Promise<{ status: number; headers: http.IncomingHttpHeaders; body: string }> {
  return new Promise((resolve, reject) => {
    const req = http.request({ host: '127.0.0.1', port, path, method: opts.method ?? 'GET', headers: { host, ...opts.headers } }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks).toString('utf8') }));
    });
    req.on('error', reject);
    req.setTimeout(5000, () => req.destroy(new Error('timeout')));
    req.end(opts.body);
  });
}

async function assertLabelled(page: Page): Promise<void> {
  const bad = await unlabelledControls(page);
  if (bad.length) throw new Error(`unlabelled form controls on ${page.url()}: ${bad.join(' | ')}`);
}

/** Every visible form control on the page has a <label for> (or is wrapped in a label); returns offenders. */
export async function unlabelledControls(page: Page): Promise<string[]> {
  return page.$$eval('input:not([type="hidden"]):not([type="submit"]):not([type="button"]), select, textarea', (els) => els
    .filter((e) => {
      const id = e.getAttribute('id');
      const forLabel = id ? document.querySelector(`label[for="${CSS.escape(id)}"]`) : null;
      return !forLabel && !e.closest('label');
    })
    .map((e) => e.outerHTML.slice(0, 120)));
}

/**
 * The sandbox keeps of a card code only that one arrived: each receipt is a host, a path, a field
 * name and a time. Its page-chosen parts (path, field) never hold `code`; the host's port and the
 * time are numbers of their own, which may contain any digits by chance.
 */
export function assertNoCodeStored(sandbox: Sandbox, code: string): void {
  for (const receipt of sandbox.cardCodesReceived()) {
    assert.deepEqual(Object.keys(receipt).sort(), ['at', 'field', 'host', 'path']);
    assert.ok(!receipt.path.includes(code) && !receipt.field.includes(code), `the value itself is never stored (${receipt.path} ${receipt.field})`);
  }
}
