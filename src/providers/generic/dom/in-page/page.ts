import type { Snapshot } from '../snapshot.ts';
import { overlaysOf } from './readers/dialogs.ts';

// What every reader is handed: the document, and where an element sits in it (its form, its overlay),
// worked out once per reading.

export interface PageContext {
  doc: Document;
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
  const forms = Array.from(doc.forms);
  const overlayEls = overlaysOf(doc);
  const fieldEls = Array.from(doc.querySelectorAll('input,select,textarea')).filter((el) => {
    const type = (el.getAttribute('type') ?? '').toLowerCase();
    return !['submit', 'button', 'image', 'reset', 'file'].includes(type);
  });
  return {
    doc,
    forms,
    overlayEls,
    fieldEls,
    formIndex: (el) => {
      const f = (el as HTMLInputElement).form ?? el.closest('form');
      return f ? forms.indexOf(f) : -1;
    },
    dialogIndex: (el) => overlayEls.findIndex((d) => d.contains(el)),
  };
}
