import type { Browser, BrowserContext, Frame, Page } from 'playwright-core';
import { GuardLog } from '../../src/executor/guard/events.ts';
import { installGuard, type GuardControls, type GuardOptions } from '../../src/executor/guard/index.ts';

// Raw automation against the sandbox's adversarial pages: it types a card code into every field it
// finds and then does what the page invites (submit, wait for the page's own scripts to send it).
// Used with one guard layer at a time, with all of them, and with none (the control that shows each
// page really does send the code when nothing stops it).

export const CODE = '735';

export interface Guarded {
  context: BrowserContext;
  log: GuardLog;
  guard: GuardControls;
  page: Page;
}

/**
 * A fresh context with the guard's layers 2 and 3 installed (both unless `layers` says otherwise),
 * then one page in it: the guard is in place before the page opens. Service workers are blocked, as
 * in the executor's contexts, since the network layer does not see their requests. The caller closes
 * the context.
 */
export async function guardedContext(browser: Browser, layers?: GuardOptions): Promise<Guarded> {
  const context = await browser.newContext({ serviceWorkers: 'block' });
  const log = new GuardLog();
  const guard = await installGuard(context, log, layers);
  const page = await context.newPage();
  return { context, log, guard, page };
}

export interface Attack {
  path: string;
  /** Card-code fields, in the frame named by `frame` (a selector of the iframe) or the page. */
  fields: string[];
  frame?: string;
  /** What sends the code: a submit button, or nothing (the page's own listeners do). */
  submit?: string;
  /** Leave the field after typing (pages that send on `change`). */
  blur?: boolean;
  /**
   * Chromium streams a request body only over HTTP/2, so against the sandbox's HTTP/1.1 server this
   * page's request fails in the browser (net::ERR_ALPN_NEGOTIATION_FAILED) even with no guard: it
   * is here because the network layer cannot read such a body, not because it arrives here.
   */
  http2Only?: boolean;
  /** How the code goes in: typed into text fields (the default), picked from lists, or ticked (a radio button per digit: `fields` name the ones to tick). */
  kind?: 'text' | 'select' | 'choice';
  /** The page hands the code to a worker: wait until the page says whether its worker started. */
  worker?: boolean;
  /**
   * The code field is in a sandboxed frame that runs no script: no page script can put a code in or
   * send it, and the in-page layer's listeners do not run there either (the browser calls no script
   * of that document). Raw typing and the form's own submission are for layers 1 and 3.
   */
  scriptless?: boolean;
}

const sandboxed = (flags: string) => `/iframe/sandboxed?sandbox=${encodeURIComponent(flags)}`;

export const ATTACKS: Attack[] = [
  { path: '/odd-label', fields: ['input[name="f7"]'], submit: '#adv-submit' },
  { path: '/odd-label/back-digits', fields: ['#cvc2'], submit: '#adv-submit' },
  { path: '/odd-label/password', fields: ['#vnum'], submit: '#adv-submit' },
  { path: '/odd-label/split', fields: ['input[name="d1"]', 'input[name="d2"]', 'input[name="d3"]'], submit: '#adv-submit' },
  { path: '/iframe', frame: '#adv-payment-frame', fields: ['#frame-cvc'], submit: '#pay-frame-submit' },
  { path: '/iframe/odd', frame: '#adv-payment-frame', fields: ['input[name="fld_a"]'], submit: '#pay-frame-submit' },
  { path: sandboxed('allow-scripts allow-forms'), frame: '#adv-payment-frame', fields: ['#frame-cvc'], submit: '#pay-frame-submit' },
  { path: sandboxed('allow-scripts allow-same-origin allow-forms'), frame: '#adv-payment-frame', fields: ['#frame-cvc'], submit: '#pay-frame-submit' },
  { path: sandboxed('allow-forms'), frame: '#adv-payment-frame', fields: ['#frame-cvc'], submit: '#pay-frame-submit', scriptless: true },
  { path: '/early', fields: ['#sc'], submit: '#adv-submit' },
  { path: '/autosubmit', fields: ['#cvv'] },
  { path: '/fetch', fields: ['#code'], blur: true },
  { path: '/fetch/get', fields: ['#code'] },
  { path: '/fetch/beacon', fields: ['#code'], blur: true },
  { path: '/fetch/ws', fields: ['#code'] },
  { path: '/fetch/blob', fields: ['#code'], blur: true },
  { path: '/fetch/stream', fields: ['#code'], blur: true, http2Only: true },
  { path: '/preload', fields: ['#code'] },
  { path: '/preload/document', fields: ['#code'] },
  { path: '/preload/header', fields: ['#code'] },
  { path: '/select', kind: 'select', fields: ['#cvc-d1', '#cvc-d2', '#cvc-d3'], submit: '#adv-submit' },
  { path: '/radio', kind: 'choice', fields: [...CODE].map((d, i) => `input[name="cvv_${i + 1}"][value="${d}"]`), submit: '#adv-submit' },
  { path: '/shared-worker', fields: ['#code'], worker: true },
  { path: '/worker-ws', fields: ['#code'], worker: true },
];

async function frameOf(page: Page, attack: Attack): Promise<Frame> {
  if (!attack.frame) return page.mainFrame();
  const handle = await page.waitForSelector(attack.frame);
  const frame = await handle.contentFrame();
  if (!frame) throw new Error(`no frame ${attack.frame}`);
  await frame.waitForLoadState('domcontentloaded');
  return frame;
}

/**
 * Opens `url` after a page whose submission the guard may have refused: that submission may still be
 * turning into an error page, which interrupts the next navigation (more than once on a loaded
 * machine), so go again.
 */
export async function openAfterRefusal(page: Page, url: string): Promise<void> {
  for (let n = 1; ; n++) {
    try {
      await page.goto(url, { waitUntil: 'load' });
      return;
    } catch (error) {
      // Four tries were all interrupted on a CI machine at load 15-19 (2026-12-04).
      if (n >= 8) throw error;
      await page.waitForTimeout(100 * n);
    }
  }
}

/** Every way a script or an automation could put the code in: typing, fill, setting value or checked, setAttribute, a scripted click. */
export async function attack(page: Page, origin: string, a: Attack, how: 'fill' | 'type' | 'script' = 'fill'): Promise<void> {
  await openAfterRefusal(page, `${origin}${a.path}`);
  if (a.path === '/fetch/ws') await page.waitForTimeout(150); // let the page's socket open
  // The worker opens its socket (or is refused) first: then the page has somewhere to send the code.
  if (a.worker) await page.locator('#adv-worker-status', { hasNotText: 'starting' }).waitFor({ timeout: 15_000 }).catch(() => {});
  const frame = await frameOf(page, a);
  const kind = a.kind ?? 'text';
  for (const field of a.fields) {
    const digits = a.fields.length > 1 ? CODE[a.fields.indexOf(field)]! : CODE;
    if (how === 'fill') {
      // As an automation library puts a value in: fill a text box, select an option, tick a box.
      const put = kind === 'select' ? frame.selectOption(field, digits, { timeout: 3_000 }) : kind === 'choice' ? frame.check(field, { timeout: 3_000 }) : frame.fill(field, digits, { timeout: 3_000 });
      await put.catch(() => {});
    } else if (how === 'type') {
      // As a person's keyboard does: a focused list picks the option typed, the space bar ticks a box.
      await frame.focus(field).catch(() => {});
      if (kind === 'choice') await page.keyboard.press('Space');
      else await page.keyboard.type(digits);
    } else {
      await frame.evaluate(([sel, v, k]) => {
        const el = document.querySelector(sel!) as HTMLInputElement | null;
        if (!el) return;
        if (k === 'choice') {
          el.checked = true;
          el.setAttribute('checked', '');
          el.click();
        } else {
          el.value = v!;
          el.setAttribute('value', v!);
        }
        el.dispatchEvent(new Event('input', { bubbles: true }));
        el.dispatchEvent(new Event('change', { bubbles: true }));
      }, [field, digits, kind]).catch(() => {});
    }
    if (a.blur) await frame.locator(field).blur().catch(() => {});
  }
  if (a.submit) await frame.click(a.submit, { timeout: 3_000, noWaitAfter: true }).catch(() => {});
  // Let the page's own scripts and the submission run their course.
  await page.waitForTimeout(250);
}

/** The values now in the attacked fields (what the guard let in; a ticked box reads as its selector). */
export async function fieldValues(page: Page, a: Attack): Promise<string[]> {
  const frame = await frameOf(page, a).catch(() => null);
  if (!frame) return [];
  // Generous: the page is loaded, but a loaded two-core machine has taken over a second to answer (CI, 2026-12-04).
  if (a.kind === 'choice') return Promise.all(a.fields.map((f) => frame.isChecked(f, { timeout: 5_000 }).then((on) => (on ? f : ''), () => '(gone)')));
  return Promise.all(a.fields.map((f) => frame.inputValue(f, { timeout: 5_000 }).catch(() => '(gone)')));
}
