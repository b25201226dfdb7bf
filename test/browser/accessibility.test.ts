import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Browser } from 'playwright-core';
import { keepAccessibilityTree } from '../../src/browser/accessibility.ts';
import { launchBrowser } from '../sandbox/drivers.ts';

// The accessibility tree kept for a tab (what makes the generic driver's reading of names cheap)
// must still answer as the page is now: a name changed by the page is read changed, at once.

describe('accessibility tree kept for a tab', () => {
  let browser: Browser;
  before(async () => {
    browser = await launchBrowser();
  });
  after(async () => {
    await browser.close();
  });

  test('names follow the page as it changes them, in the same moment', async () => {
    const page = await browser.newPage();
    await keepAccessibilityTree(page, 5_000);
    await page.setContent('<label for="d">Date</label><input id="d"><button id="b" aria-labelledby="x">ignored</button><span id="x">Find a table</span>');
    const names = await page.evaluate(() => {
      const name = (id: string) => (document.getElementById(id) as unknown as { computedName: string }).computedName;
      const before = [name('d'), name('b')];
      document.querySelector('label')!.textContent = 'Arrival date';
      document.getElementById('x')!.textContent = 'Search';
      return { before, after: [name('d'), name('b')] };
    });
    assert.deepEqual(names, { before: ['Date', 'Find a table'], after: ['Arrival date', 'Search'] });
    // And after the tab goes to another document.
    await page.setContent('<button aria-label="Reserve">R</button>');
    assert.equal(await page.evaluate(() => (document.querySelector('button') as unknown as { computedName: string }).computedName), 'Reserve');
    await page.close();
  });

  test('a tab that is gone is no error: names are read the slow way, or not at all', async () => {
    const page = await browser.newPage();
    await page.close();
    await keepAccessibilityTree(page, 5_000);
  });
});
