import { clean, nameOf } from '../lib.ts';
import { widgetField, type Reader } from '../page.ts';

// Boxes that are no <input>: the APG checkbox (role=checkbox) and switch (role=switch), checked by
// aria-checked. Read as checkboxes, so that a required agreement among them is ticked as a native
// one is (and an optional one left alone); required by aria-required or by its words.

export const boxes: Reader = (page) => ({
  fields: page.all('[role="checkbox"],[role="switch"]')
    .filter((el) => el.tagName !== 'INPUT')
    .map((el) => {
      const named = nameOf(el) || clean(el.textContent);
      return widgetField(page, el, { type: 'checkbox', label: named, labelFrom: 'accessible name', text: clean([named, el.id].join(' | ')), checked: el.getAttribute('aria-checked') === 'true' });
    }),
});
