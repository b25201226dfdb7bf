import type { FieldInfo } from '../../snapshot.ts';
import { clean, nameOf, selectorOf } from '../lib.ts';
import { widgetField, type Reader } from '../page.ts';

// A count chosen from a row of radios ("Guests: 1 2 3 4 5 6", pills that are native radios in a
// fieldset, or ARIA radios in a radiogroup): one field, named by its group, each radio an option.
// Only a group whose every option is one number (a count) is read so; other radios are choices the
// page offers (offers.ts) or a trip type (trip.ts).

const COUNT = /^\D{0,20}\d{1,3}\+?\D{0,20}$/;
/** A price or a time of day is an option to book, not a count ("€45", "7 PM", "19h"). */
const NOT_A_COUNT = /[€$£¥]|\d\s*(am|pm|h)\b|\d[:.]\d{2}/i;

export const radioGroups: Reader = (page) => {
  const { all, fieldEls, formIndex } = page;
  const fields: FieldInfo[] = [];
  const groups = new Map<string, Element[]>();
  for (const el of fieldEls) {
    const name = el.getAttribute('name');
    if ((el.getAttribute('type') ?? '').toLowerCase() !== 'radio' || !name) continue;
    const key = `${formIndex(el)}|${name}`;
    groups.set(key, [...(groups.get(key) ?? []), el]);
  }
  all('[role="radiogroup"]').forEach((g, i) => groups.set(`aria|${i}`, Array.from(g.querySelectorAll('[role="radio"]')).filter((r) => r.tagName !== 'INPUT')));
  for (const radios of groups.values()) {
    if (radios.length < 2) continue;
    const holder = radios[0]!.closest('fieldset,[role="radiogroup"]');
    if (!holder || !radios.every((r) => holder.contains(r))) continue;
    const label = nameOf(holder) || clean(holder.querySelector(':scope > legend')?.textContent);
    const checked = (r: Element) => (r.tagName === 'INPUT' ? (r as HTMLInputElement).checked : r.getAttribute('aria-checked') === 'true');
    const options = radios.map((r) => ({ value: selectorOf(r), text: nameOf(r) || clean(r.closest('label')?.textContent), disabled: (r as HTMLInputElement).disabled === true || r.getAttribute('aria-disabled') === 'true' }));
    if (!label || !options.every((o) => COUNT.test(o.text) && !NOT_A_COUNT.test(o.text))) continue;
    fields.push(widgetField(page, holder, {
      type: 'radiogroup', name: radios[0]!.getAttribute('name') ?? '', label, labelFrom: 'group name', text: label, options,
      value: options.find((_, i) => checked(radios[i]!))?.text ?? '', required: radios.some((r) => (r as HTMLInputElement).required === true),
      disabled: options.every((o) => o.disabled), readOnly: false, invalid: false,
    }));
  }
  return { fields };
};
