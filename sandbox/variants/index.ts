/**
 * Metamorphic variants of the corpus sites (issue 25): the same site, the same
 * server, its markup rewritten from a seed. One module per kind of change:
 * names.ts (ids and classes), wrappers.ts, order.ts (fields), wording.ts
 * (synonyms or another language), formats.ts (prices and dates). The seed picks,
 * per site, whether its words are English synonyms or which language. What the
 * server reads back (names, values, microdata, JSON-LD) is never changed, so the
 * site books exactly as before.
 */
import { parse, serialize } from 'parse5';
import type { Res } from '../engine/http.ts';
import { localeFormats, localeJson } from './formats.ts';
import { renameIdsAndClasses } from './names.ts';
import { shuffleFields } from './order.ts';
import { LANGUAGES, LOCALES, type Language } from './phrases.ts';
import { rng } from './random.ts';
import { replaceWording } from './wording.ts';
import { addWrappers } from './wrappers.ts';

export const VARIANT_KINDS = ['order', 'wrappers', 'wording', 'formats', 'names'] as const;
export type VariantKind = (typeof VARIANT_KINDS)[number];

export interface Variant {
  seed: number;
  /** The kinds of change applied (default: all of them). */
  kinds?: readonly VariantKind[];
}

export interface SitePlan {
  language: Language;
  locale: string;
  kinds: readonly VariantKind[];
}

/** What a variant changes on one site: its language (English synonyms, or which other), its locale. */
export function planFor(variant: Variant, site: string): SitePlan {
  const language = rng(variant.seed, `${site}:language`).pick(LANGUAGES);
  return { language, locale: LOCALES[language], kinds: variant.kinds ?? VARIANT_KINDS };
}

/** The page's HTML as the variant writes it. */
export function transformHtml(source: string, variant: Variant, site: string, pagePath = ''): string {
  const plan = planFor(variant, site);
  const doc = parse(source);
  const on = (k: VariantKind) => plan.kinds.includes(k);
  // Where a choice is random, it follows the seed, the site and the page (pages differ, the run repeats).
  if (on('order')) shuffleFields(doc, rng(variant.seed, `${site}:${pagePath}:order`));
  if (on('wrappers')) addWrappers(doc, rng(variant.seed, `${site}:${pagePath}:wrappers`));
  if (on('wording')) replaceWording(doc, plan.language);
  if (on('formats')) localeFormats(doc, plan.locale);
  if (on('names')) renameIdsAndClasses(doc, variant.seed, site);
  return serialize(doc);
}

/** A corpus site's response under the variant: HTML rewritten, a JSON API's display strings in the locale. */
export function transformResponse(res: Res, variant: Variant, site: string, pagePath: string): Res {
  const type = String(res.headers['content-type'] ?? '');
  const body = typeof res.body === 'string' ? res.body : res.body.toString('utf8');
  if (type.startsWith('text/html') && body) return { ...res, body: transformHtml(body, variant, site, pagePath) };
  if (type.startsWith('application/json') && body && planFor(variant, site).kinds.includes('formats')) {
    return { ...res, body: JSON.stringify(localeJson(JSON.parse(body), planFor(variant, site).locale)) };
  }
  return res;
}
