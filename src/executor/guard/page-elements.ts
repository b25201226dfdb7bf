import type { JSHandle, Locator, Page } from 'playwright-core';
import { armControl, armPress, classifyAt, classifyChoice, classifyControl, classifyField } from './page-checks.ts';
import { findCardField, type CardFieldSearch } from './card-search.ts';
import { MissingElement, PageUnresponsive, type Bounded } from './page-errors.ts';
import type { PressWatch } from './in-page/arm-press.ts';

// How the page API finds the element a selector names and asks the guard's first question of it.
// Where the page can name the element itself (a plain CSS selector, no open shadow root:
// in-page/element-at.ts), the question is one round trip; otherwise it goes through Playwright's
// locator, which waits for an element still to come but costs its isolated world on each new
// document and several round trips to hand the element over.

/** A control about to be pressed, as classifyControl reads it. */
export type ControlReading = { label: string; field: string | null; frame: boolean };

export class PageElements {
  readonly #page: Page;
  readonly #bounded: Bounded;
  readonly #elementTimeout: number;

  constructor(page: Page, bounded: Bounded, elementTimeoutMs: number) {
    this.#page = page;
    this.#bounded = bounded;
    this.#elementTimeout = elementTimeoutMs;
  }

  /**
   * The part of the page `selector` names, and the first question asked of it in the same round
   * trip: the question waits for it (a page still rendering) up to the element timeout. Not there
   * then: MissingElement; there, the page is what did not answer (PageUnresponsive).
   */
  async first<R>(selector: string, ask: (target: Locator, timeout: number) => Promise<R>, what: string): Promise<{ target: Locator; answer: R }> {
    const target = this.#page.locator(selector).first();
    try {
      return { target, answer: await this.#bounded(ask(target, this.#elementTimeout), what) };
    } catch (error) {
      if ((error as Error).name !== 'TimeoutError') throw error;
      if ((await this.#bounded(target.count(), 'look for a part of the page')) === 0) throw new MissingElement(selector, this.#elementTimeout);
      throw new PageUnresponsive(what, this.#elementTimeout);
    }
  }

  /** The part of the page `selector` names, once it is there. */
  async one(selector: string): Promise<Locator> {
    return (await this.first(selector, (t, timeout) => t.waitFor({ state: 'attached', timeout }), 'look for a part of the page')).target;
  }

  /** The field `selector` names and its card-code classification (a tick's as classifyChoice reads it). */
  async classified(selector: string, tick: boolean): Promise<{ target: Locator; answer: string | null }> {
    const here = await this.#bounded(this.#page.evaluate(classifyAt, { selector, tick }), 'classify a field');
    if (here.found) return { target: this.#page.locator(selector).first(), answer: here.field };
    return this.first(selector, (t, timeout) => t.evaluate(tick ? classifyChoice : classifyField, undefined, { timeout }), 'classify a field');
  }

  /**
   * Arms the press watch on the control `selector` names and classifies it, armed before it is
   * classified either way; the frames are asked for a card field as soon as it is armed, while it
   * is classified.
   */
  async armed(selector: string): Promise<{ target: Locator; watch: JSHandle<PressWatch>; control: ControlReading; anywhere: Promise<CardFieldSearch> }> {
    const target = this.#page.locator(selector).first();
    const here = await this.#bounded(this.#page.evaluateHandle(armControl, selector), 'watch a control');
    let watch = here as JSHandle<PressWatch>;
    let anywhere = findCardField(this.#page, this.#bounded);
    let control = await this.#bounded(here.evaluate((a) => a?.control ?? null), 'classify a control').catch((error: unknown) => letGo(watch, error));
    if (!control) {
      await here.dispose().catch(() => {});
      anywhere.catch(() => {});
      watch = (await this.first(selector, (t, timeout) => t.evaluateHandle(armPress, undefined, { timeout }), 'watch a control')).answer;
      anywhere = findCardField(this.#page, this.#bounded);
      control = await this.#bounded(target.evaluate(classifyControl), 'classify a control').catch((error: unknown) => letGo(watch, error));
    }
    return { target, watch, control, anywhere };
  }
}

/** A watch armed for a press that will not happen: released, and the error passed on. */
async function letGo(watch: JSHandle<PressWatch>, error: unknown): Promise<never> {
  await watch.evaluate((w) => w.release()).catch(() => {});
  throw error;
}
