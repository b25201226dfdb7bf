import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import type { Browser } from 'playwright-core';
import { startTestService, type TestService } from '../helpers/service.ts';
import { createJob, requests, waitForJob } from '../executor/helpers.ts';
import { launchChromium, waitForLiveFrames } from './browsers.ts';

// The hold runs out while the person has the handoff page open: the page says so, and the link
// afterwards says only that (no live view, no Cancel).

let service: TestService;
let browser: Browser;

before(async () => {
  [service, browser] = await Promise.all([startTestService('pglite:memory:', { WORKERS: '1', HOLD_SECONDS: '10' }, { sandbox: true }), launchChromium()]);
});
after(async () => {
  await browser?.close();
  await service?.close();
});

test('the hold runs out on an open handoff page: the page says so, and so does the link afterwards', async () => {
  const key = await service.mintKey();
  const jobId = await createJob(service, key, requests.restaurant({ restaurant_name: 'Expiring Enoteca' }));
  const paused = await waitForJob(service, key, jobId);
  assert.equal(paused.status, 'paused_payment');
  const session = service.services.executor.holds.get(jobId);
  assert.ok(session);
  const page = await browser.newPage();
  try {
    await page.goto(paused.handoffUrl);
    await waitForLiveFrames(page, session.page);
    assert.match(await page.innerText('[data-countdown]'), /^0:\d\d$/);
    await page.waitForSelector('[data-outcome].bad', { timeout: 30_000 });
    assert.match(await page.innerText('[data-outcome]'), /Hold expired[\s\S]*Nothing was charged/);
    assert.equal(await page.isVisible('[data-cancel]'), false, 'nothing left to cancel');
    const job = await waitForJob(service, key, jobId);
    assert.equal(job.status, 'error');
    assert.equal(job.error.reason, 'handoff_expired');
    const later = await page.reload();
    assert.equal(later?.status(), 200);
    assert.match(await page.innerText('[data-outcome]'), /The hold ended before the payment was made\. Nothing was charged\./);
    assert.match(await page.innerText('h1'), /Hold expired/);
    assert.equal(await page.locator('[data-live-view], [data-cancel], [data-confirmation-code]').count(), 0, 'no live view, Cancel or code');
  } finally {
    await page.close();
  }
});
