import type { DriverPage, Row } from '../../driver/page.ts';
import type { Availability, Offer } from '../../driver/types.ts';
import { starsOf } from './stars.ts';

// Helpers the drivers share: reading prices and holds as sites print them, filling a form from a
// list of (selector, value) pairs, and telling the usual non-result pages apart.

/**
 * "€1,234.50", "1.234,50 €", "1 234,50 $US" → 1234.5 (the first amount in the text), or undefined.
 * The last separator followed by one or two digits is the decimal one, whichever it is; the others
 * group thousands.
 */
export function amount(text: string | null | undefined): number | undefined {
  const m = /\d[\d.,']*/.exec((text ?? '').replace(/\s/g, ''));
  if (!m) return undefined;
  const n = m[0].replace(/[.,']+$/, '');
  const last = Math.max(n.lastIndexOf('.'), n.lastIndexOf(','));
  if (last >= 0 && n.length - last - 1 <= 2) return Number(`${n.slice(0, last).replace(/[.,']/g, '')}.${n.slice(last + 1)}`);
  return Number(n.replace(/[.,']/g, ''));
}

/** A currency as sites write it beside an amount: a sign, an ISO code, or its name ("240 Euros"). */
const CURRENCY_AFTER = '(?:€|EUR|euros?|USD|US dollars?|GBP|pounds?|CHF|francs?)';
/** An amount as a locale writes it: "1,234.50", "1.234,50", "1 234,50" (a no-break space groups, as Intl writes it), "1234,50". */
const NUMBER = '\\d{1,3}(?:[.,\\u00a0\\u202f]\\d{3})+(?:[.,]\\d{2})?|\\d+(?:[.,]\\d{2})?';

/** The first price-looking run in a text ("€30.00", "$1,020.00", "£12.50", "EUR 240", "240 Euros", "1.234,50 €", "169,00 $US"), as written. */
export function priceIn(text: string | null | undefined): string | undefined {
  const candidates = [
    new RegExp(`(?:US\\$|[€$£])[\\s\\u00a0]?(?:${NUMBER})`, 'u').exec(text ?? ''),
    new RegExp(`\\b(?:EUR|USD|GBP|CHF)[\\s\\u00a0]?(?:${NUMBER})`, 'u').exec(text ?? ''),
    new RegExp(`(?<![\\d.,])(?:${NUMBER})[\\s\\u00a0\\u202f]?(?:US\\$|\\$\\s?US|[€$£]|${CURRENCY_AFTER}(?![\\p{L}]))`, 'iu').exec(text ?? ''),
  ].filter((m): m is RegExpExecArray => m !== null);
  return candidates.sort((a, b) => a.index - b.index)[0]?.[0];
}

/** Reads the provider's own hold deadline (an ISO time in an attribute), if the page states one. */
export async function holdDeadline(page: DriverPage, selector: string, attribute = 'data-hold-expires-at'): Promise<Date | undefined> {
  const iso = await page.attr(selector, attribute);
  const at = iso ? new Date(iso) : null;
  return at && !Number.isNaN(at.getTime()) ? at : undefined;
}

/** Fills each field that has a value (one round trip); optional fields without one are left as the site set them. */
export async function fillAll(page: DriverPage, fields: Array<[string, string | number | undefined]>): Promise<void> {
  await page.fillForm(fields.filter(([, v]) => v !== undefined && v !== '').map(([selector, v]) => [selector, String(v)]));
}

export interface GateSelectors {
  offers: string;
  none: string;
  loginWall: string;
  captcha: string;
}

/** The list of venues the sandbox sites suggest when the one asked for is missing (shared markup). */
const SUGGESTED = '#alt-venues';

/** Opens a suggested venue: its own search, sent by its button. */
export async function chooseSuggested(page: DriverPage, venue: Offer): Promise<void> {
  await page.submit(`${SUGGESTED} li.alt-venue[data-index="${venue.key}"] button.alt-go`, `see the availability at ${venue.label}`);
}

/** What an availability page is: options, an explicit "nothing available", a login wall, a CAPTCHA, or something else. */
export async function gate(page: DriverPage, selectors: GateSelectors, readOffers: () => Promise<Offer[]>): Promise<Availability> {
  const [login, captcha, none, offers, venues] = await page.present([selectors.loginWall, selectors.captcha, selectors.none, selectors.offers, SUGGESTED]);
  if (login) return { kind: 'login_wall', message: (await page.text(`${selectors.loginWall} h1`)) ?? 'sign-in required' };
  if (captcha) return { kind: 'captcha', message: (await page.text(`${selectors.captcha} h1`)) ?? 'CAPTCHA challenge' };
  if (none) return { kind: 'none', message: (await page.text(selectors.none)) ?? 'no availability' };
  if (venues) {
    const listed = (await page.rows(`${SUGGESTED} li.alt-venue`, { name: 'h2' })).map((r) => {
      const stars = starsOf(r.attrs['data-stars']);
      return {
        key: r.attrs['data-index'] ?? '',
        available: true,
        label: r.attrs['data-venue'] ?? r.cells.name ?? '',
        ...(r.attrs['data-cuisine'] ? { cuisine: r.attrs['data-cuisine'] } : {}),
        ...(r.attrs['data-neighbourhood'] ? { neighborhood: r.attrs['data-neighbourhood'] } : {}),
        ...(stars ? { stars } : {}),
      };
    });
    if (listed.length > 0) return { kind: 'venues', venues: listed, message: (await page.text('#alt-section h1')) ?? 'the venue is not on the site' };
  }
  if (offers) {
    const offers = await readOffers();
    if (offers.length > 0) return { kind: 'offers', offers };
    return { kind: 'unexpected', message: 'the availability page lists no options and says nothing about availability' };
  }
  return { kind: 'unexpected', message: 'the page after the search is not an availability page the driver knows (no options, no "no availability" notice, no sign-in or CAPTCHA)' };
}

/**
 * An option card as the ticket sites write it: its key (in the attribute named) and availability
 * (data-available) on the card, cells `title` and `detail`, and `price`, a text stating the price
 * per ticket.
 */
export function ticketCard(key: string): (row: Row) => Offer {
  return (r) => ({
    key: r.attrs[key] ?? '',
    available: r.attrs['data-available'] === 'true',
    label: r.cells.title ?? '',
    description: r.cells.detail ?? undefined,
    unitPrice: amount(priceIn(r.cells.price)),
    priceText: priceIn(r.cells.price),
  });
}

/** Texts of the elements matching `selector` (validation messages and the like). */
export async function texts(page: DriverPage, selector: string): Promise<string[]> {
  return (await page.rows(selector)).map((r) => r.text).filter(Boolean);
}
