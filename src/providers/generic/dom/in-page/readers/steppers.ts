import type { FieldInfo } from '../../snapshot.ts';
import { clean, isControl, nameOf, regionOf } from '../lib.ts';
import { widgetField, type Reader } from '../page.ts';
import { stepperOf } from '../stepper.ts';

// Quantity steppers that are no field to type in: a number shown as text between − and + buttons.

export const steppers: Reader = (page) => {
  const fields: FieldInfo[] = [];
  // A stepper's number may be shown as text (an <output> or a role=spinbutton) rather than a field.
  for (const el of page.all('output,[role="spinbutton"]:not(input)')) {
    const stepper = stepperOf(el);
    if (!stepper) continue;
    // Named by aria, else by its labelled group (role=group, fieldset), else by the words around it
    // (without its number and the +/− signs); its name attribute describes it too.
    const own = nameOf(el);
    const group = el.closest('[role="group"],fieldset');
    const groupName = group ? nameOf(group) || clean(group.querySelector(':scope > legend')?.textContent) : '';
    const named = own && own !== clean(el.textContent) ? own : groupName || clean(el.parentElement?.textContent).replace(/[+−–\-\d]/g, ' ').replace(/\s+/g, ' ').trim().slice(0, 80);
    fields.push(widgetField(page, el, {
      type: 'stepper', label: named, labelFrom: 'accessible name', text: clean([named, el.getAttribute('name') ?? '', el.id].join(' | ')),
      value: el.getAttribute('aria-valuenow') ?? clean(el.textContent), required: false, disabled: false, readOnly: true, invalid: false, stepper,
    }));
  }
  return { fields };
};

export const groupSteppers: Reader = (page) => {
  const fields: FieldInfo[] = [];
  // A number between a "−" and a "+" in a labelled group (role=group, fieldset) with no field of its
  // own to type in: a stepper too, named by its group.
  for (const group of page.all('[role="group"],fieldset')) {
    if (group.querySelector('input:not([type="hidden"]),select,textarea,output,[role="spinbutton"]')) continue;
    const number = Array.from(group.querySelectorAll('*')).find((e) => e.children.length === 0 && !isControl(e) && /^\s*\d{1,3}\s*$/.test(e.textContent ?? ''));
    if (!number) continue;
    const stepper = stepperOf(number);
    if (!stepper) continue;
    const legend = group.tagName === 'FIELDSET' ? clean(group.querySelector(':scope > legend')?.textContent) : '';
    const named = nameOf(group) || legend;
    // The number is the field; where it sits is its group's.
    fields.push(widgetField(page, number, {
      type: 'stepper', name: '', label: named, labelFrom: 'group name', text: named, value: clean(number.textContent),
      required: false, disabled: false, readOnly: true, invalid: false, stepper, form: page.formIndex(group), region: regionOf(group), inDialog: page.dialogIndex(group),
    }));
  }
  return { fields };
};
