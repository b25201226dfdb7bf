import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { sql } from 'kysely';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { handoffToken, handoffTokenHash } from '../../src/jobs/handoff-tokens.ts';
import { installGuard } from '../../src/executor/guard/index.ts';
import { GuardLog } from '../../src/executor/guard/events.ts';
import { GuardedPage } from '../../src/executor/guard/page-api.ts';
import type { HeldSession } from '../../src/executor/held-session.ts';
import { HoldRegistry } from '../../src/executor/holds.ts';
import { executorSessions } from '../../src/executor/browser-sessions.ts';
import { cancelHandoff } from '../../src/handoff/handoff.ts';
import { transition } from '../../src/jobs/transition.ts';
import { createLogger } from '../../src/observability/logger.ts';
import type { Driver } from '../../src/driver/types.ts';
import { BACKENDS, BROWSER_BACKEND, startTestService, type TestService } from '../helpers/service.ts';
import { until } from '../helpers/wait.ts';
import { launchChromium } from '../handoff/browsers.ts';
import { auditOf, createJob, requests } from './helpers.ts';
import { startPaySite, type PaySite } from './pay-site.ts';
import { startedTogether } from '../helpers/together.ts';

// What counts as the person's payment in flight on a held tab, and what other processes may do to
// a hold while one is: the held session against a payment page paid the ways real sites pay (a
// form POST, a script's fetch answered through a redirect, a GET form, a card partner's iframe), a
// page that never stops talking (a long-poll, analytics beacons), and a second hold registry
// playing another service process on the same database.

/** A provider as the hold sees it: the confirmation is whatever the page marks as one. */
const DRIVER = {
  id: 'tablebook',
  name: 'TestPay',
  confirmation: (page: GuardedPage) => page.attr('[data-confirmation-code]', 'data-confirmation-code'),
} as unknown as Driver;

const SETTLED_MS = 800; // longer than the session's 500 ms settle window

interface Held {
  jobId: string;
  token: string;
  session: HeldSession;
  page: Page;
  context: BrowserContext;
}

for (const backend of BACKENDS) {
  describe(`a payment in flight on a held tab, on ${backend.name}`, () => {
    let service: TestService;
    let browser: Browser;
    let site: PaySite;
    let key: string;
    const log = createLogger('silent');

    before(async () => {
      [service, browser, site] = await startedTogether([startTestService(backend.url), launchChromium(), startPaySite()]);
      key = await service.mintKey();
    });
    after(async () => {
      await browser?.close();
      await site?.close();
      await service?.close();
    });

    /** A job paused on `path` of the pay site, held by `holder`, the tab in the person's control. */
    const hold = async (holder: HoldRegistry, path: string, expiresInMs = 600_000): Promise<Held> => {
      const jobId = await createJob(service, key, requests.restaurant({ restaurant_name: `Pay Page ${Math.random().toString(36).slice(2, 7)}` }));
      const expiresAt = new Date(Date.now() + expiresInMs);
      const token = handoffToken(service.services.secretKey, jobId, expiresAt.toISOString());
      await service.services.db.updateTable('jobs').set({
        status: 'paused_payment', provider_id: 'tablebook', hold_expires_at: expiresAt, handoff_token_hash: handoffTokenHash(token),
        hold_instance: holder.instanceId, hold_seen_at: new Date(), summary: 'Held at TestPay.',
      }).where('id', '=', jobId).execute();
      const context = await browser.newContext();
      const events = new GuardLog();
      const guard = await installGuard(context, events);
      const page = await context.newPage();
      await page.goto(site.url(path));
      const session = holder.add({ jobId, driver: DRIVER, context, page, reader: new GuardedPage(page, events), guard, events, expiresAt, what: 'a table at Pay Page', url: site.url(path) });
      await session.setUserInControl(true);
      return { jobId, token, session, page, context };
    };
    const row = (jobId: string) => service.services.db.selectFrom('jobs').selectAll().where('id', '=', jobId).executeTakeFirstOrThrow();
    const registry = (name: string, options?: { maxPostponeMs?: number }) => new HoldRegistry(service.services.db, log, `${name}-${Math.random().toString(36).slice(2, 7)}`, service.services.providers, options);
    const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
    /** The person presses a control (a real click); the provider's answer is awaited by the test, not here. */
    const press = (page: Page, selector: string) => page.locator(selector).click({ noWaitAfter: true });
    // How the held tab tells a payment in flight from other traffic (a redirect's next hop, a GET form,
    // a partner's iframe, a long-poll, beacons) is the guard's reading of the page, not storage: those
    // tests run on BROWSER_BACKEND alone. What a payment in flight writes, across processes, runs on
    // every backend below.
    const pageMechanisms = backend === BROWSER_BACKEND;

    if (pageMechanisms) test('a script\'s fetch answered through a redirect: Cancel is refused until the page it leads to has loaded, and the job completes with the code', async () => {
      const holder = registry('holder');
      const { jobId, session, page } = await hold(holder, '/fetch-redirect');
      await press(page, '#pay');
      await site.arrived('/api/result');
      // The POST was answered (a 303) a while ago; the redirect's next hop waits for the provider.
      await pause(SETTLED_MS);
      assert.equal(session.paymentInFlight(), true, 'the redirect\'s next hop is the payment still');
      assert.equal(await session.cancel(), 'payment_in_flight');
      site.open('/api/result');
      const end = await session.done;
      assert.equal(end.kind, 'completed');
      const done = await row(jobId);
      assert.equal(done.status, 'completed');
      assert.equal(done.confirmation_code, site.confirmations().at(-1));
    });

    if (pageMechanisms) test('a GET form carrying the code, which the provider turns down: a Cancel afterwards says to check with the provider', async () => {
      const holder = registry('holder');
      const { jobId, session, page } = await hold(holder, '/get-form');
      await page.fill('#cvc', '123');
      await press(page, '#pay');
      await site.arrived('/charge-get');
      assert.equal(await session.cancel(), 'payment_in_flight');
      site.open('/charge-get');
      await page.waitForSelector('#declined');
      await until('the payment no longer in flight', () => !session.paymentInFlight(), 10_000, 100);
      assert.equal(await session.cancel(), 'cancelled');
      const done = await row(jobId);
      assert.equal(done.error?.reason, 'cancelled_by_user');
      assert.equal(done.error?.paymentUncertain, true, 'the code left in the URL: only the provider knows whether it charged');
      assert.doesNotMatch(done.summary, /nothing was booked/);
    });

    if (pageMechanisms) test('a card partner\'s iframe submitting the code: Cancel is refused while the partner has not answered', async () => {
      const holder = registry('holder');
      const { session, page } = await hold(holder, '/iframe');
      const partner = page.frameLocator('#partner');
      await partner.locator('#cvc').fill('123');
      await partner.locator('#pay').click({ noWaitAfter: true });
      await site.arrived('/card/submit');
      await pause(SETTLED_MS);
      assert.equal(await session.cancel(), 'payment_in_flight', 'the partner has the code and has not answered');
      site.open('/card/submit');
      await partner.locator('#accepted').waitFor();
      await until('the payment no longer in flight', () => !session.paymentInFlight(), 10_000, 100);
      assert.equal(await session.cancel(), 'cancelled');
    });

    if (pageMechanisms) test('a request the page never answers (a long-poll) holds Cancel off only up to the postponement limit', async () => {
      const holder = registry('holder', { maxPostponeMs: 2_000 });
      const { jobId, session, page } = await hold(holder, '/long-poll');
      await press(page, '#start');
      await until('the pending request counts as a payment in flight', () => session.paymentInFlight(), 10_000, 50);
      assert.equal(await session.cancel(), 'payment_in_flight');
      let result = '';
      await until('Cancel no longer refused', async () => (result = await session.cancel()) !== 'payment_in_flight', 15_000, 250);
      assert.equal(result, 'cancelled', 'a request pending past the limit no longer holds Cancel off');
      const done = await row(jobId);
      assert.equal(done.error?.reason, 'cancelled_by_user');
      assert.equal(done.error?.paymentUncertain, true, 'what it sent is not known to be harmless');
    });

    if (pageMechanisms) test('analytics beacons every 150 ms never hold Cancel off, and say nothing of a payment', async () => {
      const holder = registry('holder');
      const { jobId, session } = await hold(holder, '/beacons');
      await pause(SETTLED_MS);
      assert.equal(await session.cancel(), 'cancelled');
      const done = await row(jobId);
      assert.equal(done.error?.reason, 'cancelled_by_user');
      assert.equal(done.error?.paymentUncertain, undefined, 'nothing was submitted: the person is told nothing was charged');
    });

    test('past its deadline with a payment in flight, another process\'s sweep leaves the hold to its holder, which records the provider\'s confirmation', async () => {
      const holder = registry('holder');
      const other = registry('other');
      const { jobId, session, page } = await hold(holder, '/form-post');
      await page.fill('#cvc', '123');
      await press(page, '#pay');
      await site.arrived('/charge');
      // The deadline passed a while ago as far as the other process can tell (its holder is alive
      // and has not ended the hold yet: its own timer, a moment later, would wait for the answer).
      await service.services.db.updateTable('jobs').set({ hold_expires_at: sql<Date>`now() - interval '1 minute'` }).where('id', '=', jobId).execute();
      assert.equal(await other.sweep(), 0, 'the other process leaves a hold whose payment is in flight alone');
      assert.equal((await row(jobId)).status, 'paused_payment');
      site.open('/charge');
      assert.equal((await session.done).kind, 'completed');
      const done = await row(jobId);
      assert.equal(done.status, 'completed');
      assert.equal(done.confirmation_code, site.confirmations().at(-1));
    });

    test('a cancel that reaches another process while the holder\'s payment is in flight is refused, and the job completes', async () => {
      const holder = registry('holder');
      const elsewhere = executorSessions(registry('other'));
      const { jobId, token, session, page } = await hold(holder, '/form-post');
      await page.fill('#cvc', '123');
      await press(page, '#pay');
      await site.arrived('/charge');
      const refused = await cancelHandoff({ db: service.services.db, sessions: elsewhere }, token, null);
      assert.equal(refused.kind, 'payment_in_flight');
      assert.equal((await row(jobId)).status, 'paused_payment', 'the cancel changed nothing');
      site.open('/charge');
      assert.equal((await session.done).kind, 'completed');
      assert.equal((await row(jobId)).status, 'completed');
    });

    test('a holder gone after the person submitted a payment the provider did not confirm: the sweep says to check with the provider', async () => {
      const holder = registry('holder');
      const other = registry('other');
      const { jobId, session, page, context } = await hold(holder, '/form-post-declined');
      await page.fill('#cvc', '123');
      await press(page, '#pay');
      await site.arrived('/decline');
      site.open('/decline');
      await page.waitForSelector('#declined');
      await until('the payment no longer in flight', () => !session.paymentInFlight(), 10_000, 100);
      // The holding process dies: nothing more from it.
      holder.forget(jobId);
      await context.close();
      await service.services.db.updateTable('jobs').set({ hold_seen_at: sql<Date>`now() - interval '1 minute'` }).where('id', '=', jobId).execute();
      assert.equal(await other.sweep(), 1);
      const done = await row(jobId);
      assert.equal(done.status, 'error');
      assert.equal(done.error?.reason, 'hold_lost');
      assert.equal(done.error?.paymentUncertain, true);
      const last = (await auditOf(service, key, jobId)).at(-1);
      assert.equal(last.paymentUncertain, true);
      assert.doesNotMatch(`${last.message} ${done.summary}`, /nothing was booked/);
    });

    test('the database fails just as the provider confirms: the confirmation is written once it answers again, and the job is completed', async () => {
      // The holder's database connection: its next transactions fail (a connection reset), on demand.
      let failures = 0;
      const db = service.services.db;
      const flaky = new Proxy(db, {
        get(target, prop) {
          if (prop === 'transaction' && failures > 0) {
            failures -= 1;
            return () => ({ execute: async () => { throw new Error('Connection terminated unexpectedly'); } });
          }
          const value = Reflect.get(target, prop, target);
          return typeof value === 'function' ? value.bind(target) : value;
        },
      });
      const holder = new HoldRegistry(flaky, log, `flaky-${Math.random().toString(36).slice(2, 7)}`, service.services.providers);
      const { jobId, session, page } = await hold(holder, '/form-post');
      await page.fill('#cvc', '123');
      await press(page, '#pay');
      await site.arrived('/charge');
      failures = 2;
      site.open('/charge');
      assert.equal((await session.done).kind, 'completed');
      assert.equal(failures, 0, 'the first writes failed');
      const done = await row(jobId);
      assert.equal(done.status, 'completed', 'the paid booking is recorded as such, not left to a sweep');
      assert.equal(done.confirmation_code, site.confirmations().at(-1));
    });

    test('the job ended by another process while the payment was in flight, then the provider confirmed: the job is completed, not an error', async () => {
      const holder = registry('holder');
      const { jobId, session, page } = await hold(holder, '/form-post');
      await page.fill('#cvc', '123');
      await press(page, '#pay');
      await site.arrived('/charge');
      // Another process ended the row without seeing the payment (the moment before the holder's word reached the database).
      await transition(service.services.db, jobId, {
        to: 'error', from: ['paused_payment'],
        event: { type: 'job_aborted', message: 'The person cancelled the booking at the handoff; the hold is released.', data: { reason: 'cancelled_by_user', providerOutcome: 'manual_override' } },
        set: { error: JSON.stringify({ reason: 'cancelled_by_user', step: 'payment', provider: 'tablebook', message: 'the person cancelled at the handoff' }) },
      });
      // The holder hears of it at its heartbeat, while the provider is still answering.
      const heartbeat = holder.heartbeat();
      await pause(SETTLED_MS);
      assert.equal(page.isClosed(), false, 'the tab stays open while the payment is answered');
      site.open('/charge');
      await heartbeat;
      assert.equal((await session.done).kind, 'completed');
      const done = await row(jobId);
      assert.equal(done.status, 'completed', 'the provider confirmed: the booking is made');
      assert.equal(done.confirmation_code, site.confirmations().at(-1));
      assert.equal(done.error, null);
      const events = await auditOf(service, key, jobId);
      assert.deepEqual(events.slice(-2).map((e) => e.type), ['job_aborted', 'job_completed']);
      assert.match(events.at(-1).message, new RegExp(done.confirmation_code!));
    });
  });
}
