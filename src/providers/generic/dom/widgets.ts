import { setTimeout as sleep } from 'node:timers/promises';
import type { DriverPage } from '../../../driver/page.ts';
import type { Offer } from '../../../driver/types.ts';
import { optionFor } from './fields.ts';
import { decodeKey, encodeKey } from './offers.ts';
import { NotUnderstood } from './not-understood.ts';
import { snapshot, type ControlInfo, type FieldInfo, type Snapshot } from './snapshot.ts';
import { CONTROL_WORDS, either } from './words.ts';

// Widgets operated as the WAI-ARIA Authoring Practices describe them, by role and state, never by a
// site's classes. Here: the choice of one value from a list that is not a native <select>, a
// select-only combobox (role=combobox on a focusable element, a listbox popup, no text input) and a
// listbox (role=listbox of role=option): open it when it is closed, press the option, and read back
// that it took. And a date typed in sections (Month, Day, Year spinbuttons), options split among
// tabs, a form's collapsed sections. Steppers, date grids and suggestion comboboxes are in search.ts.

/** A list a person chooses from by pressing (type 'combobox' or 'listbox' in the snapshot). */
export function isPressList(f: FieldInfo): boolean {
  return f.type === 'combobox' || f.type === 'listbox';
}

/** What a list's choices are: a listbox's options, a menu button's items. */
const OPTION_ROLES = new Set(['option', 'menuitemradio', 'menuitem']);

/** The visible options of the list `f` (its popup once open), as the list's own options where the reading found them. */
function optionsShown(s: Snapshot, f: FieldInfo): ControlInfo[] {
  const options = s.controls.filter((c) => OPTION_ROLES.has(c.role) && c.visible && !c.disabled);
  // The popup the combobox controls, when the page says which; else any list open now.
  const own = f.options.length ? options.filter((c) => f.options.some((o) => o.text === c.text)) : [];
  return own.length ? own : options;
}

/** Chooses `value` in a select-only combobox or a listbox: opened if closed, the matching option pressed, read back. */
export async function chooseInList(page: DriverPage, f: FieldInfo, value: string, stepName: string): Promise<void> {
  let s = await snapshot(page);
  let current = s.fields.find((x) => x.sel === f.sel) ?? f;
  if (f.type === 'combobox' && current.expanded !== 'true') {
    await page.press(current.pressAt ?? f.sel, `open the list "${f.label || 'choose'}"`);
    s = await snapshot(page);
    current = s.fields.find((x) => x.sel === f.sel) ?? f;
  }
  const shown = optionsShown(s, current);
  const asList: FieldInfo = { ...current, options: shown.map((o) => ({ value: o.sel, text: o.text, disabled: o.disabled })) };
  const sel = optionFor(asList, value);
  const option = shown.find((o) => o.sel === sel);
  if (!option) throw new NotUnderstood(stepName, page.url(), `the option "${value}" in the list "${f.label || f.name}"`, `options: ${shown.slice(0, 8).map((o) => `"${o.text}"`).join(', ') || 'none shown'}`);
  await page.press(option.sel, `choose "${option.text.slice(0, 40)}" in "${(f.label || 'the list').slice(0, 40)}"`);
  const after = (await snapshot(page)).fields.find((x) => x.sel === f.sel);
  if (after && !after.value.includes(option.text) && after.value !== option.text) {
    throw new NotUnderstood(stepName, page.url(), `"${f.label || 'the list'}" showing "${option.text}" once chosen`, `it shows "${after.value.slice(0, 60)}"`);
  }
}

/**
 * A date put into a field of sections (Month, Day, Year as spinbuttons, 'dateparts'). A section a
 * person types into (MUI's, React Aria's) takes its digits key by key, as a person types them (such
 * fields act on keys and move on to the next section by themselves); one that takes no typing (the
 * APG date picker spin buttons) is moved by its arrow keys, year and month before the day (the
 * month bounds the day). Then read back.
 */
export async function typeDateParts(page: DriverPage, f: FieldInfo, iso: string, stepName: string): Promise<void> {
  const [year, month, day] = iso.split('-') as [string, string, string];
  const digits = { year, month, day };
  // A month counted from 0 (a range of 0 to 11) is one less than its number.
  const wantedOf = (p: DatePart) => Number(digits[p.part]) - (p.part === 'month' && p.min === 0 ? 1 : 0);
  const parts = f.parts ?? [];
  for (const p of parts) if (!p.keyed) await page.type(p.sel, digits[p.part]);
  for (const first of ['year', 'month', 'day'].flatMap((part) => parts.filter((q) => q.keyed && q.part === part))) {
    // Read again: a part may have moved with the one before (a day clamped to the new month's last).
    const p = (await snapshot(page, true)).fields.find((x) => x.sel === f.sel)?.parts?.find((q) => q.sel === first.sel) ?? first;
    if (p.now === null) throw new NotUnderstood(stepName, page.url(), `"${f.label || 'the date'}": a ${p.part} that says its number`, 'a section with no aria-valuenow');
    if (wantedOf(p) !== p.now) await page.nudge(p.sel, wantedOf(p) > p.now ? 'ArrowUp' : 'ArrowDown', Math.abs(wantedOf(p) - p.now));
  }
  const after = (await snapshot(page)).fields.find((x) => x.sel === f.sel);
  const shown = after?.value.split(/\D+/).map(Number) ?? [];
  const took = parts.every((p) => (p.keyed ? after?.parts?.find((q) => q.sel === p.sel)?.now === wantedOf(p) : shown.includes(Number(digits[p.part]))));
  if (!took) throw new NotUnderstood(stepName, page.url(), `"${f.label || 'the date'}" showing ${iso} once set`, `it shows "${after?.value || 'nothing'}"`);
}

type DatePart = NonNullable<FieldInfo['parts']>[number];

/**
 * A number on a widget moved by its keys (a slider, a spin button with no buttons): one arrow press
 * tells its step, then as many as reach the number wanted; read back.
 */
export async function slideTo(page: DriverPage, f: FieldInfo, wanted: number, stepName: string): Promise<void> {
  const read = async () => Number.parseFloat((await snapshot(page)).fields.find((x) => x.sel === f.sel)?.value ?? '');
  let now = await read();
  if (Number.isFinite(now) && now !== wanted) {
    await page.nudge(f.sel, wanted > now ? 'ArrowUp' : 'ArrowDown', 1);
    const moved = await read();
    const step = Math.abs(moved - now);
    now = moved;
    if (Number.isFinite(step) && step > 0 && now !== wanted) {
      await page.nudge(f.sel, wanted > now ? 'ArrowUp' : 'ArrowDown', Math.round(Math.abs(wanted - now) / step));
      now = await read();
    }
  }
  if (now !== wanted) throw new NotUnderstood(stepName, page.url(), `"${f.label || 'the slider'}" set to ${wanted} by its arrow keys`, `it shows ${Number.isFinite(now) ? now : 'no number'}`);
}

const CHROME = new Set(['header', 'nav', 'footer', 'aside']);
/** A control that shows the options rather than choosing one: "See rates", "Show times", "Ver horarios". */
const SEE_OPTIONS = either(
  /\b(see|show|view|check|compare|select|choose)\b.{0,24}\b(rates?|times?|prices?|options?|availability|rooms?|tickets?|fares?|dates?|slots?|offers?|deals?|seats?|packages?)\b/,
  ['ver tarifas', 'ver horarios', 'ver disponibilidad', 'ver precios', 'vedi tariffe', 'vedi orari', 'mostra orari', 'tarife anzeigen', 'zeiten anzeigen', 'preise anzeigen', 'voir les tarifs', 'voir les horaires', 'voir les disponibilités', 'ver tarifas', 'ver horários'],
);

/**
 * Choices (radio inputs) the page holds but does not show yet: behind a disclosure or in a dialog
 * that a button opens ("See rates" → a modal of rates). The button is pressed, and the page read
 * again; null when there is nothing to open.
 */
export async function openHiddenChoices(page: DriverPage, s: Snapshot): Promise<Snapshot | null> {
  const radios = s.controls.filter((c) => c.type === 'radio' && !c.disabled && !CHROME.has(c.region));
  if (radios.length === 0 || radios.some((r) => r.visible)) return null;
  const usable = s.controls.filter((c) => c.visible && !c.disabled && c.type !== 'radio' && !c.submits && !CHROME.has(c.region));
  const opener = usable.find((c) => c.haspopup === 'dialog' || c.haspopup === 'true') ?? usable.find((c) => SEE_OPTIONS.test(c.text)) ?? usable.find((c) => c.expanded === 'false');
  if (!opener) return null;
  await page.press(opener.sel, `show the options ("${opener.text.slice(0, 40)}")`);
  return snapshot(page);
}

/**
 * A form that holds fields it does not show, in sections a button collapses (an accordion's
 * headers, a disclosure: aria-expanded="false"): each such section of the form opened, and the page
 * read again; null when nothing was hidden or nothing opened. (A button that pops up a list or a
 * menu is not a section.)
 */
export async function openSections(page: DriverPage, s: Snapshot, form: number): Promise<Snapshot | null> {
  if (!s.fields.some((f) => f.form === form && !f.visible && !f.card && !['hidden', 'radio', 'checkbox'].includes(f.type))) return null;
  const closed = s.controls.filter((c) => c.form === form && c.visible && !c.disabled && c.expanded === 'false' && c.haspopup === '' && c.role !== 'combobox' && !c.submits && !CHROME.has(c.region));
  if (closed.length === 0) return null;
  for (const c of closed) await page.press(c.sel, `open the section "${c.text.slice(0, 40)}"`);
  return snapshot(page);
}

/**
 * Options split among tabs (the APG tabs pattern: "Lunch" shown, "Dinner" behind its tab): each
 * other tab pressed and its panel's options read (`read`), each keyed with the tab that shows it;
 * then the tab first shown is pressed back, leaving the page as it was. Options outside the panels
 * are read once.
 */
export async function offersInTabs(page: DriverPage, s: Snapshot, offers: Offer[], read: (s: Snapshot) => Offer[]): Promise<Offer[]> {
  const tabs = s.controls.filter((c) => c.role === 'tab' && c.visible && !c.disabled && !CHROME.has(c.region));
  const shownTab = tabs.find((t) => t.selected === 'true');
  if (!shownTab || tabs.length < 2) return offers;
  const onTab = (o: Offer, tab: string) => {
    const key = decodeKey(o.key);
    return key && key.sel ? { ...o, key: encodeKey({ ...key, tab }) } : o;
  };
  const seen = new Set(offers.map((o) => decodeKey(o.key)?.sel).filter(Boolean));
  const all = offers.map((o) => onTab(o, shownTab.sel));
  for (const tab of tabs) {
    if (tab === shownTab) continue;
    await page.press(tab.sel, `show the tab "${tab.text.slice(0, 40)}"`);
    for (const o of read(await snapshot(page))) {
      const sel = decodeKey(o.key)?.sel;
      if (sel && seen.has(sel)) continue;
      if (sel) seen.add(sel);
      all.push(onTab(o, tab.sel));
    }
  }
  await page.press(shownTab.sel, `show the tab "${shownTab.text.slice(0, 40)}" again`);
  return all;
}

const NOT_AN_OPENER = either(/\b(edit|back|modify|cancel|remove|sign ?in|log ?in|help|close|menu|search)\b/, CONTROL_WORDS.back);
const OPENS_A_FORM = either(/\b(details|guests?|contact|enter|fill|add|continue|book|reserve|next|checkout)\b/, CONTROL_WORDS.onward);

/**
 * A form the page holds but does not show yet (a modal opened by a button, a collapsed section):
 * the button that opens it is pressed, and the page read again; null when nothing was hidden or
 * nothing opened it. Only a button that stays on the page (not a link, not a submit) is pressed.
 */
export async function revealFields(page: DriverPage, s: Snapshot): Promise<Snapshot | null> {
  const hidden = s.fields.filter((f) => !f.visible && !f.card && f.type !== 'hidden' && f.type !== 'radio' && f.type !== 'checkbox');
  if (hidden.length < 2) return null;
  const usable = s.controls.filter((c) => c.visible && !c.disabled && c.tag !== 'a' && c.type !== 'radio' && !c.submits && !CHROME.has(c.region) && !NOT_AN_OPENER.test(c.text));
  const opener = usable.find((c) => c.haspopup === 'dialog' || c.haspopup === 'true') ?? usable.find((c) => c.expanded === 'false' && OPENS_A_FORM.test(c.text)) ?? usable.find((c) => OPENS_A_FORM.test(c.text));
  if (!opener) return null;
  await page.press(opener.sel, `open "${opener.text.slice(0, 40)}"`);
  // A modal may show its content only once its backdrop's transition ends (Bootstrap's fade): read
  // again for a moment, until the hidden fields show.
  for (let tries = 0; ; tries++) {
    const after = await snapshot(page, tries > 0);
    if (after.fields.some((f) => f.visible && hidden.some((h) => h.sel === f.sel))) return after;
    if (tries === 20) return null;
    await sleep(100);
  }
}
