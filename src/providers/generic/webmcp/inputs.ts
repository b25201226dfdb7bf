import type { JsonObject, JsonValue, PageTool } from '../../../driver/webmcp.ts';
import { type SearchRequest, type Traveller, travellersOf } from '../../../driver/types.ts';
import { keyWords } from './results.ts';
import { headcountOf } from '../../../scenarios/index.ts';

// Filling a tool's input from its schema: each property is understood from its name, title,
// description and format, the way a person reads a form's labels, and given the request's, the
// traveller's or an earlier tool's value. A required property nothing can fill means the tool is not
// for us (it is not called).

export interface Known {
  request: SearchRequest;
  traveller?: Traveller;
  /** Scalars earlier tools returned (a hold id…), by key. */
  carried: Map<string, string | number>;
  /** The option being chosen: its id under the key its list gave it. */
  offer?: { idKey: string; id: string | number };
}

export interface Property {
  key: string;
  node: JsonObject;
  required: boolean;
  /** Key, title and description as words. */
  words: string;
}

const str = (v: JsonValue | undefined): string => (typeof v === 'string' ? v : '');

export function propertiesOf(tool: PageTool): Property[] {
  const schema = tool.inputSchema;
  const props = schema && typeof schema.properties === 'object' && schema.properties && !Array.isArray(schema.properties) ? schema.properties : {};
  const required = new Set(Array.isArray(schema?.required) ? schema.required.filter((r): r is string => typeof r === 'string') : []);
  return Object.entries(props)
    .filter((e): e is [string, JsonObject] => e[1] !== null && typeof e[1] === 'object' && !Array.isArray(e[1]))
    .slice(0, 50)
    .map(([key, node]) => ({ key, node, required: required.has(key), words: `${keyWords(key)} ${keyWords(str(node.title))} ${str(node.description).toLowerCase().slice(0, 200)}` }));
}

const first = (words: string, pattern: RegExp) => pattern.test(words);

/** What the request or traveller says for this property, before fitting it to the property's type. */
function rawValue(p: Property, known: Known): string | number | undefined {
  const w = p.words;
  const key = keyWords(p.key);
  const r = known.request;
  // An earlier tool's value under the same key (a hold id, a session), or the chosen option's id.
  if (known.offer && (p.key === known.offer.idKey || key === keyWords(known.offer.idKey))) return known.offer.id;
  // Only identifiers are carried: the request and the traveller have the last word on everything else.
  if (/(^| )(id|token|ref|reference|session|key|hold|booking|reservation|cart|basket|order|code)( |$)/.test(key)) {
    for (const [k, v] of known.carried) if (k === p.key || keyWords(k) === key) return v;
  }
  // An identifier is the site's own: only a tool gives it (a name is not an id).
  if (/(^| )(id|uuid|uid|token|key)$/.test(key)) return undefined;
  const t = known.traveller;
  if (t) {
    if (first(key, /(^| )(first|given|fore) ?name$|^first$|^given$/)) return t.givenName;
    if (first(key, /(^| )(last|family|sur) ?name$|^last$|^surname$/)) return t.familyName;
    if (first(key, /email|e mail/)) return t.email;
    if (first(key, /phone|tel|mobile|telephone/)) return t.phone;
    if (first(key, /birth|dob|bday/)) return t.birthDate;
    if (first(key, /passport (number|no)|^passport$/)) return t.passportNumber;
    if (first(key, /passport (country|issuing)|nationality|citizenship/)) return t.passportCountry;
    if (first(key, /known traveler|ktn/)) return t.knownTravelerNumber;
    if (first(key, /^(full )?name$|(guest|contact|customer|traveller|traveler|passenger|lead) name/)) return `${t.givenName} ${t.familyName}`;
    // A person's key whose description says it wants the name ("guest": "The guest's full name").
    if (str(p.node.type) !== 'array' && first(key, /^(guest|contact|customer|traveller|traveler|passenger|lead|booker|holder)$/) && first(w, /\bname\b/)) return `${t.givenName} ${t.familyName}`;
  }
  if (p.node.format === 'date' || first(w, /\bdate\b|\bday\b|check ?in|check ?out|arriv|depart/)) {
    if (r.scenario === 'hotel') return first(w, /check ?out|depart|end|until|leav/) ? r.checkOut : r.checkIn;
    if (first(w, /\bdate\b|\bday\b|when|depart/) || p.node.format === 'date') return r.date;
  }
  if (p.node.format === 'time' || first(key, /(^| )time$|^hour$|^at$|departure time|slot time/)) {
    if (r.scenario === 'restaurant') return r.time;
    if (r.scenario === 'flight') return r.departureTime;
  }
  // How many: a number, a list of choices (a form tool's <select> of "1"…"8"), or a text input
  // whose own name says it counts (its description alone could be "phone number of the guest").
  const choices = Array.isArray(p.node.enum) || Array.isArray(p.node.anyOf) || Array.isArray(p.node.oneOf);
  const counts = /integer|number/.test(str(p.node.type)) || choices;
  if ((counts && first(w, /party|covers|guests|people|persons|diners|pax|adults|passengers|travell?ers|tickets|quantity|seats|number of|how many|headcount/))
    || (str(p.node.type) === 'string' && first(key, /(^| )(party( size)?|covers|guests|people|persons|diners|pax|adults|passengers|travell?ers|tickets|quantity|qty|seats|headcount)$/))) {
    return headcountOf(r);
  }
  if (r.scenario === 'flight') {
    if (first(key, /origin|(^| )from( |$)|departure airport|depart from|source/)) return r.origin;
    if (first(key, /destination|(^| )to( |$)|arrival airport|arrive at/)) return r.destination;
    if (first(key, /cabin|class|fare type/)) return r.cabin;
    if (first(key, /airline|carrier/)) return r.airline;
    return undefined;
  }
  if (first(key, /city|town|location|where|destination|area|region/)) return r.city;
  if (r.scenario === 'hotel' && first(key, /room/)) return r.roomPreference;
  if (r.scenario === 'activity' && first(key, /seat|section|category|ticket type/)) return r.seatType;
  if (first(key, /restaurant|venue|hotel|property|tour|event|activity|attraction|experience|show|place|^name$|query|^q$|keyword|search|term/)) return r.venue;
  return undefined;
}

/** One of the property's allowed values that matches ours (by value or by its title), or the value as is. */
function fitted(p: Property, value: string | number): JsonValue | undefined {
  const type = str(p.node.type);
  const options: Array<{ value: JsonValue; title: string }> = [];
  if (Array.isArray(p.node.enum)) for (const v of p.node.enum) options.push({ value: v, title: '' });
  for (const list of [p.node.anyOf, p.node.oneOf]) {
    if (Array.isArray(list)) for (const o of list) if (o && typeof o === 'object' && !Array.isArray(o) && 'const' in o) options.push({ value: o.const!, title: str(o.title) });
  }
  if (options.length) {
    const want = String(value).toLowerCase().trim();
    const hit = options.find((o) => String(o.value).toLowerCase() === want)
      ?? options.find((o) => o.title.toLowerCase() === want)
      ?? options.find((o) => want.length >= 3 && (o.title.toLowerCase().includes(want) || String(o.value).toLowerCase().includes(want)));
    return hit?.value;
  }
  if (type === 'integer' || type === 'number') {
    const n = typeof value === 'number' ? value : Number(value);
    return Number.isFinite(n) && (type === 'number' || Number.isInteger(n)) ? n : undefined;
  }
  if (type === 'boolean' || type === 'array' || type === 'object') return undefined;
  return String(value);
}

const PEOPLE = /passengers?|travell?ers?|guests?|people|persons?|attendees?|participants?|occupants?/;
const PERSON_KEY = /(^| )((first|given|fore|last|family|sur|full) ?name|birth|dob|passport)( |$)/;

/** The item schema of a list of people ("passengers": [{first_name, …}]), or null. */
function peopleItems(p: Property): JsonObject | null {
  const items = p.node.items;
  if (str(p.node.type) !== 'array' || !items || typeof items !== 'object' || Array.isArray(items) || !PEOPLE.test(keyWords(p.key))) return null;
  return typeof items.properties === 'object' && items.properties !== null ? items : null;
}

/** One entry per traveller, each filled from the item schema as a tool's input is; null if one cannot be. */
function peopleValue(items: JsonObject, known: Known): JsonValue[] | null {
  const out: JsonValue[] = [];
  for (const person of travellersOf(known.traveller!)) {
    const one = fillInput({ name: 'item', description: '', inputSchema: items } as PageTool, { ...known, traveller: person });
    if (!one) return null;
    out.push(one.input);
  }
  return out;
}

/** The tool's input, or null when a required property cannot be filled. */
export function fillInput(tool: PageTool, known: Known): { input: JsonObject; filled: number } | null {
  const input: JsonObject = {};
  let filled = 0;
  const props = propertiesOf(tool);
  const several = known.request.scenario === 'flight' && (known.traveller?.additionalTravellers?.length ?? 0) > 0;
  // Several passengers and a tool that takes one person's details and no list of them: it would book
  // the others nameless. Not for us: the page's own form asks for everyone.
  if (several && props.some((p) => PERSON_KEY.test(keyWords(p.key))) && !props.some((p) => peopleItems(p))) return null;
  for (const p of props) {
    const items = known.traveller ? peopleItems(p) : null;
    if (items) {
      const people = peopleValue(items, known);
      if (!people) {
        if (p.required) return null;
        continue;
      }
      Object.defineProperty(input, p.key, { value: people, enumerable: true, writable: true, configurable: true });
      filled += 1;
      continue;
    }
    const raw = rawValue(p, known);
    const value = raw === undefined || raw === '' ? undefined : fitted(p, raw);
    if (value === undefined) {
      if (p.required) return null;
      continue;
    }
    Object.defineProperty(input, p.key, { value, enumerable: true, writable: true, configurable: true });
    filled += 1;
  }
  return { input, filled };
}
