import { IN_PAGE_CLASSIFIER } from '../../driver/card-fields.ts';

// Layer 1's questions to a page, run inside it, built from the shared classifier's source so every
// layer agrees. Each is sent as its own source text: it may refer only to the classifier and to
// the helpers defined here in the same string.

/** `fieldsIn(root)`: every input, textarea and select under root, inside open shadow roots too (a web component's field is still on the page). */
const WALKER = `
  const fieldsIn = (root) => {
    const out = [];
    for (const el of Array.from(root.querySelectorAll('*'))) {
      if (el.shadowRoot) out.push(...fieldsIn(el.shadowRoot));
      if (el.tagName === 'INPUT' || el.tagName === 'TEXTAREA' || el.tagName === 'SELECT') out.push(el);
    }
    return out;
  };`;

/** Elements that hold a document of their own. */
const FRAME_ELEMENTS = 'iframe, frame, object, embed';

export const classifyField = new Function('el', `${IN_PAGE_CLASSIFIER}\nreturn cardFieldOf(el);`) as (el: Element) => string | null;

export const classifyControl = new Function(
  'el',
  `${IN_PAGE_CLASSIFIER}
  const label = ((el.innerText || el.value || el.getAttribute('aria-label') || el.id || el.tagName) + '').trim().replace(/\\s+/g, ' ').slice(0, 60);
  const form = el.form || el.closest('form');
  let field = null;
  let frame = false;
  if (form) {
    for (const f of Array.from(form.elements)) { field = cardChoiceOf(f); if (field) break; }
    if (!field) for (const f of Array.from(form.querySelectorAll('input, textarea, select'))) { field = cardChoiceOf(f); if (field) break; }
    frame = form.querySelector('iframe') !== null;
  }
  return { label, field, frame };`,
) as (el: Element) => { label: string; field: string | null; frame: boolean };

/** Also a radio button or checkbox whose name or labels read as a card code (a code picked digit by digit). */
export const classifyChoice = new Function('el', `${IN_PAGE_CLASSIFIER}\nreturn cardChoiceOf(el);`) as (el: Element) => string | null;

/**
 * The first card-code field the document shows, and whether the document is complete: one still
 * being parsed may show its code field further down (a frame asked too early).
 */
export const firstCardField = new Function(`${IN_PAGE_CLASSIFIER}${WALKER}
  for (const el of fieldsIn(document)) { const f = cardChoiceOf(el); if (f) return { field: f, parsed: true }; }
  return { field: null, parsed: document.readyState !== 'loading' };`) as () => { field: string | null; parsed: boolean };

/**
 * Armed on a control just before the guard checks the page and presses it: at the click (and at
 * the submission it starts), the control's document is looked at again, in the same moment. A
 * card-code field that has appeared, or a frame the guard did not see when it asked every frame
 * (a payment partner's frame mounted late, a script reacting to the pointer going down), stops the
 * press (the click's default action is prevented) and is reported by `disarm()`. A page's own
 * listener that runs before this one could hide the click from it: a hostile page is layers 2 and
 * 3's to stop; this closes the gap between a well-meaning page's check and its press.
 */
export const armPress = new Function(
  'el',
  `${IN_PAGE_CLASSIFIER}${WALKER}
  const doc = el.ownerDocument;
  const win = doc.defaultView;
  const known = new Set(Array.from(doc.querySelectorAll(${JSON.stringify(FRAME_ELEMENTS)})));
  const found = { field: null, frameInForm: false, newFrame: false };
  const check = (e) => {
    if (!found.field && !found.newFrame) {
      for (const f of fieldsIn(doc)) { found.field = cardChoiceOf(f); if (found.field) break; }
      const form = el.form || el.closest('form');
      for (const f of Array.from(doc.querySelectorAll(${JSON.stringify(FRAME_ELEMENTS)}))) {
        if (known.has(f)) continue;
        found.newFrame = true;
        if (form && form.contains(f)) found.frameInForm = true;
      }
      if (!found.field && !found.newFrame) return;
    }
    e.preventDefault();
    e.stopImmediatePropagation();
  };
  win.addEventListener('click', check, true);
  win.addEventListener('submit', check, true);
  return {
    disarm() {
      win.removeEventListener('click', check, true);
      win.removeEventListener('submit', check, true);
      return found.field || found.newFrame ? found : null;
    },
  };`,
) as (el: Element) => { disarm(): PressStopped | null };

interface PressStopped {
  field: string | null;
  frameInForm: boolean;
  newFrame: boolean;
}

/**
 * Fills a whole form in one round trip: every target is classified first, and if any is a card-code
 * field nothing is filled. Values go in through the elements' own setters with input and change
 * events, as a person's typing would leave them.
 */
export const fillFields = new Function(
  'fields',
  `${IN_PAGE_CLASSIFIER}
  const targets = [];
  for (const [selector, value] of fields) {
    const el = document.querySelector(selector);
    if (!el) return { missing: selector };
    const card = cardChoiceOf(el);
    if (card) return { card };
    targets.push([el, value]);
  }
  for (const [el, value] of targets) {
    const proto = el.tagName === 'SELECT' ? HTMLSelectElement.prototype : el.tagName === 'TEXTAREA' ? HTMLTextAreaElement.prototype : HTMLInputElement.prototype;
    const setter = Object.getOwnPropertyDescriptor(proto, 'value').set;
    el.focus();
    setter.call(el, value);
    if (el.tagName === 'SELECT' && el.value !== value) return { rejected: value };
    el.dispatchEvent(new Event('input', { bubbles: true }));
    el.dispatchEvent(new Event('change', { bubbles: true }));
    el.blur();
  }
  return {};`,
) as (fields: Array<[string, string]>) => { missing?: string; card?: string; rejected?: string };

export const focusFirstCardField = new Function(`${IN_PAGE_CLASSIFIER}${WALKER}
  for (const el of fieldsIn(document)) { if (cardFieldOf(el)) { el.focus(); return el.getRootNode().activeElement === el; } }
  return false;`) as () => boolean;
