import type { FieldInfo } from '../../snapshot.ts';
import { besideOf, clean, nameOf } from '../lib.ts';
import { widgetField, type Reader } from '../page.ts';
import { stepperOf } from '../stepper.ts';

// Widgets whose number moves by their keys only (APG): a slider (role=slider), and a spin button that
// is no field and has no − / + buttons, alone in its group (three together are a date: date-parts.ts).
// Its number is aria-valuenow.

export const sliders: Reader = (page) => {
  const fields: FieldInfo[] = [];
  const alone = (el: Element) => {
    const group = el.closest('[role="group"]') ?? el.parentElement?.parentElement;
    return !group || group.querySelectorAll('[role="spinbutton"]').length === 1;
  };
  for (const el of page.all('[role="slider"],[role="spinbutton"]')) {
    if (el.matches('input,select,textarea')) continue;
    if (el.getAttribute('role') === 'spinbutton' && (stepperOf(el) || !alone(el))) continue;
    const own = nameOf(el);
    const beside = own ? { text: '', from: '' } : besideOf(el);
    const label = own || beside.text;
    fields.push(widgetField(page, el, {
      type: 'slider', label, labelFrom: own ? 'accessible name' : beside.from,
      text: clean([label, el.getAttribute('aria-valuetext') ?? '', el.id].join(' | ')), value: el.getAttribute('aria-valuenow') ?? '',
    }));
  }
  return { fields };
};
