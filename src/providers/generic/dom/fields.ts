import { headcountOf } from '../../../jobs/search-request.ts';
import { datesIn, timesIn } from '../../../driver/text.ts';
import type { SearchRequest, Traveller } from '../../../driver/types.ts';
import type { FieldInfo } from './snapshot.ts';
import { either, FIELD_WORDS as W } from './words.ts';
import { phrase } from '../../../driver/text.ts';
import { fold } from '../../../driver/names.ts';

// Which field asks for what: by the HTML autocomplete token first (the standard a site publishes for
// password managers), then by the input type, then by what a person reads (label, aria name,
// placeholder, name). Each concept is one thing a booking form asks; values come from the request
// or the traveller.

export type Concept =
  | 'venue' | 'city' | 'date' | 'checkIn' | 'checkOut' | 'time' | 'quantity' | 'origin' | 'destination' | 'airline' | 'departureTime' | 'cabin' | 'seatType' | 'roomPreference' | 'returnDate'
  | 'givenName' | 'familyName' | 'fullName' | 'email' | 'tel' | 'telCountryCode' | 'bday' | 'bdayDay' | 'bdayMonth' | 'bdayYear' | 'passportNumber' | 'passportCountry' | 'nationality' | 'knownTraveler';

interface Rule {
  concept: Concept;
  /** autocomplete tokens that name it (the last token of the attribute: "section-p1 given-name" → given-name). */
  tokens?: string[];
  types?: string[];
  words?: RegExp;
  /** Words that rule it out (a "Departure date" is not the origin). */
  not?: RegExp;
}

const SEARCH_RULES: Record<SearchRequest['scenario'], Rule[]> = {
  restaurant: [
    { concept: 'city', tokens: ['address-level2'], words: either(/\b(city|town|location|where)\b/, W.city) },
    { concept: 'date', types: ['date'], words: either(/\b(date|day|when)\b/, W.date), not: /\btime\b/ },
    { concept: 'time', types: ['time'], words: either(/\btime\b/, W.time) },
    { concept: 'quantity', words: either(/\b(party|guests?|people|persons?|diners?|covers?|how many|size|pax)\b/, W.people) },
    { concept: 'venue', words: either(/\b(restaurant|venue|name|place|search|what)\b/, W.restaurant), not: /\b(city|town|your name|first|last|given|family)\b/ },
  ],
  hotel: [
    { concept: 'city', tokens: ['address-level2'], words: either(/\b(city|town|destination|location|where)\b/, W.city) },
    { concept: 'checkIn', words: either(/\b(check ?in|arriv\w*|from|start)\b/, W.checkIn), not: /\btime\b/ },
    { concept: 'checkOut', words: either(/\b(check ?out|depart\w*|leave|leaving|until|end|to)\b/, W.checkOut), not: /\btime\b/ },
    { concept: 'quantity', words: either(/\b(adults?|guests?|people|persons?|travell?ers?)\b/, W.adults, W.people), not: /\b(children|kids|infants?|rooms?|ninos|bambini|kinder|enfants|criancas)\b/ },
    { concept: 'roomPreference', words: /\b(room|bed|preference)\b/, not: /\b(rooms|number of rooms|how many)\b/ },
    { concept: 'venue', words: either(/\b(hotel|property|venue|accommodation|name|stay|search)\b/, W.hotel), not: /\b(city|town|destination|first|last|given|family|room)\b/ },
  ],
  flight: [
    { concept: 'origin', words: either(/\b(from|origin|leaving from|departure (airport|city)|flying from)\b/, W.origin), not: either(/\b(date|time)\b/, W.date, W.time) },
    { concept: 'destination', words: either(/\b(to|destination|going to|arrival (airport|city)|flying to)\b/, W.destination), not: either(/\b(date|time)\b/, W.date, W.time) },
    { concept: 'date', types: ['date'], words: either(/\b(date|depart\w*|when|outbound)\b/, W.date, W.outbound), not: either(/\b(time|return\w*|inbound)\b/, W.time, W.inbound) },
    // A return fare's way back: asked apart, often marked optional (empty is one way).
    { concept: 'returnDate', words: either(/\b(return\w*|inbound|coming back|back on)\b/, W.inbound), not: either(/\btime\b/, W.time) },
    { concept: 'departureTime', types: ['time'], words: /\b(time|leave around|departure time)\b/ },
    { concept: 'quantity', words: either(/\b(passengers?|travell?ers?|adults?|people|persons?|pax|seats?)\b/, W.adults), not: /\b(children|infants?)\b/ },
    { concept: 'airline', words: /\b(airline|carrier)\b/ },
    { concept: 'cabin', words: /\b(cabin|class)\b/ },
  ],
  activity: [
    { concept: 'city', tokens: ['address-level2'], words: either(/\b(city|town|where|location)\b/, W.city) },
    { concept: 'date', types: ['date'], words: either(/\b(date|day|when)\b/, W.date) },
    { concept: 'quantity', words: either(/\b(tickets?|quantity|qty|people|persons?|guests?|how many|seats|adults?|participants?|travell?ers?|visitors?)\b/, W.tickets, W.people, W.adults), not: /\b(type|section|children|kids|infants?)\b/ },
    { concept: 'seatType', words: /\b(seat type|seating|section|ticket type|seat|category|class)\b/ },
    { concept: 'venue', words: either(/\b(events?|performers?|shows?|activity|activities|what|name|search|artists?|attractions?)\b/, W.event), not: /\b(city|town|date|first|last|given|family)\b/ },
  ],
};

/** A date format naming the day and the month together ("dd/mm/yyyy", "mm dd yyyy" once read as words, "jj/mm/aaaa"). */
const WHOLE_DATE_FORMAT = /\b(dd|jj|tt|gg)\s*\/?\s*mm\b|\bmm\s*\/?\s*(dd|jj|tt|gg)\b/;

const GUEST_RULES: Rule[] = [
  { concept: 'email', tokens: ['email'], types: ['email'], words: either(/\be ?mail\b/, W.email) },
  // The phone's calling code asked apart (a list of "+44"…): the number then goes in without it.
  { concept: 'telCountryCode', tokens: ['tel-country-code'], words: /\b(country ?(\/ ?territory )?code|dial(l?ing)? code|calling code|country prefix)\b/ },
  { concept: 'tel', tokens: ['tel', 'tel-national', 'tel-local'], types: ['tel'], words: either(/\b(phone|mobile|telephone|tel|cell)\b/, W.tel) },
  { concept: 'givenName', tokens: ['given-name'], words: either(/\b(first ?name|given ?names?|forename|first)\b/, W.givenName), not: phrase(W.fullName, ['apellido', 'apellidos', 'cognome', 'nachname', 'sobrenome', 'nom de famille']) },
  { concept: 'familyName', tokens: ['family-name'], words: either(/\b(last ?name|surname|family ?name|last)\b/, W.familyName), not: phrase(W.fullName, ['prénom']) },
  // A date of birth asked in three parts (the bday-day, bday-month, bday-year tokens, or Day, Month and
  // Year under a "Date of birth" legend) before the whole one, so that a part is never given the whole date.
  // (A box whose format names the day and the month together, "DD/MM/YYYY", takes the whole date.)
  { concept: 'bdayDay', tokens: ['bday-day'], words: /\b(birth|dob|born)\b.*\b(day|dd)\b|\b(day|dd)\b.*\b(birth|dob|born)\b/, not: WHOLE_DATE_FORMAT },
  { concept: 'bdayMonth', tokens: ['bday-month'], words: /\b(birth|dob|born)\b.*\b(month|mm)\b|\b(month|mm)\b.*\b(birth|dob|born)\b/, not: WHOLE_DATE_FORMAT },
  { concept: 'bdayYear', tokens: ['bday-year'], words: /\b(birth|dob|born)\b.*\b(year|yyyy|yy)\b|\b(year|yyyy|yy)\b.*\b(birth|dob|born)\b/, not: WHOLE_DATE_FORMAT },
  { concept: 'bday', tokens: ['bday'], words: either(/\b(birth|dob|born)\b/, W.birth) },
  { concept: 'passportNumber', words: /\b(passport|document) ?(number|no|#)?\b|\bpassport\b/, not: /\b(country|issu\w*|expir\w*|nationality)\b/ },
  // Nationality and the passport's issuing country are two questions (both answered with the
  // passport's country): the `country` token is the one a nationality list usually carries.
  { concept: 'nationality', tokens: ['country', 'country-name'], words: /\b(nationality|citizenship|citizen)\b/ },
  { concept: 'passportCountry', words: /\b(country|issued by|issuing|issuer|issue)\b/, not: /\b(nationality|citizenship|dial\w*|calling|phone|mobile|tel)\b/ },
  { concept: 'knownTraveler', words: /\b(known travell?er|ktn|redress)\b/ },
  { concept: 'fullName', tokens: ['name'], words: either(/\b(full name|your name|name)\b/, W.fullName), not: /\b(first|last|given|family|sur|user|card|company|hotel|restaurant|event)/ },
];

/** Lowercase words of a field's description, identifiers split (`checkIn`, `check_in` → "check in"). */
export function wordsOf(text: string): string {
  return fold(text.replace(/([a-z])([A-Z])/g, '$1 $2')).replace(/[_\-[\]|.:()*]+/g, ' ').replace(/\s+/g, ' ').trim();
}

function token(f: FieldInfo): string {
  return f.autocomplete.split(/\s+/).filter(Boolean).pop() ?? '';
}

/** How well a field matches a rule: 3 by token, 2 by words, 1 by type alone, 0 not at all. */
function score(rule: Rule, f: FieldInfo): number {
  const words = wordsOf(f.text);
  if (rule.not?.test(words) && !rule.tokens?.includes(token(f))) return 0;
  if (rule.tokens?.includes(token(f))) return 3;
  if (rule.words?.test(words)) return 2;
  if (rule.types?.includes(f.type)) return 1;
  return 0;
}

/** Fields a person would type into (visible, enabled, not a card code, not a choice box). */
export function fillable(f: FieldInfo): boolean {
  return f.visible && !f.disabled && !f.card && !['radio', 'checkbox', 'password', 'radiogroup', 'slider'].includes(f.type);
}

/**
 * Assigns concepts to fields: each field at most one concept, each concept its best field (ties go
 * to the field that comes first). Concepts that repeat (one per passenger) take every field that
 * scores for them, in page order.
 */
export function assign(fields: FieldInfo[], rules: Rule[]): Map<Concept, FieldInfo[]> {
  const out = new Map<Concept, FieldInfo[]>();
  const taken = new Set<FieldInfo>();
  // Strongest evidence first: every token match, then words, then types.
  for (const level of [3, 2, 1]) {
    for (const rule of rules) {
      if (out.has(rule.concept)) continue;
      const hits = fields.filter((f) => !taken.has(f) && score(rule, f) === level);
      if (hits.length === 0) continue;
      out.set(rule.concept, hits);
      for (const h of hits) taken.add(h);
    }
  }
  return out;
}

export function searchRules(scenario: SearchRequest['scenario']): Rule[] {
  return SEARCH_RULES[scenario];
}

export function guestRules(): Rule[] {
  return GUEST_RULES;
}

/** The request's value for a search concept. */
export function searchValue(request: SearchRequest, concept: Concept): string | undefined {
  const r = request as Record<string, unknown>;
  const pick = (k: string) => (r[k] === undefined || r[k] === null || r[k] === '' ? undefined : String(r[k]));
  switch (concept) {
    case 'quantity':
      return String(headcountOf(request));
    case 'venue': case 'city': case 'date': case 'time': case 'checkIn': case 'checkOut': case 'origin': case 'destination':
    case 'airline': case 'departureTime': case 'cabin': case 'seatType': case 'roomPreference': case 'returnDate':
      return pick(concept);
    default:
      return undefined;
  }
}

/** The traveller's value for a guest concept. */
export function guestValue(t: Traveller, concept: Concept): string | undefined {
  switch (concept) {
    case 'givenName': return t.givenName;
    case 'familyName': return t.familyName;
    case 'fullName': return `${t.givenName} ${t.familyName}`;
    case 'email': return t.email;
    case 'tel': return t.phone;
    case 'bday': return t.birthDate;
    case 'passportNumber': return t.passportNumber;
    case 'passportCountry': case 'nationality': return t.passportCountry;
    case 'bdayDay': return t.birthDate?.slice(8, 10) || undefined;
    case 'bdayMonth': return t.birthDate?.slice(5, 7) || undefined;
    case 'bdayYear': return t.birthDate?.slice(0, 4) || undefined;
    case 'knownTraveler': return t.knownTravelerNumber;
    default: return undefined;
  }
}

const MONTHS = ['january', 'february', 'march', 'april', 'may', 'june', 'july', 'august', 'september', 'october', 'november', 'december'];

/**
 * A phone number in international form split for a form that asks the calling code apart: the
 * code's option (by "+44" in its text, or digits as its value, the longest that starts the number)
 * and the rest of the number. Null when the number is not international or no option of a list fits.
 */
export function splitPhone(phone: string, codeField: FieldInfo): { code: string; national: string } | null {
  const m = /^\s*(?:\+|00)\s*(\d[\d\s().-]*)$/.exec(phone);
  if (!m) return null;
  const digits = m[1]!.replace(/\D/g, '');
  let best: { value: string; code: string } | null = null;
  for (const o of codeField.options) {
    if (o.disabled || o.value === '') continue;
    const code = /\+\s?(\d{1,4})\b/.exec(o.text)?.[1] ?? /^\+?(\d{1,4})$/.exec(o.value.trim())?.[1];
    if (code && digits.startsWith(code) && (!best || code.length > best.code.length)) best = { value: o.value, code };
  }
  // (A free box for the code is left to the number in full: where its code ends is not knowable.)
  if (!best) return null;
  return { code: best.value, national: digits.slice(best.code.length) };
}

/** ISO 3166 alpha-2 codes whose English name sites also write otherwise. */
const COUNTRY_ALIASES: Record<string, string[]> = {
  GB: ['United Kingdom', 'Great Britain', 'UK', 'Britain'],
  US: ['United States', 'United States of America', 'USA'],
  NL: ['Netherlands', 'The Netherlands', 'Holland'],
  KR: ['South Korea', 'Korea, Republic of', 'Republic of Korea'],
  CZ: ['Czechia', 'Czech Republic'],
  TR: ['Türkiye', 'Turkey'],
  AE: ['United Arab Emirates', 'UAE'],
  RU: ['Russia', 'Russian Federation'],
};

/** The names a country's ISO 3166 alpha-2 code goes by in English (Intl's first), or [] for a code it does not know. */
export function countryNames(code: string): string[] {
  const upper = code.trim().toUpperCase();
  if (!/^[A-Z]{2}$/.test(upper)) return [];
  let name: string | undefined;
  try {
    name = new Intl.DisplayNames(['en'], { type: 'region', fallback: 'none' }).of(upper);
  } catch {
    name = undefined;
  }
  return [...new Set([...(name ? [name] : []), ...(COUNTRY_ALIASES[upper] ?? [])])];
}

/**
 * The option of a country list for an ISO 3166 alpha-2 code: by the code as its value or text, else
 * by the country's name (whole, then an option that starts with it). Never by a prefix of the code
 * ("IN" is not Indonesia).
 */
export function countryOption(f: FieldInfo, code: string): string | null {
  const options = f.options.filter((o) => !o.disabled && o.value !== '');
  const want = code.trim().toLowerCase();
  const byCode = options.find((o) => o.value.toLowerCase() === want) ?? options.find((o) => o.text.toLowerCase() === want);
  if (byCode) return byCode.value;
  const names = countryNames(code).map((n) => n.toLowerCase());
  for (const name of names) {
    const hit = options.find((o) => o.text.toLowerCase() === name || o.value.toLowerCase() === name);
    if (hit) return hit.value;
  }
  for (const name of names) {
    const hit = options.find((o) => name.length >= 4 && o.text.toLowerCase().startsWith(name));
    if (hit) return hit.value;
  }
  return null;
}

/** A part of a date (day, month, year) as a list or a box takes it: "05", "5", "May", "May" in short. */
export function datePartFor(f: FieldInfo, part: 'day' | 'month' | 'year', value: string): string | null {
  const n = Number.parseInt(value, 10);
  if (!Number.isFinite(n)) return null;
  if (f.tag !== 'select') return part === 'year' ? value : String(n).padStart(2, '0');
  const options = f.options.filter((o) => !o.disabled && o.value !== '');
  const padded = part === 'year' ? value : String(n).padStart(2, '0');
  const numeric = options.find((o) => o.value === padded || o.value === String(n)) ?? options.find((o) => o.text === padded || o.text === String(n));
  if (numeric) return numeric.value;
  if (part === 'month') {
    const name = MONTHS[n - 1];
    const hit = name ? options.find((o) => o.text.toLowerCase() === name || o.text.toLowerCase().startsWith(name.slice(0, 3))) : undefined;
    if (hit) return hit.value;
  }
  return null;
}

/** A value as the field takes it: ISO dates into date inputs, the site's own pattern for text dates, a list's option by value or text. */
export function valueFor(f: FieldInfo, value: string, concept?: Concept): string | null {
  if (concept === 'bdayDay' || concept === 'bdayMonth' || concept === 'bdayYear') return datePartFor(f, concept === 'bdayDay' ? 'day' : concept === 'bdayMonth' ? 'month' : 'year', value);
  if ((concept === 'passportCountry' || concept === 'nationality') && f.tag === 'select') return countryOption(f, value);
  if (f.tag === 'select') return optionFor(f, value);
  const iso = /^(\d{4})-(\d{2})-(\d{2})$/.exec(value);
  if (iso && f.type !== 'date') {
    const typed = dateInFormat(iso[0], `${f.placeholder} | ${f.hint} | ${f.text}`);
    if (typed) return typed;
  }
  return value;
}

/**
 * A date (YYYY-MM-DD) written in the format a text states ("mm/dd/yyyy", "DD.MM.YYYY", "JJ/MM/AAAA",
 * "TT.MM.JJJJ", "gg/mm/aaaa", "yyyy/mm/dd"), or null when it states none.
 */
export function dateInFormat(iso: string, text: string): string | null {
  const [y, m, d] = iso.split('-') as [string, string, string];
  const hint = text.toLowerCase().replace(/\b(jj|tt|gg)\b/g, 'dd').replace(/\b(aaaa|jjjj|tttt)\b/g, 'yyyy');
  const dmy = /\bdd\s*([/.-])\s*mm\s*([/.-])\s*yyyy\b/.exec(hint);
  if (dmy) return `${d}${dmy[1]}${m}${dmy[2]}${y}`;
  const mdy = /\bmm\s*([/.-])\s*dd\s*([/.-])\s*yyyy\b/.exec(hint);
  if (mdy) return `${m}${mdy[1]}${d}${mdy[2]}${y}`;
  const ymd = /\byyyy\s*([/.])\s*mm\s*([/.])\s*dd\b/.exec(hint);
  if (ymd) return `${y}${ymd[1]}${m}${ymd[2]}${d}`;
  // Without the year's part named ("dd/mm"): day before month, as most of the world writes it.
  const dm = /\bdd\s*([/.-])\s*mm\b/.exec(hint);
  if (dm) return `${d}${dm[1]}${m}${dm[1]}${y}`;
  const md = /\bmm\s*([/.-])\s*dd\b/.exec(hint);
  if (md) return `${m}${md[1]}${d}${md[1]}${y}`;
  return null;
}

/** The option of a list that means `value`: same value, same text, the number in its text, or the date/month named. */
export function optionFor(f: FieldInfo, value: string): string | null {
  const want = value.trim().toLowerCase();
  const options = f.options.filter((o) => !o.disabled);
  const exact = options.find((o) => o.value.toLowerCase() === want) ?? options.find((o) => o.text.toLowerCase() === want);
  if (exact) return exact.value;
  // A day in whatever words the list writes it ("2026-12-12" is "Saturday, 12 December 2026").
  if (/^\d{4}-\d{2}-\d{2}$/.test(want)) {
    const day = options.find((o) => datesIn(o.value).includes(want) || datesIn(o.text).includes(want));
    return day?.value ?? null;
  }
  // A time of day in whatever clock the list writes ("19:30" is "7:30 PM").
  if (/^\d{1,2}:\d{2}$/.test(want)) {
    const hhmm = want.padStart(5, '0');
    const time = options.find((o) => timesIn(o.value)[0] === hhmm || timesIn(o.text)[0] === hhmm);
    return time?.value ?? null;
  }
  // The same words ("premium_economy" is "Premium Economy").
  const same = options.find((o) => wordsOf(o.value) === wordsOf(want) || wordsOf(o.text) === wordsOf(want));
  if (same) return same.value;
  if (/^\d+$/.test(want)) {
    const n = options.find((o) => new RegExp(`^\\D*${want}\\b`).test(o.text) || o.value === want);
    if (n) return n.value;
  }
  const starts = options.find((o) => o.text.toLowerCase().startsWith(want) || o.value.toLowerCase().startsWith(want));
  if (starts) return starts.value;
  const contains = options.find((o) => want.length >= 3 && (o.text.toLowerCase().includes(want) || want.includes(o.text.toLowerCase()) && o.text.length >= 3));
  return contains?.value ?? null;
}

export { MONTHS };
