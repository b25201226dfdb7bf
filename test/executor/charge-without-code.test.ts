import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { IncomingHttpHeaders } from 'node:http';
import type { BrowserContext } from 'playwright-core';
import { BrowserPool } from '../../src/browser/pool.ts';
import { HoldRegistry } from '../../src/executor/holds.ts';
import { runJob as run } from '../../src/executor/run-job.ts';
import { createLogger } from '../../src/observability/logger.ts';
import { PROVIDERS } from '../../sandbox/index.ts';
import { call } from '../helpers/http.ts';
import { rawRequest } from '../sandbox/drivers.ts';
import { BROWSER_BACKEND, startTestService, type TestService } from '../helpers/service.ts';
import { assertCountersAgree, auditOf, createJob, directRunDeps, firstClaim, outcomes, requests } from './helpers.ts';

// The contract's invariant is wider than the card code: before any irreversible card-on-file step the
// job pauses, and the person approves the charge. Many real sites charge the saved card at one press
// of Pay, with no security code asked. Here every provider's payment page reaches the browser without
// its card-code field (the sandbox's own page, the code input cut out on the way), so nothing but the
// executor stands between a press of Pay and the charge: it must stop on that page, held for the
// person, without pressing.

/** Each provider's review and payment page paths (sandbox/README.md). */
const REVIEW_PAGE = /\/(review|check|summary|confirm-details)$/;
const PAYMENT_PAGE = /\/(payment|secure-payment|pay|checkout)$/;
const CODE_INPUT = /<input\b[^>]*\bautocomplete="cc-csc"[^>]*>/g;

/**
 * Chromium whose tabs are shown every payment page with no card-code field; every press of Pay (a
 * POST to the payment page) is recorded. The browser follows a redirect without asking the tab's
 * routes, so the review form's POST, which redirects to the payment page, is sent from here and
 * answered with that page, cut. (From Node: *.localhost is reached as 127.0.0.1 with its Host.)
 */
class NoCodePool extends BrowserPool {
  readonly payPresses: string[] = [];
  readonly pagesCut: string[] = [];

  override async newContext(): Promise<BrowserContext> {
    const context = await super.newContext();
    const newPage = context.newPage.bind(context);
    context.newPage = async () => {
      const page = await newPage();
      // A tab's own routes run before the context's (the payment guard's network layer).
      await page.route('**/*', async (route) => {
        const request = route.request();
        const url = new URL(request.url());
        if (request.method() !== 'POST') return route.fallback();
        if (PAYMENT_PAGE.test(url.pathname)) this.payPresses.push(url.pathname);
        if (!REVIEW_PAGE.test(url.pathname)) return route.fallback();
        const { host: _, ...headers } = await request.allHeaders();
        const answer = await rawRequest(Number(url.port), url.host, url.pathname, { method: 'POST', headers, body: request.postDataBuffer() ?? undefined });
        const next = answer.headers.location ? new URL(answer.headers.location, url) : null;
        const reply = { status: answer.status, headers: flat(answer.headers), body: answer.body };
        if (!next || !PAYMENT_PAGE.test(next.pathname)) return route.fulfill(reply);
        const shown = await rawRequest(Number(next.port), next.host, next.pathname, { headers: { cookie: headers.cookie ?? '' } });
        if (!shown.body.includes('autocomplete="cc-csc"')) return route.fulfill(reply);
        this.pagesCut.push(next.pathname);
        return route.fulfill({ status: shown.status, headers: flat(shown.headers), body: shown.body.replace(CODE_INPUT, '') });
      });
      return page;
    };
    return context;
  }
}

function flat(headers: IncomingHttpHeaders): Record<string, string> {
  return Object.fromEntries(Object.entries(headers).filter(([name, v]) => v !== undefined && name !== 'content-length').map(([name, v]) => [name, Array.isArray(v) ? v.join(', ') : v!]));
}

// A Chromium run per provider: on one backend (BROWSER_BACKEND). What it stores (the pause, the refusal,
// the hold) goes through the paths holds.test.ts runs on every backend.
for (const backend of [BROWSER_BACKEND]) {
  describe(`a payment page that asks for no card code (${backend.name})`, () => {
    let service: TestService;
    let key: string;
    let pool: NoCodePool;
    let holds: HoldRegistry;
    before(async () => {
      service = await startTestService(backend.url, {}, { sandbox: true });
      key = await service.mintKey();
      pool = new NoCodePool({ chromiumPath: service.config.CHROMIUM_PATH });
      holds = new HoldRegistry(service.services.db, createLogger('silent'), 'test-instance', service.services.providers);
    });
    after(async () => {
      await holds.stop();
      await pool.close();
      await service.close();
    });

    test('on every provider: paused before Pay, nothing charged, the person approves the charge at the handoff', async () => {
      const deps = directRunDeps(service, pool, holds);
      const jobs = await Promise.all(PROVIDERS.map(async (p) => {
        const jobId = await createJob(service, key, requests[p.scenario]({}, { allowedProviders: [p.id] }));
        await run(deps, jobId, firstClaim());
        return { provider: p, jobId };
      }));

      assert.equal(pool.pagesCut.length, PROVIDERS.length, 'each provider\'s payment page reached the tab without its code field');
      for (const { provider, jobId } of jobs) {
        const job = (await call(service.url, 'GET', `/api/v1/execution-jobs/${jobId}`, { key })).body;
        const events = await auditOf(service, key, jobId);
        assertCountersAgree(job, events);
        assert.equal(job.status, 'paused_payment', `${provider.id}: ${job.summary}`);
        assert.ok(job.handoffUrl, provider.id);
        assert.ok(job.summary.startsWith(`Held at ${provider.name}: `), job.summary);
        assert.match(job.summary, /, card on file [^.]+\. /, 'the summary names the card the charge would go to');
        assert.match(job.summary, /Waiting for the person to approve the charge until \d{4}-\d{2}-\d{2} \d{2}:\d{2} UTC\.$/);
        const [refusal, paused] = events.slice(-2);
        assert.equal(refusal.type, 'action_denied', provider.id);
        assert.equal(refusal.providerId, provider.id);
        assert.equal(refusal.reason, 'charge_without_card_code');
        assert.match(refusal.message, new RegExp(`^Not pressing Pay at ${provider.name}: its payment page asks for no card security code, so pressing it would charge the card on file \\(.+\\) at once\\.`));
        assert.equal(paused.type, 'paused_payment');
        assert.equal(paused.step, 'payment');
        assert.equal(paused.cardCodeAsked, false);
        assert.match(paused.message, new RegExp(`^Stopped before the charge at ${provider.name}: `));
        assert.deepEqual(outcomes(events), [[provider.id, 'accepted']]);
        // The person is asked to approve the charge, not to type a code into a field that is not there.
        const page = await call(service.url, 'GET', new URL(job.handoffUrl).pathname);
        assert.equal(page.status, 200, provider.id);
        assert.match(page.text, /The provider asks for no security code: pressing its Pay button below charges your card on file at once\./, provider.id);
        assert.doesNotMatch(page.text, /type your card&#39;s code|type your card's code/, provider.id);
        const held = holds.get(jobId);
        assert.ok(held, `${provider.id}: the session is held for the person`);
        const forms = await held.page.locator('form[method="post"]').evaluateAll((els) => els.map((f) => new URL((f as HTMLFormElement).action).pathname));
        assert.ok(forms.some((f) => PAYMENT_PAGE.test(f)), `${provider.id}: the tab shows the payment form, where the person presses Pay (${forms.join(', ')})`);
      }
      assert.deepEqual(pool.payPresses, [], 'Pay was never pressed');
      assert.deepEqual(service.sandbox!.confirmations(), [], 'nothing was booked or charged');
      await Promise.all(jobs.map(({ jobId }) => holds.get(jobId)?.cancel()));
    });
  });
}
