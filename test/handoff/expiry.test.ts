import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Browser } from 'playwright-core';
import { LATE_CONFIRMATION_MS } from '../../src/executor/hold-timings.ts';
import { BROWSER_BACKEND, startTestService, type TestService } from '../helpers/service.ts';
import { auditOf, createJob, requests, waitForJob } from '../executor/helpers.ts';
import { launchChromium, pointOnView, waitForLiveFrames } from './browsers.ts';
import { startedTogether } from '../helpers/together.ts';

// The hold runs out while the person has the handoff page open: the page says so, and the link
// afterwards says only that (no live view, no Cancel). Unless the person's payment is in flight at
// the deadline: then the hold waits for the provider's answer.

/**
 * Short, so that the tests see it run out, yet long enough for a loaded machine to open the page,
 * get its live view and type the code before Pay is pressed PAY_BEFORE_MS ahead of the deadline.
 */
const HOLD_SECONDS = 30;
/** How long before the deadline the person presses Pay: time for the keypress to reach the provider. */
const PAY_BEFORE_MS = 6_000;

for (const backend of [BROWSER_BACKEND]) {
  describe(`hold expiry on the handoff page on ${backend.name}`, () => {
    let service: TestService;
    let browser: Browser;
    let key: string;

    before(async () => {
      [service, browser] = await startedTogether([startTestService(backend.url, { WORKERS: '1', HOLD_SECONDS: String(HOLD_SECONDS) }, { sandbox: true }), launchChromium()]);
      key = await service.mintKey();
    });
    after(async () => {
      await browser?.close();
      await service?.close();
    });

    test('the hold runs out on an open handoff page: the page says so, and so does the link afterwards', async () => {
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
        await page.waitForSelector('[data-outcome].bad', { timeout: session.expiresAt.getTime() - Date.now() + 30_000 });
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
        // For a while a payment in flight elsewhere could still be confirmed: the page keeps asking...
        const status = () => fetch(`${paused.handoffUrl}/status`).then((r) => r.json());
        assert.equal((await status()).confirmationMayFollow, true);
        assert.equal(await page.getAttribute('[data-outcome]', 'data-await-confirmation'), `${new URL(paused.handoffUrl).pathname}/status`);
        // ...and once no confirmation can come, it does not.
        await service.services.db.updateTable('jobs').set({ completed_at: new Date(Date.now() - LATE_CONFIRMATION_MS - 1_000) }).where('id', '=', jobId).execute();
        assert.equal((await status()).confirmationMayFollow, undefined);
        await page.reload();
        assert.match(await page.innerText('h1'), /Hold expired/);
        assert.equal(await page.getAttribute('[data-outcome]', 'data-await-confirmation'), null);
      } finally {
        await page.close();
      }
    });

    test('Pay pressed just before the hold runs out, the provider answering after it: the hold waits for the answer, and the job completes with the code the provider issued', async () => {
      // Slow Pay: the sandbox charges the card on the Pay POST and answers it 3 s later, and here
      // not before the deadline has passed (the test holds the answer), however slow the machine.
      const jobId = await createJob(service, key, requests.restaurant({ restaurant_name: 'Slow Pay Last Minute' }));
      const paused = await waitForJob(service, key, jobId);
      assert.equal(paused.status, 'paused_payment', paused.summary);
      const session = service.services.executor.holds.get(jobId);
      assert.ok(session);
      const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
      try {
        await page.goto(paused.handoffUrl);
        await waitForLiveFrames(page, session.page);
        const at = await pointOnView(page, session.page, '#tb-cvc');
        await page.mouse.click(at.x, at.y);
        await session.page.waitForFunction(() => document.activeElement?.id === 'tb-cvc');
        await page.keyboard.type('7351', { delay: 20 });
        await session.page.waitForFunction(() => (document.querySelector('#tb-cvc') as HTMLInputElement).value === '7351');
        const deadline = session.expiresAt.getTime();
        assert.ok(deadline - Date.now() > PAY_BEFORE_MS + 500, `time enough to press Pay just before the deadline (${deadline - Date.now()} ms left)`);
        const release = service.sandbox!.holdSlowPayAnswers();
        let charged;
        try {
          await new Promise((r) => setTimeout(r, deadline - Date.now() - PAY_BEFORE_MS));
          const paidBefore = service.sandbox!.confirmations().length;
          await page.keyboard.press('Enter');
          while (service.sandbox!.confirmations().length === paidBefore && Date.now() < deadline) await new Promise((r) => setTimeout(r, 25));
          assert.ok(Date.now() < deadline, 'the provider took the payment before the deadline');
          charged = service.sandbox!.confirmations().at(-1)!;
          assert.equal(service.sandbox!.confirmations().length, paidBefore + 1);
          await new Promise((r) => setTimeout(r, Math.max(0, deadline + 500 - Date.now())));
        } finally {
          release();
        }

        const done = await waitForJob(service, key, jobId, { until: ['completed', 'error'] });
        assert.equal(done.status, 'completed', done.summary);
        assert.equal(done.confirmationCode, charged.code);
        assert.ok(new Date(done.completedAt).getTime() > deadline, 'the answer came after the deadline, and the hold had waited for it');
        const types = (await auditOf(service, key, jobId)).map((e: { type: string }) => e.type);
        assert.ok(!types.includes('job_failed'), 'no expiry was recorded');
        const shown = await page.waitForSelector('[data-outcome] [data-confirmation-code]', { timeout: 20_000 });
        assert.equal(await shown.getAttribute('data-confirmation-code'), charged.code);
        assert.doesNotMatch(await page.innerText('main'), /nothing was charged/i);
      } finally {
        await page.close();
      }
    });
  });
}
