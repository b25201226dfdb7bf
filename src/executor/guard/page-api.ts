import type { Frame, JSHandle, Locator, Page, Response } from 'playwright-core';
import { NUDGE_KEYS, type DriverPage, type FrameAnswer, type NudgeKey, type Row } from '../../driver/page.ts';
import { opensPicker } from '../../driver/pickers.ts';
import type { GuardEvents } from './events.ts';
import { timeLimit } from '../../browser/time-limit.ts';
import { covered, fillFields, quiet as pageQuiet } from './page-checks.ts';
import { findCardField, focusCardFieldIn, type CardFieldSearch } from './card-search.ts';
import { PageElements } from './page-elements.ts';
import { toolDanger, type ToolDanger } from './tool-rule.ts';
import { boundValue, type JsonValue, type PageTool } from '../../driver/webmcp.ts';
import { declarativeForm, listTools } from './webmcp.ts';
import { CardCheckFailed, CardStepReached, GuardRefusal, HttpStatusError, MissingElement, navigatedAway, PageUnresponsive, type Bounded } from './page-errors.ts';
import { DOM_QUIET_CAP_MS, NETWORK_IDLE_CAP_MS, SETTLE_QUIET, settleAfterPress, watchNetwork, type NetworkWatch } from './page-settle.ts';
import type { PressQuiet, PressWatch } from './in-page/arm-press.ts';

// Layer 1: the only page API a provider driver gets. It can read anything, fill ordinary fields and
// press controls, but it has no way to put text into a card-code field, and it refuses to press a
// control that would submit a form holding one (or an iframe, where payment partners put theirs),
// or any button while the page shows a card-code field. That refusal is the pause: the booking
// waits only for the person's card code.

/** How many times a control is pressed while frames keep appearing on the page as it is pressed. */
const MAX_PRESSES = 3;
/** How long a press that may be covered waits for its control before asking what is over it. */
const FIRST_TRY_MS = 500;
/** How long a press that sent a form or followed a link waits for its navigation to start (one the page cancels never does). */
const LEAVING_WAIT_MS = 5_000;
/** A read asked again while the page goes on by itself: a page still navigating after this many is not settling. */
const MAX_REREADS = 3;
/** What a press waits for after its click: the next page, the page settled, or nothing (another press follows). */
type PressEnd = 'navigation' | 'settle' | 'none';


/** A widget is moved at most this many key presses at once (a slider of thousands is not walked key by key). */
const MAX_NUDGES = 200;
/**
 * One thing done to the page, once it is done: with every one of a booking, a plain Playwright script
 * can walk the same site again without reading it (bench/reach's reference walk).
 */
export type PageAction =
  | { kind: 'goto'; url: string }
  | { kind: 'fill' | 'type' | 'select'; selector: string; value: string }
  | { kind: 'fillForm'; fields: Array<[string, string]> }
  | { kind: 'check'; selector: string }
  | { kind: 'nudge'; selector: string; key: NudgeKey; times: number }
  /** navigated: a new document came; fetched: the page asked its server for something meanwhile. */
  /** label: the control's text as the guard read it (a walk presses it by that where a selector changes from one load to the next). */
  | { kind: 'press'; selector: string; label: string; navigated: boolean; fetched: boolean }
  | { kind: 'tool'; name: string; input: Record<string, JsonValue>; navigated: boolean };

export interface GuardedPageOptions {
  /** Navigations and actions. */
  timeoutMs?: number;
  /** Waiting for an element to appear. */
  elementTimeoutMs?: number;
  /** Told of each action done (never of one refused or failed). */
  onAction?: (action: PageAction) => void;
}

export class GuardedPage implements DriverPage {
  readonly #page: Page;
  readonly #events: GuardEvents;
  readonly #timeout: number;
  readonly #elementTimeout: number;
  #status: number | null = null;
  #acts = 0;
  /** When (Date.now()) the driver's last act on the page began, and when it ended. */
  #actAt = 0;
  #actEndAt = 0;
  #acted(): void {
    this.#acts++;
    this.#actAt = Date.now();
  }
  #done(action: PageAction): void {
    this.#actEndAt = Date.now();
    this.#onAction(action);
  }
  readonly #network: NetworkWatch;
  readonly #elements: PageElements;
  readonly #onAction: (action: PageAction) => void;

  constructor(page: Page, events: GuardEvents, options: GuardedPageOptions = {}) {
    this.#page = page;
    this.#events = events;
    this.#timeout = options.timeoutMs ?? 15_000;
    // Server-rendered pages are complete when they arrive; a missing element is missing, not late.
    this.#elementTimeout = Math.min(this.#timeout, options.elementTimeoutMs ?? 10_000);
    this.#network = watchNetwork(page);
    this.#elements = new PageElements(page, this.#bounded, this.#elementTimeout);
    this.#onAction = options.onAction ?? (() => {});
  }

  url(): string {
    return this.#page.url();
  }

  /**
   * Changes whenever the driver acts on the page (navigates, fills, presses) or a new document
   * arrives: a reading of the page taken at the same generation is still current.
   */
  get generation(): number {
    return this.#acts + this.#network.documents * 1_000_000;
  }

  /** What settle() found quiet: the generation and the requests started by then. */
  #settledAt: string | null = null;
  #quietMark(): string {
    return `${this.generation}:${this.#network.started}`;
  }

  /** HTTP status of the document now shown (null before the first navigation). */
  status(): number | null {
    return this.#status;
  }

  async goto(url: string): Promise<number | null> {
    this.#acted();
    const response = await this.#page.goto(url, { waitUntil: 'domcontentloaded', timeout: this.#timeout });
    this.#done({ kind: 'goto', url });
    return this.#arrived(response);
  }

  /** Page title, for messages. */
  async title(): Promise<string> {
    return (await this.#page.title().catch(() => '')).slice(0, 120);
  }

  async fill(selector: string, value: string): Promise<void> {
    this.#acted();
    const { target, answer: field } = await this.#elements.classified(selector, false);
    if (field) this.#refuse(field, 'fill');
    await this.#fillAndLeave(target, value);
    this.#done({ kind: 'fill', selector, value });
  }

  /**
   * Types into a field key by key, as a person does (keydown, input, keyup for each character): for
   * widgets that listen to keys rather than to the value (a date picker's year box). Same refusal as fill.
   */
  async type(selector: string, value: string): Promise<void> {
    this.#acted();
    const { target, answer: field } = await this.#elements.classified(selector, false);
    if (field) this.#refuse(field, 'fill');
    await target.fill('', { timeout: this.#timeout });
    await target.pressSequentially(value, { timeout: this.#timeout });
    this.#done({ kind: 'type', selector, value });
  }

  /** A widget's value moved by its navigation keys (a slider, a spin button); same refusal as fill. */
  async nudge(selector: string, key: NudgeKey, times: number): Promise<void> {
    // Checked here too: a driver's key must not be one that types or presses.
    if (!NUDGE_KEYS.includes(key)) throw new Error(`nudge moves a widget with a navigation key, not ${String(key)}`);
    if (!Number.isInteger(times) || times < 1 || times > MAX_NUDGES) throw new Error(`nudge presses a key 1 to ${MAX_NUDGES} times, not ${times}`);
    this.#acted();
    const { target, answer: field } = await this.#elements.classified(selector, false);
    if (field) this.#refuse(field, 'fill');
    // Focused once, then the keys, as a person holds an arrow down. The keys go where the focus is:
    // a widget that does not take it (no tabindex) would send them to whatever had it before.
    await target.focus({ timeout: this.#timeout });
    // (The focus is followed into shadow roots: a widget drawn in one, or a component focusing its own part.)
    const holdsFocus = (el: Element) => {
      let active = document.activeElement;
      while (active?.shadowRoot?.activeElement) active = active.shadowRoot.activeElement;
      return active !== null && (el === active || el.contains(active) || el.shadowRoot?.contains(active) === true);
    };
    if (!(await this.#bounded(target.evaluate(holdsFocus), 'focus a widget'))) {
      throw new Error(`the widget ${selector} does not take the focus, so its keys would go elsewhere`);
    }
    await this.#bounded((async () => {
      for (let i = 0; i < times; i++) await this.#page.keyboard.press(key);
    })(), 'press a widget\'s keys');
    await this.settle();
    this.#done({ kind: 'nudge', selector, key, times });
  }

  /** Fills several fields at once (all or none: a card-code field among them is refused). */
  async fillForm(fields: Array<[string, string]>): Promise<void> {
    if (fields.length === 0) return;
    this.#acted();
    await this.#elements.one(fields[0]![0]);
    const result = await this.#bounded(this.#page.evaluate(fillFields, fields), 'fill a form');
    if (result.card) this.#refuse(result.card, 'fill');
    if (result.missing) await this.#fillThroughLocators(fields);
    else if (result.rejected) throw new Error(`a list on the form does not offer ${result.rejected}`);
    this.#done({ kind: 'fillForm', fields });
  }

  /** Playwright's fill, and a date box left once filled (see opensPicker), as the one-question fill leaves every field. */
  async #fillAndLeave(target: Locator, value: string): Promise<void> {
    await target.fill(value, { timeout: this.#timeout });
    const picker = await this.#bounded(target.evaluate(opensPicker), 'look at a field');
    if (picker) await target.blur({ timeout: this.#timeout });
  }

  /**
   * fillForm where the page cannot find a field itself (nothing was filled then): one in an open
   * shadow root, which `document.querySelector` does not enter and Playwright's CSS does. Every field
   * classified first, so that a card-code field among them still leaves them all unfilled; one that
   * is not there at all is MissingElement.
   */
  async #fillThroughLocators(fields: Array<[string, string]>): Promise<void> {
    const targets: Array<[Locator, string]> = [];
    for (const [selector, value] of fields) {
      const { target, answer: field } = await this.#elements.classified(selector, false);
      if (field) this.#refuse(field, 'fill');
      targets.push([target, value]);
    }
    for (const [target, value] of targets) {
      if ((await this.#bounded(target.evaluate((el) => el.tagName), 'look at a field')) !== 'SELECT') await this.#fillAndLeave(target, value);
      else if (!(await target.selectOption(value, { timeout: this.#timeout })).includes(value)) throw new Error(`a list on the form does not offer ${value}`);
    }
  }

  /**
   * Whether pressing this control now would hit something else (an overlay shown over it, a consent
   * box fading in): asked of the page in one round trip (in-page/covered.ts); where it cannot say,
   * Playwright's trial click, which acts on nothing, within `waitMs`.
   */
  async covered(selector: string, waitMs = 1_000): Promise<boolean> {
    const now = await this.#bounded(this.#page.evaluate(covered, selector), 'look at a control').catch(() => null);
    if (now !== null) return now;
    return this.#page.locator(selector).first().click({ trial: true, timeout: waitMs }).then(() => false, () => true);
  }

  /** Which of these selectors match something on the page (one round trip). */
  async present(selectors: string[]): Promise<boolean[]> {
    // (Where the page does not find one and has shadow roots, Playwright's CSS, which enters them, is asked.)
    const here = await this.#reread(() => this.#page.evaluate((list) => {
      const deep = Array.from(document.getElementsByTagName('*')).some((el) => el.shadowRoot);
      return list.map((s) => (document.querySelector(s) !== null ? true : deep ? null : false));
    }, selectors), 'look for parts of the page');
    return Promise.all(here.map((found, i) => found ?? this.#reread(async () => (await this.#page.locator(selectors[i]!).count()) > 0, 'look for parts of the page')));
  }

  async select(selector: string, value: string): Promise<void> {
    this.#acted();
    const { target, answer: field } = await this.#elements.classified(selector, false);
    if (field) this.#refuse(field, 'choose a value in');
    const chosen = await target.selectOption(value, { timeout: this.#timeout });
    if (!chosen.includes(value)) throw new Error(`the list ${selector} does not offer ${value}`);
    this.#done({ kind: 'select', selector, value });
  }

  /** Ticks a radio button or checkbox (never a submission). */
  async check(selector: string): Promise<void> {
    this.#acted();
    const { target, answer: field } = await this.#elements.classified(selector, true);
    if (field) this.#refuse(field, 'tick');
    await target.check({ timeout: this.#timeout });
    this.#done({ kind: 'check', selector });
  }

  /**
   * Presses a control that leads to the next page and waits for it. Refused, as the pause, when the
   * control would submit a card code field or card iframe, or when the page shows a card-code field.
   */
  async submit(selector: string, what: string): Promise<number | null> {
    return this.#press(selector, what, 'navigation') as Promise<number | null>;
  }

  /**
   * Presses a control that may or may not load a new page (a single-page app's button, a date in a
   * picker, a stepper's +, a consent banner's choice) and waits for the page to settle. The same
   * guard checks as submit(): refused, as the pause, when a card-code field is involved.
   */
  async press(selector: string, what: string): Promise<number | null> {
    return this.#press(selector, what, 'settle') as Promise<number | null>;
  }

  /**
   * Presses the same control `times` times, as a person clicks through a calendar's months without
   * reading each: every click checked as press() checks it, the page settled once, after the last.
   */
  async pressRepeatedly(selector: string, times: number, what: string): Promise<void> {
    for (let press = 1; press <= times; press++) await this.#press(selector, what, press === times ? 'settle' : 'none');
  }

  /**
   * As press(), unless something comes over the control while the press waits for it (a consent box
   * shown a moment after load, over a button still disabled): then nothing is pressed, and the
   * caller answers what covers it.
   */
  async pressUnlessCovered(selector: string, what: string): Promise<'pressed' | 'covered'> {
    return (await this.#press(selector, what, 'settle', FIRST_TRY_MS)) === 'covered' ? 'covered' : 'pressed';
  }

  async #press(selector: string, what: string, end: PressEnd, firstTryMs?: number): Promise<number | null | 'covered'> {
    const seen = this.#seen(selector);
    // A frame that appears as the control is pressed stops the press until it has been asked. Pages
    // add frames of their own (adverts, analytics, chat) at any moment: one with no card field is
    // now known, and the control is pressed again; a page that keeps adding them is not pressed.
    for (let press = 1; ; press++) {
      const pressed = await this.#pressOnce(selector, what, end, firstTryMs);
      if (pressed.kind === 'covered') return 'covered';
      if (pressed.kind === 'navigated') return seen(pressed.status, pressed.control);
      if (press === MAX_PRESSES) {
        this.#events.denied('driver', `Payment guard (driver layer) refused to press '${pressed.control}': a frame appeared on the page each of the ${MAX_PRESSES} times it was pressed.`);
        throw new CardCheckFailed(pressed.control, 'a frame appeared on the page each time the control was pressed');
      }
    }
  }

  /**
   * Waits until the page has settled: no document, script or fetch request in flight, the document
   * parsed, and no DOM change for a short quiet moment (a MutationObserver in the page), all within
   * the time limit. A page that never settles (a ticking animation) is taken as it is at the limit.
   */
  async settle(): Promise<void> {
    // Settled already, and since then nothing done, fetched or loaded: asking again would only wait
    // out another quiet window (the WebMCP strategy settles to list tools, then the DOM one reads).
    if (this.#settledAt === this.#quietMark()) return;
    const deadline = Date.now() + this.#timeout;
    for (;;) {
      const left = deadline - Date.now();
      if (left <= 0) return;
      await this.#network.idle(Math.min(left, NETWORK_IDLE_CAP_MS));
      const documents = this.#network.documents;
      // A change since the driver's last act began (or since the page's last request came or went)
      // is the page's answer; the quiet is counted from when the act ended (or the request).
      const now = Date.now();
      const asked: PressQuiet = {
        ...SETTLE_QUIET,
        capMs: Math.min(DOM_QUIET_CAP_MS, Math.max(0, deadline - now)),
        sinceMs: now - Math.max(this.#actAt, this.#network.lastActivityAt),
        restMs: now - Math.max(this.#actAt, this.#actEndAt, this.#network.lastActivityAt),
      };
      // What is settled is the page as it was when asked: an act meanwhile is not.
      const mark = this.#quietMark();
      const quiet = await timeLimit(this.#page.evaluate(pageQuiet, asked).then(() => true, () => false), this.#timeout, () => false);
      // Settled only if nothing started meanwhile (a navigation destroys the evaluation: asked again).
      if (quiet && this.#network.inFlight === 0 && this.#network.documents === documents) {
        this.#settledAt = mark;
        return;
      }
      if (!quiet && this.#page.isClosed()) return;
    }
  }

  /**
   * Runs a read-only question in the page (the generic driver's page analysis: one round trip for a
   * whole question across the page). The function must not change the page: it is sent as source.
   */
  async inspect<R, A>(fn: (arg: A) => R, arg: A): Promise<R> {
    return this.#reread(() => this.#page.evaluate(fn as never, arg as never) as Promise<R>, 'read the page');
  }

  /**
   * A read that a navigation cut short (the page went on by itself: a script's redirect, a submit
   * that left after the press had settled) is asked again of the document that came, once it has
   * settled: reading changes nothing, so asking twice is safe.
   */
  async #reread<R>(read: () => Promise<R>, what: string): Promise<R> {
    for (let tries = 1; ; tries++) {
      try {
        return await this.#bounded(read(), what);
      } catch (error) {
        if (tries >= MAX_REREADS || !navigatedAway(error) || this.#page.isClosed()) throw error;
        await this.settle();
      }
    }
  }

  /** The same question asked of every frame (same-origin and cross-origin iframes); frames that cannot answer are left out. */
  async inspectFrames<R, A>(fn: (arg: A) => R, arg: A): Promise<Array<FrameAnswer<R>>> {
    const main = this.#page.mainFrame();
    const answers = await Promise.all(this.#page.frames().map(async (frame): Promise<FrameAnswer<R> | null> => {
      try {
        const [src, result] = await Promise.all([
          // (A frame whose element cannot be looked at still answers: its card field or CAPTCHA counts.)
          frame === main ? null : this.#bounded(this.#frameSrc(frame), 'look at a frame').catch(() => null),
          this.#bounded(frame.evaluate(fn as never, arg as never) as Promise<R>, 'read a frame'),
        ]);
        return { url: frame.url(), src, main: frame === main, result };
      } catch {
        return null;
      }
    }));
    return answers.filter((a) => a !== null);
  }

  /** The address a frame's element asks for, read in its parent (a cross-origin frame cannot see its own element). */
  async #frameSrc(frame: Frame): Promise<string | null> {
    const element = await frame.frameElement();
    try {
      return await element.evaluate((e) => (e instanceof HTMLIFrameElement || e instanceof HTMLFrameElement ? e.src : null));
    } finally {
      await element.dispose();
    }
  }

  /** Tells onAction of a press once it has gone through: whether a document came, whether the page fetched. */
  #seen(selector: string): (status: number | null, label: string) => number | null {
    const documents = this.#network.documents;
    const started = this.#network.started;
    return (status, label) => {
      const navigated = this.#network.documents !== documents;
      this.#done({ kind: 'press', selector, label, navigated, fetched: !navigated && this.#network.started !== started });
      return status;
    };
  }

  /** One press, watched from before the check to the click: it navigates, or a frame with no card field stopped it. */
  async #pressOnce(selector: string, what: string, end: PressEnd, firstTryMs?: number): Promise<{ kind: 'navigated'; status: number | null; control: string } | { kind: 'frame_appeared'; control: string } | { kind: 'covered' }> {
    // Armed first, so that what appears between the check below and the click is seen at the click.
    this.#acted();
    const { target, watch, control, anywhere } = await this.#elements.armed(selector);
    let armed = true;
    try {
      // What the frames said is used only for a control that is neither a card field nor a frame itself.
      // Any control, not only a button: a link or a scripted element can start the payment as well.
      const onPage = !control.field && !control.frame ? this.#cardFieldOrRefuse(control.label, await anywhere) : null;
      const field = control.field ?? (control.frame ? 'card iframe' : null) ?? onPage;
      if (field) this.#pause(control.label, field);
      const navigation = end === 'navigation' ? this.#page.waitForNavigation({ waitUntil: 'domcontentloaded', timeout: this.#timeout }) : null;
      navigation?.catch(() => {}); // awaited below; a failed or stopped click must not leave it unhandled
      const documents = this.#network.documents;
      const requests = this.#network.started;
      const navigations = this.#network.navigations;
      if (!(await this.#click(selector, target, watch, firstTryMs))) return { kind: 'covered' };
      // Disarmed, and (for a press) the page's quiet after it waited for in the same question. The
      // document is gone when the click navigated it away: nothing stopped the click then.
      const after = await timeLimit(watch.evaluate((w, q) => w.disarm(q), end === 'settle' ? SETTLE_QUIET : null), this.#timeout, () => null).catch(() => null);
      const stopped = after?.stopped ?? null;
      armed = false;
      if (stopped) {
        // The click did not go through. A new frame in the control's form is a card iframe; one
        // elsewhere is asked like every other frame (it may still be loading).
        const late = stopped.field ?? (stopped.frameInForm ? 'card iframe' : await this.#cardFieldAnywhere(control.label));
        if (late) this.#pause(control.label, late);
        return { kind: 'frame_appeared', control: control.label };
      }
      this.#events.allowed(`Payment guard (driver layer) allowed pressing '${control.label}' to ${what}: no card security code is involved.`);
      if (navigation) return { kind: 'navigated', status: this.#arrived(await navigation), control: control.label };
      if (end === 'none') return { kind: 'navigated', status: this.#status, control: control.label };
      // A form sent or a link followed whose request has not started yet (a busy browser runs the
      // queued navigation late): waited for, or the next read would be of the page being left.
      if (after?.leaving && this.#network.navigations === navigations) await this.#network.navigationAfter(navigations, LEAVING_WAIT_MS);
      // Quiet already, and nothing fetched or loaded since the click: settled. A press that fetched is
      // settled with its watch; one that loaded a document (or whose watch cannot say) as anything is.
      const settled = after?.quiet && this.#network.started === requests && this.#network.documents === documents;
      if (!settled && !(after?.quiet && await settleAfterPress(watch, this.#network, documents, this.#timeout))) await this.settle();
      // A press that loaded a new document answers with its status, as a navigation does.
      if (this.#network.documents !== documents) {
        this.#status = this.#network.status;
        if (this.#status !== null && (this.#status >= 500 || this.#status === 429)) throw new HttpStatusError(this.#status, this.#page.url());
      }
      return { kind: 'navigated', status: this.#status, control: control.label };
    } finally {
      // Not armed any more after the click (or its document is gone): let go of without waiting, as
      // nothing depends on it. Still armed (the checks refused the press): stopped before anything else.
      const release = watch.evaluate((w) => w.release()).catch(() => {}).finally(() => watch.dispose().catch(() => {}));
      if (armed) await release;
    }
  }

  /**
   * Clicks the control; with a first try, false (nothing clicked) when, after it, something has come
   * over the control. A try that timed out has still pressed when the press began in the page (the
   * navigation it started is what took long) or the document is gone: the click is not repeated.
   */
  async #click(selector: string, target: Locator, watch: JSHandle<PressWatch>, firstTryMs?: number): Promise<boolean> {
    const started = Date.now();
    try {
      await target.click({ timeout: firstTryMs ?? this.#timeout });
      return true;
    } catch (error) {
      if (firstTryMs === undefined || (error as Error).name !== 'TimeoutError') throw error;
    }
    if (await watch.evaluate((w) => w.began()).catch(() => true)) return true;
    if (await this.covered(selector)) return false;
    await target.click({ timeout: Math.max(1, this.#timeout - (Date.now() - started)) });
    return true;
  }

  /**
   * Whether the page asks for the card security code: the field `selector` names, or a card-code
   * field in any frame or open shadow root (a payment partner's iframe holds it on many sites). A
   * frame that cannot be asked is not a "no": CardCheckFailed, as pressing would meet.
   */
  async asksForCardCode(selector: string, control: string): Promise<boolean> {
    if ((await this.#cardFieldAnywhere(control)) !== null) return true;
    return this.exists(selector);
  }

  /** Focuses the first card-code field the page shows (any frame): the person types there at once. */
  async focusCardField(): Promise<boolean> {
    return focusCardFieldIn(this.#page, this.#bounded);
  }

  /** Puts the focus on a field (the card-code field at the pause, so the person can type at once). */
  async focus(selector: string): Promise<void> {
    await this.#page.locator(selector).first().focus({ timeout: this.#timeout });
  }

  async exists(selector: string): Promise<boolean> {
    return (await this.#bounded(this.#page.locator(selector).count(), 'look for a part of the page')) > 0;
  }

  async text(selector: string): Promise<string | null> {
    const found = this.#page.locator(selector);
    if ((await this.#bounded(found.count(), 'look for a part of the page')) === 0) return null;
    return normalise(await found.first().innerText({ timeout: this.#timeout }));
  }

  async attr(selector: string, name: string): Promise<string | null> {
    const found = this.#page.locator(selector);
    if ((await this.#bounded(found.count(), 'look for a part of the page')) === 0) return null;
    return found.first().getAttribute(name, { timeout: this.#timeout });
  }

  /** Every match of `selector`, with its attributes, text, and the text of named parts inside it. */
  async rows(selector: string, cells: Record<string, string> = {}): Promise<Row[]> {
    return this.#reread(() => this.#page.locator(selector).evaluateAll((els, parts) => {
      const attrsOf = (e: Element) => Object.fromEntries(Array.from(e.attributes).map((a) => [a.name, a.value]));
      const clean = (t: string | null) => (t ?? '').replace(/\s+/g, ' ').trim();
      return els.map((e) => {
        const cellsOut: Record<string, string | null> = {};
        const cellAttrs: Record<string, Record<string, string>> = {};
        for (const [name, sel] of Object.entries(parts)) {
          const found = e.querySelector(sel);
          cellsOut[name] = found ? clean(found.textContent) : null;
          cellAttrs[name] = found ? attrsOf(found) : {};
        }
        return { attrs: attrsOf(e), text: clean(e.textContent), cells: cellsOut, cellAttrs };
      });
    }, cells), 'read the page');
  }

  /** The WebMCP tools the page's main frame registers, bounded (webmcp.ts); none when the browser has no WebMCP. */
  async tools(): Promise<PageTool[]> {
    // Listed while the page settles, as whoever reads it next would settle it: the first question to
    // a new document costs Playwright an isolated world (30-50 ms), which then costs the quiet nothing.
    // A page that has tools is not waited for: they are what is used next (a settle left running
    // counts for the page as it was asked, and an act meanwhile makes it count for nothing).
    const settled = this.settle();
    settled.catch(() => {});
    const tools = await this.#bounded(listTools(this.#page, this.#timeout), 'list the WebMCP tools');
    if (tools.length) return tools;
    await settled;
    // Scripts that register tools may still be loading (deferred, async, module): asked again once
    // they have run.
    const loaded = await this.#bounded(this.#page.waitForLoadState('load', { timeout: this.#timeout }).then(() => true, () => false), 'wait for the page to load');
    return loaded ? this.#bounded(listTools(this.#page, this.#timeout), 'list the WebMCP tools') : tools;
  }

  /**
   * Calls one of the page's WebMCP tools: the only way to call one. Refused, as the pause, when the
   * tool asks for a card security code or would pay (tool-rule.ts), when its form holds a card
   * field, or when the page shows a card-code field (as any press there is). Its result is bounded
   * plain data; a tool that submits its form (a declarative one) has loaded the next page on return.
   */
  async callTool(name: string, input: Record<string, JsonValue>): Promise<JsonValue | undefined> {
    const tool = (await this.tools()).find((t) => t.name === name);
    if (!tool) throw new MissingElement(`WebMCP tool '${name.slice(0, 60)}'`, 0);
    const control = `the WebMCP tool '${quote(name)}'`;
    // Not knowing is not a "no": a declaration the rule cannot read whole is refused like a dangerous one.
    if (tool.unreadable) this.#refuseTool(tool, control, { kind: 'card_code', field: name, why: 'its declaration is larger than the guard reads, so it could ask for the code unseen' });
    const form = await this.#bounded(this.#page.evaluate(declarativeForm, name), 'look at a tool\'s form');
    const danger: ToolDanger | null = toolDanger(tool)
      ?? (form?.field ? { kind: 'card_code', field: form.field, why: `its form holds the card security code field '${form.field}'` } : null)
      ?? (form?.frame ? { kind: 'card_code', field: 'card iframe', why: 'its form holds a frame (where payment partners put the card fields)' } : null)
      ?? (form && form.submitLabel && toolDanger({ name: form.submitLabel, description: '' })?.kind === 'payment' ? { kind: 'payment', why: `its form is sent with '${quote(form.submitLabel)}'` } : null);
    if (danger) this.#refuseTool(tool, control, danger);
    const onPage = await this.#cardFieldAnywhere(control);
    if (onPage) this.#refuseTool(tool, control, { kind: 'card_code', field: onPage, why: `the page shows the card security code field '${onPage}'` });
    const inputs = Object.keys(input).map((k) => quote(k, 30)).join(', ') || 'none';
    const said = tool.description ? ` ("${quote(tool.description, 120)}")` : '';
    this.#events.allowed(`Payment guard (driver layer) allowed calling ${control}${said} with the inputs ${inputs}: it asks for no card security code and does not pay.`);
    // A tool acts on the page (it may fill or change it): readings taken before it are not current.
    this.#acted();
    // A declarative tool that submits its form loads the next page: the call returns once it has.
    const navigation = form?.autosubmit ? this.#page.waitForNavigation({ waitUntil: 'domcontentloaded', timeout: this.#timeout }) : null;
    navigation?.catch(() => {});
    const result = await this.#bounded(this.#page.webmcp.callTool(name, input, { timeout: this.#timeout }), `call ${control}`);
    if (navigation) this.#arrived(await navigation);
    this.#done({ kind: 'tool', name, input, navigated: navigation !== null });
    return boundValue(result).value;
  }

  /** A tool the rule does not let be called: an action_denied event quoting it, then the pause. */
  #refuseTool(tool: PageTool, control: string, danger: ToolDanger): never {
    const said = tool.description ? ` ("${quote(tool.description, 120)}")` : '';
    const what = danger.kind === 'card_code' ? 'it asks for the card security code' : 'calling it would pay';
    this.#events.denied('driver', `Payment guard (driver layer) refused to call ${control}${said}: ${what} (${quote(danger.why, 160)}). Stopping here for the person to pay.`);
    throw new CardStepReached(danger.kind === 'card_code' ? danger.field : null, control);
  }

  /** The pause: the next step takes the card code. An action_denied event, then CardStepReached. */
  #pause(control: string, field: string): never {
    this.#events.denied('driver', `Payment guard (driver layer) refused to press '${control}': the next step takes the card security code ('${field}'). Stopping here for the person to pay.`);
    throw new CardStepReached(field, control);
  }

  /** Every way of putting something into a card-code field ends here: an action_denied event, then the refusal. */
  #refuse(field: string, how: 'fill' | 'choose a value in' | 'tick'): never {
    this.#events.denied('driver', `Payment guard (driver layer) refused to ${how} the card security code field '${field}'.`);
    throw new GuardRefusal(field);
  }

  /** Questions to the page have no timeout of their own in Playwright: a hung tab must not hang the run. */
  readonly #bounded: Bounded = (work, what) => timeLimit(work, this.#timeout, (): never => {
    throw new PageUnresponsive(what, this.#timeout);
  });

  #arrived(response: Response | null): number | null {
    this.#status = response?.status() ?? null;
    if (this.#status !== null && (this.#status >= 500 || this.#status === 429)) throw new HttpStatusError(this.#status, this.#page.url());
    return this.#status;
  }

  /** The first card-code field any frame shows. A frame that cannot be asked is a refusal, never a "none". */
  async #cardFieldAnywhere(control: string): Promise<string | null> {
    return this.#cardFieldOrRefuse(control, await findCardField(this.#page, this.#bounded));
  }

  /** What #findCardField found, or the refusal to press `control` when a frame could not be asked. */
  #cardFieldOrRefuse(control: string, found: CardFieldSearch): string | null {
    if (!('unasked' in found)) return found.field;
    this.#events.denied('driver', `Payment guard (driver layer) refused to press '${control}': it could not check ${found.unasked} for a card security code field.`);
    throw new CardCheckFailed(control, `${found.unasked}: ${found.why}`);
  }

}

/**
 * Page text in a guard message: one line, bounded, digits masked (a page could put a code the person
 * typed while in control into what it declares, and an audit event must never carry one).
 */
function quote(text: string, max = 60): string {
  const line = text.replace(/\s+/g, ' ').trim();
  return (line.length > max ? `${line.slice(0, max - 1)}…` : line).replace(/[0-9]/g, '#');
}

function normalise(text: string | null): string | null {
  return text === null ? null : text.replace(/\s+/g, ' ').trim();
}
