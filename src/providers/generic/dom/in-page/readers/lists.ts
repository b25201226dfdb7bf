import type { FieldInfo } from '../../snapshot.ts';
import { byId, clean, drawnOptions, faceOf, readOnlyBox, selectorOf, describedBy, hintOf, longHiddenList, nameOf, selectOptions, shown, shownValue } from '../lib.ts';
import { widgetField, type Reader } from '../page.ts';

export const lists: Reader = (page) => {
  const { all, formIndex } = page;
  const fields: FieldInfo[] = [];
  // Lists chosen from by pressing (WAI-ARIA): a select-only combobox (role=combobox on an element that
  // is not a text field, its listbox popup named by aria-controls or aria-owns), a menu button of
  // choices, and a listbox that no combobox owns. Their options are read where the page already holds them (a closed popup's too).
  const popupOf = (el: Element) => {
    const ids = `${el.getAttribute('aria-controls') ?? ''} ${el.getAttribute('aria-owns') ?? ''}`.split(/\s+/).filter(Boolean);
    for (const id of ids) {
      const box = byId(el, id);
      if (box) return box.getAttribute('role') === 'listbox' ? box : box.querySelector('[role="listbox"]');
    }
    return el.parentElement?.querySelector('[role="listbox"]') ?? null;
  };
  const owned = new Set<Element>();
  const optionsOf = (box: Element | null) => {
    if (!box || longHiddenList(box)) return [];
    // (A copy for screen readers, open: the options drawn beside it, lib.ts drawnOptions.)
    const drawnAs = drawnOptions(box).map((o) => ({ value: clean(o.textContent), text: clean(o.textContent), disabled: o.getAttribute('aria-disabled') === 'true' }));
    return drawnAs.length ? drawnAs : optionsIn(box).map((o) => ({ value: o.getAttribute('data-value') ?? o.id ?? clean(o.textContent), text: nameOf(o), disabled: o.getAttribute('aria-disabled') === 'true' }));
  };
  const pressList = (el: Element, type: 'combobox' | 'listbox', box: Element | null, value: string, stands?: Element, listed?: FieldInfo['options']) => {
    const named = stands ? nameOf(stands) : nameOf(el);
    fields.push(widgetField(page, el, {
      type, label: named, labelFrom: stands ? 'hidden list it stands for' : 'accessible name', hint: hintOf(el), text: describedBy(stands ?? el), value,
      readOnly: false, options: listed ?? optionsOf(box), expanded: el.getAttribute('aria-expanded') ?? '',
    }));
  };
  // (A button that pops up a listbox is the same widget in the older APG wording: Headless UI's Listbox.)
  for (const el of all('[role="combobox"],[aria-haspopup="listbox"]')) {
    // A read-only text box as the combobox (Shoelace's, Ant Design's, Element's select): nothing can
    // be typed, so it is chosen from as a select-only one, its value the words it shows.
    if (el.matches('input') && readOnlyBox(el as HTMLInputElement)) {
      const box = popupOf(el);
      if (box) owned.add(box);
      pressList(el, 'combobox', box, shownValue(el as HTMLInputElement));
      const face = faceOf(el);
      if (face !== el) fields.at(-1)!.pressAt = selectorOf(face);
      continue;
    }
    if (el.matches('input,select,textarea')) continue;
    // A list made over a native <select> it holds, hidden (Choices.js: its search box in its popup),
    // is that list, by its label, options and value; else a combobox holding a text box is no list.
    const inner = Array.from(el.querySelectorAll('select')).find((x) => !shown(x)) as HTMLSelectElement | undefined;
    if (inner) {
      pressList(el, 'combobox', null, clean(inner.selectedOptions[0]?.text), inner, selectOptions(inner));
      continue;
    }
    if (el.querySelector('input:not([type="hidden"]),textarea')) continue;
    const box = popupOf(el);
    if (box) owned.add(box);
    // Its value is what it shows (not the options of a popup it happens to hold).
    const own = Array.from(el.childNodes).filter((n) => !(n.nodeType === 1 && (n as Element).matches('[role="listbox"]'))).map((n) => n.textContent ?? '').join(' ');
    // A list made over a native <select> it hides (Select2, Chosen: inserted just after it) and named
    // by the value it shows, or not at all: a person reads it by that list's label.
    let stands: Element | undefined;
    for (let up: Element | null = el, depth = 0; up && depth < 4 && [clean(own), ''].includes(nameOf(el)); up = up.parentElement, depth++) {
      const prev = up.previousElementSibling;
      if (!prev) continue;
      if (prev.tagName === 'SELECT' && !shown(prev)) stands = prev;
      break;
    }
    pressList(el, 'combobox', box, clean(own), stands);
  }
  // A menu button whose menu holds one value to choose (APG: a menu of menuitemradios; of menuitems
  // inside a form): the same list, its items the options, its value what the button shows.
  for (const el of all('[aria-haspopup="menu"],[aria-haspopup="true"]')) {
    if (el.matches('input,select,textarea,[role="combobox"]')) continue;
    const ids = (el.getAttribute('aria-controls') ?? '').split(/\s+/).filter(Boolean);
    const menu = ids.map((id) => byId(el, id)).find((m) => m?.getAttribute('role') === 'menu') ?? (el.nextElementSibling?.getAttribute('role') === 'menu' ? el.nextElementSibling : null);
    if (!menu) continue;
    const items = Array.from(menu.querySelectorAll(formIndex(el) >= 0 ? '[role="menuitemradio"],[role="menuitem"]' : '[role="menuitemradio"]'));
    if (items.length < 2) continue;
    const listed = items.map((o) => ({ value: o.id || clean(o.textContent), text: nameOf(o) || clean(o.textContent), disabled: o.getAttribute('aria-disabled') === 'true' }));
    pressList(el, 'combobox', null, clean(el.textContent), undefined, listed);
  }
  for (const box of all('[role="listbox"]')) {
    if (owned.has(box) || box.matches('select') || box.closest('[role="combobox"]')) continue;
    pressList(box, 'listbox', box, Array.from(box.querySelectorAll('[role="option"][aria-selected="true"]')).map((o) => clean(o.textContent)).join(', '));
  }
  return { fields };
};

/** A listbox's options, those a <slot> in it shows too (a web component's listbox of the page's own option elements). */
function optionsIn(box: Element): Element[] {
  const out = Array.from(box.querySelectorAll('[role="option"]'));
  for (const slot of Array.from(box.querySelectorAll('slot'))) {
    for (const el of (slot as HTMLSlotElement).assignedElements({ flatten: true })) {
      if (el.matches('[role="option"]')) out.push(el);
      out.push(...Array.from(el.querySelectorAll('[role="option"]')));
    }
  }
  return out;
}
