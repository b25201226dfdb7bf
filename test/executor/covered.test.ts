import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import { GuardLog } from '../../src/executor/guard/events.ts';
import { GuardedPage } from '../../src/executor/guard/page-api.ts';
import { launchChromium } from '../helpers/chromium.ts';

// GuardedPage.covered: whether pressing a control now would hit something else (the generic driver
// answers what covers it before pressing on). Asked of the page in one round trip; a selector the
// page cannot read (Playwright's own) is asked of the browser by a trial click.

const BACKDROP = '<div style="position:fixed;inset:0;background:rgba(0,0,0,.5)"><div role="dialog">We value your privacy <button>Reject all</button></div></div>';

describe('GuardedPage.covered', () => {
  let browser: Browser;
  let page: Page;
  let g: GuardedPage;
  before(async () => {
    browser = await launchChromium();
    page = await browser.newPage({ viewport: { width: 800, height: 600 } });
    g = new GuardedPage(page, new GuardLog());
  });
  after(async () => {
    await browser.close();
  });

  const cases: Array<[string, string, string, boolean]> = [
    ['a button in plain sight', '<button id="go">Book</button>', '#go', false],
    ['a button under a consent wall', `<button id="go">Book</button>${BACKDROP}`, '#go', true],
    ['the consent wall\'s own button', `<button id="go">Book</button>${BACKDROP}`, '[role="dialog"] > button', false],
    ['a button below the fold, nothing over the page', '<div style="height:3000px"></div><button id="go">Book</button>', '#go', false],
    ['a button below the fold, a wall over the whole page', `<div style="height:3000px"></div><button id="go">Book</button>${BACKDROP}`, '#go', true],
    ['a radio hidden under its label, the label on top', '<label style="position:relative;display:inline-block;padding:20px">Dinner<input type="radio" id="r" style="position:absolute;inset:0;opacity:0;z-index:-1"></label>', '#r', false],
    ['a button inside a fixed footer bar', '<div style="height:3000px"></div><div style="position:fixed;bottom:0;left:0;right:0"><button id="go">Continue</button></div>', '#go', false],
    ['a Playwright selector, a consent wall (the trial click answers)', `<button id="go">Book</button>${BACKDROP}`, 'text=Book', true],
    ['a Playwright selector, nothing over it', '<button id="go">Book</button>', 'text=Book', false],
  ];
  for (const [what, html, selector, expected] of cases) {
    test(`${what}: ${expected ? 'covered' : 'not covered'}`, async () => {
      await page.setContent(html);
      // A trial click that times out reads as covered: where nothing covers the control, it is given
      // long enough to succeed on a loaded machine (it returns as soon as it does).
      assert.equal(await g.covered(selector, expected ? 300 : 15_000), expected);
    });
  }
});
