import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import type { Browser } from 'playwright-core';
import { closeTab } from '../../src/browser/close-tab.ts';
import { launchChromium } from '../helpers/chromium.ts';

// A tab closed as a navigation commits: Chromium acknowledges the close and leaves the tab open
// (crbug.com/536385539), and Playwright's page.close() then never returns. Here it does, nearly every
// time, on a page reloading itself; an attempt that failed on a page sending its form a moment
// later hung on it.

let browser: Browser;
const server = createServer((_request, response) => response.writeHead(200, { 'content-type': 'text/html' }).end('<!doctype html><p>ok</p>'));
before(async () => {
  browser = await launchChromium();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
});
after(async () => {
  await browser.close();
  server.close();
});

test('a tab closed while its page navigates is closed, not waited on forever', async () => {
  const context = await browser.newContext();
  try {
    for (let i = 0; i < 3; i++) {
      const page = await context.newPage();
      await page.goto(`http://127.0.0.1:${(server.address() as AddressInfo).port}/`);
      await page.evaluate(() => {
        location.reload();
        return new Promise(() => {});
      }).catch(() => {});
      const closing = closeTab(page).then(() => 'returned');
      assert.equal(await Promise.race([closing, new Promise((resolve) => setTimeout(resolve, 8_000, 'still waiting').unref())]), 'returned');
      assert.equal(page.isClosed(), true, 'the tab is gone');
    }
  } finally {
    await context.close();
  }
});
