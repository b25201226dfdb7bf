/**
 * The reference "physical floor" for the corpus sites (sandbox/corpus): a plain
 * playwright-core walk per site, with selectors of its own, from the start URL
 * to the payment page, then (optionally) typing the card code and paying. It
 * proves each site books, and it is what a benchmark compares the generic
 * driver against. It knows the sites; no driver may.
 */
import type { Locator, Page } from 'playwright-core';
import type { CorpusId, CorpusSite } from '../../sandbox/index.ts';

/** A request in the contract's words (docs/api.md): scenario and params. */
export type WalkRequest =
  | { scenario: 'restaurant'; params: { restaurant_name: string; city: string; date: string; time: string; covers: number } }
  | { scenario: 'hotel'; params: { hotel_name: string; city: string; checkin: string; checkout: string; adults: number } }
  | { scenario: 'flight'; params: { origin: string; dest: string; date: string; passengers: number; cabin_class?: string; targetAirline?: string } }
  | { scenario: 'activity'; params: { event_name: string; city: string; event_date: string; num_tickets: number } };

export interface Traveller {
  first_name: string;
  last_name: string;
  email: string;
  phone: string;
  dob?: string;
  passport_number?: string;
  passport_country?: string;
}

export type Outcome = 'payment' | 'no_availability' | 'needs_login' | 'captcha';

interface SiteWalk {
  /** From the start page to the payment page, or to the outcome that stops it. */
  toPayment(page: Page, start: string, req: WalkRequest, travellers: Traveller[]): Promise<Outcome>;
  /** On the payment page: types the code, pays, returns the site's confirmation code. */
  pay(page: Page, code: string): Promise<string>;
}

/** Waits for the first of several states to show; returns its name. */
async function first<K extends string>(page: Page, states: Record<K, Locator>): Promise<K> {
  const entries = Object.entries(states) as Array<[K, Locator]>;
  let any = entries[0]![1];
  for (const [, l] of entries.slice(1)) any = any.or(l);
  await any.first().waitFor();
  for (const [k, l] of entries) if (await l.first().isVisible()) return k;
  throw new Error(`none of ${entries.map(([k]) => k).join(', ')} is visible on ${page.url()}`);
}

type ParamsOf<S extends WalkRequest['scenario']> = Extract<WalkRequest, { scenario: S }>['params'];
function p<S extends WalkRequest['scenario']>(req: WalkRequest, s: S): ParamsOf<S> {
  if (req.scenario !== s) throw new Error(`this site books ${s}, not ${req.scenario}`);
  return req.params as unknown as ParamsOf<S>;
}

/** The nth traveller, the lead standing in for any not given. */
function nth(travellers: Traveller[], i: number): Traveller {
  const t = travellers[i] ?? travellers[0];
  if (!t) throw new Error('no traveller');
  return t;
}

/** Custom date pickers: page month by month to the date, then press its day button. */
async function pickDate(scope: Page, iso: string): Promise<void> {
  const day = scope.locator(`button.cal-day[data-date="${iso}"]`);
  for (let i = 0; i < 120 && !(await day.isVisible()); i++) {
    const first = await scope.locator('button.cal-day').first().getAttribute('data-date');
    await scope.getByRole('button', { name: first && first > iso ? 'Previous month' : 'Next month' }).click();
  }
  await day.click();
}

async function stepTo(value: () => Promise<number>, minus: Locator, plus: Locator, target: number): Promise<void> {
  for (let i = 0; i < 40; i++) {
    const v = await value();
    if (v === target) return;
    await (v < target ? plus : minus).click();
  }
  throw new Error(`stepper did not reach ${target}`);
}

const text = (l: Locator) => async () => Number((await l.textContent())?.trim());
const inputValue = (l: Locator) => async () => Number(await l.inputValue());

async function codeIn(l: Locator): Promise<string> {
  return ((await l.textContent()) ?? '').trim();
}

const WALKS: Record<CorpusId, SiteWalk> = {
  tavola: {
    async toPayment(page, start, req, [t]) {
      const q = p(req, 'restaurant');
      await page.goto(start);
      await page.fill('#term', q.restaurant_name);
      await page.fill('#metro', q.city);
      await page.click('#date-btn');
      await pickDate(page, q.date);
      await page.selectOption('#time', q.time);
      await page.selectOption('#covers', String(q.covers));
      await page.click('form[role=search] button[type=submit]');
      const s = await first(page, { slots: page.locator('.slots button[name=slot]'), none: page.locator('[role=status]'), login: page.locator('#login-pw'), captcha: page.locator('iframe[title=reCAPTCHA]') });
      if (s !== 'slots') return s === 'none' ? 'no_availability' : s === 'login' ? 'needs_login' : 'captcha';
      await page.click(`.slots button[value="${q.time.replace(':', '')}"]`);
      const g = nth([t!], 0);
      await page.fill('#firstName', g.first_name);
      await page.fill('#lastName', g.last_name);
      await page.fill('#phone', g.phone);
      await page.fill('#email', g.email);
      await page.click('button:has-text("Continue")');
      await page.click('button:has-text("Continue to payment")');
      await page.locator('#cvc').waitFor();
      return 'payment';
    },
    async pay(page, code) {
      await page.fill('#cvc', code);
      await page.click('button:has-text("deposit")');
      return (await page.evaluate(() => JSON.parse(document.querySelector('script[type="application/ld+json"]')?.textContent ?? '{}') as { reservationNumber?: string })).reservationNumber ?? '';
    },
  },
  mesa: {
    async toPayment(page, start, req, [t]) {
      const q = p(req, 'restaurant');
      await page.goto(start);
      await page.fill('#venue', q.restaurant_name);
      await page.fill('#city', q.city);
      await page.fill('#day', q.date);
      await page.fill('#time', q.time);
      await stepTo(text(page.locator('#guests-value')), page.locator('#guests-minus'), page.locator('#guests-plus'), q.covers);
      await page.click('button:has-text("Find a table")');
      const s = await first(page, { slots: page.locator('.slot button'), none: page.locator('[role=status]:has-text("No tables")'), login: page.locator('#login-password'), captcha: page.locator('.cf-turnstile iframe') });
      if (s !== 'slots') return s === 'none' ? 'no_availability' : s === 'login' ? 'needs_login' : 'captcha';
      await page.click(`.slot button[data-slot="${q.time.replace(':', '')}"]`);
      const g = nth([t!], 0);
      const d = page.locator('dialog[open]');
      await d.locator('#firstName').fill(g.first_name);
      await d.locator('#lastName').fill(g.last_name);
      await d.locator('#email').fill(g.email);
      await d.locator('#phone').fill(g.phone);
      await d.locator('button[type=submit]').click();
      await page.click('#to-payment');
      await page.locator('#cvv').waitFor();
      return 'payment';
    },
    async pay(page, code) {
      await page.fill('#cvv', code);
      await page.click('#pay button[type=submit]');
      return codeIn(page.locator('p:has-text("Booking reference") strong'));
    },
  },
  staybird: {
    async toPayment(page, start, req, [t]) {
      const q = p(req, 'hotel');
      await page.goto(start);
      if (await page.locator('#consent').isVisible()) await page.click('#consent button:has-text("Reject all")');
      await page.fill('#dest', q.city);
      await page.fill('#ss', q.hotel_name);
      await page.fill('#checkin', q.checkin);
      await page.fill('#checkout', q.checkout);
      await page.click('#occ-btn');
      await stepTo(text(page.locator('#group_adults-value')), page.getByRole('button', { name: 'Decrease number of Adults' }), page.getByRole('button', { name: 'Increase number of Adults' }), q.adults);
      await page.click('#occ-done');
      await page.click('form[role=search] button[type=submit]');
      const s = await first(page, { rooms: page.locator('article.card button'), none: page.locator('[role=alert]:has-text("No availability")'), login: page.locator('#password'), captcha: page.locator('.h-captcha iframe') });
      if (s !== 'rooms') return s === 'none' ? 'no_availability' : s === 'login' ? 'needs_login' : 'captcha';
      await page.locator('article.card button').first().click();
      const g = nth([t!], 0);
      await page.fill('#firstname', g.first_name);
      await page.fill('#lastname', g.last_name);
      await page.fill('#email', g.email);
      await page.fill('#phone', g.phone);
      await page.click('button:has-text("Next: Final details")');
      await page.click('button:has-text("Next: Payment")');
      await page.locator('#cvc').waitFor();
      return 'payment';
    },
    async pay(page, code) {
      await page.fill('#cvc', code);
      await page.click('button:has-text("Complete booking")');
      return (await page.evaluate(() => JSON.parse(document.querySelector('script[type="application/ld+json"]')?.textContent ?? '{}') as { reservationId?: string })).reservationId ?? '';
    },
  },
  innkeep: {
    async toPayment(page, start, req, [t]) {
      const q = p(req, 'hotel');
      await page.goto(start);
      await page.fill('#hotel', q.hotel_name);
      await page.fill('#town', q.city);
      await page.fill('#arrive', q.checkin);
      await page.fill('#depart', q.checkout);
      await page.selectOption('#guests', String(q.adults));
      await page.click('button:has-text("Check availability")');
      const s = await first(page, { rooms: page.locator('tbody button[name=room]'), none: page.locator('[role=status]'), login: page.locator('#pin'), captcha: page.locator('.h-captcha iframe') });
      if (s !== 'rooms') return s === 'none' ? 'no_availability' : s === 'login' ? 'needs_login' : 'captcha';
      await page.locator('tbody button[name=room]').first().click();
      const g = nth([t!], 0);
      await page.fill('#guest_given', g.first_name);
      await page.fill('#guest_family', g.last_name);
      await page.fill('#guest_email', g.email);
      await page.fill('#guest_phone', g.phone);
      await page.click('#guest-form button[type=submit]');
      await page.click('button:has-text("Proceed to payment")');
      await page.locator('#securityCode').waitFor();
      return 'payment';
    },
    async pay(page, code) {
      await page.fill('#securityCode', code);
      await page.click('button:has-text("Pay and confirm")');
      return codeIn(page.locator('p:has-text("Confirmation number") strong'));
    },
  },
  aerolux: {
    async toPayment(page, start, req, travellers) {
      const q = p(req, 'flight');
      await page.goto(start);
      await page.fill('#from', q.origin);
      await page.fill('#to', q.dest);
      await page.fill('#depart', q.date);
      await page.selectOption('#adults', String(q.passengers));
      if (q.cabin_class) await page.selectOption('#cabin', q.cabin_class);
      await page.click('button:has-text("Search flights")');
      const s = await first(page, { flights: page.locator('tbody button[name=flight]'), none: page.locator('[role=alert]:has-text("No flights")'), login: page.locator('#club-pw'), captcha: page.locator('iframe[title=reCAPTCHA]') });
      if (s !== 'flights') return s === 'none' ? 'no_availability' : s === 'login' ? 'needs_login' : 'captcha';
      await page.locator('tbody button[name=flight]').first().click();
      for (let n = 1; n <= q.passengers; n++) {
        const g = nth(travellers, n - 1);
        const [y, mo, d] = (g.dob ?? '1990-01-01').split('-');
        await page.fill(`#pax${n}_first`, g.first_name);
        await page.fill(`#pax${n}_last`, g.last_name);
        await page.selectOption(`#pax${n}_dob_day`, d!);
        await page.selectOption(`#pax${n}_dob_month`, mo!);
        await page.selectOption(`#pax${n}_dob_year`, y!);
        await page.selectOption(`#pax${n}_nationality`, g.passport_country ?? 'GB');
        await page.fill(`#pax${n}_passport`, g.passport_number ?? '');
        await page.selectOption(`#pax${n}_issuer`, g.passport_country ?? '');
      }
      await page.fill('#contact_email', nth(travellers, 0).email);
      await page.fill('#contact_mobile', nth(travellers, 0).phone);
      await page.click('button:has-text("Continue")');
      await page.click('button:has-text("Continue to payment")');
      await page.frameLocator('iframe[title="Secure payment"]').locator('#cvc').waitFor();
      return 'payment';
    },
    async pay(page, code) {
      const frame = page.frameLocator('iframe[title="Secure payment"]');
      await frame.locator('#cvc').fill(code);
      await frame.locator('button[type=submit]').click();
      return codeIn(page.locator('p:has-text("Booking reference") strong'));
    },
  },
  flyhop: {
    async toPayment(page, start, req, travellers) {
      const q = p(req, 'flight');
      await page.goto(start);
      await page.fill('#from', q.origin);
      await page.fill('#to', q.dest);
      await page.fill('#date', q.date);
      await stepTo(inputValue(page.locator('#travelers')), page.getByRole('button', { name: 'Decrease adults' }), page.getByRole('button', { name: 'Increase adults' }), q.passengers);
      if (q.cabin_class) await page.selectOption('#cabin', q.cabin_class);
      if (q.targetAirline) await page.fill('#airline', q.targetAirline);
      await page.click('button:has-text("Search")');
      const s = await first(page, { flights: page.locator('input[name=offer]:not([disabled])'), none: page.locator('[role=status]:has-text("no flights")'), login: page.locator('#si-pw'), captcha: page.locator('#px-hold') });
      if (s !== 'flights') return s === 'none' ? 'no_availability' : s === 'login' ? 'needs_login' : 'captcha';
      await page.locator('input[name=offer]:not([disabled])').first().check();
      await page.click('#pick button[type=submit]');
      await page.click('dialog[open] button:has-text("Keep my fare")');
      for (let n = 1; n <= q.passengers; n++) {
        const g = nth(travellers, n - 1);
        await page.fill(`#traveler${n}_first`, g.first_name);
        await page.fill(`#traveler${n}_last`, g.last_name);
        await page.fill(`#traveler${n}_dob`, g.dob ?? '');
        await page.fill(`#traveler${n}_passport`, g.passport_number ?? '');
        await page.selectOption(`#traveler${n}_country`, g.passport_country ?? '');
      }
      const lead = nth(travellers, 0);
      await page.fill('#email', lead.email);
      const cc = /^\+(1|44|33|49|34|351|61)\s*(.*)$/.exec(lead.phone);
      if (cc) await page.selectOption('#phone_cc', cc[1]!);
      await page.fill('#phone', cc ? cc[2]! : lead.phone);
      await page.click('button:has-text("Continue")');
      await page.click('button:has-text("Continue to checkout")');
      await page.locator('#cardCvv').waitFor();
      return 'payment';
    },
    async pay(page, code) {
      await page.fill('#cardCvv', code);
      await page.click('button:has-text("Complete booking")');
      return codeIn(page.locator('[itemprop=reservationNumber]'));
    },
  },
  tickety: {
    async toPayment(page, start, req, [t]) {
      const q = p(req, 'activity');
      await page.goto(start);
      await page.getByLabel('Search for artists, venues and events').fill(q.event_name);
      await page.getByLabel('City or zip code').fill(q.city);
      await page.getByLabel('Date', { exact: true }).fill(q.event_date);
      await page.click('form[role=search] button');
      await page.click('a:has-text("Find tickets")');
      const s = await first(page, { types: page.locator('input[name=ticket_type]'), none: page.locator('[role=alert]:has-text("no tickets")'), login: page.locator('#password'), captcha: page.locator('#human') });
      if (s !== 'types') return s === 'none' ? 'no_availability' : s === 'login' ? 'needs_login' : 'captcha';
      await page.locator('input[name=ticket_type]:not([disabled])').first().check();
      await stepTo(text(page.locator('#qty-v')), page.getByRole('button', { name: 'Remove a ticket' }), page.getByRole('button', { name: 'Add a ticket' }), q.num_tickets);
      await page.click('button:has-text("Get tickets")');
      const g = nth([t!], 0);
      await page.fill('#first', g.first_name);
      await page.fill('#last', g.last_name);
      await page.fill('#email', g.email);
      await page.fill('#email_confirm', g.email);
      await page.fill('#mobile', g.phone);
      await page.click('button:has-text("Next")');
      await page.click('button:has-text("Continue to payment")');
      await page.locator('#payment_csc').waitFor();
      return 'payment';
    },
    async pay(page, code) {
      await page.fill('#payment_csc', code);
      await page.click('button:has-text("Place order")');
      return codeIn(page.locator('p:has-text("Order #") strong'));
    },
  },
  wanderly: {
    async toPayment(page, start, req, [t]) {
      const q = p(req, 'activity');
      await page.goto(start);
      if (await page.locator('#cookie-banner').isVisible()) await page.click('#cookie-banner button:has-text("Necessary only")');
      await page.fill('#location', q.city);
      await page.fill('#activity', q.event_name);
      await page.click('form[role=search] button');
      await page.getByRole('link', { name: q.event_name, exact: true }).click();
      await stepTo(text(page.locator('#adults-v')), page.getByRole('button', { name: 'Decrease Adults' }), page.getByRole('button', { name: 'Increase Adults' }), q.num_tickets);
      await pickDate(page, q.event_date);
      await page.click('button:has-text("Check availability")');
      const s = await first(page, { options: page.locator('#options button[name=option]'), none: page.locator('#options [role=alert]'), login: page.locator('#lg-pw'), captcha: page.locator('.cf-turnstile iframe') });
      if (s !== 'options') return s === 'none' ? 'no_availability' : s === 'login' ? 'needs_login' : 'captcha';
      await page.locator('#options button[name=option]').first().click();
      const g = nth([t!], 0);
      await page.fill('#fullname', `${g.first_name} ${g.last_name}`);
      await page.fill('#email', g.email);
      await page.fill('#phone', g.phone);
      await page.click('button:has-text("Go to review")');
      await page.click('button:has-text("Continue to payment")');
      await page.locator('#cvv2').waitFor();
      return 'payment';
    },
    async pay(page, code) {
      await page.fill('#cvv2', code);
      await page.click('button:has-text("Pay now")');
      return codeIn(page.locator('p:has-text("Booking reference") strong'));
    },
  },
};

/** Books on a corpus site from its start URL to the payment page (or the outcome that stops it). */
export function walkToPayment(page: Page, site: CorpusSite, origin: string, req: WalkRequest, travellers: Traveller[]): Promise<Outcome> {
  return WALKS[site.id].toPayment(page, `${origin}${site.startPath}`, req, travellers);
}

/** On a corpus site's payment page: types the card code like the person would, pays, returns the confirmation code. */
export function payOnSite(page: Page, site: CorpusSite, code: string): Promise<string> {
  return WALKS[site.id].pay(page, code);
}

