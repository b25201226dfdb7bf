import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { Browser } from 'playwright-core';
import { GuardLog } from '../../src/executor/guard/events.ts';
import { GuardedPage } from '../../src/executor/guard/page-api.ts';
import { installTabScripts } from '../../src/executor/guard/tab-scripts.ts';
import { launchChromium } from '../helpers/chromium.ts';

// A run holds one tab: the one it watches, guards and hands to the person. A window the page's own
// script opens (a booking engine in a window of its own) opens in that tab (in-page/open-in-tab.ts).

let browser: Browser;
let origin: string;
const server = createServer((request, response) => {
  response.setHeader('content-type', 'text/html; charset=utf-8');
  if (request.url === '/framed') return void response.end('<!doctype html><title>Inside</title><p>In the frame</p>');
  if (request.url !== '/') return void response.end(`<!doctype html><title>Next ${request.url}</title><p>Your details</p>`);
  response.end(`<!doctype html><title>Times</title>
<button id="open" onclick="window.open('/guest?via=open', 'booking', 'width=700,height=800')">Reserve 19:30</button>
<button id="blank" onclick="window.open('guest?via=blank')">Reserve 20:00</button>
<button id="late" onclick="const w = window.open('', '_blank'); setTimeout(() => { w.location.href = '/guest?via=late'; }, 50)">Reserve 20:30</button>
<button id="frame" onclick="window.open('/framed', 'inner')">Show the menu</button>
<button id="closer" onclick="const w = window.open('', '_blank'); w.close(); document.title = 'Still here ' + w.closed">Cancel the popup</button>
<iframe name="inner" src="about:blank"></iframe>`);
});

before(async () => {
  browser = await launchChromium();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
after(async () => {
  await browser.close();
  server.close();
});

describe('the run\'s one tab', () => {
  test('a window the page\'s script opens, with its address or given one later, opens in the tab the run holds; a frame named as the target still gets it; closing it closes nothing', async () => {
    const context = await browser.newContext();
    try {
      await installTabScripts(context);
      const page = await context.newPage();
      const g = new GuardedPage(page, new GuardLog());
      for (const [control, title] of [['#open', 'Next /guest?via=open'], ['#blank', 'Next /guest?via=blank'], ['#late', 'Next /guest?via=late']]) {
        await g.goto(`${origin}/`);
        await g.press(control!, 'choose a time');
        await page.waitForURL(/\/guest\?via=/);
        assert.equal(await page.title(), title, `${control}: the next page came in this tab`);
        assert.equal(context.pages().length, 1, `${control}: no window was opened`);
      }
      await g.goto(`${origin}/`);
      await g.press('#frame', 'show the menu');
      await page.frame({ name: 'inner' })!.waitForURL(/\/framed$/);
      assert.equal(await page.title(), 'Times', 'the tab stayed where it was');
      assert.equal(context.pages().length, 1);
      // A page closing the window it opened closes nothing of the run's.
      await g.press('#closer', 'cancel');
      assert.equal(await page.title(), 'Still here false');
      assert.equal(page.isClosed(), false);
      assert.equal(context.pages().length, 1);
    } finally {
      await context.close();
    }
  });
});
