import { datesIn, timesIn } from '../../../driver/text.ts';
import { starsIn, starsOf } from '../../shared/stars.ts';
import { amount, priceIn } from '../../shared/pages.ts';
import type { Offer } from '../../../driver/types.ts';
import type { ControlInfo, FieldInfo, Snapshot } from './snapshot.ts';
import { either } from './words.ts';

// Offers on an availability page, read as a person sees them: a group of like items (radio inputs,
// buttons, cards, list items, table rows) under one parent, each with the control that chooses it;
// sibling items without a control (a sold-out row) are offers too, unavailable. schema.org Offer
// data (JSON-LD or microdata) adds price and availability where the items' text lacks them.

const UNAVAILABLE = /\b(sold ?out|fully booked|unavailable|not available|no longer available|booked up|full|waitlist|closed)\b/i;
// ("See all deals", "View all offers": a page of listings, never one option to choose; a cart's "Remove": never an offer.)
const NOT_AN_OFFER = /\b(modify|change|edit|new) search\b|\b(back|sign in|log ?in|menu|help|filter|sort|previous|next page|home|cookie|newsletter|subscribe|search again|start over|remove|delete)\b|\b(see|view|show|browse) all\b/i;
const CHROME = new Set(['header', 'nav', 'footer', 'aside']);
/** "NW 214", "BA117", "U2 8421". */
const FLIGHT_NUMBER = /\b([A-Z]{2}|[A-Z]\d|\d[A-Z])\s?(\d{1,4})\b/;

export interface OfferKey {
  /** 'radio': tick it, then press the form's button; 'press': press it; 'quantity': its number box set to how many, then the form's button. */
  how: 'radio' | 'press' | 'stay' | 'quantity';
  sel: string;
  /** The tab that shows it (options split among tabs): pressed first when it is not shown. */
  tab?: string;
}

export function encodeKey(key: OfferKey): string {
  return JSON.stringify(key);
}

/** The star rating a page states for its property: schema.org starRating first, then its words or stars. */
export function starRating(s: Snapshot): number | undefined {
  const fromData = [...s.jsonld.flatMap((d) => (Array.isArray(d) ? d : [d])), ...s.microdata.map((m) => m.props)]
    .map((d) => (d && typeof d === 'object' ? (d as Record<string, unknown>).starRating : undefined))
    .map((r) => (r && typeof r === 'object' ? (r as Record<string, unknown>).ratingValue : r))
    .find((v) => v !== undefined && v !== null && v !== '');
  return (fromData === undefined ? undefined : starsOf(String(fromData))) ?? starsIn(s.text);
}

export function decodeKey(key: string): OfferKey | null {
  try {
    const k = JSON.parse(key) as OfferKey;
    return (k.how === 'radio' || k.how === 'press' || k.how === 'stay' || k.how === 'quantity') && typeof k.sel === 'string' ? k : null;
  } catch {
    return null;
  }
}

interface Group {
  parent: string;
  controls: ControlInfo[];
}

/** The groups of like items: controls whose items share a parent, outside the site's chrome. */
function groups(s: Snapshot): Group[] {
  const byParent = new Map<string, ControlInfo[]>();
  for (const c of s.controls) {
    if (!c.visible && c.type !== 'radio') continue;
    if (CHROME.has(c.region) || !c.item || !c.itemParent) continue;
    if (c.type !== 'radio' && NOT_AN_OFFER.test(c.text) && !/\d/.test(c.text)) continue;
    if (c.inDialog >= 0 && !s.dialogs[c.inDialog]?.modal) continue;
    if (calendarDay(c)) continue;
    const list = byParent.get(`${c.type === 'radio' ? 'radio' : 'press'}|${c.itemParent}`) ?? [];
    list.push(c);
    byParent.set(`${c.type === 'radio' ? 'radio' : 'press'}|${c.itemParent}`, list);
  }
  return [...byParent.entries()].map(([k, controls]) => ({ parent: k.slice(k.indexOf('|') + 1), controls }));
}

/** A date picker's day: shows its day number, named by its whole date ("25", "Friday, 25 December 2026"). */
function calendarDay(c: ControlInfo): boolean {
  return /^\d{1,2}$/.test(c.item.trim()) && datesIn(c.text).length > 0;
}

function priced(text: string): boolean {
  return priceIn(text) !== undefined || /\b\d+[.,]\d{2}\b/.test(text);
}

/** How likely the group is the page's offers: more items, with times or prices, radios preferred. */
function rank(g: Group, s: Snapshot): number {
  const idle = s.idleItems[g.parent]?.length ?? 0;
  const n = g.controls.length + idle;
  const informative = g.controls.filter((c) => timesIn(c.item).length || priced(c.item)).length;
  const radio = g.controls[0]!.type === 'radio' ? 1 : 0;
  const searchish = g.controls.some((c) => c.form >= 0 && s.fields.some((f) => f.form === c.form && f.visible && f.type !== 'radio' && f.type !== 'hidden' && !f.card)) ? -3 : 0;
  return n + informative * 2 + radio + searchish;
}

/** A price with its unit: "$69.00 each", "€120 per night", "£20 / person" are per unit; else a total. */
function prices(text: string): Pick<Offer, 'unitPrice' | 'total' | 'priceText'> {
  const priceText = priceIn(text);
  if (!priceText) return {};
  const after = text.slice(text.indexOf(priceText) + priceText.length, text.indexOf(priceText) + priceText.length + 24);
  const value = amount(priceText);
  if (/^\s*(each|per\b|\/\s*\w|pp\b|a (night|person|ticket))/i.test(after)) return { unitPrice: value, priceText };
  return { total: value, priceText };
}

function offerOf(c: ControlInfo, scenario: string, schema: SchemaOffer[]): Offer {
  const text = c.item || c.text;
  const times = timesIn(text);
  const flight = scenario === 'flight' ? FLIGHT_NUMBER.exec(text) : null;
  const fromSchema = schema.find((o) => o.name && text.toLowerCase().includes(o.name.toLowerCase()));
  const price = prices(text);
  const available = !c.disabled && !(UNAVAILABLE.test(text) && !priced(text)) && fromSchema?.available !== false;
  const label = scenario === 'restaurant' && times[0] ? text.slice(0, 120) : text.slice(0, 120);
  return {
    key: encodeKey({ how: c.type === 'radio' ? 'radio' : 'press', sel: c.sel }),
    available,
    label,
    ...(times[0] && (scenario === 'restaurant' || scenario === 'flight') ? { time: times[0] } : {}),
    ...(flight ? { flightNumber: `${flight[1]}${flight[2]}` } : {}),
    description: text.length > 120 ? text.slice(120, 300) : undefined,
    ...price,
    ...(price.priceText === undefined && fromSchema?.price !== undefined ? { total: fromSchema.price, priceText: `${fromSchema.currency ?? ''} ${fromSchema.price}`.trim() } : {}),
  };
}

interface SchemaOffer {
  name?: string;
  price?: number;
  currency?: string;
  available?: boolean;
}

/** schema.org Offer items from JSON-LD and microdata. */
export function schemaOffers(s: Snapshot): SchemaOffer[] {
  const out: SchemaOffer[] = [];
  const visit = (node: unknown, depth: number) => {
    if (depth > 6 || node === null || typeof node !== 'object') return;
    if (Array.isArray(node)) {
      for (const n of node.slice(0, 200)) visit(n, depth + 1);
      return;
    }
    const o = node as Record<string, unknown>;
    const type = String(o['@type'] ?? '');
    if (/\bOffer\b/.test(type)) {
      const item = o.itemOffered as Record<string, unknown> | undefined;
      out.push({
        name: String(o.name ?? item?.name ?? '') || undefined,
        price: o.price !== undefined ? Number(o.price) : undefined,
        currency: o.priceCurrency ? String(o.priceCurrency) : undefined,
        available: o.availability ? !/SoldOut|OutOfStock|Discontinued/i.test(String(o.availability)) : undefined,
      });
    }
    for (const v of Object.values(o)) visit(v, depth + 1);
  };
  visit(s.jsonld, 0);
  for (const m of s.microdata) {
    if (!/schema\.org\/Offer\b/.test(m.type)) continue;
    out.push({
      name: m.props.name || undefined,
      price: m.props.price ? Number(m.props.price.replace(/[^\d.]/g, '')) : undefined,
      currency: m.props.priceCurrency || undefined,
      available: m.props.availability ? !/SoldOut|OutOfStock/i.test(m.props.availability) : undefined,
    });
  }
  return out;
}

/** The page's offers, or [] when it shows none. */
/**
 * The one option a page offers as text, with the form for the guest below it ("There is still
 * availability … Price: 240 Euros", then Surname, Name…): nothing to press to choose it, the page
 * itself is the choice (key 'stay'). Null when no line of the page states a price.
 */
export function pageAsOffer(s: Snapshot): Offer | null {
  const line = s.lines.find((l) => priceIn(l) !== undefined && !/\b(total|subtotal)\s*:?\s*$/i.test(l));
  if (!line) return null;
  const at = s.lines.indexOf(line);
  const label = [s.lines[at - 1], line].filter((l): l is string => l !== undefined && !/^\s*$/.test(l)).join(' ').slice(-160);
  return { key: encodeKey({ how: 'stay', sel: '' }), available: true, label, ...prices(line) };
}

const TO_CART = either(/\b(add to (the )?(cart|basket|bag)|buy|purchase)\b/, ['in den warenkorb', 'ajouter au panier', 'añadir al carrito', 'agregar al carrito', 'aggiungi al carrello', 'adicionar ao carrinho', 'comprar', 'acquista', 'kaufen', 'acheter']);

/**
 * Number boxes in rows of their own that state a price: how many of that item (a ticket type) to
 * order. Several in one form; or one alone in a form that asks nothing else and is sent by adding
 * to a cart or buying (a shop with one ticket type), not a search's "how many".
 */
export function orderBoxes(s: Snapshot): FieldInfo[] {
  const priced = s.fields.filter((f) => f.item !== undefined && f.visible && !f.disabled && priceIn(f.item) !== undefined);
  return priced.filter((f) => {
    if (priced.some((o) => o !== f && o.form === f.form)) return true;
    const asksMore = s.fields.some((o) => o !== f && o.form === f.form && o.visible && o.type !== 'hidden' && o.type !== 'checkbox');
    return f.form >= 0 && !asksMore && s.controls.some((c) => c.form === f.form && c.submits && TO_CART.test(c.text));
  });
}

/**
 * An order form (pretix's event page, a shop's product list): rows each with a price and a number
 * box for how many, one button for the whole form ("Add to cart"). Each row is an option, chosen by
 * setting its box (a sold-out row has no box, and is not one).
 */
function orderOffers(s: Snapshot): Offer[] {
  const boxes = orderBoxes(s);
  const form = boxes[0]?.form;
  if (form === undefined || form < 0 || !s.controls.some((c) => c.form === form && c.submits && c.visible && !c.disabled)) return [];
  return boxes.filter((f) => f.form === form).map((f) => {
    const label = f.item!.replace(/(^|\s)[-−–+](?=\s|$)/g, ' ').replace(/\s+/g, ' ').trim();
    const priceText = priceIn(label)!;
    return { key: encodeKey({ how: 'quantity', sel: f.sel }), available: true, label: label.slice(0, 120), unitPrice: amount(priceText), priceText };
  });
}

export function readOffers(s: Snapshot, scenario: string): Offer[] {
  const ordered = orderOffers(s);
  if (ordered.length) return ordered;
  const candidates = groups(s).filter((g) => g.controls.length > 0);
  if (candidates.length === 0) return [];
  const best = candidates.sort((a, b) => rank(b, s) - rank(a, s))[0]!;
  // A lone control with neither a time nor a price is a page's own button, not an offer.
  const informative = best.controls.some((c) => timesIn(c.item).length || priced(c.item));
  // (Its idle siblings count only when they read as offers: a form's headings and hints are not.)
  const idleOffers = (s.idleItems[best.parent] ?? []).filter((t) => UNAVAILABLE.test(t) || timesIn(t).length || priced(t)).length;
  if (rank(best, s) < 2 || (!informative && best.controls.length + idleOffers < 3)) return [];
  const schema = schemaOffers(s);
  const offers = best.controls.map((c) => offerOf(c, scenario, schema));
  // Rows next to them that have no control: the site shows them, but they cannot be chosen.
  for (const text of s.idleItems[best.parent] ?? []) {
    if (!UNAVAILABLE.test(text) && !timesIn(text).length && !priced(text)) continue;
    const times = timesIn(text);
    const flight = scenario === 'flight' ? FLIGHT_NUMBER.exec(text) : null;
    offers.push({
      key: encodeKey({ how: 'press', sel: '' }),
      available: false,
      label: text.slice(0, 120),
      ...(times[0] && (scenario === 'restaurant' || scenario === 'flight') ? { time: times[0] } : {}),
      ...(flight ? { flightNumber: `${flight[1]}${flight[2]}` } : {}),
      ...prices(text),
    });
  }
  return offers;
}

/** The button that goes on after a radio is ticked (the radio's form's submit, or a "continue" one). */
export function continueAfterRadio(s: Snapshot, radioSel: string): ControlInfo | null {
  const radio = s.controls.find((c) => c.sel === radioSel);
  const usable = s.controls.filter((c) => c.visible && !c.disabled && c.type !== 'radio' && !CHROME.has(c.region));
  if (radio && radio.form >= 0) {
    const inForm = usable.filter((c) => c.form === radio.form);
    const submit = inForm.find((c) => c.submits) ?? inForm[0];
    if (submit) return submit;
  }
  return usable.find((c) => /\b(continue|next|select|choose|book|reserve|get tickets|proceed)\b/i.test(c.text)) ?? null;
}
