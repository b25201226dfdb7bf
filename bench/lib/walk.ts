// The reference a generic booking is measured against (issue 25: "generic p50 within 1.5× a bare
// Playwright walk of the same site"): the same site walked to its card-code page by a plain
// Playwright script that knows every step beforehand, as a hand-written script would. The steps are
// the generic driver's own, recorded once from a booking of that site (GuardedPage's onAction), so
// that every site has its walk without one being written by hand; a replay reads nothing and decides
// nothing, it only acts and waits for what each action brought.
import { performance } from 'node:perf_hooks';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import type { PageAction } from '../../src/executor/guard/page-api.ts';
import type { GenericProvider } from '../../src/providers/generic/index.ts';
import type { SearchRequest } from '../../src/driver/types.ts';
import { opensPicker } from '../../src/driver/pickers.ts';
import { attempt } from '../../test/generic/harness.ts';

export type Walk = PageAction[];

/**
 * Books `provider` at the attempt level to the pause and keeps what was done on the way; a try that
 * was retried starts again at the start URL, so only the last try's steps are kept.
 */
async function recordOnce(context: BrowserContext, provider: GenericProvider, request: SearchRequest): Promise<Walk> {
  let walk: Walk = [];
  const outcome = await attempt(context, provider, request, {}, (action) => {
    if (action.kind === 'goto' && action.url === provider.startUrl) walk = [];
    walk.push(action);
  });
  if (outcome.kind === 'paused') await outcome.page.close();
  if (outcome.kind !== 'paused') throw new Error(`the walk's booking did not pause: ${outcome.kind === 'failed' ? outcome.failure.message : outcome.kind}`);
  return walk;
}

/**
 * The walk of `provider`, recorded twice: a control whose selector changed from one load to the
 * next (an id a widget makes up at each load, as Select2 does for its options) is pressed by its
 * visible text, as a hand-written script would name it; everything else as recorded.
 */
export async function recordWalk(context: BrowserContext, provider: GenericProvider, request: SearchRequest): Promise<Walk> {
  const walk = await recordOnce(context, provider, request);
  const again = await recordOnce(context, provider, request);
  if (again.length !== walk.length) return walk;
  return walk.map((step, i) => {
    const other = again[i]!;
    if (step.kind !== 'press' || other.kind !== 'press' || other.selector === step.selector || other.label !== step.label) return step;
    return { ...step, selector: `text=${JSON.stringify(step.label)} >> visible=true` };
  });
}

/**
 * A new document or a fetch's answer after `act`, whichever the recorded step brought; the page to
 * go on with: a new document may come in a tab the press opened (a link or form with a target),
 * taken as a script written for that site takes it.
 */
async function acting(page: Page, step: { navigated: boolean; fetched?: boolean }, act: () => Promise<unknown>): Promise<Page> {
  if (step.navigated) {
    const here = page.waitForNavigation({ waitUntil: 'domcontentloaded' }).then(() => page);
    const opened = page.waitForEvent('popup').then(async (tab) => (await tab.waitForLoadState('domcontentloaded'), tab));
    here.catch(() => {});
    opened.catch(() => {});
    const [next] = await Promise.all([Promise.race([here, opened]), act()]);
    return next;
  }
  const brought = step.fetched ? page.waitForResponse((r) => ['fetch', 'xhr'].includes(r.request().resourceType())) : null;
  await Promise.all([brought, act()]);
  return page;
}

/** One recorded step; the page the next one is played on. */
async function play(page: Page, step: PageAction): Promise<Page> {
  if (step.kind === 'goto') {
    await page.goto(step.url, { waitUntil: 'domcontentloaded' });
    return page;
  }
  if (step.kind === 'tool') return acting(page, step, () => page.webmcp.callTool(step.name, step.input));
  if (step.kind === 'fillForm') {
    for (const [selector, value] of step.fields) {
      const field = page.locator(selector).first();
      if ((await field.evaluate((el) => el.tagName)) === 'SELECT') await field.selectOption(value);
      else await field.fill(value);
      // Left as a form filled in one go leaves it (the guard's fill focuses nothing): a picker that
      // opens on focus (Ant Design's date box) would else lie over the next control.
      await field.blur();
    }
    return page;
  }
  const target = page.locator(step.selector).first();
  switch (step.kind) {
    case 'fill':
      await target.fill(step.value);
      if (await target.evaluate(opensPicker)) await target.blur();
      break;
    case 'type':
      await target.fill('');
      await target.pressSequentially(step.value);
      break;
    case 'select':
      await target.selectOption(step.value);
      break;
    case 'check':
      await target.check();
      break;
    case 'nudge':
      await target.focus();
      for (let i = 0; i < step.times; i++) await page.keyboard.press(step.key);
      break;
    case 'press': return acting(page, step, () => target.click());
  }
  return page;
}

/** Walks the recorded steps in a new context of `browser`: milliseconds from the new context to the last step done. */
export async function playWalk(browser: Browser, walk: Walk): Promise<number> {
  const started = performance.now();
  const context = await browser.newContext();
  context.setDefaultTimeout(15_000);
  try {
    let page = await context.newPage();
    for (const step of walk) page = await play(page, step);
    return performance.now() - started;
  } finally {
    await context.close();
  }
}
