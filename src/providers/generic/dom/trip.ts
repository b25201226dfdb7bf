import type { DriverPage } from '../../../driver/page.ts';
import type { SearchRequest } from '../../../driver/types.ts';
import { wordsOf } from './fields.ts';
import type { FieldInfo, Snapshot } from './snapshot.ts';
import { chooseInList, isPressList } from './widgets.ts';
import { tripIn } from '../../../driver/text.ts';

// A flight search's trip type: one way or return, as the request says (a returnDate asked is a
// return, none is one way). Airline forms often start on "Return", and a one-way trip searched as a
// return is another trip even when the site takes it. The choice is whatever the form offers it as:
// radios, toggle buttons (aria-pressed, or ARIA radios by aria-checked), a <select>, or a
// select-only combobox or listbox; a group counts only when it offers both kinds of trip.

type Trip = 'return' | 'oneway';

const CHROME = new Set(['header', 'nav', 'footer', 'aside']);

/** The trip a choice's words name ("Ida y vuelta" is a return before it is an "ida"). */
function tripOf(text: string): Trip | null {
  return tripIn(wordsOf(text));
}

const both = (trips: Array<Trip | null>) => trips.includes('return') && trips.includes('oneway');

/** Is `x` in the search's form (or, for a form without <form>, loose on the page outside its chrome)? */
const near = (x: { form: number; region: string; visible: boolean; disabled: boolean }, form: number) => x.visible && !x.disabled && !CHROME.has(x.region) && x.form === form;

/**
 * Sets the trip type of the search form `form` for `request` (flights only). True when it changed
 * something (the form may then show or hide its return date), false when the form has no trip type
 * or it was already right.
 */
export async function chooseTrip(page: DriverPage, s: Snapshot, form: number, request: SearchRequest): Promise<boolean> {
  if (request.scenario !== 'flight') return false;
  const want: Trip = request.returnDate ? 'return' : 'oneway';
  // Trip buttons sit in the form, or just before it outside any <form>.
  for (const where of form >= 0 ? [form, -1] : [form]) {
    const radios = new Map<string, FieldInfo[]>();
    for (const f of s.fields.filter((x) => x.type === 'radio' && near(x, where))) radios.set(f.name, [...(radios.get(f.name) ?? []), f]);
    for (const group of radios.values()) {
      if (!both(group.map((f) => tripOf(f.label)))) continue;
      const choice = group.find((f) => tripOf(f.label) === want)!;
      if (choice.checked) return false;
      await page.check(choice.sel);
      return true;
    }
    const toggles = s.controls.filter((c) => c.pressed !== '' && near(c, where));
    if (both(toggles.map((c) => tripOf(c.text)))) {
      const choice = toggles.find((c) => tripOf(c.text) === want)!;
      if (choice.pressed === 'true') return false;
      await page.press(choice.sel, `choose the trip type "${choice.text.slice(0, 40)}"`);
      return true;
    }
    for (const list of s.fields.filter((f) => (f.tag === 'select' || isPressList(f)) && near(f, where))) {
      if (!both(list.options.map((o) => tripOf(o.text)))) continue;
      const option = list.options.find((o) => !o.disabled && tripOf(o.text) === want);
      if (!option) continue;
      if (list.tag === 'select') {
        if (list.value === option.value) return false;
        await page.select(list.sel, option.value);
      } else {
        if (tripOf(list.value) === want) return false;
        await chooseInList(page, list, option.text, 'search');
      }
      return true;
    }
  }
  return false;
}
