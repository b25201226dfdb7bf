import type { ControlInfo } from '../../snapshot.ts';
import { clean, drawnOptions, isControl, longHiddenList, nameOf, regionOf, selectorOf, shown } from '../lib.ts';
import type { Reader } from '../page.ts';

/**
 * Buttons, links and scripted controls, and the choices (radios), each with the item it belongs to
 * (its row, card or list item); and beside those items, the ones with no control (a sold-out row).
 */
export const controls: Reader = ({ doc, all, fieldEls, formIndex, dialogIndex }) => {
  const itemOf = (el: Element, all: Element[]) => {
    // The largest ancestor that holds this control and no other of the page's candidate controls: its row, card or list item.
    let item: Element = el;
    for (let up = el.parentElement; up && up !== doc.body; up = up.parentElement) {
      if (all.some((o) => o !== el && up!.contains(o))) break;
      item = up;
    }
    return item;
  };
  // The options of a long list the page does not show are left to the reading once it is open (lib.ts longHiddenList).
  const lists = new Map<Element, boolean>();
  const unread = (el: Element) => {
    const box = el.getAttribute('role') === 'option' ? el.closest('[role="listbox"]') : null;
    if (!box) return false;
    if (!lists.has(box)) lists.set(box, longHiddenList(box));
    return lists.get(box)!;
  };
  // A listbox folded to nothing for screen readers stands for the options drawn beside it (lib.ts drawnOptions): those are pressed.
  const drawnAs = new Set<Element>();
  const copies = all('[role="listbox"]').filter((box) => drawnOptions(box).map((o) => drawnAs.add(o)).length > 0);
  const copied = (el: Element) => el.getAttribute('role') === 'option' && copies.some((box) => box.contains(el));
  const pressable = [...all('button,a,input,[role],[tabindex][aria-label]').filter((el) => isControl(el) && !copied(el)), ...drawnAs];
  const controlEls = pressable.filter((el) => !unread(el));
  // Choices: radio inputs, and ARIA radios (role=radio in a role=radiogroup, checked by aria-checked).
  const radios = [...fieldEls.filter((el) => (el.getAttribute('type') ?? '').toLowerCase() === 'radio'), ...all('[role="radio"]').filter((el) => el.tagName !== 'INPUT')];
  // (The unread options still bound the items of the controls around them, as when they are read.)
  const candidates = [...pressable, ...radios];
  const controls: ControlInfo[] = [];
  for (const el of [...controlEls, ...radios]) {
    if ((el.tagName === 'INPUT' && (el.getAttribute('type') ?? '').toLowerCase() === 'radio') || el.getAttribute('role') === 'radio') continue;
    const item = itemOf(el, candidates);
    const type = (el.getAttribute('type') ?? '').toLowerCase();
    const f = formIndex(el);
    controls.push({
      sel: selectorOf(el),
      tag: el.tagName.toLowerCase(),
      type,
      text: nameOf(el).slice(0, 200),
      name: el.getAttribute('name') ?? '',
      value: el.getAttribute('value') ?? '',
      role: drawnAs.has(el) ? 'option' : (el.getAttribute('role') ?? ''),
      form: f,
      region: regionOf(el),
      disabled: (el as HTMLButtonElement).disabled === true || el.getAttribute('aria-disabled') === 'true',
      visible: shown(el),
      submits: f >= 0 && ((el.tagName === 'BUTTON' && (type === '' || type === 'submit')) || (el.tagName === 'INPUT' && (type === 'submit' || type === 'image'))),
      inDialog: dialogIndex(el),
      item: clean((item as HTMLElement).innerText || item.textContent || nameOf(el)).slice(0, 300),
      itemSel: selectorOf(item),
      itemParent: item.parentElement ? selectorOf(item.parentElement) : '',
      itemTag: item.tagName.toLowerCase(),
      expanded: el.getAttribute('aria-expanded') ?? '',
      haspopup: (el.getAttribute('aria-haspopup') ?? '').toLowerCase(),
      selected: el.getAttribute('aria-selected') ?? '',
      pressed: el.getAttribute('aria-pressed') ?? el.getAttribute('aria-checked') ?? '',
    });
  }
  // Radio inputs as choices: their item is their row, card or list item (or their label).
  for (const el of radios) {
    const item = itemOf(el, candidates);
    controls.push({
      sel: selectorOf(el), tag: el.tagName.toLowerCase(), type: 'radio', text: nameOf(el).slice(0, 200), name: el.getAttribute('name') ?? '', value: el.getAttribute('value') ?? '',
      role: el.getAttribute('role') ?? '', form: formIndex(el), region: regionOf(el),
      disabled: (el as HTMLInputElement).disabled || el.getAttribute('aria-disabled') === 'true', visible: shown(el), submits: false, inDialog: dialogIndex(el),
      item: clean((item as HTMLElement).innerText || item.textContent).slice(0, 300), itemSel: selectorOf(item),
      itemParent: item.parentElement ? selectorOf(item.parentElement) : '', itemTag: item.tagName.toLowerCase(), expanded: '', haspopup: '', selected: '',
      pressed: el.getAttribute('aria-checked') ?? '',
    });
  }
  // Siblings of offer items that have no control at all (a sold-out row shows no button).
  const idleItems: Record<string, string[]> = {};
  const parents = new Map<string, Element>();
  for (const c of controls) if (c.itemParent && c.item) parents.set(c.itemParent, doc.querySelector(c.itemParent)!);
  for (const [sel, parent] of parents) {
    if (!parent) continue;
    const idle = Array.from(parent.children).filter((child) => !candidates.some((c) => child.contains(c)) && clean(child.textContent) !== '');
    if (idle.length) idleItems[sel] = idle.slice(0, 50).map((child) => clean((child as HTMLElement).innerText || child.textContent).slice(0, 300));
  }
  return { controls, idleItems };
};
