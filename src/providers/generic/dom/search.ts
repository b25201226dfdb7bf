import { datesIn } from '../../../driver/text.ts';
import type { DriverPage } from '../../../driver/page.ts';
import type { SearchRequest } from '../../../driver/types.ts';
import { assign, dateInFormat, datePartFor, fillable, optionFor, searchRules, searchValue, valueFor, wordsOf, type Concept } from './fields.ts';
import { clearOverlays, pressPastOverlays } from './overlays.ts';
import { framesFacts, snapshot, type ControlInfo, type FieldInfo, type Snapshot } from './snapshot.ts';
import { NotUnderstood } from './not-understood.ts';
import { ProviderFailure } from '../../../driver/failures.ts';
import { CONTROL_WORDS, either, FIELD_WORDS } from './words.ts';
import { chooseInList, isPressList, slideTo, typeDateParts } from './widgets.ts';
import { orderBoxes } from './offers.ts';
import { sameName } from '../../../driver/names.ts';
import { chooseTrip } from './trip.ts';
import { walkCalendar } from './calendar.ts';

// The search step: find the form that asks for what the request holds (not the header's search
// box, not a newsletter sign-up), fill it in one round trip, then the parts a person clicks rather
// than types (a custom date picker's day, a quantity stepper), and submit it.

const SUBMIT_WORDS = either(/\b(search|find|check|availability|show|see|go|look|book|continue|next|submit|let'?s go|get)\b/, CONTROL_WORDS.search, CONTROL_WORDS.onward);
const STRONG_SUBMIT = either(/\b(search|find|check availability|show (times|results|availability|rooms|flights|tickets))\b/, ['buscar', 'cerca', 'suchen', 'rechercher', 'pesquisar', 'procurar']);
// A form's own buttons that do not send it on: "Reset", "Back", and editing the form itself ("Add a new type", "Remove").
// ("Add to cart" sends a shop's order form: what is added is the order, not a row of the form.)
const NOT_SUBMIT = either(/\b(reset|clear|cancel|back)\b|^\s*(add|delete|remove)\b(?!\s+to\s+(the\s+)?(cart|basket|bag|order)\b)/, CONTROL_WORDS.back);
const SENDS_DETAILS = either(/\b(send|submit|continue|next|book|reserve|reservation|request|confirm|proceed|checkout)\b/, CONTROL_WORDS.onward);
const CHROME = new Set(['header', 'nav', 'footer', 'aside']);

export interface Plan {
  form: number;
  fields: Map<Concept, FieldInfo[]>;
  score: number;
  /** The venue's page that holds this form's booking engine in a frame (the form is at the frame's own address). */
  framedIn?: string;
}

/** The form (or, on a page without <form>, the loose fields) that best asks for this request. */
export function searchForm(s: Snapshot, request: SearchRequest): Plan | null {
  const groups = new Map<number, FieldInfo[]>();
  const ordered = new Set(orderBoxes(s));
  for (const f of s.fields) {
    // A stepper hidden behind a collapsed disclosure of its form ("2 adults · 1 room") counts: it is opened to be set.
    // (How many of each priced item is an order, read as the page's options, not a search.)
    if (f.card || ordered.has(f) || (!f.visible && !(f.type === 'stepper' && disclosureOf(s, f)))) continue;
    const list = groups.get(f.form) ?? [];
    list.push(f);
    groups.set(f.form, list);
  }
  let best: Plan | null = null;
  for (const [form, fields] of groups) {
    const info = form >= 0 ? s.forms[form] : undefined;
    const region = info?.region ?? fields[0]!.region;
    // (A count from pills or a slider is a search's, set there: fillAndSubmit.)
    const assigned = assign(fields.filter((f) => fillable(f) || f.type === 'stepper' || (['radiogroup', 'slider'].includes(f.type) && f.visible && !f.disabled)), searchRules(request.scenario));
    let score = 0;
    for (const [concept] of assigned) if (searchValue(request, concept) !== undefined) score += concept === 'quantity' || concept === 'date' || concept === 'checkIn' ? 2 : 1;
    // A header search box or a newsletter box asks for one thing; a booking search asks for several.
    if (CHROME.has(region)) score -= 2;
    if (/newsletter|subscribe/i.test(info?.text ?? '') || fields.every((f) => f.type === 'email')) score = 0;
    if (fields.some((f) => f.type === 'password')) score = 0;
    // A search of one field, for what to book, that suggests as it is typed (an "Experience"
    // combobox): the site asks the day and how many on the page it leads to.
    const only = [...assigned.entries()];
    if (score === 1 && only.length === 1 && only[0]![0] === 'venue' && only[0]![1][0]!.combobox && !CHROME.has(region)) score = 2;
    if (score > 1 && (!best || score > best.score)) best = { form, fields: assigned, score };
  }
  return best;
}

/** Is the page still asking for the search (so no results came)? */
export function looksLikeSearch(s: Snapshot, request: SearchRequest): boolean {
  return searchForm(s, request) !== null;
}

export async function search(page: DriverPage, startUrl: string, request: SearchRequest): Promise<void> {
  // A strategy before this one (WebMCP) may have opened the start page and found nothing to use on
  // it: the page is read as it is, not loaded a second time.
  if (!/^https?:/.test(page.url())) await page.goto(startUrl);
  await page.settle();
  const found = await searchOnPage(page, request);
  const s = found.s;
  let plan = found.plan;
  // No search on the venue's own page (a ticket shop's event page, its dates or ticket types):
  // what it lists is read as the availability.
  if (!plan && request.scenario !== 'flight' && s.headings.some((h) => sameName(request.venue, h, request.city).same)) return;
  if (!plan) throw new NotUnderstood('search', page.url(), 'a search form asking for the booking (labelled fields for the date, the number of people…)', describeFields(s));
  // The trip type first: choosing it may show or hide the return date.
  if (await chooseTrip(page, s, plan.form, request)) plan = { ...(searchForm(await snapshot(page), request) ?? plan), framedIn: plan.framedIn };
  // A return trip on a site whose search asks for no return date: it sells one-way fares, and half a
  // return trip is not what was asked.
  if (request.scenario === 'flight' && request.returnDate && !plan.fields.has('returnDate')) {
    throw new ProviderFailure('no_availability', `the site sells no return fares (its search form asks for no return date), and the trip asked for is a return on ${request.returnDate}`);
  }
  await fillAndSubmit(page, plan, request, 'search');
}

/**
 * The page's search form, read once what stands over the page is answered; on a venue's page whose
 * booking engine is a frame, the frame's, at its own address (back on the venue's page when that
 * frame asks for no search after all: a newsletter's).
 */
async function searchOnPage(page: DriverPage, request: SearchRequest): Promise<{ s: Snapshot; plan: Plan | null }> {
  const s = await clearOverlays(page);
  const plan = searchForm(s, request);
  const engine = plan ? null : await bookingFrame(page, s);
  if (!engine) return { s, plan };
  const venuePage = page.url();
  await page.goto(engine);
  await page.settle();
  const there = await clearOverlays(page);
  const framed = searchForm(there, request);
  if (framed) return { s: there, plan: { ...framed, framedIn: venuePage } };
  await page.goto(venuePage);
  await page.settle();
  return { s: await clearOverlays(page), plan: null };
}

/**
 * A venue's page whose booking is a frame of its own (a booking engine's widget embedded, often from
 * another origin, where none of the page's reading reaches): the address of the one frame shown in
 * the page, not over it, that asks for something to fill and holds no card field nor CAPTCHA. The
 * booking is then made at that address, in the tab, as a person may open the widget on its own.
 */
async function bookingFrame(page: DriverPage, s: Snapshot): Promise<string | null> {
  const inPage = s.frames.filter((f) => f.shown && !f.over && /^https?:/.test(f.src));
  if (inPage.length === 0) return null;
  const asking = (await framesFacts(page)).filter((f) => !f.main && inPage.some((x) => x.src === f.src) && f.result.fields > 0 && !f.result.card && !f.result.captcha);
  return asking.length === 1 ? asking[0]!.url : null;
}

/**
 * Fills what the form asks for (typed in one round trip, then the parts a person clicks: steppers,
 * a date picker) and submits it. A date the form does not ask for at all is left for a later page
 * (many sites ask for the day once the venue is chosen).
 */
export async function fillAndSubmit(page: DriverPage, asked: Plan, request: SearchRequest, stepName: string, corrected = false): Promise<void> {
  let s: Snapshot;
  // A form sent back may be on its default trip type again (a flight's "Return").
  const again = request.scenario === 'flight' && await chooseTrip(page, await snapshot(page), asked.form, request) ? searchForm(await snapshot(page), request) : null;
  const plan = again?.form === asked.form ? again : asked;
  const typed: Array<[string, string]> = [];
  const clicked: Array<[Concept, FieldInfo, string]> = [];
  const pending: Concept[] = [];
  const listed: Array<[FieldInfo, string]> = [];
  const sectioned: Array<[FieldInfo, string]> = [];
  const slid: Array<[FieldInfo, string]> = [];
  const ticked: string[] = [];
  const suggesting: Array<[FieldInfo, string]> = [];
  for (const [concept, fields] of plan.fields) {
    const value = searchValue(request, concept);
    if (value === undefined) continue;
    const field = fields[0]!;
    // A day asked as Day, Month and Year (lists or boxes): each part as it takes it.
    const parts = isDateConcept(concept) ? datePartsOf(fields) : null;
    if (parts) {
      for (const [f, part] of parts) {
        const v = datePartFor(f, part, part === 'day' ? value.slice(8, 10) : part === 'month' ? value.slice(5, 7) : value.slice(0, 4));
        if (v !== null) typed.push([f.sel, v]);
      }
      continue;
    }
    if (field.type === 'stepper' || (field.readOnly && field.stepper)) clicked.push([concept, field, value]);
    else if (isPressList(field)) listed.push([field, value]);
    else if (field.type === 'dateparts') sectioned.push([field, value]);
    // (A slider moves a number: one for anything else is left as it is.)
    else if (field.type === 'radiogroup') {
      const radio = optionFor(field, value);
      if (radio) ticked.push(radio);
    } else if (field.type === 'slider') {
      if (/^\d+$/.test(value)) slid.push([field, value]);
    }
    else if (field.readOnly) pending.push(concept);
    else {
      const v = valueFor(field, value);
      if (v === null) continue;
      // A combobox is typed into on its own, then its suggestion picked: filled with the rest, it
      // would be left (blurred) with a popup that many close a moment later, under the pick.
      if (field.combobox) suggesting.push([field, v]);
      else typed.push([field.sel, v]);
    }
  }
  if (typed.length) await page.fillForm(typed);
  for (const [field, value] of suggesting) await pickSuggestion(page, field, value);
  for (const [field, value] of listed) await chooseInList(page, field, value, stepName);
  for (const [field, value] of sectioned) await typeDateParts(page, field, value, stepName);
  for (const [field, value] of slid) await slideTo(page, field, Number(value), stepName);
  for (const radio of ticked) await page.check(radio);
  await confirmTypedDates(page, plan, request);
  for (const [, field, value] of clicked) {
    if (field.visible) {
      await step(page, field, Number(value));
      continue;
    }
    // Behind a collapsed disclosure (an occupancy popover): opened, set, and closed again.
    const opener = disclosureOf(await snapshot(page), field);
    if (!opener) continue;
    await page.press(opener.sel, `open "${opener.text.slice(0, 40)}"`);
    const open = (await snapshot(page)).fields.find((f) => f.sel === field.sel);
    if (!open?.visible) throw new NotUnderstood(stepName, page.url(), `"${field.label || 'the number'}" once "${opener.text.slice(0, 40)}" is opened`, 'it stays hidden');
    await step(page, open, Number(value));
    const after = (await snapshot(page)).controls.find((c) => c.sel === opener.sel);
    if (after?.expanded === 'true' && after.visible) await page.press(opener.sel, `close "${after.text.slice(0, 40)}"`);
  }
  // Dates the form does not let a person type: chosen in the page's date picker. (A return date only
  // in its own field's picker: a picker the form shows for no field is the way out's.)
  for (const concept of ['date', 'checkIn', 'checkOut', 'returnDate'] as Concept[]) {
    const value = searchValue(request, concept);
    if (value === undefined) continue;
    const assigned = plan.fields.get(concept)?.[0];
    if (assigned && !pending.includes(concept)) continue;
    if (concept === 'returnDate' && !assigned) continue;
    s = await snapshot(page);
    await pickDate(page, s, value, assigned, concept, !assigned);
  }
  s = await snapshot(page);
  const submit = submitOf(s, plan.form);
  if (!submit) throw new NotUnderstood(stepName, page.url(), 'the button that sends the search', `controls: ${s.controls.filter((c) => c.visible).slice(0, 8).map((c) => `"${c.text}"`).join(', ') || 'none'}`);
  const framed = plan.framedIn ? `; in the booking engine ${plan.framedIn} holds in a frame, opened at its own address` : '';
  await pressPastOverlays(page, submit.sel, `search (${submit.text})${labelSources([...plan.fields.values()].flat())}${framed}`);
  const after = await clearOverlays(page);
  // The same form back with a new message that states the date format it wants ("Enter your date
  // as dd.mm.yyyy"): a validation failure, not the next step. Filled again, the dates as it says
  // (a form sent back may have lost every value), and sent once more; a second refusal is left for
  // the next step to report in the site's words.
  const refusal = formatRefusal(s, after, request);
  const back = refusal && !corrected ? searchForm(after, request)! : null;
  // (Only a form with a date to write otherwise: sent back unchanged, it would be refused again.)
  if (back && [...back.fields.keys()].some(isDateConcept)) {
    const told = new Map([...back.fields].map(([concept, fields]) => [concept, isDateConcept(concept) ? fields.map((f) => ({ ...f, hint: `${refusal} | ${f.hint}` })) : fields]));
    await fillAndSubmit(page, { ...back, fields: told }, request, stepName, true);
  }
}

const isDateConcept = (c: Concept) => c === 'date' || c === 'checkIn' || c === 'checkOut' || c === 'returnDate';

/** The site's new message, when it sent the search form back saying how a date must be written. */
function formatRefusal(before: Snapshot, after: Snapshot, request: SearchRequest): string | null {
  const fresh = after.alerts.filter((a) => !before.alerts.includes(a));
  if (fresh.length === 0 || !searchForm(after, request)) return null;
  return fresh.find((a) => dateInFormat('2000-01-02', a) !== null) ?? null;
}

/**
 * The form's submit button; on a page without <form>, the main area's button that reads as "search".
 * A form with several submit buttons (HotelDruid's "Add a new type" before "Check availability"):
 * the one that reads as what is being done, a search or sending the details on.
 */
export function submitOf(s: Snapshot, form: number, purpose: 'search' | 'details' = 'search'): ControlInfo | null {
  const usable = s.controls.filter((c) => c.visible && !c.disabled && c.type !== 'radio');
  if (form >= 0) {
    const inForm = usable.filter((c) => c.form === form);
    const sends = inForm.filter((c) => c.submits && !NOT_SUBMIT.test(c.text));
    const reads = purpose === 'search' ? [STRONG_SUBMIT, SUBMIT_WORDS] : [SENDS_DETAILS];
    return reads.map((words) => sends.find((c) => words.test(c.text))).find(Boolean) ?? sends[0] ?? inForm.find((c) => SUBMIT_WORDS.test(c.text)) ?? null;
  }
  const main = usable.filter((c) => !CHROME.has(c.region) && c.tag !== 'a');
  return main.find((c) => STRONG_SUBMIT.test(c.text)) ?? main.find((c) => SUBMIT_WORDS.test(c.text) && !/\b(next|previous) (month|week)\b/i.test(c.text)) ?? null;
}

/**
 * A combobox that suggests values (a city, an airport): typed into as a person types, then the
 * suggestion that is the value pressed (the same words, else one that starts with them, else one
 * that holds them). With no suggestion the typed value stays.
 */
async function pickSuggestion(page: DriverPage, field: FieldInfo, value: string): Promise<void> {
  await page.fill(field.sel, value);
  await page.settle();
  const s = await snapshot(page);
  const want = wordsOf(value);
  const options = s.controls.filter((c) => c.visible && !c.disabled && c.role === 'option' && !CHROME.has(c.region));
  const words = (o: ControlInfo) => ` ${wordsOf(o.text).replace(/[^\p{L}\p{N}]+/gu, ' ').trim()} `;
  const w = ` ${want.replace(/[^\p{L}\p{N}]+/gu, ' ').trim()} `;
  const hit = options.find((o) => words(o) === w) ?? options.find((o) => words(o).startsWith(w)) ?? options.find((o) => words(o).includes(w));
  if (hit) await page.press(hit.sel, `choose the suggestion "${hit.text.slice(0, 40)}"`);
}

/**
 * The collapsed disclosure (aria-expanded="false") of the field's form that hides it: the one that
 * names what it holds (a number and a word like "adults", "guests", "travellers"), else the only one.
 */
export function disclosureOf(s: Snapshot, field: FieldInfo): ControlInfo | null {
  const closed = s.controls.filter((c) => c.visible && !c.disabled && c.expanded === 'false' && c.form === field.form && !CHROME.has(c.region));
  return closed.find((c) => /\d/.test(c.text) && /\b(adults?|guests?|people|persons?|travell?ers?|passengers?|rooms?|tickets?|occupancy|participants?)\b/i.test(c.text)) ?? (closed.length === 1 ? closed[0]! : null);
}

/** A quantity stepper: "+" or "−" until the number shown is the one wanted (each press settles). */
async function step(page: DriverPage, field: FieldInfo, wanted: number): Promise<void> {
  let current = Number.parseInt(field.value, 10);
  for (let presses = 0; presses < 40 && Number.isFinite(current) && current !== wanted; presses++) {
    await page.press(current < wanted ? field.stepper!.up : field.stepper!.down, `set the number to ${wanted}`);
    const s = await snapshot(page);
    const now = s.fields.find((f) => f.sel === field.sel);
    const next = Number.parseInt(now?.value ?? '', 10);
    if (!Number.isFinite(next) || next === current) break;
    current = next;
  }
  if (current !== wanted) throw new NotUnderstood('search', page.url(), `a way to set "${field.label || 'the number'}" to ${wanted}`, `it shows ${Number.isFinite(current) ? current : 'no number'}`);
}

/** A control that opens a date picker, by its words in any of the sites' languages ("Choose a date", "Elige una fecha"). */
/** (A hotel's one control for both dates is often named for the stay: "Stay", "Your stay", "Séjour".) */
const DATE_OPENER = either(/\b(dates?|day|when|stay|check ?in|check ?out|arrive|depart|calendar)\b/, FIELD_WORDS.date, FIELD_WORDS.checkIn, FIELD_WORDS.checkOut, ['calendario', 'kalender', 'calendrier', 'calendário', 'estancia', 'estadía', 'soggiorno', 'aufenthalt', 'séjour', 'estadia']);
const NEXT_MONTH = /\b(next( month)?|forward)\b|^[›»→>]$/i;

/**
 * The control that opens the date picker: one that says it opens something (aria-haspopup, aria-
 * expanded) first, then a button; a link last, since a site's menu has its "Stay" and "Dates" pages.
 */
function dateOpener(s: Snapshot): ControlInfo | undefined {
  const named = s.controls.filter((c) => c.visible && !c.disabled && DATE_OPENER.test(wordsOf(c.text)));
  return named.find((c) => c.haspopup || c.expanded) ?? named.find((c) => c.tag !== 'a') ?? named[0];
}

/** Does this accessible name denote that day ("Sunday, 29 November 2026", "November 29, 2026", "2026-11-29")? */
export function namesDate(text: string, iso: string): boolean {
  return datesIn(text).includes(iso);
}

/**
 * A custom date picker: a grid of buttons or cells whose accessible names are dates. Opens it if a
 * control reads as the date (or the read-only date field is pressed), then moves month by month
 * until the day is shown, and presses it.
 */
async function pickDate(page: DriverPage, s: Snapshot, iso: string, field: FieldInfo | undefined, concept: Concept, optional: boolean): Promise<void> {
  const day = (snap: Snapshot) => snap.controls.find((c) => c.visible && !c.disabled && namesDate(c.text, iso));
  let target = day(s);
  // A calendar already on the page (inline, a static picker): walked as it is, nothing pressed to open it.
  if (!target) {
    const sel = await walkCalendar(page, iso, s.lang, async () => day(await snapshot(page))?.sel ?? null);
    if (sel) {
      await page.press(sel, `choose ${iso} in the calendar`);
      return;
    }
    s = await snapshot(page);
    target = day(s);
  }
  if (!target) {
    const opener = field ? field.sel : dateOpener(s)?.sel;
    if (opener) {
      await page.press(opener, `open the date picker for ${concept}`);
      s = await snapshot(page);
      target = day(s);
    } else if (optional && !s.controls.some((c) => c.visible && datesIn(c.text).length)) return;
  }
  // A picker with its own month list and year box (flatpickr, many others): set them, then the day.
  if (!target) {
    const moved = await toMonth(page, s, iso);
    if (moved) {
      s = moved;
      target = day(s);
    }
  }
  // A month grid (a table, role=grid) with its month named beside it: walked to the month, then the
  // day pressed by its dated name, else by its number there (jQuery UI's "10", MUI's).
  if (!target) {
    const sel = await walkCalendar(page, iso, s.lang, async () => day(await snapshot(page))?.sel ?? null);
    if (sel) {
      await page.press(sel, `choose ${iso} in the date picker`);
      return;
    }
    s = await snapshot(page);
    target = day(s);
  }
  for (let months = 0; !target && months < 24; months++) {
    const next = s.controls.find((c) => c.visible && !c.disabled && NEXT_MONTH.test(c.text));
    if (!next) break;
    await page.press(next.sel, 'show the next month');
    s = await snapshot(page);
    target = day(s);
  }
  if (!target) throw new NotUnderstood('search', page.url(), `a date field or a date picker offering ${iso}`, `dates shown: ${s.controls.filter((c) => datesIn(c.text).length).slice(0, 5).map((c) => c.text).join(', ') || 'none'}`);
  await page.press(target.sel, `choose ${iso} in the date picker`);
}

/** For the audit: the fields known by something other than an accessible name, and by what (", fields without a label read by: "Giorno" from the table cell"). */
export function labelSources(fields: FieldInfo[]): string {
  const other = fields.filter((f) => f.labelFrom && f.labelFrom !== 'accessible name');
  return other.length ? `; fields without a label read by ${other.slice(0, 6).map((f) => `"${f.label || f.name}" from the ${f.labelFrom}`).join(', ')}` : '';
}

/** The date formats a person would try, in the page's language's order (en-US and bare "en": month first). */
function localFormats(lang: string): string[] {
  return /^en(-us)?$/i.test(lang) || lang === '' ? ['mm/dd/yyyy', 'dd/mm/yyyy'] : ['dd/mm/yyyy', 'mm/dd/yyyy'];
}

/**
 * A date typed into a text field that states no format, where the field opens a date picker: the
 * picker is what tells whether the site read the date as meant ("06/10" is June or October). The
 * day is pressed in the picker (which also closes it); when the typed date did not bring the
 * picker to its month, the page's language's formats are typed, then the picker is walked.
 */
async function confirmTypedDates(page: DriverPage, plan: Plan, request: SearchRequest): Promise<void> {
  for (const concept of ['date', 'checkIn', 'checkOut', 'returnDate'] as Concept[]) {
    const field = plan.fields.get(concept)?.[0];
    const value = searchValue(request, concept);
    if (!field || value === undefined || field.type === 'date' || field.tag === 'select' || field.readOnly || isPressList(field) || field.type === 'stepper' || field.type === 'dateparts') continue;
    if (dateInFormat(value, `${field.placeholder} | ${field.hint} | ${field.text}`)) continue;
    await page.press(field.sel, `open the date picker of "${field.label || concept}"`);
    let s = await snapshot(page);
    const grid = () => s.controls.filter((c) => c.visible && !c.disabled && datesIn(c.text).length > 0);
    if (grid().length < 7) {
      // A calendar whose days are cells, not controls (Ant Design's table): its day is pressed there,
      // which confirms the typed date and closes the picker, which would else lie over the form.
      const cell = await walkCalendar(page, value, s.lang, async () => null);
      if (cell) await page.press(cell, `choose ${value} in the date picker`);
      continue;
    }
    const day = () => grid().find((c) => namesDate(c.text, value));
    let target = day();
    for (const format of localFormats(s.lang)) {
      if (target) break;
      await page.type(field.sel, dateInFormat(value, format)!);
      s = await snapshot(page);
      target = day();
    }
    if (!target) {
      await pickDate(page, s, value, undefined, concept, false);
      continue;
    }
    await page.press(target.sel, `choose ${value} in the date picker`);
  }
}

const DAY_FIELD = either(/\bday\b/, ['día', 'dia', 'giorno', 'tag', 'jour', 'dag']);
const MONTH_FIELD = either(/\bmonth\b/, ['mes', 'mese', 'monat', 'mois', 'mês', 'maand']);
const YEAR_FIELD = either(/\byear\b/, ['año', 'anno', 'jahr', 'année', 'ano', 'jaar']);

/** The fields of a day asked in three parts (Day, Month, Year under one legend), each with its part; null when they are not those three. */
function datePartsOf(fields: FieldInfo[]): Array<[FieldInfo, 'day' | 'month' | 'year']> | null {
  if (fields.length < 3) return null;
  const named = (words: RegExp) => fields.find((f) => words.test(wordsOf(f.label)));
  const [day, month, year] = [named(DAY_FIELD), named(MONTH_FIELD), named(YEAR_FIELD)];
  return day && month && year && new Set([day, month, year]).size === 3 ? [[day, 'day'], [month, 'month'], [year, 'year']] : null;
}

/** Sets a date picker's own month list and year box (or list) to the month of `iso`; the page read after, or null when it has none. */
async function toMonth(page: DriverPage, s: Snapshot, iso: string): Promise<Snapshot | null> {
  const monthOf = (snap: Snapshot) => snap.fields.find((f) => f.visible && !f.disabled && f.tag === 'select' && MONTH_FIELD.test(f.label));
  const month = monthOf(s);
  const year = s.fields.find((f) => f.visible && !f.disabled && f !== month && YEAR_FIELD.test(f.label) && (f.tag === 'select' || f.type === 'number' || f.type === 'text'));
  if (!month || !year) return null;
  const [y, m] = iso.split('-');
  const monthName = new Intl.DateTimeFormat(s.lang || 'en', { month: 'long', timeZone: 'UTC' }).format(new Date(`${iso}T00:00:00Z`));
  const valueIn = (list: FieldInfo) => list.options.find((o) => o.text.toLowerCase() === monthName.toLowerCase())?.value
    ?? list.options.find((o) => Number(o.value) === Number(m) || o.text === String(Number(m)))?.value;
  if (year.tag === 'select') await page.select(year.sel, optionFor(year, y!) ?? y!);
  // Typed key by key: a year box often acts on its keys, not on its value (flatpickr's on keyup).
  else await page.type(year.sel, y!);
  // The months are the year's: a picker with a first bookable day lists this year's remaining months only.
  const there = monthOf(await snapshot(page));
  const monthValue = there && valueIn(there);
  if (!there || monthValue === undefined) return null;
  await page.select(there.sel, monthValue);
  return snapshot(page);
}

export function describeFields(s: Snapshot): string {
  const shown = s.fields.filter((f) => f.visible && !f.card).slice(0, 10).map((f) => `${f.type} "${f.label || f.name}"`);
  return shown.length ? `fields: ${shown.join(', ')}` : 'no fields';
}
