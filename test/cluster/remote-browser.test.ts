import assert from 'node:assert/strict';
import { fileURLToPath } from 'node:url';
import { after, before, describe, test } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import { startChild, NODE, type ChildService } from '../helpers/processes.ts';
import { freePort, requests, startTestService, type TestService } from '../helpers/service.ts';
import { createJob, waitForJob } from '../executor/helpers.ts';
import { launchChromium, pointOnView, waitForLiveFrames } from '../handoff/browsers.ts';
import { startedTogether } from '../helpers/together.ts';

// BROWSER_WS_ENDPOINT against a real browser server in another process (playwright-core's
// launchServer over the OS Chromium): jobs run and are held there, the person pays on the live
// view through it; when the browser server goes away its held bookings end as hold_lost (the page
// says so), and once it is back at the same endpoint the next booking runs there again.

const SCRIPT = fileURLToPath(new URL('./browser-server.ts', import.meta.url));
const WS_PATH = '/concierge-browser';

describe('remote browser (BROWSER_WS_ENDPOINT, a browser server in another process)', () => {
  let browserServer: ChildService;
  let port: number;
  let service: TestService;
  let key: string;
  let person: Browser;

  const startBrowserServer = async () => {
    browserServer = startChild(['--disable-warning=ExperimentalWarning', SCRIPT, String(port), WS_PATH], { CHROMIUM_PATH: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium' }, { command: NODE });
    return String((await browserServer.logged('wsEndpoint', 120_000)).wsEndpoint);
  };
  const heldBooking = async (name: string) => {
    const jobId = await createJob(service, key, requests.restaurant({ restaurant_name: name }));
    const paused = await waitForJob(service, key, jobId, { timeoutMs: 180_000 });
    assert.equal(paused.status, 'paused_payment', paused.summary);
    const session = service.services.executor.holds.get(jobId);
    assert.ok(session, 'held by the service');
    return { jobId, paused, tab: session.page };
  };
  const openLiveView = async (handoffUrl: string, tab: Page) => {
    const page = await (await person.newContext({ viewport: { width: 1280, height: 900 } })).newPage();
    await page.goto(handoffUrl);
    await waitForLiveFrames(page, tab);
    return page;
  };

  before(async () => {
    port = await freePort();
    const wsEndpoint = await startBrowserServer();
    assert.equal(wsEndpoint, `ws://127.0.0.1:${port}${WS_PATH}`);
    [service, person] = await startedTogether([startTestService('pglite:memory:', { WORKERS: '2', BROWSER_WS_ENDPOINT: wsEndpoint }, { sandbox: true }), launchChromium()]);
    key = await service.mintKey();
  });
  after(async () => {
    await person?.close();
    await service?.close();
    await browserServer?.signal('SIGKILL');
  });

  test('a booking runs and is held in the remote browser, and the person pays on the live view through it', async () => {
    const { jobId, paused, tab } = await heldBooking('Remote One');
    // The tab is the browser server's: the service drives it over its Playwright connection.
    assert.equal(tab.context().browser()?.isConnected(), true);
    const page = await openLiveView(paused.handoffUrl, tab);
    const at = await pointOnView(page, tab, '#tb-cvc');
    await page.mouse.click(at.x, at.y);
    await tab.waitForFunction(() => document.activeElement?.id === 'tb-cvc');
    await page.keyboard.type('321', { delay: 30 });
    await page.keyboard.press('Enter');
    const shown = await page.waitForSelector('[data-outcome] [data-confirmation-code]', { timeout: 60_000 });
    const done = await waitForJob(service, key, jobId);
    assert.equal(done.status, 'completed', done.summary);
    assert.equal(await shown.getAttribute('data-confirmation-code'), done.confirmationCode);
    await page.context().close();
  });

  test('the browser server goes away: its held booking ends hold_lost, in words; back at the same endpoint, bookings run again', async () => {
    const { jobId, paused, tab } = await heldBooking('Remote Two');
    const page = await openLiveView(paused.handoffUrl, tab);
    await browserServer.signal('SIGKILL');
    await page.waitForSelector('[data-outcome]:has-text("Hold lost")', { timeout: 60_000 });
    const lost = await waitForJob(service, key, jobId);
    assert.equal(lost.status, 'error');
    assert.equal(lost.error.reason, 'hold_lost');
    await page.context().close();
    // Restarted at the same port and path: the next job connects afresh.
    await startBrowserServer();
    const again = await heldBooking('Remote Three');
    assert.equal(again.tab.context().browser()?.isConnected(), true);
  });
});
