/**
 * Ids and classes renamed at random, consistently: in the attributes that name
 * them and those that refer to ids, in the page's <style>, and in its scripts'
 * string literals (selectors, HTML fragments, the argument of getElementById and
 * the like), so that the scripts keep working. A name is renamed the same way on
 * every page of a site for one seed.
 */
import { hash } from '../engine/inventory.ts';
import { mapLiterals, type Literal } from './js-literals.ts';
import { attr, elements, isRunScript, rawText, setRawText, type Node } from './tree.ts';

/** Attributes whose value is a list of ids. */
const ID_REFS = ['for', 'aria-labelledby', 'aria-describedby', 'aria-controls', 'aria-owns', 'aria-activedescendant', 'aria-flowto', 'aria-details', 'aria-errormessage', 'list', 'form', 'headers', 'popovertarget', 'commandfor'];
/** Classes that are a vendor's contract with its own script (a CAPTCHA widget), not the site's naming. */
const KEPT_CLASSES = new Set(['g-recaptcha', 'h-captcha', 'cf-turnstile']);

const NAME = /[A-Za-z_][\w-]*/g;
const FRAGMENT_ATTR = new RegExp(`\\b(id|class|${ID_REFS.join('|')}|href)=(["'])([^"']*)\\2`, 'g');
// Where a whole literal is an id: getElementById('x'), el.id = 'x', setAttribute('aria-…', 'x'), a config object's value.
const ID_CONTEXT = /(?:getElementById\(|\.id\s*=|\.htmlFor\s*=|setAttribute\(\s*['"](?:aria-[a-z]+|for|list|form)['"]\s*,|[:=]|\b(?:case|return))$/;
const CLASS_CONTEXT = /(?:getElementsByClassName\(|\.className\s*=|classList\.(?:add|remove|toggle|contains|replace)\((?:[^()]*,)?)$/;

export interface NameMaps {
  ids: Map<string, string>;
  classes: Map<string, string>;
}

function renamed(seed: number, site: string, kind: string, name: string): string {
  const h = hash(`${seed}:${site}:${kind}:${name}`).toString(36);
  return `${'abcdefghjkmnpqrstuvwxyz'[hash(h) % 23]}${h.slice(0, 6)}`;
}

export function renameIdsAndClasses(doc: Node, seed: number, site: string): NameMaps {
  const all = elements(doc);
  const scripts = all.filter(isRunScript);
  const styles = all.filter((e) => e.tagName === 'style');
  const ids = new Set<string>();
  const classes = new Set<string>();
  for (const e of all) {
    const id = attr(e, 'id');
    if (id) ids.add(id);
    for (const c of (attr(e, 'class') ?? '').split(/\s+/)) if (c) classes.add(c);
  }
  for (const s of scripts) {
    mapLiterals(rawText(s), (l) => {
      for (const [, name, , value] of l.text.matchAll(FRAGMENT_ATTR)) {
        if (name === 'id') ids.add(value!);
        if (name === 'class') for (const c of value!.split(/\s+/)) if (c) classes.add(c);
      }
      return undefined;
    });
  }
  for (const s of styles) for (const [, c] of rawText(s).matchAll(/\.(-?[A-Za-z_][\w-]*)/g)) classes.add(c!);
  // Ids a script builds from parts (n + '-value') cannot be followed: they keep their names.
  const parts: string[] = [];
  for (const s of scripts) mapLiterals(rawText(s), (l) => {
    if (/^[-_]\w|\w[-_]$/.test(l.text) && /^[\w-]+$/.test(l.text)) parts.push(l.text);
    return undefined;
  });
  const composed = (id: string) => parts.some((p) => (p.startsWith('-') || p.startsWith('_') ? id.endsWith(p) : id.startsWith(p)));

  const maps: NameMaps = { ids: new Map(), classes: new Map() };
  for (const id of ids) if (!composed(id)) maps.ids.set(id, renamed(seed, site, 'id', id));
  for (const c of classes) if (!KEPT_CLASSES.has(c)) maps.classes.set(c, renamed(seed, site, 'class', c));

  const list = (value: string, map: Map<string, string>) => value.replace(NAME, (n) => map.get(n) ?? n);
  for (const e of all) {
    for (const a of e.attrs) {
      if (a.name === 'id' || ID_REFS.includes(a.name)) a.value = list(a.value, maps.ids);
      else if (a.name === 'class') a.value = list(a.value, maps.classes);
      else if (a.name === 'href' && a.value.startsWith('#')) a.value = `#${maps.ids.get(a.value.slice(1)) ?? a.value.slice(1)}`;
    }
  }
  for (const s of styles) setRawText(s, selectors(rawText(s), maps));
  for (const s of scripts) setRawText(s, mapLiterals(rawText(s), (l) => inLiteral(l, maps)));
  return maps;
}

/** `#id` and `.class` in CSS or a selector string. */
function selectors(text: string, maps: NameMaps): string {
  return text.replace(/([#.])(-?[A-Za-z_][\w-]*)/g, (whole, sigil: string, name: string) => {
    const to = (sigil === '#' ? maps.ids : maps.classes).get(name);
    return to ? sigil + to : whole;
  });
}

function inLiteral(l: Literal, maps: NameMaps): string {
  const whole = l.text.trim();
  const isKey = l.after === ':' && /[{,]$/.test(l.before);
  if (!isKey && maps.ids.has(whole) && ID_CONTEXT.test(l.before)) return maps.ids.get(whole)!;
  if (/^[\w\s-]+$/.test(whole) && CLASS_CONTEXT.test(l.before)) return l.text.replace(NAME, (n) => maps.classes.get(n) ?? n);
  let text = l.text.replace(FRAGMENT_ATTR, (all, name: string, q: string, value: string) => {
    if (name === 'href') return value.startsWith('#') ? `${name}=${q}#${maps.ids.get(value.slice(1)) ?? value.slice(1)}${q}` : all;
    const map = name === 'class' ? maps.classes : maps.ids;
    return `${name}=${q}${value.replace(NAME, (n) => map.get(n) ?? n)}${q}`;
  });
  // A selector: '#consent [data-consent]', '.stepper button', 'form .msg.client'.
  if (!text.includes('<')) text = selectors(text, maps);
  return text;
}
