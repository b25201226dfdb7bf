import type { Scenario } from './types.ts';
import { fold } from './names.ts';

// Dates, times and quantities in the words booking sites write them ("Sunday, 29 November 2026 at
// 19:30", "Nov 29, 2026 at 7:30 PM", "party of 2", "2 × $69.00 tickets"), in the languages of
// booking sites: read by drivers from pages and by the executor from what a provider holds.

/** Month names (long and short) of these languages, from Intl (CLDR), each with and without its accents. */
function monthNames(langs: readonly string[]): Map<string, number> {
  const out = new Map<string, number>();
  for (const lang of langs) {
    for (const style of ['long', 'short'] as const) {
      const format = new Intl.DateTimeFormat(lang, { month: style, timeZone: 'UTC' });
      for (let m = 0; m < 12; m++) {
        const name = format.format(new Date(Date.UTC(2030, m, 15))).toLowerCase().replace(/\.$/, '');
        out.set(name, m + 1);
        out.set(fold(name), m + 1);
      }
    }
  }
  return out;
}

/** The languages of booking sites: "June", "Jun", "junio", "giugno", "Juni", "juin", "junho", "juni", "März". */
const MONTH_NUMBER: ReadonlyMap<string, number> = monthNames(['en', 'es', 'it', 'de', 'fr', 'pt', 'nl']).set('sept', 9);
const MONTH = `(${[...MONTH_NUMBER.keys()].sort((a, b) => b.length - a.length).join('|')})\\.?`;
// Every name is kept without its accents too: a folded look-up finds any spelling.
const monthOf = (name: string) => MONTH_NUMBER.get(fold(name).replace(/\.$/, '')) ?? 0;
const NOT_LETTER = '(?<![\\p{L}\\p{N}])';
// "10 June 2030", "10 de junio de 2030", "10. Juni 2030", "lunedì 10 giugno 2030"
const DAY_MONTH_YEAR = new RegExp(`${NOT_LETTER}(\\d{1,2})(?:st|nd|rd|th|er|º|ª)?\\.?\\s+(?:de\\s+)?${MONTH},?\\s+(?:de\\s+)?(\\d{4})(?!\\d)`, 'giu');
// "June 10, 2030", "June 10th, 2030", "Jun 10 Mo, 2030" (a short weekday after the day)
const MONTH_DAY_YEAR = new RegExp(`${NOT_LETTER}${MONTH}\\s+(\\d{1,2})(?:st|nd|rd|th)?(?:\\s+\\p{L}{2,3}\\.?)?,?\\s+(\\d{4})(?!\\d)`, 'giu');

// A month named on its own ("June 2030", a calendar's caption).
const MONTH_WORD = new RegExp(`${NOT_LETTER}${MONTH}(?![\\p{L}])`, 'iu');
/** Another language's month names, as a page in it writes them (read once per language). */
const OTHER_MONTHS = new Map<string, ReadonlyMap<string, number>>();

/**
 * The month a text names with its year ("December 2026", "diciembre de 2026"), as year × 12 + the
 * month's index (0–11); null when it names none. The page's language `lang` counts too, beside the
 * languages of booking sites.
 */
export function monthYearIn(text: string, lang = ''): number | null {
  const year = /(?<!\d)(\d{4})(?!\d)/.exec(text);
  if (!year) return null;
  const named = MONTH_WORD.exec(text);
  let month = named ? monthOf(named[1]!) : 0;
  if (!month && lang) {
    if (!OTHER_MONTHS.has(lang)) {
      let names: ReadonlyMap<string, number> = new Map();
      try {
        names = monthNames([lang]);
      } catch {
        // Not a language Intl knows: its months are not read.
      }
      OTHER_MONTHS.set(lang, names);
    }
    const words = fold(text);
    // Longest first: "June" before "Jun".
    const found = [...OTHER_MONTHS.get(lang)!].sort((a, b) => b[0].length - a[0].length)
      .find(([name]) => new RegExp(`(^|[^\\p{L}])${name.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}($|[^\\p{L}])`, 'u').test(words));
    month = found?.[1] ?? 0;
  }
  return month ? Number(year[1]) * 12 + month - 1 : null;
}

function isoDate(year: string, month: number, day: string): string | null {
  const d = Number(day);
  if (month < 1 || month > 12 || d < 1 || d > 31) return null;
  return `${year}-${String(month).padStart(2, '0')}-${String(d).padStart(2, '0')}`;
}

/** Every date in the text, in order: where it starts, and its YYYY-MM-DD. */
function datesAt(text: string): Array<[number, string]> {
  const found: Array<[number, string | null]> = [];
  for (const m of text.matchAll(/\b(\d{4})-(\d{2})-(\d{2})\b/g)) found.push([m.index, isoDate(m[1]!, Number(m[2]), m[3]!)]);
  for (const m of text.matchAll(DAY_MONTH_YEAR)) found.push([m.index, isoDate(m[3]!, monthOf(m[2]!), m[1]!)]);
  for (const m of text.matchAll(MONTH_DAY_YEAR)) found.push([m.index, isoDate(m[3]!, monthOf(m[1]!), m[2]!)]);
  return found.filter((f): f is [number, string] => f[1] !== null).sort((a, b) => a[0] - b[0]);
}

/** Every date in the text, in order, as YYYY-MM-DD. */
export function datesIn(text: string): string[] {
  return datesAt(text).map(([, d]) => d);
}

/** Where the text's first date starts ("lunedì 10 giugno 2030" at "10"), or -1. */
export function firstDateAt(text: string): number {
  return datesAt(text)[0]?.[0] ?? -1;
}

/** Weekday names (long and short) in the languages of booking sites, from Intl, as `fold` writes them. */
const WEEKDAYS: ReadonlySet<string> = (() => {
  const out = new Set<string>();
  for (const lang of ['en', 'es', 'it', 'de', 'fr', 'pt', 'nl']) {
    for (const style of ['long', 'short'] as const) {
      const format = new Intl.DateTimeFormat(lang, { weekday: style, timeZone: 'UTC' });
      for (let d = 0; d < 7; d++) out.add(fold(format.format(new Date(Date.UTC(2030, 5, 2 + d)))).replace(/\.$/, ''));
    }
  }
  for (const w of ['tues', 'thur', 'thurs']) out.add(w);
  return out;
})();

/** Is the word a weekday's name ("Monday", "lun.", "giovedì", "quinta-feira")? */
export function isWeekday(word: string): boolean {
  return WEEKDAYS.has(fold(word).replace(/\.$/, ''));
}

/** Every time of day in the text, in order, as HH:MM (24-hour; "7:30 PM" is 19:30). */
export function timesIn(text: string): string[] {
  const out: string[] = [];
  for (const m of text.matchAll(/\b(\d{1,2}):(\d{2})(?:\s*([ap])\.?m\.?\b)?/gi)) {
    let hours = Number(m[1]);
    const half = m[3]?.toLowerCase();
    if (half === 'p' && hours < 12) hours += 12;
    if (half === 'a' && hours === 12) hours = 0;
    if (hours > 23 || Number(m[2]) > 59) continue;
    out.push(`${String(hours).padStart(2, '0')}:${m[2]}`);
  }
  return out;
}

/** The first time of day in the text, as HH:MM. */
export function firstTimeIn(text: string): string | null {
  return timesIn(text)[0] ?? null;
}

/** How many rooms a hotel's text says ("1 room, 2 adults"); null when it does not say. */
export function roomsIn(text: string): number | null {
  const m = /\b(\d+)\s*rooms?\b/i.exec(text);
  return m ? Number(m[1]) : null;
}

// The units in the languages of booking sites (es, it, de, fr, pt beside English).
const PEOPLE = 'guests?|people|persons?|diners?|covers?|personas|persone|personen|personnes|pessoas|comensales|coperti|ospiti|invitados|g(?:ä|ae|a)ste|convives|couverts';
const ADULTS = 'adults?|guests?|adultos|adulti|erwachsene|adultes|hu(?:é|e)spedes|h(?:ó|o)spedes|ospiti|g(?:ä|ae|a)ste|personas|persone|personen|personnes|pessoas';
const UNITS: Record<Scenario, RegExp> = {
  restaurant: new RegExp(`\\bparty of (\\d+)|\\b(\\d+)\\s*(?:${PEOPLE})(?![\\p{L}])`, 'iu'),
  hotel: new RegExp(`\\b(\\d+)\\s*(?:${ADULTS})(?![\\p{L}])`, 'iu'),
  flight: /\b(\d+)\s*(?:passengers?|travell?ers?|adults?|pasajeros?|passegger[io]|passagiere?|passagers?|passageiros?|adultos?|adult[io]|erwachsene[rn]?|adultes?)\b/i,
  // "2 tickets", "2 × $69.00 tickets"
  activity: /\b(\d+)\s*(?:×\s*\S+\s*)?(?:tickets?|seats?|entradas|biglietti|karten|billets|bilhetes|ingressos)\b/i,
};

/** How many people (or tickets) the text says, for the scenario; null when it does not say. */
export function quantityIn(scenario: Scenario, text: string): number | null {
  const m = UNITS[scenario].exec(text);
  const n = m ? Number(m[1] ?? m[2]) : NaN;
  return Number.isInteger(n) ? n : null;
}

/** A pattern matching any of the words or phrases (spaces in a phrase match any run of spaces), accents optional. */
export function phrase(...lists: ReadonlyArray<readonly string[]>): RegExp {
  const all = new Set<string>();
  for (const w of lists.flat()) {
    all.add(w.toLowerCase());
    all.add(fold(w));
  }
  const alts = [...all].sort((a, b) => b.length - a.length).map((w) => w.replace(/[.*+?^${}()|[\]\\]/g, '\\$&').replace(/ /g, '\\s+'));
  return new RegExp(`(?<![\\p{L}\\p{N}])(?:${alts.join('|')})(?![\\p{L}\\p{N}])`, 'iu');
}

/** A flight's trip type as its choices read (beside English "one way", "return", "round trip"). */
const TRIP_WORDS = {
  oneWay: ['solo ida', 'sólo ida', 'ida', 'solo andata', 'sola andata', 'nur hinflug', 'einfach', 'aller simple', 'só ida', 'somente ida', 'apenas ida'],
  return: ['ida y vuelta', 'andata e ritorno', 'hin und rückflug', 'hin und zurück', 'aller retour', 'ida e volta'],
} as const;

const RETURN_TRIP = new RegExp(`\\b(?:return|round ?trip)\\b|${phrase(TRIP_WORDS.return).source}`, 'iu');
const ONE_WAY_TRIP = new RegExp(`\\b(?:one ?way|single)\\b|${phrase(TRIP_WORDS.oneWay).source}`, 'iu');

/** The trip a text names: "Ida y vuelta", "Round trip" are a return (before they are an "ida"); "One way", "Solo ida" one way. */
export function tripIn(text: string): 'return' | 'oneway' | null {
  const words = fold(text).replace(/[_\-[\]|.:()*]+/g, ' ');
  return RETURN_TRIP.test(words) ? 'return' : ONE_WAY_TRIP.test(words) ? 'oneway' : null;
}
