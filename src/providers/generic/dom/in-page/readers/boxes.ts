import type { FieldInfo } from '../../snapshot.ts';
import { clean, nameOf, regionOf, selectorOf, shown } from '../lib.ts';
import type { Reader } from '../page.ts';

// Boxes that are no <input>: the APG checkbox (role=checkbox) and switch (role=switch), checked by
// aria-checked. Read as checkboxes, so that a required agreement among them is ticked as a native
// one is (and an optional one left alone); required by aria-required or by its words.

export const boxes: Reader = ({ doc, formIndex, dialogIndex }) => {
  const fields: FieldInfo[] = [];
  for (const el of Array.from(doc.querySelectorAll('[role="checkbox"],[role="switch"]'))) {
    if (el.tagName === 'INPUT') continue;
    const named = nameOf(el) || clean(el.textContent);
    fields.push({
      sel: selectorOf(el), tag: el.tagName.toLowerCase(), type: 'checkbox', name: el.getAttribute('name') ?? '', autocomplete: '',
      label: named, labelFrom: 'accessible name', hint: '', text: clean([named, el.id].join(' | ')), placeholder: '', value: '',
      required: el.getAttribute('aria-required') === 'true', disabled: el.getAttribute('aria-disabled') === 'true', readOnly: el.getAttribute('aria-readonly') === 'true',
      visible: shown(el), checked: el.getAttribute('aria-checked') === 'true', options: [], form: formIndex(el), region: regionOf(el),
      card: false, invalid: el.getAttribute('aria-invalid') === 'true', flagged: false, validationMessage: '', stepper: null, inDialog: dialogIndex(el), combobox: false, expanded: '',
    });
  }
  return { fields };
};
