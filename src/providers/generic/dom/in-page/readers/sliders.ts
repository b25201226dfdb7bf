import type { FieldInfo } from '../../snapshot.ts';
import { besideOf, clean, nameOf, regionOf, selectorOf, shown } from '../lib.ts';
import type { Reader } from '../page.ts';
import { stepperOf } from '../stepper.ts';

// Widgets whose number moves by their keys only (APG): a slider (role=slider), and a spin button that
// is no field and has no − / + buttons, alone in its group (three together are a date: date-parts.ts).
// Its number is aria-valuenow.

export const sliders: Reader = ({ doc, formIndex, dialogIndex }) => {
  const fields: FieldInfo[] = [];
  const alone = (el: Element) => {
    const group = el.closest('[role="group"]') ?? el.parentElement?.parentElement;
    return !group || group.querySelectorAll('[role="spinbutton"]').length === 1;
  };
  for (const el of Array.from(doc.querySelectorAll('[role="slider"],[role="spinbutton"]'))) {
    if (el.matches('input,select,textarea')) continue;
    if (el.getAttribute('role') === 'spinbutton' && (stepperOf(el) || !alone(el))) continue;
    const own = nameOf(el);
    const beside = own ? { text: '', from: '' } : besideOf(el);
    const label = own || beside.text;
    fields.push({
      sel: selectorOf(el), tag: el.tagName.toLowerCase(), type: 'slider', name: el.getAttribute('name') ?? '', autocomplete: '',
      label, labelFrom: own ? 'accessible name' : beside.from, hint: '', text: clean([label, el.getAttribute('aria-valuetext') ?? '', el.id].join(' | ')), placeholder: '',
      value: el.getAttribute('aria-valuenow') ?? '', required: el.getAttribute('aria-required') === 'true', disabled: el.getAttribute('aria-disabled') === 'true',
      readOnly: el.getAttribute('aria-readonly') === 'true', visible: shown(el), checked: false, options: [], form: formIndex(el), region: regionOf(el),
      card: false, invalid: el.getAttribute('aria-invalid') === 'true', flagged: false, validationMessage: '', stepper: null, inDialog: dialogIndex(el), combobox: false, expanded: '',
    });
  }
  return { fields };
};
