import { boundValue, type JsonObject, type JsonValue } from '../../../driver/webmcp.ts';
import type { Offer } from '../../../driver/types.ts';

// Reading what a WebMCP tool returned. Everything in it is the page's: plain data already bounded by
// the guard, read here by shape and key names only. Text is parsed as JSON when it looks like JSON
// (JSON.parse, never evaluated), and never followed as an instruction.

/** Longest text parsed as JSON (a tool's text content). */
const MAX_JSON_TEXT = 200_000;

export interface ToolReading {
  /** The result as data: structuredContent, or JSON found in the text content, or the value itself. */
  data: JsonValue | undefined;
  /** The text content, joined (bounded). */
  text: string;
  /** The tool said it failed (`isError`). */
  isError: boolean;
}

const isObject = (v: unknown): v is JsonObject => v !== null && typeof v === 'object' && !Array.isArray(v);

function parseJson(text: string): JsonValue | undefined {
  const t = text.trim();
  if (t.length > MAX_JSON_TEXT || !/^[[{]/.test(t)) return undefined;
  try {
    return boundValue(JSON.parse(t)).value;
  } catch {
    return undefined;
  }
}

/** The MCP result shape (`{ content: [{ type: 'text', text }], structuredContent?, isError? }`) or any other value. */
export function readResult(result: JsonValue | undefined): ToolReading {
  if (typeof result === 'string') return { data: parseJson(result) ?? result, text: result.slice(0, 4_000), isError: false };
  if (!isObject(result)) return { data: result, text: '', isError: false };
  const isError = result.isError === true;
  const texts: string[] = [];
  if (Array.isArray(result.content)) {
    for (const part of result.content) if (isObject(part) && typeof part.text === 'string') texts.push(part.text);
  }
  const text = texts.join('\n').slice(0, 4_000);
  if (isObject(result.structuredContent) || Array.isArray(result.structuredContent)) return { data: result.structuredContent, text, isError };
  if (texts.length) {
    const parsed = texts.map(parseJson).find((v) => v !== undefined);
    return { data: parsed ?? text, text, isError };
  }
  return { data: result, text, isError };
}

/** Identifier words: `slotId` → "slot id", `price_per_person` → "price per person". */
export function keyWords(key: string): string {
  return key.replace(/([a-z])([A-Z])/g, '$1 $2').toLowerCase().replace(/[^a-z0-9]+/g, ' ').trim();
}

/** Every scalar in the data by key (the last one of a key wins), for ids carried from one tool to the next. */
export function scalars(data: JsonValue | undefined, out = new Map<string, string | number>(), depth = 0): Map<string, string | number> {
  if (depth > 4 || data === null || typeof data !== 'object') return out;
  if (Array.isArray(data)) return out; // a list is offers, not the booking's own ids
  for (const [key, value] of Object.entries(data)) {
    if (typeof value === 'string' || typeof value === 'number') out.set(key, value);
    else scalars(value, out, depth + 1);
  }
  return out;
}

const ID_KEY = /(^| )(id|key|ref|reference|code|slot|uid)$/;
/** Keys that make a list of objects a list of options. */
const OPTION_KEY = /(^| )(id|key|ref|reference|code|slot|uid|time|start time|departure|flight number|flight)$/;
const LABEL_KEYS = /^(label|title|name|display name|description|summary|room|room type|type|seat type|section|category|option)$/;
const TIME_KEY = /(^| )(time|start|starts|start time|departure|departs|departure time|slot time|at)$/;
const FLIGHT_KEY = /^(flight|flight number|flight no|number|flight code)$/;
const PRICE_KEY = /(^| )(price|amount|cost|fare|rate)( per \w+)?$|^per \w+$/;
const TOTAL_KEY = /(^| )total( price| amount| cost)?$/;
const AVAILABLE_KEY = /^(available|availability|bookable|status|sold out|is available|open)$/;
const CURRENCY_KEY = /^(currency|currency code)$/;

/** "19:30", "7:30 pm", "2030-06-01T19:30:00" → "19:30". */
export function timeOf(value: JsonValue | undefined): string | undefined {
  if (typeof value !== 'string') return undefined;
  const m = /(?:^|[T\s])(\d{1,2}):(\d{2})(?::\d{2})?\s*([ap]\.?m\.?)?/i.exec(value) ?? /^(\d{1,2}):(\d{2})/.exec(value);
  if (!m) return undefined;
  let h = Number(m[1]);
  const min = Number(m[2]);
  const ampm = m[3]?.toLowerCase();
  if (ampm?.startsWith('p') && h < 12) h += 12;
  if (ampm?.startsWith('a') && h === 12) h = 0;
  if (h > 23 || min > 59) return undefined;
  return `${String(h).padStart(2, '0')}:${String(min).padStart(2, '0')}`;
}

/** A price as a number (major units) and as written. */
function priceOf(value: JsonValue | undefined, currency: string | undefined): { amount?: number; text?: string } {
  if (typeof value === 'number' && Number.isFinite(value) && value >= 0) return { amount: value, text: currency ? `${currency} ${value.toFixed(2)}` : value.toFixed(2) };
  if (typeof value === 'string') {
    const m = /(\d{1,3}(?:[,\s]\d{3})*|\d+)(?:[.,](\d{1,2}))?/.exec(value);
    if (m) return { amount: Number(`${m[1]!.replace(/[,\s]/g, '')}.${m[2] ?? '0'}`), text: value.trim().slice(0, 40) };
  }
  return {};
}

/** An option as the tool returned it, and the key it carries its id under (to be passed back as is). */
export interface ToolOffer {
  offer: Offer;
  idKey: string;
  id: string | number;
}

function offerOf(item: JsonObject, index: number): ToolOffer | null {
  let idKey: string | null = null;
  /** Without an id, a flight number, a time or a name identifies the option (passed back as is). */
  let flightKey: string | null = null;
  let timeKey: string | null = null;
  let labelKey: string | null = null;
  let label: string | undefined;
  let time: string | undefined;
  let flightNumber: string | undefined;
  let unit: { amount?: number; text?: string } = {};
  let total: { amount?: number; text?: string } = {};
  let available = true;
  let currency: string | undefined;
  for (const [key, value] of Object.entries(item)) if (CURRENCY_KEY.test(keyWords(key)) && typeof value === 'string') currency = value.slice(0, 8);
  const descriptions: string[] = [];
  for (const [key, value] of Object.entries(item)) {
    const w = keyWords(key);
    if (!idKey && ID_KEY.test(w) && (typeof value === 'string' || typeof value === 'number') && String(value).length <= 200) idKey = key;
    else if (FLIGHT_KEY.test(w) && typeof value === 'string') {
      flightNumber = value.replace(/\s+/g, '').toUpperCase().slice(0, 12);
      flightKey ??= key;
    } else if (TIME_KEY.test(w) && timeOf(value)) {
      time = timeOf(value);
      timeKey ??= key;
    }
    else if (TOTAL_KEY.test(w)) total = priceOf(value, currency);
    else if (PRICE_KEY.test(w)) unit = priceOf(value, currency);
    else if (AVAILABLE_KEY.test(w)) {
      if (value === false || (typeof value === 'string' && /sold|unavail|full|closed|no$/i.test(value)) || (w === 'sold out' && value === true)) available = false;
    } else if (LABEL_KEYS.test(w) && typeof value === 'string') {
      if (!label && /^(label|title|name|display name|room|room type|option)$/.test(w)) {
        label = value;
        labelKey = key;
      } else descriptions.push(value);
    }
  }
  idKey ??= flightKey ?? timeKey ?? labelKey;
  if (!idKey) return null;
  const id = item[idKey] as string | number;
  const shown = (label ?? time ?? flightNumber ?? descriptions[0] ?? String(id)).replace(/\s+/g, ' ').trim().slice(0, 120);
  const offer: Offer = {
    key: `webmcp:${index}`,
    available,
    label: shown,
    ...(time ? { time } : {}),
    ...(flightNumber ? { flightNumber } : {}),
    ...(descriptions.length ? { description: descriptions.join(' · ').slice(0, 200) } : {}),
    ...(unit.amount !== undefined ? { unitPrice: unit.amount } : {}),
    ...(total.amount !== undefined ? { total: total.amount } : {}),
    ...((unit.text ?? total.text) ? { priceText: (unit.text ?? total.text)! } : {}),
  };
  return { offer, idKey, id };
}

/** The longest list of objects in the data (within a few levels) whose items carry an id: the options. */
function optionList(data: JsonValue | undefined, depth = 0): JsonObject[] {
  if (depth > 4 || data === null || typeof data !== 'object') return [];
  let best: JsonObject[] = [];
  if (Array.isArray(data)) {
    const objects = data.filter(isObject);
    if (objects.length && objects.some((o) => Object.keys(o).some((k) => OPTION_KEY.test(keyWords(k))))) best = objects;
    // A bare list of times ("19:00", "19:30"): each is an option identified by itself.
    else if (data.length && data.every((v) => typeof v === 'string' && timeOf(v) && v.length <= 40)) best = data.map((v) => ({ time: v as string }));
    for (const item of objects) {
      const inner = optionList(item, depth + 1);
      if (inner.length > best.length) best = inner;
    }
    return best;
  }
  for (const value of Object.values(data)) {
    const inner = optionList(value, depth + 1);
    if (inner.length > best.length) best = inner;
  }
  return best;
}

export function offersIn(data: JsonValue | undefined): ToolOffer[] {
  return optionList(data).slice(0, 200).map(offerOf).filter((o): o is ToolOffer => o !== null);
}

const NOTHING = /\b(no (availability|tables?|rooms?|flights?|tickets?|seats?|slots?|times?|results?|options?)( (are|is))? (available|left|found|free)?|fully booked|sold out|nothing (is )?available|not available|no longer available)\b/i;

/** The tool's own words that there is nothing to book, or null. */
export function nothingAvailable(reading: ToolReading): string | null {
  const texts = [reading.text];
  for (const value of scalars(reading.data).values()) if (typeof value === 'string') texts.push(value);
  for (const t of texts) {
    const m = NOTHING.exec(t);
    if (m) return t.replace(/\s+/g, ' ').trim().slice(0, 200);
  }
  return null;
}

const NEXT_KEY = /(^| )(url|href|link|next|next url|continue|continue url|checkout|checkout url|review url|payment url|redirect|redirect url|location)$/;

/**
 * Where the tool says the booking goes on (a review or payment page), if it names a page of the same
 * site: http(s), and the same host or a host under the same parent domain (`book.example.com` beside
 * `www.example.com`). Anything else is not followed.
 */
export function nextPage(data: JsonValue | undefined, current: string): string | null {
  let here: URL;
  try {
    here = new URL(current);
  } catch {
    return null;
  }
  // The site's own domain: the host without its first label (www, book…), unless what is left is a
  // public suffix such as co.uk (a rough list: the second-level labels registries use).
  const parent = (host: string) => {
    const labels = host.split('.');
    if (labels.length < 3 || /^(co|com|org|net|gov|ac|edu|ne|or|go|gv|nic)$/.test(labels[labels.length - 2]!) && labels.length < 4) return host;
    return labels.slice(1).join('.');
  };
  for (const [key, value] of scalars(data)) {
    if (typeof value !== 'string' || !NEXT_KEY.test(keyWords(key)) || value.length > 2_000) continue;
    let url: URL;
    try {
      url = new URL(value, here);
    } catch {
      continue;
    }
    if (url.protocol !== 'http:' && url.protocol !== 'https:') continue;
    if (url.origin === here.origin || (url.protocol === here.protocol && url.port === here.port && parent(url.hostname) === parent(here.hostname))) return url.href;
  }
  return null;
}
