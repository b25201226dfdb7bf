import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { liveViewOf } from '../../src/browser/live-view.ts';
import { runningTab } from '../../src/browser/running-tabs.ts';
import { createJob as createCoreJob, getJob } from '../../src/jobs/service.ts';
import { parseExecutionJobRequest } from '../../src/jobs/schemas.ts';
import { signedInContext } from '../helpers/oauth.ts';
import { BROWSER_BACKEND, startTestService, type TestService } from '../helpers/service.ts';
import { until } from '../helpers/wait.ts';
import { createJob, requests, waitForJob } from '../executor/helpers.ts';
import { launchChromium } from './browsers.ts';
import { signInAtDevIdp, userIdOf } from './helpers.ts';
import { startedTogether } from '../helpers/together.ts';

// Watching a running job (sessionUrl) and a person's bookings page with live updates. The executor
// runs slowly here (two seconds' pause before each step, about ten seconds a run) so that a run can be
// watched while it runs, even when a loaded machine takes several seconds to open a page.

for (const backend of [BROWSER_BACKEND]) {
  describe(`watching and bookings on ${backend.name}`, () => {
    let service: TestService;
    let key: string;
    let browser: Browser;
    let ada: BrowserContext;
    let bob: BrowserContext;
    let adaId: number;

    before(async () => {
      [service, browser] = await startedTogether([
        startTestService(backend.url, { WORKERS: '2', EXECUTOR_STEP_DELAY_MS: '2000' }, { sandbox: true }),
        launchChromium(),
      ]);
      key = await service.mintKey();
      [ada, bob] = await Promise.all([signedInContext(service, browser, 'ada@example.com'), signedInContext(service, browser, 'bob@example.com')]);
      adaId = await userIdOf(service, 'ada@example.com');
    });
    after(async () => {
      await browser?.close();
      await service?.close();
    });

    /** A booking for a signed-in user, as an OAuth client's call would create it (through the core). */
    async function bookFor(userId: number, params: Record<string, unknown>): Promise<string> {
      const parsed = parseExecutionJobRequest(requests.restaurant(params));
      assert.ok(parsed.ok);
      const { job } = await createCoreJob(service.services.jobs, { kind: 'user', userId, clientId: null }, parsed.value);
      return job.jobId;
    }

    async function readJob(jobId: string) {
      const job = await getJob(service.services.jobs, null, jobId);
      assert.ok(job);
      return job;
    }

    async function waitForStatus(jobId: string, statuses: string[]) {
      for (const deadline = Date.now() + 60_000; Date.now() < deadline; ) {
        const job = await readJob(jobId);
        if (statuses.includes(job.status)) return job;
        await new Promise((r) => setTimeout(r, 50));
      }
      assert.fail(`job ${jobId} never reached ${statuses.join('/')}`);
    }

    async function expectWatching(page: Page): Promise<void> {
      await page.waitForSelector('[data-live-view][data-state="live"]', { timeout: 30_000 });
      assert.equal(await page.getAttribute('[data-live-view]', 'data-mode'), 'watch');
      assert.equal(await page.locator('[data-live-keys]').count(), 0, 'a watcher has no keyboard');
    }

    describe('sessionUrl: a read-only live view while the job runs', () => {
      test('an API-key job: sessionUrl while running opens a live view without signing in; null once the run ends, and the link is dead', async () => {
        const jobId = await createJob(service, key, requests.restaurant({ restaurant_name: 'Watch Tavern' }));
        const running = await waitForJob(service, key, jobId, { until: ['running', 'paused_payment'] });
        assert.equal(running.status, 'running', 'the run is slow enough to watch');
        assert.match(running.sessionUrl, new RegExp(`^${service.url}/watch/${jobId}/[A-Za-z0-9_-]{43}$`));

        const context = await browser.newContext();
        try {
          const page = await context.newPage();
          const response = await page.goto(running.sessionUrl);
          assert.equal(response?.status(), 200);
          assert.match(response!.headers()['content-security-policy']!, /frame-ancestors 'none'/);
          await expectWatching(page);
          const watched = runningTab(jobId);
          assert.ok(watched && liveViewOf(watched).viewerCount === 1, 'the watcher is on the running tab');
          // The moment the executor holds the tab for the person, it is nobody's to watch: the watcher
          // is let go of it then, not when the job's new status is next read.
          await until('the run paused and holds the tab', () => service.services.executor.holds.get(jobId) !== undefined, 30_000, 10);
          const session = service.services.executor.holds.get(jobId)!;
          assert.equal(liveViewOf(session.page).viewerCount, 0, 'no watcher gets frames of the held tab');
          assert.equal(runningTab(jobId), null, 'the held tab is no longer the running tab');
          const paused = await waitForJob(service, key, jobId);
          assert.equal(paused.status, 'paused_payment');
          assert.equal(paused.sessionUrl, null);
          await page.waitForSelector('[data-outcome]:not(:empty)');
          assert.match(await page.innerText('[data-outcome]'), /Waiting for your payment/);
          await page.waitForSelector('[data-live-view][data-state="ended"]');
          assert.equal((await fetch(running.sessionUrl)).status, 410);
          const forged = running.sessionUrl.replace(/[A-Za-z0-9_-]{43}$/, 'B'.repeat(43));
          assert.equal((await fetch(forged)).status, 404);
        } finally {
          await context.close();
        }
      });

      test('a user\'s job: only its owner, signed in, may watch it', async () => {
        const jobId = await bookFor(adaId, { restaurant_name: 'Owner Only Osteria' });
        const job = await waitForStatus(jobId, ['running', 'paused_payment']);
        assert.equal(job.status, 'running');
        const sessionUrl = service.services.links.sessionUrl(job)!;
        assert.ok(sessionUrl);

        const bobPage = await bob.newPage();
        const refused = await bobPage.goto(sessionUrl);
        assert.equal(refused?.status(), 403);
        assert.ok(!(await refused!.text()).includes('Owner Only Osteria'));
        await bobPage.close();

        const anonymous = await browser.newContext();
        try {
          const page = await anonymous.newPage();
          await page.goto(sessionUrl);
          assert.match(new URL(page.url()).pathname, /\/dev-idp\//, 'a signed-out visitor is sent to sign in');
        } finally {
          await anonymous.close();
        }

        const adaPage = await ada.newPage();
        try {
          await adaPage.goto(sessionUrl);
          await expectWatching(adaPage);
        } finally {
          await adaPage.close();
        }
        await waitForStatus(jobId, ['paused_payment']);
      });
    });

    describe('bookings: a signed-in person\'s bookings, updated live', () => {
      test('a new booking appears and moves to paused_payment without a reload; the handoff link opens; Cancel there shows up live', async () => {
        const page = await ada.newPage();
        const other = await bob.newPage();
        try {
          await page.goto(`${service.url}/bookings`);
          await page.waitForSelector('body[data-live="on"]');
          const before = await page.locator('li[data-job-id]').count();

          const jobId = await bookFor(adaId, { restaurant_name: 'Live Lisboa' });
          const item = page.locator(`li[data-job-id="${jobId}"]`);
          await item.waitFor({ timeout: 10_000 });
          // While it runs, a Watch link: the run's read-only live view (its sessionUrl).
          const watchLink = await page.waitForSelector(`li[data-job-id="${jobId}"][data-status="running"] [data-watch-link]`, { timeout: 30_000 });
          assert.equal(await watchLink.getAttribute('href'), service.services.links.sessionUrl(await readJob(jobId)));
          const watching = await ada.newPage();
          await watching.goto((await watchLink.getAttribute('href'))!);
          await expectWatching(watching);
          await watching.close();
          await page.waitForSelector(`li[data-job-id="${jobId}"][data-status="paused_payment"] [data-handoff-link]`, { timeout: 30_000 });
          assert.equal(await item.locator('[data-watch-link]').count(), 0, 'nothing to watch once the run paused');
          assert.equal(await page.locator('li[data-job-id]').count(), before + 1);
          const text = await item.innerText();
          for (const part of ['Live Lisboa', 'Waiting for your payment', 'TableBook', 'Visa •••• 4242']) assert.ok(text.includes(part), `the booking shows ${part}`);
          const timeline = await item.locator('ol.timeline li').allTextContents();
          assert.ok(timeline.some((t) => t.includes('Waiting for you to pay')));
          assert.ok(timeline.some((t) => t.includes('Blocked by the payment guard')), 'the guard\'s refusal is on the timeline');
          assert.ok(timeline.length >= 8);

          // Bob sees none of it.
          await other.goto(`${service.url}/bookings`);
          assert.equal(await other.locator(`li[data-job-id="${jobId}"]`).count(), 0);
          assert.equal((await other.request.get(`${service.url}/bookings/${jobId}/item`)).status(), 404);

          // The link opens the handoff; the owner cancels there (with her session's CSRF token).
          const href = await item.locator('[data-handoff-link]').getAttribute('href');
          const handoff = await ada.newPage();
          await handoff.goto(href!);
          await handoff.waitForSelector('[data-live-view][data-state="live"]', { timeout: 15_000 });
          await Promise.all([handoff.waitForURL(/\/cancel$/), handoff.click('[data-cancel] button')]);
          assert.match(await handoff.innerText('h1'), /Booking cancelled/);
          await handoff.close();
          await page.waitForSelector(`li[data-job-id="${jobId}"][data-status="error"]`, { timeout: 10_000 });
          assert.match(await item.innerText(), /Cancelled by you/);
          assert.equal(await item.locator('[data-handoff-link]').count(), 0);
          assert.equal((await readJob(jobId)).error?.reason, 'cancelled_by_user');
        } finally {
          await page.close();
          await other.close();
        }
      });

      test('signed out, /bookings sends you to sign in and back', async () => {
        const context = await browser.newContext();
        try {
          const page = await context.newPage();
          await page.goto(`${service.url}/bookings`);
          await signInAtDevIdp(page, 'carol@example.com');
          await page.waitForURL(`${service.url}/bookings`);
          assert.match(await page.innerText('main'), /No bookings yet/);
          assert.equal((await fetch(`${service.url}/bookings/events`)).status, 401, 'no stream without a session');
        } finally {
          await context.close();
        }
      });
    });
  });
}
