import { cardChoiceOf } from '../../../../../driver/card-fields.ts';
import type { FieldInfo } from '../../snapshot.ts';
import { besideOf, clean, closestAcross, readOnlyBox, describedBy, flaggedRed, hintOf, nameOf, regionOf, selectOptions, selectorOf, shown } from '../lib.ts';
import type { Reader } from '../page.ts';
import { stepperOf } from '../stepper.ts';

// The fields a person fills: inputs, selects and text areas, named by their accessible name
// (Chromium's computed accessibility info, lib.ts nameOf), else by the words beside them.

export const fields: Reader = ({ doc, fieldEls, formIndex, dialogIndex }) => {
  const fields: FieldInfo[] = [];
  // A number box's own row (how many of one ticket type): the largest ancestor holding it and no
  // other number box, inside its form; outside a form, only among several boxes.
  const rowOf = (el: Element) => {
    const scope = closestAcross(el, 'form') ?? doc.body;
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
    // (A read-only combobox box is a list chosen from: readers/lists.ts reads it.)
    if (type === 'hidden' || readOnlyBox(input)) continue;
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
      options: el.tagName === 'SELECT' ? selectOptions(el as HTMLSelectElement) : [],
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
  // A password box (a sign-in form) the person must fill, not the site's header login.
  const passwordField = fieldEls.some((el) => (el.getAttribute('type') ?? '').toLowerCase() === 'password' && shown(el) && cardChoiceOf(el) === null && !['header', 'nav'].includes(regionOf(el)));
  return { fields, passwordField };
};
