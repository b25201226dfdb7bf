/**
 * Prices and dates shown in text, written in the variant's locale (Intl): "€1,234.00"
 * becomes "1234,00 €", "Monday, 10 June 2030" "lunes, 10 de junio de 2030". Only
 * text a person reads: never attributes (form values, microdata `content`), never
 * the text of a microdata property, JSON-LD, scripts, options or anything sent back.
 */
import { ancestors, attr, childrenOf, isElement, isText, type Node } from './tree.ts';

const WEEKDAYS = ['Sunday', 'Monday', 'Tuesday', 'Wednesday', 'Thursday', 'Friday', 'Saturday'];
const MONTHS = ['January', 'February', 'March', 'April', 'May', 'June', 'July', 'August', 'September', 'October', 'November', 'December'];
const CURRENCIES: Record<string, string> = { '€': 'EUR', $: 'USD', '£': 'GBP' };

const PRICE = /([€$£])(\d{1,3}(?:,\d{3})*\.\d{2})/g;
const LONG_DATE = new RegExp(`\\b(?:${WEEKDAYS.join('|')}), (\\d{1,2}) (${MONTHS.join('|')}) (\\d{4})\\b`, 'g');
const SHORT_DATE = new RegExp(`\\b(${MONTHS.map((m) => m.slice(0, 3)).join('|')}) (\\d{1,2}), (\\d{4})\\b`, 'g');
const UNTOUCHED = new Set(['head', 'select', 'option', 'script', 'style', 'textarea', 'template', 'title']);

const utc = (y: string, month: number, d: string) => new Date(Date.UTC(Number(y), month, Number(d)));

/** `text` with its prices and dates in `locale`'s formats. */
export function inLocale(text: string, locale: string): string {
  return text
    .replace(PRICE, (_, sign: string, amount: string) => new Intl.NumberFormat(locale, { style: 'currency', currency: CURRENCIES[sign]! }).format(Number(amount.replace(/,/g, ''))))
    .replace(LONG_DATE, (_, d: string, m: string, y: string) => new Intl.DateTimeFormat(locale, { dateStyle: 'full', timeZone: 'UTC' }).format(utc(y, MONTHS.indexOf(m), d)))
    .replace(SHORT_DATE, (_, m: string, d: string, y: string) => new Intl.DateTimeFormat(locale, { dateStyle: 'medium', timeZone: 'UTC' }).format(utc(y, MONTHS.findIndex((x) => x.startsWith(m)), d)));
}

export function localeFormats(doc: Node, locale: string): void {
  const visit = (n: Node) => {
    for (const c of childrenOf(n)) {
      if (isText(c)) {
        // The text of a microdata property is its value: what a reader of the markup takes.
        if (!ancestors(c).some((a) => attr(a, 'itemprop') !== undefined && attr(a, 'itemscope') === undefined)) c.value = inLocale(c.value, locale);
      } else if (isElement(c) && !UNTOUCHED.has(c.tagName)) visit(c);
    }
  };
  visit(doc);
}

/** A JSON API's display strings (a page that renders in the browser shows them as they come). */
export function localeJson(value: unknown, locale: string): unknown {
  if (typeof value === 'string') return inLocale(value, locale);
  if (Array.isArray(value)) return value.map((v) => localeJson(v, locale));
  if (value && typeof value === 'object') return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, localeJson(v, locale)]));
  return value;
}
