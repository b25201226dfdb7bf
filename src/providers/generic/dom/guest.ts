import type { GuardedPage } from '../../../executor/guard/page-api.ts';
import type { Traveller } from '../../types.ts';
import { assign, fillable, guestRules, guestValue, splitPhone, valueFor } from './fields.ts';
import { NotUnderstood } from './not-understood.ts';
import { clearOverlays } from './overlays.ts';
import { describeFields, submitOf } from './search.ts';
import type { FieldInfo, Snapshot } from './snapshot.ts';

// Guest details: the form asking for a person (by autocomplete token: given-name, family-name,
// name, email, tel, bday, country; labels as the fallback; passport fields by label). Only the
// booking's required agreement boxes are ticked; a newsletter box or an upsell is left alone.

const AGREE = /\b(terms|conditions|agree|accept|policy|policies|rules)\b/i;
const LEAVE = /\b(newsletter|offers|marketing|subscribe|news|promotions?|insurance|upgrade|add)\b/i;

function guestForm(s: Snapshot): { form: number; fields: FieldInfo[] } | null {
  let best: { form: number; fields: FieldInfo[]; n: number } | null = null;
  const forms = new Set(s.fields.filter((f) => f.visible && !f.card).map((f) => f.form));
  for (const form of forms) {
    const fields = s.fields.filter((f) => f.form === form && f.visible && !f.card);
    if (fields.some((f) => f.type === 'password')) continue;
    const n = assign(fields.filter(fillable), guestRules()).size;
    if (n >= 2 && (!best || n > best.n)) best = { form, fields, n };
  }
  return best;
}

/** The required agreement boxes not ticked yet (of one form, or of the page): never a newsletter's or an upsell's. */
export function agreementsToTick(s: Snapshot, form?: number): FieldInfo[] {
  return s.fields.filter((f) => (form === undefined || f.form === form) && f.visible && !f.disabled && !f.card && f.type === 'checkbox' && f.required && !f.checked && AGREE.test(f.text) && !LEAVE.test(f.text));
}

export async function fillGuest(page: GuardedPage, traveller: Traveller): Promise<void> {
  const s = await clearOverlays(page);
  const found = guestForm(s);
  if (!found) throw new NotUnderstood('guest details', page.url(), 'a form asking for the guest (name, email, phone by autocomplete token or label)', describeFields(s));
  const assigned = assign(found.fields.filter(fillable), guestRules());
  const typed: Array<[string, string]> = [];
  // A calling code asked apart: the code goes in its own field and the number without it.
  const codeField = assigned.get('telCountryCode')?.[0];
  const split = codeField && traveller.phone ? splitPhone(traveller.phone, codeField) : null;
  for (const [concept, fields] of assigned) {
    const value = split && concept === 'tel' ? split.national : split && concept === 'telCountryCode' ? split.code : guestValue(traveller, concept);
    if (value === undefined || value === '') continue;
    // One traveller: the first field of each kind is theirs (the lead passenger, the booker).
    // Email is asked twice on many forms ("confirm your email"): every email field takes it.
    for (const field of concept === 'email' ? fields : fields.slice(0, 1)) {
      const v = valueFor(field, value, concept);
      if (v !== null) typed.push([field.sel, v]);
    }
  }
  if (typed.length) await page.fillForm(typed);
  for (const box of agreementsToTick(s, found.form)) await page.check(box.sel);
  const submit = submitOf(s, found.form);
  if (!submit) throw new NotUnderstood('guest details', page.url(), 'the button that sends the guest details', `controls: ${s.controls.filter((c) => c.visible).slice(0, 8).map((c) => `"${c.text}"`).join(', ') || 'none'}`);
  await page.press(submit.sel, `send the guest details (${submit.text})`);
}
