import { cardChoiceOf, IN_PAGE_CLASSIFIER } from '../../../driver/card-fields.ts';
import { besideOf, clean, describedBy, flaggedRed, hintOf, isControl, nameOf, PAGE_LIB, regionOf, selectorOf, shown } from './page-lib.ts';
import type { ControlInfo, FieldInfo, Snapshot } from './snapshot.ts';

// The snapshot's reading, done in the page. Every function here is sent to the page as its source,
// with PAGE_LIB and the guard's card-field classifier: in the page, the names imported above resolve
// to those copies, and the functions here may call each other, but no constant outside their bodies.

/** Where an element sits: its form's index in the page's forms, its overlay's in the overlays (-1: none). */
interface Places {
  formIndex(el: Element): number;
  dialogIndex(el: Element): number;
}

/** Dialogs, and banners fixed over the page (a cookie notice is often one, without a dialog role). */
function overlaysOf(doc: Document): Element[] {
  const dialogsEls = Array.from(doc.querySelectorAll('dialog[open],[role="dialog"],[role="alertdialog"],[aria-modal="true"]')).filter(shown);
  const overlayEls: Element[] = [...dialogsEls];
  for (const el of Array.from(doc.querySelectorAll('body *'))) {
    if (overlayEls.length > 10) break;
    if (overlayEls.some((d) => d === el || d.contains(el) || el.contains(d))) continue;
    const pos = getComputedStyle(el).position;
    if ((pos === 'fixed' || pos === 'sticky') && shown(el) && el.querySelector('button,a,[role="button"]') && !el.closest('header,nav')) overlayEls.push(el);
  }
  return overlayEls;
}

/** The buttons around a field that step its number up and down (a quantity stepper), if any. */
function stepperOf(el: Element): { up: string; down: string } | null {
  const STEP_UP = /^\s*(\+|＋)\s*$|^(increase|increment|add|more|plus)\b|\b(increase|add one|one more)\b/i;
  const STEP_DOWN = /^\s*(-|−|–|—)\s*$|^(decrease|decrement|remove|fewer|less|minus)\b|\b(decrease|remove one|one less)\b/i;
  let box: Element | null = el.parentElement;
  for (let depth = 0; box && depth < 3; depth++, box = box.parentElement) {
    const buttons = Array.from(box.querySelectorAll('button,[role="button"],input[type="button"]'));
    const up = buttons.find((b) => STEP_UP.test(nameOf(b)));
    const down = buttons.find((b) => STEP_DOWN.test(nameOf(b)));
    if (up && down) return { up: selectorOf(up), down: selectorOf(down) };
  }
  return null;
}

/** The fields a person fills: inputs, selects and text areas, and steppers shown as text or as a bare number. */
function readFields(doc: Document, fieldEls: Element[], at: Places): FieldInfo[] {
  const { formIndex, dialogIndex } = at;
  const fields: FieldInfo[] = [];
  // A number box's own row (how many of one ticket type): the largest ancestor holding it and no
  // other number box, inside its form; outside a form, only among several boxes.
  const rowOf = (el: Element) => {
    const scope = el.closest('form') ?? doc.body;
    const numbers = Array.from(scope.querySelectorAll('input[type="number"],[role="spinbutton"]'));
    if (numbers.length < 2 && scope === doc.body) return undefined;
    let row: Element = el;
    for (let up = el.parentElement; up && up !== scope; up = up.parentElement) {
      if (numbers.some((o) => o !== el && up!.contains(o))) break;
      row = up;
    }
    return clean((row as HTMLElement).innerText || row.textContent).slice(0, 300);
  };
  for (const el of fieldEls) {
    const input = el as HTMLInputElement;
    const type = el.tagName === 'INPUT' ? (el.getAttribute('type') ?? 'text').toLowerCase() : el.tagName.toLowerCase();
    if (type === 'hidden') continue;
    const numeric = type === 'number' || el.getAttribute('role') === 'spinbutton' || el.getAttribute('inputmode') === 'numeric';
    const named = nameOf(el);
    const beside = named ? { text: '', from: '' } : besideOf(el);
    fields.push({
      sel: selectorOf(el),
      tag: el.tagName.toLowerCase(),
      type,
      name: el.getAttribute('name') ?? '',
      autocomplete: (el.getAttribute('autocomplete') ?? '').toLowerCase(),
      label: named || beside.text,
      labelFrom: named ? 'accessible name' : beside.from || (el.getAttribute('name') ? 'name attribute' : el.id ? 'id' : el.getAttribute('placeholder') ? 'placeholder' : ''),
      hint: hintOf(el),
      text: describedBy(el),
      placeholder: el.getAttribute('placeholder') ?? '',
      value: type === 'checkbox' || type === 'radio' ? (el.getAttribute('value') ?? '') : input.value ?? '',
      required: input.required || el.getAttribute('aria-required') === 'true',
      disabled: input.disabled || el.getAttribute('aria-disabled') === 'true',
      readOnly: input.readOnly === true,
      visible: shown(el),
      checked: input.checked === true,
      options: el.tagName === 'SELECT' ? Array.from((el as HTMLSelectElement).options).map((o) => ({ value: o.value, text: clean(o.text), disabled: o.disabled })) : [],
      form: formIndex(el),
      region: regionOf(el),
      card: cardChoiceOf(el) !== null,
      // validity, not checkValidity(): asking must not fire the page's 'invalid' handlers.
      invalid: el.getAttribute('aria-invalid') === 'true' || (input.willValidate && input.validity?.valid === false && input.value !== ''),
      flagged: flaggedRed(el),
      validationMessage: input.willValidate && input.validity?.valid === false ? input.validationMessage ?? '' : '',
      stepper: numeric ? stepperOf(el) : null,
      inDialog: dialogIndex(el),
      combobox: el.getAttribute('role') === 'combobox' || /^(list|both)$/i.test(el.getAttribute('aria-autocomplete') ?? ''),
      expanded: el.getAttribute('aria-expanded') ?? '',
      ...(type === 'number' || el.getAttribute('role') === 'spinbutton' ? { item: rowOf(el) } : {}),
    });
  }
  // Lists chosen from by pressing (WAI-ARIA): a select-only combobox (role=combobox on an element that
  // is not a text field, its listbox popup named by aria-controls or aria-owns), and a listbox that no
  // combobox owns. Their options are read where the page already holds them (a closed popup's too).
  const popupOf = (el: Element) => {
    const ids = `${el.getAttribute('aria-controls') ?? ''} ${el.getAttribute('aria-owns') ?? ''}`.split(/\s+/).filter(Boolean);
    for (const id of ids) {
      const box = doc.getElementById(id);
      if (box) return box.getAttribute('role') === 'listbox' ? box : box.querySelector('[role="listbox"]');
    }
    return el.parentElement?.querySelector('[role="listbox"]') ?? null;
  };
  const owned = new Set<Element>();
  const optionsOf = (box: Element | null) => (box ? Array.from(box.querySelectorAll('[role="option"]')).map((o) => ({ value: o.getAttribute('data-value') ?? o.id ?? clean(o.textContent), text: nameOf(o), disabled: o.getAttribute('aria-disabled') === 'true' })) : []);
  const pressList = (el: Element, type: 'combobox' | 'listbox', box: Element | null, value: string, stands?: Element) => {
    const named = stands ? nameOf(stands) : nameOf(el);
    fields.push({
      sel: selectorOf(el), tag: el.tagName.toLowerCase(), type, name: el.getAttribute('name') ?? '', autocomplete: '',
      label: named, labelFrom: stands ? 'hidden list it stands for' : 'accessible name', hint: hintOf(el), text: describedBy(stands ?? el), placeholder: '', value,
      required: el.getAttribute('aria-required') === 'true', disabled: el.getAttribute('aria-disabled') === 'true', readOnly: false, visible: shown(el), checked: false,
      options: optionsOf(box), form: formIndex(el), region: regionOf(el), card: false, invalid: el.getAttribute('aria-invalid') === 'true', flagged: false, validationMessage: '',
      stepper: null, inDialog: dialogIndex(el), combobox: false, expanded: el.getAttribute('aria-expanded') ?? '',
    });
  };
  // (A button that pops up a listbox is the same widget in the older APG wording: Headless UI's Listbox.)
  for (const el of Array.from(doc.querySelectorAll('[role="combobox"],[aria-haspopup="listbox"]'))) {
    if (el.matches('input,select,textarea') || el.querySelector('input:not([type="hidden"]),textarea')) continue;
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
  for (const box of Array.from(doc.querySelectorAll('[role="listbox"]'))) {
    if (owned.has(box) || box.matches('select') || box.closest('[role="combobox"]')) continue;
    pressList(box, 'listbox', box, Array.from(box.querySelectorAll('[role="option"][aria-selected="true"]')).map((o) => clean(o.textContent)).join(', '));
  }

  // A stepper's number may be shown as text (an <output> or a role=spinbutton) rather than a field.
  for (const el of Array.from(doc.querySelectorAll('output,[role="spinbutton"]:not(input)'))) {
    const stepper = stepperOf(el);
    if (!stepper) continue;
    // Named by aria, else by its labelled group (role=group, fieldset), else by the words around it
    // (without its number and the +/− signs); its name attribute describes it too.
    const own = nameOf(el);
    const group = el.closest('[role="group"],fieldset');
    const groupName = group ? nameOf(group) || clean(group.querySelector(':scope > legend')?.textContent) : '';
    const named = own && own !== clean(el.textContent) ? own : groupName || clean(el.parentElement?.textContent).replace(/[+−–\-\d]/g, ' ').replace(/\s+/g, ' ').trim().slice(0, 80);
    fields.push({
      sel: selectorOf(el), tag: el.tagName.toLowerCase(), type: 'stepper', name: el.getAttribute('name') ?? '', autocomplete: '',
      label: named, labelFrom: 'accessible name', hint: '', text: clean([named, el.getAttribute('name') ?? '', el.id].join(' | ')), placeholder: '', value: el.getAttribute('aria-valuenow') ?? clean(el.textContent),
      required: false, disabled: false, readOnly: true, visible: shown(el), checked: false, options: [], form: formIndex(el), region: regionOf(el),
      card: false, invalid: false, flagged: false, validationMessage: '', stepper, inDialog: dialogIndex(el), combobox: false, expanded: '',
    });
  }

  // A date typed in sections: Month, Day and Year as editable spinbuttons in one group (the MUI and
  // React Aria date fields, the APG spinbutton). Each part is told by its name, in English or in the
  // page's language (Intl's names of date fields), else by its range (at most 12, 31, or a year's).
  const partName = (part: string) => {
    try {
      return (new Intl.DisplayNames([doc.documentElement.lang || 'en'], { type: 'dateTimeField' }).of(part) ?? part).toLowerCase();
    } catch {
      return part;
    }
  };
  const partOf = (el: Element) => {
    const name = nameOf(el).toLowerCase();
    for (const part of ['day', 'month', 'year']) if (name.includes(part) || name.includes(partName(part))) return part;
    if (/\p{L}/u.test(name)) return null;
    const max = Number(el.getAttribute('aria-valuemax'));
    return max === 12 ? 'month' : max >= 28 && max <= 31 ? 'day' : max >= 999 ? 'year' : null;
  };
  const sectioned = new Map<Element, Element[]>();
  for (const el of Array.from(doc.querySelectorAll('[role="spinbutton"]:not(input)'))) {
    if (el.getAttribute('aria-readonly') === 'true' || stepperOf(el)) continue;
    const group = el.closest('[role="group"]') ?? el.parentElement?.parentElement;
    if (group) sectioned.set(group, [...(sectioned.get(group) ?? []), el]);
  }
  for (const [group, sections] of sectioned) {
    const parts = sections.map((el) => ({ sel: selectorOf(el), part: partOf(el) }));
    if (parts.length !== 3 || new Set(parts.map((p) => p.part)).size !== 3 || parts.some((p) => p.part === null)) continue;
    const named = nameOf(group);
    fields.push({
      sel: selectorOf(sections[0]!), tag: sections[0]!.tagName.toLowerCase(), type: 'dateparts', name: '', autocomplete: '',
      label: named, labelFrom: 'accessible name', hint: '', text: named, placeholder: '',
      value: sections.every((el) => el.hasAttribute('aria-valuenow')) ? sections.map((el) => clean(el.textContent)).join(' ') : '',
      required: false, disabled: sections.some((el) => el.getAttribute('aria-disabled') === 'true'), readOnly: false, visible: shown(sections[0]!), checked: false, options: [],
      form: formIndex(group), region: regionOf(group), card: false, invalid: group.getAttribute('aria-invalid') === 'true', flagged: false, validationMessage: '',
      stepper: null, inDialog: dialogIndex(group), combobox: false, expanded: '', parts: parts as FieldInfo['parts'],
    });
  }

  // A number between a "−" and a "+" in a labelled group (role=group, fieldset) with no field of its
  // own to type in: a stepper too, named by its group.
  for (const group of Array.from(doc.querySelectorAll('[role="group"],fieldset'))) {
    if (group.querySelector('input:not([type="hidden"]),select,textarea,output,[role="spinbutton"]')) continue;
    const number = Array.from(group.querySelectorAll('*')).find((e) => e.children.length === 0 && !isControl(e) && /^\s*\d{1,3}\s*$/.test(e.textContent ?? ''));
    if (!number) continue;
    const stepper = stepperOf(number);
    if (!stepper) continue;
    const legend = group.tagName === 'FIELDSET' ? clean(group.querySelector(':scope > legend')?.textContent) : '';
    const named = nameOf(group) || legend;
    fields.push({
      sel: selectorOf(number), tag: number.tagName.toLowerCase(), type: 'stepper', name: '', autocomplete: '',
      label: named, labelFrom: 'group name', hint: '', text: named, placeholder: '', value: clean(number.textContent),
      required: false, disabled: false, readOnly: true, visible: shown(number), checked: false, options: [], form: formIndex(group), region: regionOf(group),
      card: false, invalid: false, flagged: false, validationMessage: '', stepper, inDialog: dialogIndex(group), combobox: false, expanded: '',
    });
  }
  return fields;
}

/**
 * Buttons, links and scripted controls, and the choices (radios), each with the item it belongs to
 * (its row, card or list item); and beside those items, the ones with no control (a sold-out row).
 */
function readControls(doc: Document, fieldEls: Element[], at: Places): Pick<Snapshot, 'controls' | 'idleItems'> {
  const { formIndex, dialogIndex } = at;
  const itemOf = (el: Element, all: Element[]) => {
    // The largest ancestor that holds this control and no other of the page's candidate controls: its row, card or list item.
    let item: Element = el;
    for (let up = el.parentElement; up && up !== doc.body; up = up.parentElement) {
      if (all.some((o) => o !== el && up!.contains(o))) break;
      item = up;
    }
    return item;
  };
  const controlEls = Array.from(doc.querySelectorAll('button,a,input,[role],[tabindex][aria-label]')).filter(isControl);
  // Choices: radio inputs, and ARIA radios (role=radio in a role=radiogroup, checked by aria-checked).
  const radios = [...fieldEls.filter((el) => (el.getAttribute('type') ?? '').toLowerCase() === 'radio'), ...Array.from(doc.querySelectorAll('[role="radio"]')).filter((el) => el.tagName !== 'INPUT')];
  const candidates = [...controlEls, ...radios];
  const controls: ControlInfo[] = [];
  for (const el of candidates) {
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
      role: el.getAttribute('role') ?? '',
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
}

/** schema.org data: JSON-LD blocks and microdata items. */
function readStructuredData(doc: Document): Pick<Snapshot, 'jsonld' | 'microdata'> {
  const jsonld: unknown[] = [];
  for (const s of Array.from(doc.querySelectorAll('script[type="application/ld+json"]'))) {
    try {
      jsonld.push(JSON.parse(s.textContent ?? ''));
    } catch {
      // A malformed block says nothing.
    }
  }
  const microdata: Array<{ type: string; props: Record<string, string> }> = [];
  for (const scope of Array.from(doc.querySelectorAll('[itemscope][itemtype]')).slice(0, 100)) {
    const props: Record<string, string> = {};
    for (const p of Array.from(scope.querySelectorAll('[itemprop]'))) {
      if (p.parentElement?.closest('[itemscope]') !== scope && p.closest('[itemscope]') !== scope) continue;
      const name = p.getAttribute('itemprop') ?? '';
      const value = p.getAttribute('content') ?? p.getAttribute('datetime') ?? (p.tagName === 'META' ? '' : clean(p.textContent));
      if (name && !(name in props)) props[name] = value;
    }
    microdata.push({ type: scope.getAttribute('itemtype') ?? '', props });
  }
  return { jsonld, microdata };
}

/** Label–value pairs: definition lists, two-cell table rows, containers alternating label and value, and "Label: value" lines. */
function readPairs(doc: Document): Snapshot['pairs'] {
  const pairs: Array<{ label: string; value: string; entries: number }> = [];
  for (const dt of Array.from(doc.querySelectorAll('dt'))) {
    const dd = dt.nextElementSibling;
    if (dd?.tagName === 'DD') pairs.push({ label: clean(dt.textContent), value: clean((dd as HTMLElement).innerText || dd.textContent), entries: dd.querySelectorAll('li').length });
  }
  for (const tr of Array.from(doc.querySelectorAll('tr'))) {
    const cells = Array.from(tr.children);
    if (cells.length === 2 && (cells[0]!.tagName === 'TH' || cells[1]!.tagName === 'TD')) pairs.push({ label: clean(cells[0]!.textContent), value: clean((cells[1] as HTMLElement).innerText || cells[1]!.textContent), entries: cells[1]!.querySelectorAll('li').length });
  }
  // Containers whose children alternate label, value (<span>Room</span><b>Deluxe</b>…).
  for (const box of Array.from(doc.querySelectorAll('body *')).filter((e) => e.children.length >= 4 && e.children.length % 2 === 0).slice(0, 200)) {
    const kids = Array.from(box.children);
    const labels = kids.filter((_, i) => i % 2 === 0);
    const values = kids.filter((_, i) => i % 2 === 1);
    if (labels.some((l) => l.tagName !== labels[0]!.tagName) || values.some((v) => v.tagName !== values[0]!.tagName) || labels[0]!.tagName === values[0]!.tagName) continue;
    if (labels.some((l) => clean(l.textContent).length > 40 || l.children.length > 1)) continue;
    labels.forEach((l, i) => pairs.push({ label: clean(l.textContent), value: clean((values[i] as HTMLElement).innerText || values[i]!.textContent), entries: values[i]!.querySelectorAll('li').length }));
  }
  for (const line of (doc.body ? doc.body.innerText : '').split('\n')) {
    const m = /^\s*([^:\n]{2,40}):\s+(.{1,200})$/.exec(line);
    if (m) pairs.push({ label: clean(m[1]), value: clean(m[2]), entries: 0 });
  }
  return pairs;
}

/** The whole page, read-only. */
function readPage(): Snapshot {
  const doc = document;
  const forms = Array.from(doc.forms);
  const formIndex = (el: Element) => {
    const f = (el as HTMLInputElement).form ?? el.closest('form');
    return f ? forms.indexOf(f) : -1;
  };
  const overlayEls = overlaysOf(doc);
  const dialogs = overlayEls.map((d) => ({
    sel: selectorOf(d),
    text: clean((d as HTMLElement).innerText || d.textContent).slice(0, 500),
    modal: d.getAttribute('aria-modal') === 'true' || (d.tagName === 'DIALOG' && d.matches(':modal')),
    fixed: getComputedStyle(d).position === 'fixed',
  }));
  const dialogIndex = (el: Element) => overlayEls.findIndex((d) => d.contains(el));
  const at: Places = { formIndex, dialogIndex };

  const fieldEls = Array.from(doc.querySelectorAll('input,select,textarea')).filter((el) => {
    const type = (el.getAttribute('type') ?? '').toLowerCase();
    return !['submit', 'button', 'image', 'reset', 'file'].includes(type);
  });
  const fields = readFields(doc, fieldEls, at);
  const { controls, idleItems } = readControls(doc, fieldEls, at);
  const { jsonld, microdata } = readStructuredData(doc);
  const pairs = readPairs(doc);
  const bodyText = clean(doc.body ? doc.body.innerText : '');

  const alerts = Array.from(doc.querySelectorAll('[role="alert"],[role="status"],[aria-live="assertive"],[aria-live="polite"],output'))
    .filter(shown).map((el) => clean((el as HTMLElement).innerText || el.textContent)).filter(Boolean).slice(0, 30);
  const headings = Array.from(doc.querySelectorAll('h1,h2,h3,[role="heading"]')).filter(shown).map((h) => clean(h.textContent)).filter(Boolean).slice(0, 30);
  return {
    url: location.href,
    title: doc.title,
    text: bodyText.slice(0, 20000),
    lang: doc.documentElement.lang || '',
    lines: (doc.body ? doc.body.innerText : '').split('\n').map((l) => clean(l)).filter(Boolean).slice(0, 300),
    headings,
    alerts,
    forms: forms.map((f) => ({
      sel: selectorOf(f),
      text: clean([f.getAttribute('aria-label'), f.getAttribute('name'), f.getAttribute('id'), f.getAttribute('action'), f.querySelector('legend,h1,h2,h3')?.textContent].join(' ')),
      role: f.getAttribute('role') ?? '',
      region: regionOf(f),
    })),
    fields,
    controls,
    dialogs,
    frames: Array.from(doc.querySelectorAll('iframe,frame')).map((f) => ({ sel: selectorOf(f), src: (f as HTMLIFrameElement).src ?? '', title: f.getAttribute('title') ?? '' })),
    jsonld,
    microdata,
    pairs: pairs.slice(0, 200),
    idleItems,
    passwordField: fieldEls.some((el) => (el.getAttribute('type') ?? '').toLowerCase() === 'password' && shown(el) && cardChoiceOf(el) === null && !['header', 'nav'].includes(regionOf(el))),
  };
}

/** What each frame shows of a card-code field, a CAPTCHA or a sign-in form (frames included: payment partners and CAPTCHAs live in iframes). */
function frameFacts(): { card: boolean; captcha: boolean; text: string } {
  const fieldEls = Array.from(document.querySelectorAll('input,select,textarea'));
  return {
    card: fieldEls.some((el) => cardChoiceOf(el) !== null),
    captcha: document.querySelector('.g-recaptcha,.h-captcha,.cf-turnstile,[data-sitekey]') !== null,
    text: clean(document.body ? document.body.innerText : '').slice(0, 2000),
  };
}

// Each is sent to the page (to every frame, for FRAME_FACTS) on every reading: each carries only the source it calls.
const READERS = [overlaysOf, stepperOf, readFields, readControls, readStructuredData, readPairs].map((f) => f.toString()).join('\n');
export const READ_PAGE = new Function(`${IN_PAGE_CLASSIFIER}\n${PAGE_LIB}\n${READERS}\nreturn (${readPage.toString()})();`) as () => Snapshot;
export const FRAME_FACTS = new Function(`${IN_PAGE_CLASSIFIER}\n${PAGE_LIB}\nreturn (${frameFacts.toString()})();`) as () => { card: boolean; captcha: boolean; text: string };
