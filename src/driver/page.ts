import type { JsonValue, PageTool } from './webmcp.ts';

// The page as a driver may touch it: what the payment guard lets through (executor/guard/page-api.ts
// implements it as GuardedPage). A driver never sees Playwright's page: it cannot fill a card-code
// field, and pressing Pay is refused (that refusal is the pause).

/** One match of a selector: its attributes, its text, and the text of named parts inside it. */
export interface Row {
  attrs: Record<string, string>;
  text: string;
  /** Text of the first match of each named sub-selector inside the row (null when absent). */
  cells: Record<string, string | null>;
  /** Attributes of the first match of each named sub-selector. */
  cellAttrs: Record<string, Record<string, string>>;
}

/** The keys nudge() presses: they move a widget's value, never type or activate. */
export const NUDGE_KEYS = ['ArrowUp', 'ArrowDown', 'ArrowLeft', 'ArrowRight', 'PageUp', 'PageDown', 'Home', 'End'] as const;
export type NudgeKey = (typeof NUDGE_KEYS)[number];

export interface DriverPage {
  url(): string;
  /**
   * Changes whenever the driver acts on the page (navigates, fills, presses) or a new document
   * arrives: a reading of the page taken at the same generation is still current.
   */
  readonly generation: number;
  /** HTTP status of the document now shown (null before the first navigation). */
  status(): number | null;
  goto(url: string): Promise<number | null>;
  /** Page title, for messages. */
  title(): Promise<string>;
  /** Fills a field; refused (as the pause) for a card-code field. */
  fill(selector: string, value: string): Promise<void>;
  /** Types key by key, as a person does, for widgets that listen to keys; same refusal as fill. */
  type(selector: string, value: string): Promise<void>;
  /**
   * Presses a navigation key on a widget `times` times, as a person moves a slider or a spin button
   * (ArrowUp/Down/Left/Right, PageUp/PageDown, Home, End: no key that types or activates); same
   * refusal as fill. The page settled after the last.
   */
  nudge(selector: string, key: NudgeKey, times: number): Promise<void>;
  /** Fills several fields at once (all or none: a card-code field among them is refused). */
  fillForm(fields: Array<[string, string]>): Promise<void>;
  /** Whether pressing this control now would hit something else (an overlay over it), within `waitMs`. */
  covered(selector: string, waitMs?: number): Promise<boolean>;
  /** Which of these selectors match something on the page (one round trip). */
  present(selectors: string[]): Promise<boolean[]>;
  select(selector: string, value: string): Promise<void>;
  /** Ticks a radio button or checkbox (never a submission). */
  check(selector: string): Promise<void>;
  /** Presses a control that leads to the next page and waits for it; refused, as the pause, at a card step. */
  submit(selector: string, what: string): Promise<number | null>;
  /** Presses a control that may or may not load a new page, and waits for the page to settle; same refusal as submit. */
  press(selector: string, what: string): Promise<number | null>;
  /** Presses the same control `times` times (a calendar's next month), each press checked; the page settled after the last. */
  pressRepeatedly(selector: string, times: number, what: string): Promise<void>;
  /** As press(), unless something comes over the control while the press waits for it: then nothing is pressed. */
  pressUnlessCovered(selector: string, what: string): Promise<'pressed' | 'covered'>;
  /** Waits until the page has settled (nothing in flight, no DOM change for a quiet moment), within the time limit. */
  settle(): Promise<void>;
  /** Runs a read-only question in the page, in one round trip. The function must not change the page. */
  inspect<R, A>(fn: (arg: A) => R, arg: A): Promise<R>;
  /**
   * The same question asked of every frame; frames that cannot answer are left out. `src` is the
   * address the frame's element asks for (null for the main frame): the way to tell which frame of a
   * reading this is, where `url` (where the frame is now) may differ after a redirect.
   */
  inspectFrames<R, A>(fn: (arg: A) => R, arg: A): Promise<Array<FrameAnswer<R>>>;
  /** Whether the page asks for the card security code: the field `selector` names, or one in any frame. */
  asksForCardCode(selector: string, control: string): Promise<boolean>;
  /** Focuses the first card-code field the page shows (any frame): the person types there at once. */
  focusCardField(): Promise<boolean>;
  focus(selector: string): Promise<void>;
  exists(selector: string): Promise<boolean>;
  text(selector: string): Promise<string | null>;
  attr(selector: string, name: string): Promise<string | null>;
  /** Every match of `selector`, with its attributes, text, and the text of named parts inside it. */
  rows(selector: string, cells?: Record<string, string>): Promise<Row[]>;
  /** The WebMCP tools the page's main frame registers, bounded; none when the browser has no WebMCP. */
  tools(): Promise<PageTool[]>;
  /** Calls one of the page's WebMCP tools; refused, as the pause, when it asks for a card code or would pay. */
  callTool(name: string, input: Record<string, JsonValue>): Promise<JsonValue | undefined>;
}

/** One frame's answer to a question asked of every frame (inspectFrames). */
export interface FrameAnswer<R> {
  /** Where the frame is now. */
  url: string;
  /** What its <iframe> (or <frame>) element's src says, resolved; null for the main frame. */
  src: string | null;
  main: boolean;
  result: R;
}
