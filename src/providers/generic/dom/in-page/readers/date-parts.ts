import type { FieldInfo } from '../../snapshot.ts';
import { clean, nameOf, regionOf, selectorOf } from '../lib.ts';
import { widgetField, type Reader } from '../page.ts';
import { stepperOf } from '../stepper.ts';

export const dateParts: Reader = (page) => {
  const { doc, all } = page;
  const fields: FieldInfo[] = [];
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
  const numberOf = (el: Element, attr: string) => (el.hasAttribute(attr) && Number.isFinite(Number(el.getAttribute(attr))) ? Number(el.getAttribute(attr)) : null);
  const sectioned = new Map<Element, Element[]>();
  for (const el of all('[role="spinbutton"]:not(input)')) {
    if (el.getAttribute('aria-readonly') === 'true' || stepperOf(el)) continue;
    const group = el.closest('[role="group"]') ?? el.parentElement?.parentElement;
    if (group) sectioned.set(group, [...(sectioned.get(group) ?? []), el]);
  }
  for (const [group, sections] of sectioned) {
    // A section a person types into (MUI's, React Aria's: editable), else one moved only by its keys
    // (the APG example's), told by aria-valuenow and its range.
    const parts = sections.map((el) => ({ sel: selectorOf(el), part: partOf(el), keyed: !(el as HTMLElement).isContentEditable, now: numberOf(el, 'aria-valuenow'), min: numberOf(el, 'aria-valuemin') }));
    if (parts.length !== 3 || new Set(parts.map((p) => p.part)).size !== 3 || parts.some((p) => p.part === null)) continue;
    const named = nameOf(group);
    // Its first section is the field; its states and where it sits are the group's.
    fields.push(widgetField(page, sections[0]!, {
      type: 'dateparts', name: '', label: named, labelFrom: 'accessible name', text: named,
      value: sections.every((el) => el.hasAttribute('aria-valuenow')) ? sections.map((el) => clean(el.textContent)).join(' ') : '',
      required: false, disabled: sections.some((el) => el.getAttribute('aria-disabled') === 'true'), readOnly: false,
      form: page.formIndex(group), region: regionOf(group), invalid: group.getAttribute('aria-invalid') === 'true', inDialog: page.dialogIndex(group), parts: parts as FieldInfo['parts'],
    }));
  }
  return { fields };
};
