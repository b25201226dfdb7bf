import type { FieldInfo, Snapshot } from '../snapshot.ts';
import { openRoots } from '../../../../driver/shadow-path.ts';
import { allIn, closestAcross, holds, regionOf, selectorOf, shown } from './lib.ts';
import { overlaysOf } from './readers/dialogs.ts';

// What every reader is handed: the document, and where an element sits in it (its form, its overlay),
// worked out once per reading.

export interface PageContext {
  doc: Document;
  /**
   * Every match of a CSS selector in the document and in its open shadow roots (a web component's
   * fields, a date picker drawn in a root of its own): what a person sees is read wherever it is drawn.
   */
  all(selector: string): Element[];
  forms: HTMLFormElement[];
  /** The overlays (dialogs, banners fixed over the page), in the order of the snapshot's `dialogs`. */
  overlayEls: Element[];
  /** The inputs, selects and text areas a person fills (not buttons, not file pickers). */
  fieldEls: Element[];
  /** Index of an element's form in `forms`, -1 outside any form. */
  formIndex(el: Element): number;
  /** Index of the overlay an element sits in, -1 when none. */
  dialogIndex(el: Element): number;
}

/** One source a page is read from: its part of the snapshot. Arrays that several readers give are joined in the registry's order. */
export type Reader = (page: PageContext) => Partial<Snapshot>;

export function pageContext(doc: Document): PageContext {
  const roots = openRoots(doc);
  const all = (selector: string) => allIn(roots, selector);
  const forms = Array.from(doc.forms);
  const overlayEls = overlaysOf(all);
  const fieldEls = all('input,select,textarea').filter((el) => {
    const type = (el.getAttribute('type') ?? '').toLowerCase();
    return !['submit', 'button', 'image', 'reset', 'file'].includes(type);
  });
  return {
    doc,
    all,
    forms,
    overlayEls,
    fieldEls,
    formIndex: (el) => {
      const f = (el as HTMLInputElement).form ?? (closestAcross(el, 'form') as HTMLFormElement | null);
      return f ? forms.indexOf(f) : -1;
    },
    dialogIndex: (el) => overlayEls.findIndex((d) => holds(d, el)),
  };
}

/** What a widget reader says of its widget; the rest of its field is read from the element. */
export type WidgetOwn = Pick<FieldInfo, 'type' | 'label' | 'labelFrom' | 'text'> & Partial<FieldInfo>;

/**
 * A field that is no native input (an ARIA widget, a group of radios, a number between − and +): its
 * states from its ARIA attributes (aria-required, -disabled, -readonly, -invalid, -expanded), where it
 * sits from the page, nothing a native field alone has (autocomplete, placeholder, validity), and
 * what its reader read in `own`.
 */
export function widgetField(page: PageContext, el: Element, own: WidgetOwn): FieldInfo {
  const aria = (name: string) => el.getAttribute(`aria-${name}`) === 'true';
  return {
    sel: selectorOf(el), tag: el.tagName.toLowerCase(), name: el.getAttribute('name') ?? '', autocomplete: '', hint: '', placeholder: '', value: '',
    required: aria('required'), disabled: aria('disabled'), readOnly: aria('readonly'), visible: shown(el), checked: false, options: [],
    form: page.formIndex(el), region: regionOf(el), card: false, invalid: aria('invalid'), flagged: false, validationMessage: '', stepper: null,
    inDialog: page.dialogIndex(el), combobox: false, expanded: '',
    ...own,
  };
}
