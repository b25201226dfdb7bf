import type { DriverPage, FrameAnswer } from '../../../driver/page.ts';
import { FRAME_FACTS, READ_PAGE } from './in-page.generated.ts';
import type { FrameFacts } from './in-page/frame-facts.ts';

// One read-only look at the whole page, in one round trip: its forms and fields, its controls, its
// landmarks, what it says in alerts and headings, its label–value pairs and its schema.org data.
// The reading runs in the page: one reader per source (in-page/readers/, registered by name in
// in-page/readers/index.ts), bundled into READ_PAGE by scripts/build-page-scripts.ts.
// Every question the generic driver asks (which form, which offers, what is held, what outcome) is
// answered from this snapshot in Node, not by asking the page element by element.

export interface FieldInfo {
  sel: string;
  tag: string;
  /** The input's type, the tag of a select or text area, or 'combobox' / 'listbox' / 'stepper' / 'dateparts' / 'slider' for ARIA widgets, 'radiogroup' for a count chosen from radios (its options' values are the radios' selectors). */
  type: string;
  name: string;
  autocomplete: string;
  /** Accessible name (with none: the table cell or the text beside it). */
  label: string;
  /** What a person presses to open it, where that is not the field itself (its widget's own text drawn over it). */
  pressAt?: string;
  /** Where the label came from: 'accessible name', 'table cell', 'preceding text', 'name attribute'… (quoted in the audit). */
  labelFrom: string;
  /** What it says of the format it takes (aria-describedby, pattern, title): "mm/dd/yyyy". */
  hint: string;
  /** Everything that describes it (label, name, id, placeholder, legend), for matching. */
  text: string;
  placeholder: string;
  value: string;
  required: boolean;
  disabled: boolean;
  readOnly: boolean;
  visible: boolean;
  checked: boolean;
  options: Array<{ value: string; text: string; disabled: boolean }>;
  /** Index of its form in `forms`, -1 outside any form. */
  form: number;
  region: string;
  /** A card-code field (never filled). */
  card: boolean;
  invalid: boolean;
  /** Marked in red without a word (its label or its box): a refusal some sites give no message for. */
  flagged: boolean;
  validationMessage: string;
  /** Buttons around it that step its number up and down (a quantity stepper). */
  stepper: { up: string; down: string } | null;
  /** Index of the dialog or overlay it sits in (`dialogs`), -1 when none. */
  inDialog: number;
  /** A combobox that suggests values as it is typed in (role=combobox, aria-autocomplete=list|both). */
  combobox: boolean;
  /** Its aria-expanded ('true', 'false'; '' when it has none): a combobox's popup open or closed. */
  expanded: string;
  /** A date in sections ('dateparts'): each section's selector, the part of the date it takes, whether it is moved by keys only (no typing), its number now and its least. */
  parts?: Array<{ sel: string; part: 'day' | 'month' | 'year'; keyed: boolean; now: number | null; min: number | null }>;
  /** A number box's own row (a shop's ticket type: its name, price, box): the text of the largest part of its form holding no other number box. */
  item?: string;
}

export interface ControlInfo {
  sel: string;
  tag: string;
  type: string;
  text: string;
  name: string;
  value: string;
  role: string;
  form: number;
  region: string;
  disabled: boolean;
  visible: boolean;
  submits: boolean;
  inDialog: number;
  /** The text of the item it belongs to (its row, card or list item), for offers. */
  item: string;
  itemSel: string;
  itemParent: string;
  itemTag: string;
  /** Its aria-expanded ('true', 'false'; '' when it discloses nothing). */
  expanded: string;
  /** Its aria-haspopup ('dialog', 'listbox', 'true'…; '' when none). */
  haspopup: string;
  /** Its aria-selected ('true', 'false'; '' when none): which tab of a tab list is shown. */
  selected: string;
  /** A toggle's state: aria-pressed, or aria-checked on an ARIA radio ('true', 'false'; '' when it is no toggle). */
  pressed: string;
}

export interface FormInfo {
  sel: string;
  text: string;
  role: string;
  region: string;
}

export interface DialogInfo {
  sel: string;
  text: string;
  modal: boolean;
  fixed: boolean;
}

export interface Snapshot {
  url: string;
  title: string;
  text: string;
  headings: string[];
  alerts: string[];
  forms: FormInfo[];
  fields: FieldInfo[];
  controls: ControlInfo[];
  dialogs: DialogInfo[];
  /** shown: takes room on the page (not a hidden helper frame); over: shown over the page, fixed, a fifth of the window or more (a consent platform's banner). */
  frames: Array<{ sel: string; src: string; title: string; shown: boolean; over: boolean }>;
  jsonld: unknown[];
  microdata: Array<{ type: string; props: Record<string, string> }>;
  /** Label–value pairs; `entries`: list items in the value (a list of travellers). */
  pairs: Array<{ label: string; value: string; entries: number }>;
  /** Sibling groups without any control (sold-out rows next to rows that have one), keyed by parent selector. */
  idleItems: Record<string, string[]>;
  passwordField: boolean;
  /** The page's lines of text as shown (its first 300), for what only their order says. */
  lines: string[];
  /** The document's language (`<html lang>`), "" when it says none. */
  lang: string;
}

const readings = new WeakMap<DriverPage, { generation: number; snapshot: Snapshot }>();

/**
 * The whole page, read once (the main frame). A reading taken since the driver last acted on the
 * page is reused (the page settled after that act); `fresh` reads again, for pages a person may
 * have changed meanwhile (the confirmation after they pay).
 */
export async function snapshot(page: DriverPage, fresh = false): Promise<Snapshot> {
  const generation = page.generation;
  const last = readings.get(page);
  if (!fresh && last && last.generation === generation) return last.snapshot;
  const answer = await page.inspect(READ_PAGE, undefined);
  const read = typeof answer === 'string' ? (JSON.parse(answer) as Snapshot) : answer;
  readings.set(page, { generation, snapshot: read });
  return read;
}

/** Every frame's card-code field, CAPTCHA and text: payment partners and CAPTCHAs live in iframes. */
export function framesFacts(page: DriverPage): Promise<Array<FrameAnswer<FrameFacts>>> {
  return page.inspectFrames(FRAME_FACTS, undefined);
}
