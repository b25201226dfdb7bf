import { datesIn, firstDateAt, isWeekday, quantityIn, timesIn } from '../../../driver/text.ts';
import { amount, priceIn } from '../../shared/pages.ts';
import type { Held, SearchRequest } from '../../../driver/types.ts';
import type { Snapshot } from './snapshot.ts';
import { CONTROL_WORDS, either, FIELD_WORDS as W } from './words.ts';

// What the site holds, read from its review or payment page: schema.org Reservation data where the
// page publishes it, else its label–value pairs (definition lists, two-cell rows, "Label: value"
// lines), else its headings and the text around the first date.

type Scenario = SearchRequest['scenario'];

const VENUE = either(/\b(restaurant|hotel|property|venue|event|show|performer|attraction|activity|flight|airline|carrier|route|city|location|where)\b/, W.restaurant, W.hotel, W.event, W.flight, ['lugar', 'luogo', 'lieu', 'local', 'hôtel']);
const WHEN = either(/\b(date|dates|time|when|check ?-?in|check ?-?out|arriv\w*|depart\w*|schedule|stay|nights?|starts?|doors|return\w*|outbound|inbound)\b/, W.date, W.time, W.checkIn, W.checkOut, W.outbound, W.inbound, ['fechas', 'date', 'daten', 'datas', 'noches', 'notti', 'nächte', 'nuits', 'noites']);
const QUANTITY = either(/\b(party|party size|guests?|people|persons?|adults?|passengers?|travell?ers?|tickets?|quantity|qty|covers|diners|seats)\b/, W.people, W.adults, W.tickets);
const ITEM = /\b(seating|room|section|seat|cabin|fare|class|ticket type|area|table|category)\b/i;
const PRICE = either(/\b(total|price|deposit|amount|due|cost|fare|pay(ment)?|subtotal)\b/, ['totale', 'gesamt', 'gesamtbetrag', 'importe', 'precio', 'prezzo', 'preis', 'prix', 'preço', 'montant', 'betrag', 'valor', 'importo', 'depósito', 'caparra', 'anzahlung', 'acompte']);
const PERSONAL = either(/\b(name|e-?mail|phone|mobile|tel|contact|buyer|attendee|lead guest|passenger \d+|requests?|notes?|address|born|passport)\b/, W.givenName, W.familyName, W.fullName, W.tel, W.email, W.birth, W.passport, ['contacto', 'contatto', 'kontakt', 'notas', 'note', 'notizen', 'dirección', 'indirizzo', 'adresse', 'endereço']);
const GENERIC_HEADING = either(/\b(review|summary|confirm|check|order|basket|payment|pay|details|almost|your (booking|reservation|trip|stay)|secure|checkout|hold|expire|guests?|travell?ers?|passengers?|contact|who)\b/, CONTROL_WORDS.pay, ['riepilogo', 'resumen', 'detalles', 'dettagli', 'détails', 'detalhes', 'buchungsdetails', 'revisa', 'revisar', 'controlla', 'prüfen', 'überprüfen', 'vérifier', 'vérifiez', 'reveja', 'rever', 'zusammenfassung', 'récapitulatif', 'resumo', 'tu reserva', 'la tua prenotazione', 'ihre buchung', 'votre réservation', 'sua reserva', 'conferma', 'confirmación', 'bestätigung', 'i tuoi dati', 'tus datos', 'ihre daten', 'vos coordonnées', 'seus dados']);
const CARD_BRAND = /\b(visa|mastercard|master card|amex|american express|discover|diners club|jcb|maestro)\b[^\n]{0,16}?(?:[•·*x]{2,}\s*|ending (?:in\s*)?)\d{4}/i;
const CARD_ON_FILE = /\bcard\b[^\n]{0,24}?(?:[•·*x]{2,}\s*|ending (?:in\s*)?)\d{4}/i;
const UNIT: Record<Scenario, string> = { restaurant: 'guests', hotel: 'adults', flight: 'passengers', activity: 'tickets' };

function pairsMatching(s: Snapshot, pattern: RegExp, not?: RegExp): Snapshot['pairs'] {
  const seen = new Set<string>();
  return s.pairs.filter((p) => {
    if (!pattern.test(p.label) || not?.test(p.label) || p.value === '' || seen.has(`${p.label}|${p.value}`)) return false;
    seen.add(`${p.label}|${p.value}`);
    return true;
  });
}

/** The schema.org Reservation the page publishes (JSON-LD or microdata), flattened to strings. */
export function schemaReservation(s: Snapshot): Record<string, unknown> | null {
  let found: Record<string, unknown> | null = null;
  const visit = (node: unknown, depth: number) => {
    if (found || depth > 6 || node === null || typeof node !== 'object') return;
    if (Array.isArray(node)) return node.slice(0, 100).forEach((n) => visit(n, depth + 1));
    const o = node as Record<string, unknown>;
    if (/Reservation\b/.test(String(o['@type'] ?? ''))) found = o;
    else for (const v of Object.values(o)) visit(v, depth + 1);
  };
  visit(s.jsonld, 0);
  if (found) return found;
  const m = s.microdata.find((x) => /schema\.org\/\w*Reservation\b/.test(x.type));
  return m ? m.props : null;
}

function nameIn(v: unknown): string {
  if (typeof v === 'string') return v;
  if (v && typeof v === 'object') return String((v as Record<string, unknown>).name ?? '');
  return '';
}

function fromSchema(r: Record<string, unknown>, scenario: Scenario): Partial<Held> {
  const out: Partial<Held> = {};
  const venue = nameIn(r.reservationFor) || nameIn(r.provider);
  if (venue) out.venue = venue;
  const when = [r.startTime, r.checkinTime, r.checkoutTime, r.endTime, (r.reservationFor as Record<string, unknown> | undefined)?.startDate, (r.reservationFor as Record<string, unknown> | undefined)?.departureTime]
    .filter((v) => typeof v === 'string' && v).map(String);
  if (when.length) out.when = when.map((w) => w.replace('T', ' ').slice(0, 16)).join(' to ');
  const n = r.partySize ?? r.numAdults ?? r.numSeats ?? r.ticketQuantity;
  if (n !== undefined && n !== '') out.quantity = `${String(n)} ${UNIT[scenario]}`;
  const price = r.totalPrice ?? r.price;
  if (price !== undefined) out.price = `${String(r.priceCurrency ?? '')} ${typeof price === 'object' ? String((price as Record<string, unknown>).price ?? '') : String(price)}`.trim();
  return out;
}

/**
 * The held booking as the page states it. `namedAs`: the provider's own name, when it is the venue
 * asked for (a small hotel's own site, whose pages never name the hotel): the venue when the page
 * states none in data or labels, before any heading (which is then the room's or the table's).
 */
export function readHeld(s: Snapshot, scenario: Scenario, namedAs?: string): Held {
  const schema = schemaReservation(s);
  const fromData = schema ? fromSchema(schema, scenario) : {};
  const venues = pairsMatching(s, VENUE, /\b(date|time|depart|arriv)\b/i);
  const whens = pairsMatching(s, WHEN, PERSONAL);
  const items = pairsMatching(s, ITEM, PERSONAL).filter((p) => !QUANTITY.test(p.label));
  const prices = pairsMatching(s, PRICE).filter((p) => priceIn(p.value));

  let venue = fromData.venue ?? venues.map((p) => p.value).join(', ');
  if (!venue) {
    // A heading names the venue unless it comes after the summary's own first line (which names it then: "Hotel Lutetia, Paris" under "Booking details", before "Visitor").
    const heading = s.headings.find((h) => !GENERIC_HEADING.test(h) && h.length < 100);
    const lead = summaryLead(s);
    const at = (text: string) => s.lines.findIndex((l) => l.startsWith(text));
    venue = namedAs ?? (heading && !(lead && at(lead) >= 0 && at(lead) < at(heading)) ? heading : lead);
  }

  let when = withIsoDates(fromData.when ?? whens.filter((p) => datesIn(withIsoDates(p.value, s.lang)).length || timesIn(p.value).length).map((p) => p.value).join(' · '), s.lang);
  if (!datesIn(when).length) {
    // No labelled date: the text that follows the page's first date ("Paris · Mar 14, 2031 · starts 19:30").
    const text = withIsoDates(s.text, s.lang);
    const first = datesIn(text)[0];
    if (first) {
      const at = indexOfDate(text);
      // Some 60 characters from the date, never cutting a time in two; the time may also come a line
      // further ("15 December 2026 · NA 168 departs 6:00 AM"): up to it, when near.
      let end = 60;
      const near = [...text.slice(at, at + 200).matchAll(/\b\d{1,2}[:.]\d{2}(?:\s?[ap]\.?m\.?)?/gi)];
      const crossing = near.find((m) => m.index < end && m.index + m[0].length > end);
      if (crossing) end = crossing.index + crossing[0].length;
      else if (near[0] && !near.some((m) => m.index + m[0].length <= end)) end = near[0].index + near[0][0].length;
      when = [when, text.slice(at, at + end).trim()].filter(Boolean).join(' · ');
    }
  }

  let quantity = fromData.quantity ?? '';
  const unit = (n: number) => (n === 1 ? UNIT[scenario].slice(0, -1) : UNIT[scenario]);
  if (!quantity) {
    for (const p of pairsMatching(s, QUANTITY, PERSONAL)) {
      // A list of people (one entry per traveller) says how many by its length.
      if (p.entries > 0 && !/^\s*\d+\b/.test(p.value)) {
        quantity = `${p.entries} ${unit(p.entries)} (${p.label})`;
        break;
      }
      if (!/^\D{0,12}\d+\b/.test(p.value)) continue;
      if (quantityIn(scenario, p.value) !== null) {
        quantity = p.value;
        break;
      }
      const n = /\d+/.exec(p.value)?.[0];
      if (n && quantityIn(scenario, `${p.label} ${p.value}`) === null) {
        quantity = `${n} ${unit(Number(n))} (${p.label}: ${p.value.slice(0, 40)})`;
        break;
      }
      if (n) {
        quantity = `${p.label} ${p.value}`;
        break;
      }
    }
  }
  if (!quantity) {
    // A count, not the cents of a price or the minutes of a time ("€40.00 Tickets for Ada" is no 0 tickets).
    const sentence = quantityIn(scenario, s.text) !== null ? new RegExp(`(?<![\\d.,:€$£])(?<![€$£]\\s)\\b\\d+\\s*(?:×\\s*\\S+\\s*)?${UNIT[scenario].slice(0, -1)}s?\\b`, 'i').exec(s.text)?.[0] : undefined;
    const times = /\b(\d+)\s*[×x]\s/.exec(s.text);
    // An activity sold per person says how many people ("2 adults", "3 participants"): as many tickets.
    const people = scenario === 'activity' ? /(?<![\d.,:€$£])\b(\d+)\s+(adults?|participants?|people|persons?|guests?|visitors?|travell?ers?)\b/i.exec(s.text) : null;
    quantity = sentence ?? (times ? `${times[1]} ${unit(Number(times[1]))} (${times[0].trim()})` : people ? `${people[1]} ${unit(Number(people[1]))} (${people[0]})` : '');
  }

  const total = prices.find((p) => /\btotal\b/i.test(p.label)) ?? prices[0];
  const price = fromData.price ?? (total ? total.value : (totalIn(s.text) ?? ''));
  const item = items[0]?.value;
  const card = cardOnFileIn(s);
  return {
    venue: venue.slice(0, 160),
    when: when.slice(0, 200),
    quantity: quantity.slice(0, 120),
    ...(item ? { item: item.slice(0, 120) } : {}),
    price: price.slice(0, 80),
    ...(card ? { cardOnFile: card } : {}),
  };
}

/**
 * What a summary names first when nothing labels it: the first line under the summary's heading
 * ("Your booking details", "Trip summary") that is not a "Label: value" line nor a price, up to its
 * date ("LHR to JFK · 15 December 2026" → "LHR to JFK").
 */
function summaryLead(s: Snapshot): string {
  const headings = new Set(s.headings);
  const start = s.lines.findIndex((l) => headings.has(l) && GENERIC_HEADING.test(l));
  if (start < 0) return '';
  for (const line of s.lines.slice(start + 1, start + 6)) {
    if (headings.has(line)) continue;
    if (/^[^:]{1,40}:/.test(line) || priceIn(line)) return '';
    const at = datesIn(line).length ? indexOfDate(line) : line.length;
    const lead = line.slice(0, at).replace(/[\s·,|–-]+$/, '').trim();
    return /\p{L}{2}/u.test(lead) && lead.length < 100 ? lead : '';
  }
  return '';
}

/**
 * Numeric dates ("12/05/2026", "05.12.2026") with their ISO form after them, when they can be read
 * for sure: a number above 12 (or both the same) settles it; else the page's language must say the
 * order (month first in `en-US`, day first in any other language or English region). A page in
 * plain `en` or none leaves an ambiguous date as it is: a guess could make a wrong day read as the
 * one asked for.
 */
export function withIsoDates(text: string, lang: string): string {
  const monthFirst = /^en-us\b/i.test(lang);
  const dayFirst = !monthFirst && lang !== '' && !/^en$/i.test(lang);
  return text.replace(/\b(\d{1,2})([/.])(\d{1,2})\2(\d{4})\b/g, (whole, a: string, _sep: string, b: string, year: string) => {
    const [x, y] = [Number(a), Number(b)];
    if (x <= 12 && y <= 12 && x !== y && !monthFirst && !dayFirst) return whole;
    const [month, day] = x > 12 ? [y, x] : y > 12 ? [x, y] : monthFirst ? [x, y] : [y, x];
    if (month < 1 || month > 12 || day < 1 || day > 31) return whole;
    return `${whole} (${year}-${String(month).padStart(2, '0')}-${String(day).padStart(2, '0')})`;
  });
}

function indexOfDate(text: string): number {
  const numeric = /\b\d{1,2}[/.]\d{1,2}[/.]\d{4}\b/.exec(text)?.index ?? -1;
  const hits = [firstDateAt(text), numeric].filter((i) => i >= 0);
  const at = hits.length ? Math.min(...hits) : 0;
  // Start at the date's weekday ("Monday, 10 June", "giovedì 17 dicembre"), else at the sentence or item the date sits in, else at the date.
  const before = text.slice(Math.max(0, at - 40), at);
  const weekday = /([\p{L}-]+\.?),?\s*$/u.exec(before);
  if (weekday && isWeekday(weekday[1]!)) return at - before.length + weekday.index;
  const cut = Math.max(before.lastIndexOf('·'), before.lastIndexOf('.'), before.lastIndexOf(':'));
  return cut >= 0 ? at - before.length + cut + 1 : at;
}

/** The card the site has on file, as it shows it ("Visa •••• 4242"). */
export function cardOnFileIn(s: Snapshot): string | undefined {
  return CARD_BRAND.exec(s.text)?.[0] ?? CARD_ON_FILE.exec(s.text)?.[0];
}

/** The total in a text without labels: the amount after "=" or "total", else the largest amount shown. */
export function totalIn(text: string): string | undefined {
  const labelled = /(?:=|\btotal\b[^€$£\d]{0,20})\s*([€$£]\s?\d[\d,]*(?:\.\d{2})?)/i.exec(text);
  if (labelled) return labelled[1];
  const all = [...text.matchAll(/[€$£]\s?\d[\d,]*(?:\.\d{2})?/g)].map((m) => m[0]);
  return all.sort((a, b) => (amount(b) ?? 0) - (amount(a) ?? 0))[0];
}

/** The amount the payment page asks for. */
export function amountDue(s: Snapshot): string | undefined {
  const due = pairsMatching(s, PRICE).find((p) => priceIn(p.value));
  if (due) return priceIn(due.value);
  const m = /\b(total|due|amount|pay|deposit)\b[^€$£\d]{0,30}([€$£]\s?\d[\d,]*(?:\.\d{2})?)/i.exec(s.text);
  return m?.[2] ?? totalIn(s.text);
}
