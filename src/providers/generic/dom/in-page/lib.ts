import { openRoots } from '../../../../driver/shadow-path.ts';

// Helpers that run inside the page, for the generic driver's read-only page analysis: imported by
// the readers (readers/), bundled with them by esbuild (scripts/build-page-scripts.ts) into the
// one function sent to the page. None changes the page.

/** Collapsed whitespace, trimmed. */
export function clean(text: string | null | undefined): string {
  return (text ?? '').replace(/\s+/g, ' ').trim();
}

/** A native list's options as a field's options: value, words, whether it can be chosen. */
export function selectOptions(list: HTMLSelectElement): Array<{ value: string; text: string; disabled: boolean }> {
  return Array.from(list.options).map((o) => ({ value: o.value, text: clean(o.text), disabled: o.disabled }));
}

/** Rendered and not hidden (a visually hidden radio counts as visible through its label). */
export function shown(el: Element): boolean {
  const h = el as HTMLElement;
  if (h.hidden || el.closest('[hidden],[aria-hidden="true"],template')) return false;
  if (typeof h.checkVisibility === 'function') {
    if (h.checkVisibility({ visibilityProperty: true } as CheckVisibilityOptions)) return true;
  } else if (h.getClientRects().length > 0) return true;
  const labels = (el as HTMLInputElement).labels;
  if (labels) for (const l of Array.from(labels)) if ((l as HTMLElement).getClientRects().length > 0) return true;
  return false;
}

/**
 * The accessible name, as a screen reader announces it: the browser's own (Chromium's accessibility
 * tree, `computedName`, exposed by the ComputedAccessibilityInfo blink feature the executor's browser
 * is launched with; the tab's tree is kept by src/browser/accessibility.ts, or each name costs
 * Chromium a tree of its own); on a browser without it (a remote one), the parts of the algorithm a
 * booking page uses, done here.
 */
export function nameOf(el: Element): string {
  const computed = (el as Element & { computedName?: unknown }).computedName;
  if (typeof computed === 'string' && computed.trim() !== '') return clean(computed);
  const by = (el.getAttribute('aria-labelledby') ?? '').split(/\s+/).filter(Boolean).map((id) => clean(byId(el, id)?.textContent)).filter(Boolean);
  if (by.length) return by.join(' ');
  const aria = clean(el.getAttribute('aria-label'));
  if (aria) return aria;
  const labels = (el as HTMLInputElement).labels;
  if (labels && labels.length) {
    const text = Array.from(labels).map((l) => clean((l as HTMLElement).innerText || l.textContent)).filter(Boolean).join(' ');
    if (text) return text;
  }
  const tag = el.tagName;
  if (tag === 'INPUT') {
    const type = (el.getAttribute('type') ?? 'text').toLowerCase();
    if (type === 'submit' || type === 'button' || type === 'reset') return clean((el as HTMLInputElement).value);
    if (type === 'image') return clean(el.getAttribute('alt'));
  }
  if (tag !== 'INPUT' && tag !== 'SELECT' && tag !== 'TEXTAREA') {
    const text = clean((el as HTMLElement).innerText || el.textContent);
    if (text) return text;
    const img = el.querySelector('img[alt]');
    if (img) return clean(img.getAttribute('alt'));
  }
  return clean(el.getAttribute('title')) || clean(el.getAttribute('placeholder'));
}

/** The element an id names, as ARIA's id references are read: in the element's own tree (its shadow root, else the document). */
export function byId(from: Element, id: string): Element | null {
  const root = from.getRootNode() as Document | ShadowRoot;
  return (typeof root.getElementById === 'function' ? root.getElementById(id) : null) ?? from.ownerDocument.getElementById(id);
}

/** Every match of a CSS selector in these roots (openRoots), each root's in document order. */
export function allIn(roots: Array<Document | ShadowRoot>, selector: string): Element[] {
  return roots.length === 1 ? Array.from(roots[0]!.querySelectorAll(selector)) : roots.flatMap((r) => Array.from(r.querySelectorAll(selector)));
}

/** The nearest element matching `selector` from `el` up, through the hosts of the shadow roots it is in (a web component's field in a page's form). */
export function closestAcross(el: Element, selector: string): Element | null {
  for (let at: Element | null = el; at; at = (at.getRootNode() as Partial<ShadowRoot>).host ?? null) {
    const found = at.closest(selector);
    if (found) return found;
  }
  return null;
}

/** Whether `outer` holds `el`, in its own tree or inside a shadow root of an element it holds. */
export function holds(outer: Element, el: Element): boolean {
  for (let at: Element | null = el; at; at = (at.getRootNode() as Partial<ShadowRoot>).host ?? null) if (outer.contains(at)) return true;
  return false;
}

/** The element's parent, or, at the top of a shadow root, the element that holds the root. */
export function parentOf(el: Element): Element | null {
  return el.parentElement ?? ((el.parentNode as ShadowRoot | null)?.host ?? null);
}

/**
 * A selector that finds this element again (an id when it is unique, else a path of :nth-of-type
 * steps), as Playwright reads CSS: it pierces open shadow roots, and a root's top elements are the
 * children of its host, so the path runs on through the host.
 */
export function selectorOf(el: Element): string {
  const doc = el.ownerDocument;
  const shadowed = el.getRootNode() !== doc;
  const parts: string[] = [];
  let node: Element | null = el;
  while (node && node !== doc.documentElement) {
    const id = node.getAttribute('id');
    if (id && unique(doc, `#${CSS.escape(id)}`, shadowed)) {
      parts.unshift(`#${CSS.escape(id)}`);
      return parts.join(' > ');
    }
    const tag = node.tagName.toLowerCase();
    const parent: Element | null = parentOf(node);
    if (!parent) {
      parts.unshift(tag);
      break;
    }
    const siblings = node.parentElement ? node.parentElement.children : (node.parentNode as ShadowRoot).children;
    const same = Array.from(siblings).filter((c) => c.tagName === node!.tagName);
    parts.unshift(same.length > 1 ? `${tag}:nth-of-type(${same.indexOf(node) + 1})` : tag);
    node = parent;
  }
  return parts.length && parts[0] !== 'html' && !parts[0]!.startsWith('#') ? `html > ${parts.join(' > ')}` : parts.join(' > ');
}

/** Whether a selector matches one element: in the document, or, where shadow roots are in play, in any of them (as Playwright's CSS looks). */
function unique(doc: Document, selector: string, deep: boolean): boolean {
  return (deep ? allIn(rootsOnce(doc), selector) : doc.querySelectorAll(selector)).length === 1;
}

// The roots, found once for every selector a reading names: this module's scope lives one question
// to the page (the bundle is sent whole each time), in which nothing changes the page.
let rootsRead: { doc: Document; roots: Array<Document | ShadowRoot> } | null = null;
function rootsOnce(doc: Document): Array<Document | ShadowRoot> {
  if (rootsRead?.doc !== doc) rootsRead = { doc, roots: openRoots(doc) };
  return rootsRead.roots;
}

/** The page region an element sits in: header, nav, footer and aside hold site chrome (header search boxes, newsletters). */
export function regionOf(el: Element): string {
  const region = closestAcross(el, 'header,nav,footer,aside,[role="banner"],[role="navigation"],[role="contentinfo"],[role="complementary"]');
  if (!region) return 'main';
  // A <header> inside an article or section is that part's heading, not the site's banner.
  if (region.tagName === 'HEADER' && region.parentElement?.closest('article,section,main,form,[role="main"]')) return 'main';
  const role = region.getAttribute('role');
  return role === 'banner' ? 'header' : role === 'navigation' ? 'nav' : role === 'contentinfo' ? 'footer' : role === 'complementary' ? 'aside' : region.tagName.toLowerCase();
}

/** The text a field is described by: its labels, aria, name, id, placeholder, its fieldset's legend, and (with no name) the words beside it. */
export function describedBy(el: Element): string {
  const attr = (n: string) => el.getAttribute(n) ?? '';
  const legend = el.closest('fieldset')?.querySelector(':scope > legend');
  return clean([nameOf(el), attr('name'), attr('id'), attr('placeholder'), attr('title'), legend ? legend.textContent : '', nameOf(el) ? '' : besideOf(el).text].join(' | '));
}

/**
 * The words that stand for a label where a page gives a field none (legacy table layouts, a bare
 * "Cognome" before the box): the cell before the field's cell in its row, else the text just before
 * it in its container. `from` says which, for the audit.
 */
export function besideOf(el: Element): { text: string; from: string } {
  const cell = el.closest('td,th');
  if (cell) {
    for (let prev = cell.previousElementSibling; prev; prev = prev.previousElementSibling) {
      const text = clean(prev.textContent);
      if (text) return { text: text.slice(0, 60), from: 'table cell' };
    }
  }
  let node: Node | null = el;
  for (let up = 0; node && up < 3; up++, node = node.parentNode) {
    for (let prev = node.previousSibling; prev; prev = prev.previousSibling) {
      if (prev.nodeType === 1 && (prev as Element).matches('input,select,textarea,button')) return { text: '', from: '' };
      const text = clean(prev.textContent);
      if (text) return { text: text.slice(-60), from: 'preceding text' };
    }
  }
  return { text: '', from: '' };
}

/** What a field says of the format it takes: its description (aria-describedby), pattern and title. */
export function hintOf(el: Element): string {
  const described = (el.getAttribute('aria-describedby') ?? '').split(/\s+/).filter(Boolean).map((id) => clean(byId(el, id)?.textContent));
  const computed = (el as Element & { computedDescription?: unknown }).computedDescription;
  return clean([...described, typeof computed === 'string' ? computed : '', el.getAttribute('pattern') ?? '', el.getAttribute('title') ?? '', el.getAttribute('data-date-format') ?? '', el.getAttribute('data-format') ?? ''].join(' | ')).slice(0, 200);
}

/**
 * Marked in red without a word (a site that refuses a field silently: its label or its box turns
 * red): the label's own colour, or the box's border or outline, clearly red.
 */
export function flaggedRed(el: Element): boolean {
  const red = (color: string) => {
    const m = /rgba?\((\d+),\s*(\d+),\s*(\d+)/.exec(color);
    return m !== null && Number(m[1]) >= 170 && Number(m[2]) <= 90 && Number(m[3]) <= 90;
  };
  const labels = Array.from((el as HTMLInputElement).labels ?? []);
  if (labels.some((l) => red(getComputedStyle(l).color))) return true;
  const style = getComputedStyle(el);
  return (style.borderTopStyle !== 'none' && red(style.borderTopColor)) || (style.outlineStyle !== 'none' && red(style.outlineColor));
}

/** Is this a control a person presses (button, link, or something scripted to act as one)? */
export function isControl(el: Element): boolean {
  const tag = el.tagName;
  if (tag === 'BUTTON') return true;
  if (tag === 'A') return el.hasAttribute('href') || el.getAttribute('role') === 'button';
  if (tag === 'INPUT') return ['submit', 'button', 'image'].includes((el.getAttribute('type') ?? '').toLowerCase());
  const role = el.getAttribute('role');
  if (role === 'button' || role === 'link' || role === 'gridcell' || role === 'option' || role === 'menuitem' || role === 'menuitemradio' || role === 'tab') return true;
  // A date picker's day that is scripted but given no role (flatpickr's <span aria-label="June 10, 2030" tabindex="-1">).
  return role === null && el.hasAttribute('tabindex') && /\b\d{4}\b/.test(el.getAttribute('aria-label') ?? '') && el.children.length === 0;
}

/** More options than a person scans in a list, read only while the list is shown. */
export const HIDDEN_LIST_MAX = 50;

/**
 * A list the page does not show that holds more than HIDDEN_LIST_MAX options (a phone field's closed
 * country list: 240 options): its options are not read, each one's accessible name taking Chromium
 * a few milliseconds. A short closed list (a trip type) is read; a long one, once it is opened.
 */
export function longHiddenList(box: Element | null): boolean {
  return box !== null && box.querySelectorAll('[role="option"]').length > HIDDEN_LIST_MAX && !shown(box);
}

/**
 * Shown, and drawn at a size a person can see: a picker may keep its calendar in the page folded to
 * nothing (easepick's height 0 and scale(0) until it opens), which is not a calendar on the page.
 */
export function drawn(el: Element): boolean {
  const box = el.getBoundingClientRect();
  return box.width > 0 && box.height > 0 && shown(el);
}

/** What a form control may sit beside in its own widget; one more of these and it is the form, not the widget. */
const FORM_CONTROLS = 'input:not([type="hidden"]),select,textarea,button,[role="combobox"],label';

/** The element of `words` drawn near `list` (up to 3 levels out, never beside a form control: that is the field showing its value), innermost. */
function drawnTwin(list: Element, words: string): Element | null {
  let scope = list.parentElement;
  for (let depth = 0; scope && depth < 3 && !scope.querySelector(FORM_CONTROLS); depth++, scope = scope.parentElement) {
    const same = Array.from(scope.querySelectorAll('*')).filter((el) => !list.contains(el) && clean(el.textContent) === words && drawn(el));
    const inner = same.filter((el) => !same.some((o) => o !== el && el.contains(o)));
    if (inner.length === 1) return inner[0]!;
    if (inner.length > 1) return null;
  }
  return null;
}

/**
 * The options a person sees for a listbox that is open but folded to nothing: a copy for screen
 * readers (Ant Design's select keeps such a listbox of the few options around the active one, and
 * draws every option itself, with no role, beside it). The drawn list is found by the words of the
 * copy's first option, and its items are that element's drawn siblings of its kind. Empty when the
 * listbox is drawn itself, closed, or has no such list beside it.
 */
export function drawnOptions(list: Element): Element[] {
  if (!shown(list) || drawn(list)) return [];
  // (By its name first: Ant Design's copy holds each value, named by its label.)
  const first = list.querySelector('[role="option"]');
  let item: Element | null = null;
  for (const words of first ? new Set([nameOf(first), clean(first.textContent)]) : []) item ??= words ? drawnTwin(list, words) : null;
  for (let depth = 0; item?.parentElement && depth < 4; item = item.parentElement, depth++) {
    const tag = item.tagName;
    const peers = Array.from(item.parentElement.children).filter((c) => c.tagName === tag && drawn(c) && clean(c.textContent));
    if (peers.length >= 2) return peers;
  }
  return [];
}

/**
 * What a person clicks to open a combobox box that something of its own widget lies over (Element
 * Plus's select draws its placeholder or value over its input): that element, where it belongs to the
 * box's widget (the nearest element holding both holds no other form control); else the box itself.
 */
export function faceOf(el: Element): Element {
  const box = el.getBoundingClientRect();
  if (!box.width || !box.height) return el;
  // Every layer at the box's centre, topmost first: a popup still fading out over it is passed by.
  for (const top of el.ownerDocument.elementsFromPoint(box.left + box.width / 2, box.top + box.height / 2)) {
    if (top === el || el.contains(top)) return el;
    let common = el.parentElement;
    while (common && !common.contains(top)) common = common.parentElement;
    if (common && common !== el.ownerDocument.body && !Array.from(common.querySelectorAll(FORM_CONTROLS)).some((o) => o !== el)) return top;
  }
  return el;
}

/**
 * The words a read-only combobox box shows when the box itself holds none: a select that draws its
 * value beside its input (Ant Design's) shows it in the element around that input, before the field's
 * own label or another control is reached.
 */
export function shownValue(el: HTMLInputElement): string {
  if (el.value) return clean(el.value);
  let up = el.parentElement;
  for (let depth = 0; up && depth < 3; depth++, up = up.parentElement) {
    if (Array.from(up.querySelectorAll(FORM_CONTROLS)).some((o) => o !== el)) break;
    const words = clean(up.textContent);
    if (words) return words;
  }
  return '';
}

/** A combobox's text box that takes no typing: read-only, as the page made it. */
export function readOnlyBox(el: HTMLInputElement): boolean {
  return el.getAttribute('role') === 'combobox' && (el.readOnly || el.getAttribute('aria-readonly') === 'true');
}

