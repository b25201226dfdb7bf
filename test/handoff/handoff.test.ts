import assert from 'node:assert/strict';
import { mkdirSync } from 'node:fs';
import { after, before, describe, test } from 'node:test';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { call, type Reply } from '../helpers/http.ts';
import { mcpClient, textOf } from '../helpers/mcp.ts';
import { obtainAccessToken, signedInContext } from '../helpers/oauth.ts';
import { BACKENDS, daysFromNow, PROFILE, startTestService, type TestService } from '../helpers/service.ts';
import { auditOf, createJob, requests, waitForJob } from '../executor/helpers.ts';
import { launchChromium, pointOnView, waitForLiveFrames } from './browsers.ts';
import { capturingLogger, containsCode, distinctCode, signInAtDevIdp } from './helpers.ts';
import { dumpEveryTable } from '../helpers/db-dump.ts';

// The handoff end to end, as the person lives it: a job reaches paused_payment in the real executor
// (real Chromium on the sandbox sites), the person opens handoffUrl in another real Chromium, types
// the card code into the live view of the provider's payment page and presses Enter; the provider
// confirms. Then: the code typed is searched for everywhere the service keeps or says anything.

const PHONE = { viewport: { width: 390, height: 844 }, deviceScaleFactor: 2, isMobile: true, hasTouch: true } as const;

for (const backend of BACKENDS) {
  describe(`handoff on ${backend.name}`, () => {
    let service: TestService;
    let key: string;
    let person: Browser;
    const captured = capturingLogger();
    /** Every response body the service sent in these tests (API replies and pages the person saw). */
    const bodies: string[] = [];
    const typedCodes: string[] = [];
    const handoffTokens: string[] = [];

    const api = async (method: string, path: string, body?: unknown): Promise<Reply> => {
      const reply = await call(service.url, method, path, { key, ...(body === undefined ? {} : { body }) });
      bodies.push(reply.text);
      return reply;
    };
    const recordResponses = (context: BrowserContext) => {
      context.on('response', (response) => {
        if (!response.url().startsWith(service.url)) return;
        const type = response.headers()['content-type'] ?? '';
        if (/text|json|javascript/.test(type)) void response.text().then((t) => bodies.push(t), () => {});
      });
    };
    const held = (jobId: string): Page => {
      const session = service.services.executor.holds.get(jobId);
      assert.ok(session, 'the executor holds the session');
      return session.page;
    };
    const newCode = async () => {
      const haystack = [captured.lines().join('\n'), (await dumpEveryTable(service)).text, bodies.join('\n')].join('\n');
      const code = distinctCode(haystack);
      typedCodes.push(code);
      return code;
    };

    /** The person taps the provider's card-code field in the live view, types a new code, presses
     *  Enter, and reads the confirmation code the page then shows. */
    const payOnLiveView = async (page: Page, tab: Page): Promise<string | null> => {
      const code = await newCode();
      const at = await pointOnView(page, tab, '#tb-cvc');
      await page.touchscreen.tap(at.x, at.y);
      await tab.waitForFunction(() => document.activeElement?.id === 'tb-cvc');
      await page.keyboard.insertText(code);
      await tab.waitForFunction((c) => (document.querySelector('#tb-cvc') as HTMLInputElement).value === c, code);
      await page.keyboard.press('Enter');
      const shown = await page.waitForSelector('[data-outcome] [data-confirmation-code]', { timeout: 20_000 });
      return shown.getAttribute('data-confirmation-code');
    };
    before(async () => {
      [service, person] = await Promise.all([
        startTestService(backend.url, { WORKERS: '2' }, { sandbox: true, log: captured.log }),
        launchChromium(),
      ]);
      key = await service.mintKey();
    });
    after(async () => {
      await person?.close();
      await service?.close();
    });

    test('REST job → paused_payment → handoffUrl on a phone: type the code in the live view, Enter → completed with the sandbox-issued code', async () => {
      const jobId = await createJob(service, key, requests.restaurant({ restaurant_name: 'Casa Azul', city: 'Lisbon' }));
      const paused = await waitForJob(service, key, jobId);
      assert.equal(paused.status, 'paused_payment', paused.summary);
      assert.match(paused.handoffUrl, new RegExp(`^${service.url}/handoff/[A-Za-z0-9_-]{43}$`));
      handoffTokens.push(paused.handoffUrl.split('/').pop());

      const context = await person.newContext(PHONE);
      recordResponses(context);
      const page = await context.newPage();
      try {
        const response = await page.goto(paused.handoffUrl);
        assert.equal(response?.status(), 200);
        const headers = response!.headers();
        assert.match(headers['content-security-policy']!, /frame-ancestors 'none'/);
        assert.match(headers['content-security-policy']!, /script-src 'nonce-[A-Za-z0-9_-]+'(;|$)/);
        assert.match(headers['content-security-policy']!, /default-src 'none'/);
        assert.equal(headers['cache-control'], 'no-store');
        assert.equal(headers['x-frame-options'], 'DENY');
        const text = await page.innerText('main');
        for (const part of ['TableBook', 'Casa Azul', '€', 'Visa •••• 4242', 'Held for']) assert.ok(text.includes(part), `the page shows ${part}`);

        const tab = held(jobId);
        await waitForLiveFrames(page, tab);
        assert.equal(tab.viewportSize()?.width, await page.evaluate(() => Math.floor(document.querySelector('[data-live-view]')!.getBoundingClientRect().width)), 'the provider page is laid out for the phone');
        if (process.env.UPDATE_DOCS_SCREENSHOTS === '1') {
          mkdirSync(new URL('../../docs/', import.meta.url), { recursive: true });
          await page.screenshot({ path: new URL('../../docs/handoff-phone.png', import.meta.url).pathname });
        }

        const confirmation = await payOnLiveView(page, tab);
        const issued = service.sandbox!.confirmations().filter((c) => c.provider === 'tablebook').at(-1);
        assert.deepEqual(issued, { provider: 'tablebook', code: confirmation, paidWithCard: true });
        const host = new URL(service.sandbox!.origin('tablebook')).host;
        assert.equal(service.sandbox!.cardCodesReceived().filter((r) => r.host === host).length, 1, 'the code reached the provider, once');

        const done = await waitForJob(service, key, jobId, { until: ['completed', 'error'] });
        bodies.push(JSON.stringify(done));
        assert.equal(done.status, 'completed');
        assert.equal(done.confirmationCode, confirmation);
        assert.equal(done.handoffUrl, null);
        const events = await auditOf(service, key, jobId);
        assert.equal(events.at(-1).type, 'job_completed');
        assert.ok(events.at(-1).message.includes(confirmation));

        const again = await fetch(paused.handoffUrl);
        assert.equal(again.status, 410, 'the token died with the hold');
        assert.ok(!(await again.text()).includes('Casa Azul'));
      } finally {
        await context.close();
      }
    });

    test('Cancel on the handoff page: error, reason cancelled_by_user, an audit event, the hold released, the link dead', async () => {
      // Busy: the exact time is full, the executor moved it (as the consent allows); the page says so.
      const jobId = await createJob(service, key, requests.restaurant({ restaurant_name: `Busy Cancel Corner ${Math.random().toString(36).slice(2, 6)}` }));
      const paused = await waitForJob(service, key, jobId);
      assert.equal(paused.status, 'paused_payment');
      handoffTokens.push(paused.handoffUrl.split('/').pop());
      const tab = held(jobId);
      const context = await person.newContext({ viewport: { width: 1280, height: 900 } });
      recordResponses(context);
      const page = await context.newPage();
      try {
        await page.goto(paused.handoffUrl);
        await waitForLiveFrames(page, tab);
        const adjustment = await page.innerText('ul.adjustments');
        assert.match(adjustment, /Time adjusted 19:30 → 20:00/);
        assert.match(await page.innerText('.headline'), /20:00/);
        await Promise.all([page.waitForURL(/\/cancel$/), page.click('[data-cancel] button')]);
        assert.match(await page.innerText('h1'), /Booking cancelled/);

        const job = (await api('GET', `/api/v1/execution-jobs/${jobId}`)).body;
        assert.equal(job.status, 'error');
        assert.equal(job.error.reason, 'cancelled_by_user');
        assert.equal(job.handoffUrl, null);
        const last = (await auditOf(service, key, jobId)).at(-1);
        assert.equal(last.type, 'job_aborted');
        assert.equal(last.reason, 'cancelled_by_user');
        assert.equal(service.services.executor.holds.get(jobId), undefined, 'the hold is released');
        for (let i = 0; i < 50 && !tab.isClosed(); i++) await new Promise((r) => setTimeout(r, 50));
        assert.ok(tab.isClosed(), 'the held tab is closed');
        assert.equal((await fetch(paused.handoffUrl)).status, 410);
        const replay = await fetch(`${paused.handoffUrl}/cancel`, { method: 'POST', headers: { origin: new URL(service.url).origin } });
        assert.equal(replay.status, 410, 'cancelling again changes nothing');
      } finally {
        await context.close();
      }
    });

    test('refusals: an unknown token, a cancel from another origin, a live view from another origin', async () => {
      const unknown = await fetch(`${service.url}/handoff/${'A'.repeat(43)}`);
      assert.equal(unknown.status, 404);
      assert.equal(unknown.headers.get('cache-control'), 'no-store');

      const jobId = await createJob(service, key, requests.restaurant({ restaurant_name: 'Origin Oyster' }));
      const paused = await waitForJob(service, key, jobId);
      const forged = await fetch(`${paused.handoffUrl}/cancel`, { method: 'POST', headers: { origin: 'https://evil.example', 'content-type': 'application/x-www-form-urlencoded' }, body: '' });
      assert.equal(forged.status, 403);
      const crossSite = await fetch(`${paused.handoffUrl}/cancel`, { method: 'POST', headers: { 'sec-fetch-site': 'cross-site' } });
      assert.equal(crossSite.status, 403);
      assert.equal((await api('GET', `/api/v1/execution-jobs/${jobId}`)).body.status, 'paused_payment', 'nothing changed');

      // A page on another origin tries to open the live view (the browser sends its Origin).
      const context = await person.newContext();
      const page = await context.newPage();
      try {
        await page.route('http://evil.localhost/', (route) => route.fulfill({ contentType: 'text/html', body: '<!doctype html><title>evil</title>' }));
        await page.goto('http://evil.localhost/');
        const outcome = await page.evaluate((url) => new Promise<string>((resolve) => {
          const ws = new WebSocket(url);
          ws.onopen = () => resolve('open');
          ws.onerror = () => resolve('refused');
        }), `${paused.handoffUrl.replace('http', 'ws')}/live`);
        assert.equal(outcome, 'refused');
      } finally {
        await context.close();
      }
    });

    test('through MCP with an OAuth user: a signed-out visitor signs in and comes back, another signed-in user is refused, the owner pays → done', async () => {
      const ada = await obtainAccessToken(service, { email: 'ada@example.com', browser: person });
      const mcp = await mcpClient(service.url, ada.accessToken);
      try {
        const booked = await mcp.client.callTool({ name: 'book_restaurant', arguments: { restaurant_name: 'Mcp Marisqueira', city: 'Porto', date: daysFromNow(9), time: '20:00', covers: 3, profile: PROFILE } });
        const { jobId } = textOf(booked);
        let status: any;
        for (let i = 0; i < 300; i++) {
          status = textOf(await mcp.client.callTool({ name: 'get_job_status', arguments: { jobId } }));
          if (!['queued', 'running'].includes(status.status)) break;
          await new Promise((r) => setTimeout(r, 150));
        }
        assert.equal(status.status, 'paused_payment', JSON.stringify(status));
        const handoffUrl: string = status.handoffUrl;
        assert.ok(handoffUrl);
        handoffTokens.push(handoffUrl.split('/').pop()!);

        // Another signed-in user: 403, and nothing about the job.
        const bob = await signedInContext(service, person, 'bob@example.com');
        try {
          const page = await bob.newPage();
          const response = await page.goto(handoffUrl);
          assert.equal(response?.status(), 403);
          const body = await response!.text();
          for (const secret of ['Mcp Marisqueira', 'Porto', jobId, 'TableBook', '€']) assert.ok(!body.includes(secret), `the refusal says nothing of ${secret}`);
          const socket = await page.evaluate((url) => new Promise<string>((resolve) => {
            const ws = new WebSocket(url);
            ws.onopen = () => resolve('open');
            ws.onerror = () => resolve('refused');
          }), `${handoffUrl.replace('http', 'ws')}/live`);
          assert.equal(socket, 'refused', 'the live view refuses him too');
        } finally {
          await bob.close();
        }

        // Signed out: sent to sign in, and back to the handoff afterwards; then pays on a phone.
        const context = await person.newContext(PHONE);
        recordResponses(context);
        try {
          const page = await context.newPage();
          await page.goto(handoffUrl);
          await signInAtDevIdp(page, 'ada@example.com');
          await page.waitForURL(handoffUrl);
          const tab = held(jobId);
          await waitForLiveFrames(page, tab);
          const confirmation = await payOnLiveView(page, tab);
          assert.equal(service.sandbox!.confirmations().at(-1)?.code, confirmation);

          for (let i = 0; i < 100; i++) {
            status = textOf(await mcp.client.callTool({ name: 'get_job_status', arguments: { jobId } }));
            if (status.status !== 'paused_payment') break;
            await new Promise((r) => setTimeout(r, 100));
          }
          bodies.push(JSON.stringify(status));
          assert.equal(status.status, 'done');
          assert.equal(status.confirmationCode, confirmation);
          const audit = textOf(await mcp.client.callTool({ name: 'get_job_audit', arguments: { jobId } }));
          bodies.push(JSON.stringify(audit));
        } finally {
          await context.close();
        }
      } finally {
        await mcp.close();
      }
    });

    test('the card codes typed appear in no log line, database row, audit event or response body', async () => {
      assert.ok(typedCodes.length >= 2, 'codes were typed in the tests above');
      const dump = await dumpEveryTable(service);
      for (const table of ['public.jobs', 'public.audit_events', 'public.users', 'public.web_sessions']) {
        assert.ok(dump.tables.some((t) => t.endsWith(table.split('.')[1]!)), `${table} was dumped`);
      }
      const jobs = await service.services.db.selectFrom('jobs').select('id').execute();
      const audits: string[] = [];
      for (const { id } of jobs) audits.push(JSON.stringify(await auditOf(service, key, id).catch(() => [])));
      const metrics = await (await fetch(`${service.url}/metrics`)).text();
      assert.ok(captured.lines().length > 20, 'the service logged (at debug level) while the tests ran');
      for (const code of typedCodes) {
        assert.ok(!captured.lines().some((line) => containsCode(line, code)), `no log line carries ${code}`);
        assert.ok(!containsCode(dump.text, code), `no database row carries ${code}`);
        assert.ok(!audits.some((a) => containsCode(a, code)), `no audit event carries ${code}`);
        assert.ok(!bodies.some((b) => containsCode(b, code)), `no response body carries ${code}`);
        assert.ok(!containsCode(metrics, code), `no metric carries ${code}`);
      }
      // The handoff pages were requested (and logged) many times: never with their token.
      assert.ok(captured.lines().some((line) => line.includes('/handoff/[redacted]')));
      for (const token of handoffTokens) assert.ok(!captured.lines().some((line) => line.includes(token)), 'no log line carries a handoff token');
    });
  });
}
