/**
 * The booking core every corpus site shares: searching, holding an option,
 * guest details, review and payment, with the sandbox's deterministic
 * inventory (engine/inventory.ts). Each site owns its URLs, markup, wording
 * and order of steps; this module only decides what happens. Search and
 * booking ids are random and unguessable, so a flow may cross subdomains
 * (www. → book. → pay.) with the id in the URL and no shared cookie.
 */
import { randomCode, shortId } from '../engine/http.ts';
import { detectBehaviour, generateOptions, parseGuest, parseSearch, sisterVenue, venueOf } from '../engine/inventory.ts';
import type { SandboxState } from '../engine/state.ts';
import type { Behaviour, Booking, FormState, Scenario, SearchRecord } from '../engine/types.ts';
import type { CorpusId } from './ids.ts';

/** The outcomes a corpus site acts out, by trigger word in the venue-like field; anything else books normally. */
export type CorpusBehaviour = Extract<Behaviour, 'normal' | 'sold-out' | 'members' | 'captcha' | 'busy' | 'sister'>;

export function corpusBehaviour(venue: string): CorpusBehaviour {
  const b = detectBehaviour(venue);
  return b === 'sold-out' || b === 'members' || b === 'captcha' || b === 'busy' || b === 'sister' ? b : 'normal';
}

export interface CorpusStore {
  searches: Map<string, SearchRecord>;
  bookings: Map<string, Booking>;
}

export interface SiteCtx {
  id: CorpusId;
  scenario: Scenario;
  state: SandboxState;
  store: CorpusStore;
  /** `http://<sub.>id.localhost:<port>` */
  origin(sub?: string): string;
}

export function newStore(): CorpusStore {
  return { searches: new Map(), bookings: new Map() };
}

/** Validates the standard search fields (engine/inventory.ts names) and records the search. */
export function search(ctx: SiteCtx, values: Record<string, string>): { record: SearchRecord; form?: undefined } | { record?: undefined; form: FormState } {
  const { query, state: form } = parseSearch(ctx.scenario, values);
  if (!query) return { form };
  // Flights: an airline's own site has no airline field, so the words may come in a city name as well.
  const behaviour = corpusBehaviour(query.scenario === 'flight' ? [query.airline, query.origin, query.destination].join(' ') : venueOf(query));
  const offered = behaviour === 'sister' ? sisterVenue(query) : query;
  const record: SearchRecord = { id: shortId(), query: offered, behaviour, options: generateOptions(offered, behaviour), createdAt: Date.now() };
  ctx.store.searches.set(record.id, record);
  return { record };
}

export type Gate = 'members' | 'captcha' | 'sold-out' | null;

/** What stands before the offers: a sign-in wall, a CAPTCHA, nothing to offer, or nothing. */
export function gate(s: SearchRecord): Gate {
  if (s.behaviour === 'members' || s.behaviour === 'captcha') return s.behaviour;
  return s.options.some((o) => o.available) ? null : 'sold-out';
}

/** Holds an available option; a string is the message to show instead. */
export function hold(ctx: SiteCtx, s: SearchRecord, optionId: string): Booking | string {
  if (gate(s)) return 'Nothing can be booked for this search.';
  const option = s.options.find((o) => o.id === optionId);
  if (!option) return 'Please choose one of the available options.';
  if (!option.available) return 'Sorry, that option is no longer available. Please choose another.';
  const booking: Booking = { id: shortId(), search: s, option, guest: null, holdExpiresAt: Date.now() + ctx.state.holdSeconds * 1000, reviewed: false, confirmation: null };
  ctx.store.bookings.set(booking.id, booking);
  return booking;
}

/**
 * Guest details. `names` maps the site's own field names to the standard ones
 * (`given_name`, `p1_passport_number`, …); error keys come back in the site's names.
 */
export function guest(b: Booking, form: URLSearchParams, names: Record<string, string> = {}): FormState | null {
  const standard = new URLSearchParams();
  for (const [k, v] of form) standard.append(names[k] ?? k, v);
  const { guest: g, state } = parseGuest(b.search.query, standard, new Date().toISOString().slice(0, 10));
  if (g) {
    b.guest = g;
    return null;
  }
  const back = Object.fromEntries(Object.entries(names).map(([site, std]) => [std, site]));
  const errors: Record<string, string> = {};
  for (const [k, e] of Object.entries(state.errors)) errors[back[k] ?? k] = e;
  const values: Record<string, string> = {};
  for (const [k, v] of form) values[k] = v;
  return { values, errors };
}

export function expired(b: Booking): boolean {
  return Date.now() >= b.holdExpiresAt;
}

export function minutesLeft(b: Booking): number {
  return Math.max(0, Math.ceil((b.holdExpiresAt - Date.now()) / 60_000));
}

/**
 * Pays with the security code the person typed: the only way to a
 * confirmation. Returns the message to show when it is refused.
 */
export function pay(ctx: SiteCtx, b: Booking, code: string, makeCode: () => string): string | null {
  if (b.confirmation) return null;
  if (!b.guest || !b.reviewed) return 'Please review your booking first.';
  if (expired(b)) return 'Your hold has expired. Nothing was charged; please search again.';
  const c = code.trim();
  if (c === '') return 'Enter your card\u2019s security code.';
  if (!/^\d{3,4}$/.test(c)) return 'The security code must be 3 or 4 digits.';
  const confirmation = makeCode();
  b.confirmation = { code: confirmation, paidWithCard: true, at: new Date() };
  ctx.state.confirmations.push({ provider: ctx.id, code: confirmation, paidWithCard: true });
  return null;
}

export const code = {
  letters: (n: number) => randomCode(n),
  digits: (n: number) => randomCode(n, '0123456789'),
};
