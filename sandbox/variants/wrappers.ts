/**
 * Extra wrapper elements, as component frameworks add them: a <div> around an
 * element, sometimes two, only where the HTML content model allows a <div> (its
 * parent takes flow content; never in tables, lists, selects, definition lists,
 * <head>, or phrasing-only parents such as <p>, <label>, <button>), and never
 * around an element a script finds by id (scripts step from it to its parent).
 */
import type { Rng } from './random.ts';
import { attr, elements, isRunScript, rawText, wrap, type Element, type Node } from './tree.ts';

const FLOW_PARENTS = new Set(['body', 'main', 'div', 'form', 'section', 'article', 'header', 'footer', 'aside', 'nav', 'fieldset', 'dialog', 'li', 'td', 'th', 'dd', 'blockquote', 'figure', 'details']);
/** Elements whose place is fixed by their parent (first child, or a part of a table, list, select, head). */
const NEVER_WRAPPED = new Set(['html', 'head', 'body', 'legend', 'summary', 'figcaption', 'li', 'dt', 'dd', 'tr', 'td', 'th', 'thead', 'tbody', 'tfoot', 'caption', 'colgroup', 'col', 'option', 'optgroup', 'script', 'style', 'template', 'link', 'meta', 'title', 'base', 'source', 'track', 'area', 'param']);

export function addWrappers(doc: Node, rng: Rng): void {
  const all = elements(doc);
  const scripts = all.filter(isRunScript).map(rawText).join('\n');
  const scripted = (e: Element) => {
    const id = attr(e, 'id');
    return id !== undefined && new RegExp(`['"#]${id.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}['"\\s\\]]`).test(scripts);
  };
  for (const e of all) {
    const parent = e.parentNode;
    if (!parent || !('tagName' in parent) || !FLOW_PARENTS.has(parent.tagName) || NEVER_WRAPPED.has(e.tagName)) continue;
    // A <div> straight inside a <dl> may only hold its name–value groups.
    if (parent.tagName === 'div' && parent.parentNode && 'tagName' in parent.parentNode && parent.parentNode.tagName === 'dl') continue;
    if (scripted(e) || !rng.chance(0.4)) continue;
    const depth = rng.chance(0.3) ? 2 : 1;
    let inner = e;
    for (let i = 0; i < depth; i++) inner = wrap(inner, 'div', [{ name: 'class', value: `w${Math.floor(rng.next() * 1e6).toString(36)}` }]);
  }
}
