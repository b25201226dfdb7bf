import type { DriverPage } from '../../../driver/page.ts';
import { type Person, type Traveller, travellersOf } from '../../../driver/types.ts';
import { assign, fillable, guestRules, guestValue, splitPhone, valueFor, type Concept } from './fields.ts';
import { NotUnderstood } from './not-understood.ts';
import { clearOverlays, pressPastOverlays } from './overlays.ts';
import { describeFields, labelSources, submitOf } from './search.ts';
import type { ControlInfo, FieldInfo, Snapshot } from './snapshot.ts';
import { CONSENT_WORDS, CONTROL_WORDS, either } from './words.ts';
import { chooseInList, isPressList, openSections, revealFields } from './widgets.ts';

// Guest details: the form asking for a person (by autocomplete token: given-name, family-name,
// name, email, tel, bday, country; labels as the fallback; passport fields by label). Only the
// booking's required agreement boxes are ticked; a newsletter box or an upsell is left alone.

const AGREE = either(/\b(terms|conditions|agree|accept|policy|policies|rules)\b/, CONSENT_WORDS.agree);
// A box the page marks as required in words rather than markup: "… conditions *", "(required)".
const MARKED_REQUIRED = either(/\*|\((required|mandatory|obligatory)\)/, CONSENT_WORDS.required);
const LEAVE = either(/\b(newsletter|offers|marketing|subscribe|news|promotions?|insurance|upgrade|add)\b/, CONSENT_WORDS.leave);

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

/** Whether the page asks for a guest (a name and a contact, by token or label) in one of its forms. */
export function guestFormOn(s: Snapshot): boolean {
  return guestForm(s) !== null;
}

/**
 * The required agreement boxes not ticked yet (of one form, or of the page): required by markup or
 * marked so in their label ("I accept the terms *"); never a newsletter's or an upsell's.
 */
export function agreementsToTick(s: Snapshot, form?: number): FieldInfo[] {
  return s.fields.filter((f) => (form === undefined || f.form === form) && f.visible && !f.disabled && !f.card && f.type === 'checkbox' && (f.required || MARKED_REQUIRED.test(f.label)) && !f.checked && AGREE.test(f.text) && !LEAVE.test(f.text));
}

const TO_CHECKOUT = either(/\b(checkout|check out)\b/, ['zur kasse', 'caja', 'cassa', 'caisse', 'finalizar compra']);
const TO_DETAILS = either(/\b(proceed|continue|next)\b/, CONTROL_WORDS.onward);
// What commits (pays, books, places the order) is never a way to the guest form.
const COMMITS = either(/\b(pay|purchase|buy|book|reserve|confirm|place|order)\b/, ['pagar', 'paga', 'pagare', 'bezahlen', 'zahlen', 'payer', 'reservar', 'buchen', 'réserver', 'prenota', 'prenotare', 'confirmar', 'conferma', 'confermare', 'bestätigen', 'confirmer', 'comprar', 'acquista', 'kaufen', 'acheter']);

/**
 * The control that goes on from a cart towards the guest form, outside the site's chrome: one that
 * goes to the checkout, even from a page that still offers more (pretix shows the cart above the
 * ticket list); else a "continue" from a page that asks nothing. Null when there is none.
 */
function wayToDetails(s: Snapshot): ControlInfo | null {
  const usable = s.controls.filter((c) => c.visible && !c.disabled && c.type !== 'radio' && !['header', 'nav', 'footer', 'aside'].includes(c.region) && !COMMITS.test(c.text));
  const checkout = usable.find((c) => TO_CHECKOUT.test(c.text));
  if (checkout) return checkout;
  if (s.fields.some((f) => f.visible && !f.card && fillable(f) && f.type !== 'checkbox' && f.type !== 'radio' && f.type !== 'hidden')) return null;
  return usable.find((c) => TO_DETAILS.test(c.text)) ?? null;
}

/** What each person is asked for themselves; the contact (email, phone) is the lead's. */
const PER_PERSON = new Set<Concept>(['givenName', 'familyName', 'fullName', 'bday', 'bdayDay', 'bdayMonth', 'bdayYear', 'passportNumber', 'passportCountry', 'nationality', 'knownTraveler']);
const NAMES: Concept[] = ['givenName', 'familyName', 'fullName'];

/**
 * Fills the guest form and sends it. Several travellers go in section by section: the n-th field of
 * a per-person kind (given name, passport…) is the n-th traveller's, the lead first. A site that asks
 * for one passenger per page shows the next form with its names empty: it gets the next traveller.
 * `ticketsInLeadsName`: a form that requires a name for more tickets than people were given gets the
 * lead's on the rest (the buyer holds them, as a shop's "copy answers from above" does); never on a
 * flight, where each name is who flies.
 */
export async function fillGuest(page: DriverPage, traveller: Traveller, ticketsInLeadsName = false): Promise<void> {
  const people = travellersOf(traveller);
  let next = 0;
  for (let form = 0; next < people.length; form++) {
    let s = await clearOverlays(page);
    let found = guestForm(s);
    // The guest form in a modal or a collapsed section that a button opens ("Enter your details").
    const revealed = !found && form === 0 ? await revealFields(page, s) : null;
    if (revealed) {
      s = revealed;
      found = guestForm(s);
    }
    // A page between the choice and the guest form that asks nothing (a cart: what was chosen, how
    // long it is held, "Proceed with checkout"): gone on from, at most twice.
    for (let passed = 0; !found && form === 0 && passed < 2; passed++) {
      const on = wayToDetails(s);
      if (!on) break;
      await pressPastOverlays(page, on.sel, `go on to the guest details (${on.text})`);
      s = await clearOverlays(page);
      found = guestForm(s);
    }
    // Part of it in a collapsed section ("Contact details" in an accordion).
    const opened = found ? await openSections(page, s, found.form) : null;
    if (opened) {
      s = opened;
      found = guestForm(s);
    }
    if (!found) {
      if (form > 0) return; // the page after the last form: the review's to read
      throw new NotUnderstood('guest details', page.url(), 'a form asking for the guest (name, email, phone by autocomplete token or label)', describeFields(s));
    }
    const assigned = assign(found.fields.filter(fillable), guestRules());
    // A later form is the next passenger's only when its names are still empty (a refused form keeps what was typed).
    if (form > 0 && !NAMES.some((c) => assigned.get(c)?.some((f) => f.value === ''))) return;
    next += await fillOne(page, s, found, assigned, people.slice(next), ticketsInLeadsName);
  }
}

/**
 * One form: fills it for `people` (as many as it has sections for) and sends it; how many it took.
 * Its contact fields take the first of them: the lead on the first form (the others' contact is the
 * lead's unless they gave their own, src/executor/request.ts).
 */
async function fillOne(page: DriverPage, s: Snapshot, found: { form: number }, assigned: Map<Concept, FieldInfo[]>, people: Person[], leadOnTheRest: boolean): Promise<number> {
  const lead = people[0]!;
  // As many sections as the form asks names (a contact's "Full name" beside each passenger's first and last names is not a section).
  const asked = Math.max(assigned.get('givenName')?.length ?? 0, assigned.get('familyName')?.length ?? 0);
  const sections = Math.max(1, Math.min(people.length, asked || (assigned.get('fullName')?.length ?? 0)));
  const typed: Array<[string, string]> = [];
  const listed: Array<[FieldInfo, string]> = [];
  // A calling code asked apart: the code goes in its own field and the number without it.
  const phone = lead.phone;
  const codeField = assigned.get('telCountryCode')?.[0];
  const split = codeField && phone ? splitPhone(phone, codeField) : null;
  for (const [concept, fields] of assigned) {
    if (PER_PERSON.has(concept)) {
      for (const [i, field] of fields.entries()) {
        const person = i < sections ? people[i]! : leadOnTheRest && field.required && NAMES.includes(concept) ? lead : undefined;
        if (!person) break;
        const value = guestValue(person, concept);
        if (value && isPressList(field)) listed.push([field, value]);
        const v = value && !isPressList(field) ? valueFor(field, value, concept) : null;
        if (v !== null) typed.push([field.sel, v]);
      }
      continue;
    }
    const value = split && concept === 'tel' ? split.national : split && concept === 'telCountryCode' ? split.code : guestValue(lead, concept);
    if (value === undefined || value === '') continue;
    // The contact is asked once; email often twice ("confirm your email"): every email field takes it.
    for (const field of concept === 'email' ? fields : fields.slice(0, 1)) {
      if (isPressList(field)) {
        listed.push([field, value]);
        continue;
      }
      const v = valueFor(field, value, concept);
      if (v !== null) typed.push([field.sel, v]);
    }
  }
  if (typed.length) await page.fillForm(typed);
  for (const [field, value] of listed) await chooseInList(page, field, value, 'guest details');
  for (const box of agreementsToTick(s, found.form)) await page.check(box.sel);
  const submit = submitOf(s, found.form, 'details');
  if (!submit) throw new NotUnderstood('guest details', page.url(), 'the button that sends the guest details', `controls: ${s.controls.filter((c) => c.visible).slice(0, 8).map((c) => `"${c.text}"`).join(', ') || 'none'}`);
  await pressPastOverlays(page, submit.sel, `send the guest details (${submit.text})${labelSources([...assigned.values()].flat())}`);
  return sections;
}
