// The physical floor of a booking: a bare playwright-core walk of the same sandbox flow in the same
// Chromium, with no payment guard, no database, no queue and no audit. It fills, presses and waits
// the way the scripted drivers do (fill by selector, click, wait for the next document's
// DOMContentLoaded) and stops at the payment page, where the service pauses. bench/executor.ts
// measures the service against it in the same run.
import type { BrowserContext, Page } from 'playwright-core';

export type FloorScenario = 'restaurant' | 'hotel' | 'flight' | 'activity';

/** The request each walk books, in the REST params' words (bench/executor.ts sends the same). */
export interface FloorRequest {
  restaurant: { restaurant_name: string; city: string; date: string; time: string; covers: number };
  hotel: { hotel_name: string; city: string; checkin: string; checkout: string; adults: number };
  flight: { origin: string; dest: string; date: string; passengers: number; targetAirline?: string; targetDepartureTime?: string };
  activity: { event_name: string; city: string; event_date: string; num_tickets: number };
}

export interface FloorTraveller {
  first_name: string;
  last_name: string;
  email: string;
  phone: string;
  dob?: string;
  passport_number?: string;
  passport_country?: string;
}

/** Presses a control and waits for the document it leads to, as GuardedPage.submit does. */
async function press(page: Page, selector: string): Promise<void> {
  const navigation = page.waitForNavigation({ waitUntil: 'domcontentloaded' });
  await page.click(selector);
  await navigation;
}

async function fill(page: Page, fields: Array<[string, string | number | undefined]>): Promise<void> {
  for (const [selector, value] of fields) if (value !== undefined) await page.fill(selector, String(value));
}

/** Waits for the payment page's card-code field: where the service stops for the person. */
async function atPayment(page: Page, cardField: string): Promise<void> {
  await page.waitForSelector(cardField, { state: 'attached' });
}

type Walk<S extends FloorScenario> = (page: Page, origin: string, request: FloorRequest[S], traveller: FloorTraveller) => Promise<void>;

const walks: { [S in FloorScenario]: Walk<S> } = {
  // TableBook: the first-choice restaurant site.
  async restaurant(page, origin, r, t) {
    await page.goto(`${origin}/`, { waitUntil: 'domcontentloaded' });
    await fill(page, [['#tb-restaurant', r.restaurant_name], ['#tb-city', r.city], ['#tb-date', r.date], ['#tb-time', r.time], ['#tb-party', r.covers]]);
    await press(page, '#tb-find-table');
    const exact = `#tb-slots button.tb-slot[data-slot="${r.time}"][data-available="true"]:not([disabled])`;
    await press(page, (await page.$(exact)) ? exact : '#tb-slots button.tb-slot[data-available="true"]:not([disabled])');
    await fill(page, [['#tb-given-name', t.first_name], ['#tb-family-name', t.last_name], ['#tb-email', t.email], ['#tb-tel', t.phone]]);
    await press(page, '#tb-guest-continue');
    await press(page, '#tb-review-continue');
    await atPayment(page, '#tb-cvc');
  },
  // StaySearch: the first-choice hotel site.
  async hotel(page, origin, r, t) {
    await page.goto(`${origin}/`, { waitUntil: 'domcontentloaded' });
    await fill(page, [['#ss-hotel', r.hotel_name], ['#ss-city', r.city], ['#ss-checkin', r.checkin], ['#ss-checkout', r.checkout], ['#ss-adults', r.adults]]);
    await press(page, '#ss-search-submit');
    await press(page, '#ss-rooms tr.ss-room button[name="room"]:not([disabled])');
    await fill(page, [['#ss-first-name', t.first_name], ['#ss-last-name', t.last_name], ['#ss-email', t.email], ['#ss-phone', t.phone]]);
    await press(page, '#ss-guest-next');
    await press(page, '#ss-summary-continue');
    await atPayment(page, '#ss-card-cvc');
  },
  // SkyFare: the first-choice flight site.
  async flight(page, origin, r, t) {
    await page.goto(`${origin}/`, { waitUntil: 'domcontentloaded' });
    await fill(page, [['#sf-from', r.origin], ['#sf-to', r.dest], ['#sf-date', r.date], ['#sf-pax', r.passengers], ['#sf-airline', r.targetAirline], ['#sf-dep-time', r.targetDepartureTime]]);
    await press(page, '#sf-search-flights');
    await page.check('#sf-flights input[name="fare"]:not([disabled])');
    await press(page, '#sf-continue');
    await fill(page, [['#sf-p1-given', t.first_name], ['#sf-p1-family', t.last_name], ['#sf-p1-dob', t.dob], ['#sf-p1-passport', t.passport_number], ['#sf-email', t.email], ['#sf-phone', t.phone]]);
    if (t.passport_country) await page.selectOption('#sf-p1-country', t.passport_country);
    await press(page, '#sf-passengers-next');
    await press(page, '#sf-to-payment');
    await atPayment(page, '#sf-csc');
  },
  // TixHub: the first-choice activity site.
  async activity(page, origin, r, t) {
    await page.goto(`${origin}/`, { waitUntil: 'domcontentloaded' });
    await fill(page, [['#tx-event', r.event_name], ['#tx-city', r.city], ['#tx-date', r.event_date], ['#tx-qty', r.num_tickets]]);
    await press(page, '#tx-find');
    await page.check('#tx-sections input[name="section"]:not([disabled])');
    await press(page, '#tx-get-tickets');
    await fill(page, [['#tx-first', t.first_name], ['#tx-last', t.last_name], ['#tx-email', t.email], ['#tx-phone', t.phone]]);
    await press(page, '#tx-buyer-next');
    await press(page, '#tx-checkout');
    await atPayment(page, '#tx-csc');
  },
};

/** The first-choice provider the walk of each scenario books on. */
export const FLOOR_PROVIDER: Record<FloorScenario, string> = { restaurant: 'tablebook', hotel: 'staysearch', flight: 'skyfare', activity: 'tixhub' };

/**
 * One walk in a fresh context (as the service opens one per job), to the payment page. Resolves
 * with the open context (the booking stays held there, as the service's hold does) and the time
 * from the context's creation to the payment page.
 */
export async function floorWalk<S extends FloorScenario>(
  newContext: () => Promise<BrowserContext>,
  scenario: S,
  origin: string,
  request: FloorRequest[S],
  traveller: FloorTraveller,
): Promise<{ context: BrowserContext; ms: number }> {
  const started = performance.now();
  const context = await newContext();
  const page = await context.newPage();
  await (walks[scenario] as Walk<S>)(page, origin, request, traveller);
  return { context, ms: performance.now() - started };
}
