import assert from 'node:assert/strict';
import { mkdirSync } from 'node:fs';
import net from 'node:net';
import { after, before, describe, test } from 'node:test';
import type { Browser, BrowserContext, Page, WebSocketRoute } from 'playwright-core';
// @ts-expect-error -- ws ships no type declarations; the tests use a few calls of it.
import NodeWebSocket from 'ws';
import { call, type Reply } from '../helpers/http.ts';
import { mcpClient, textOf, within } from '../helpers/mcp.ts';
import { obtainAccessToken, signedInContext } from '../helpers/oauth.ts';
import { BROWSER_BACKEND, daysFromNow, PROFILE, startTestService, type TestService } from '../helpers/service.ts';
import { auditOf, createJob, requests, waitForJob } from '../executor/helpers.ts';
import { launchChromium, pointOnView, waitForLiveFrames } from './browsers.ts';
import { capturingLogger, containsKeystrokes, distinctCode, lineWithCode, signInAtDevIdp, userIdOf } from './helpers.ts';
import { dumpEveryTable } from '../helpers/db-dump.ts';
import { until } from '../helpers/wait.ts';
import { liveViewOf } from '../../src/browser/live-view.ts';
import { createJob as createCoreJob, getJob } from '../../src/jobs/service.ts';
import { parseExecutionJobRequest } from '../../src/jobs/schemas.ts';
import { transition } from '../../src/jobs/transition.ts';
import { startedTogether } from '../helpers/together.ts';

// The handoff end to end, as the person lives it: a job reaches paused_payment in the real executor
// (real Chromium on the sandbox sites), the person opens handoffUrl in another real Chromium, types
// the card code into the live view of the provider's payment page and presses Enter; the provider
// confirms. Then: the code typed is searched for everywhere the service keeps or says anything.

const PHONE = { viewport: { width: 390, height: 844 }, deviceScaleFactor: 2, isMobile: true, hasTouch: true } as const;

for (const backend of [BROWSER_BACKEND]) {
  describe(`handoff on ${backend.name}`, () => {
    let service: TestService;
    let key: string;
    let person: Browser;
    const captured = capturingLogger();
    /** Every response body the service sent in these tests (API replies, pages the person saw, and
     *  the live view's text messages). */
    const bodies: string[] = [];
    /** How many of them came over the person's live view sockets. */
    let socketTexts = 0;
    /** Those socket messages. */
    const socketMessages: string[] = [];
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
      // What the service says on the live view's socket (status, ended); binary messages are frames.
      context.on('page', (page) => page.on('websocket', (ws) => ws.on('framereceived', ({ payload }) => {
        if (typeof payload !== 'string') return;
        bodies.push(payload);
        socketMessages.push(payload);
        socketTexts += 1;
      })));
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

    /** The person taps the provider's card-code field in the live view and types a new code. */
    const typeCodeOnLiveView = async (page: Page, tab: Page): Promise<void> => {
      const code = await newCode();
      const at = await pointOnView(page, tab, '#tb-cvc');
      await page.touchscreen.tap(at.x, at.y);
      await tab.waitForFunction(() => document.activeElement?.id === 'tb-cvc');
      await page.keyboard.insertText(code);
      await tab.waitForFunction((c) => (document.querySelector('#tb-cvc') as HTMLInputElement).value === c, code);
    };
    /** Codes typed one key at a time on a desktop, with the log lines written meanwhile (searched for one key per line). */
    const keyedCodes: Array<{ code: string; from: number; to: number }> = [];
    /** The person clicks the provider's card-code field in the live view and types a new code key by key (a desktop keyboard). */
    const typeCodeByKeys = async (page: Page, tab: Page, code?: string): Promise<string> => {
      const typed = code ?? (await newCode());
      const at = await pointOnView(page, tab, '#tb-cvc');
      await page.mouse.click(at.x, at.y);
      await tab.waitForFunction(() => document.activeElement?.id === 'tb-cvc');
      const from = captured.lines().length;
      await page.keyboard.type(typed, { delay: 40 });
      await tab.waitForFunction((c) => (document.querySelector('#tb-cvc') as HTMLInputElement).value === c, typed);
      if (!code) keyedCodes.push({ code: typed, from, to: captured.lines().length + 20 });
      return typed;
    };
    /** The confirmation code the handoff page shows once it knows the outcome. */
    /**
     * The page's network to the service's live view, which the test controls: it carries both ways
     * until it goes `quiet` (a locked screen, a lost signal), after which nothing the service sends
     * reaches the page; `drop()` closes the connections it carries. The service's text messages are
     * kept in `bodies`. (The socket's URL carries the page's screen id as a query.)
     */
    const pageNetwork = async (page: Page) => {
      const network = {
        quiet: false,
        sides: [] as WebSocketRoute[],
        connections: 0,
        async drop() {
          for (const ws of network.sides.splice(0)) await ws.close({ code: 1001, reason: 'gone' });
        },
      };
      await page.routeWebSocket(/\/live(\?|$)/, (ws) => {
        network.connections += 1;
        const server = ws.connectToServer();
        server.onMessage((message) => {
          if (typeof message === 'string') bodies.push(message);
          if (!network.quiet) ws.send(message);
        });
        server.onClose((code, reason) => {
          if (!network.quiet) void ws.close({ code, reason });
        });
        network.sides.push(ws);
      });
      return network;
    };
    const shownCode = async (page: Page): Promise<string | null> => {
      const shown = await page.waitForSelector('[data-outcome] [data-confirmation-code]', { timeout: 20_000 });
      return shown.getAttribute('data-confirmation-code');
    };
    /** Types a code in the live view, presses Enter, and reads the confirmation code the page then shows. */
    const payOnLiveView = async (page: Page, tab: Page): Promise<string | null> => {
      await typeCodeOnLiveView(page, tab);
      await page.keyboard.press('Enter');
      return shownCode(page);
    };
    /** Opens the live view's socket from `page`: 'open', or 'refused' at the handshake. */
    /** A restaurant booking taken to paused_payment by the executor (its link's token kept for the final search). */
    const heldBooking = async (restaurantName: string) => {
      const jobId = await createJob(service, key, requests.restaurant({ restaurant_name: restaurantName }));
      const paused = await waitForJob(service, key, jobId);
      assert.equal(paused.status, 'paused_payment', paused.summary);
      handoffTokens.push(paused.handoffUrl.split('/').pop());
      return { jobId, paused };
    };
    /** The person's desktop browser, every answer it gets kept for the final search. */
    const desktopContext = async () => {
      const context = await person.newContext({ viewport: { width: 1280, height: 900 } });
      recordResponses(context);
      return context;
    };
    /** Enter on the live view (the code typed), until the sandbox has charged the card: what it charged. */
    const pressPayAndAwaitCharge = async (page: Page) => {
      const paidBefore = service.sandbox!.confirmations().length;
      await page.keyboard.press('Enter');
      await until('a payment reached the provider', () => service.sandbox!.confirmations().length !== paidBefore, 10_000, 50);
      assert.equal(service.sandbox!.confirmations().length, paidBefore + 1, 'the provider took the payment');
      return service.sandbox!.confirmations().at(-1)!;
    };
    const openSocket = (page: Page, handoffUrl: string) =>
      page.evaluate((url) => new Promise<string>((resolve) => {
        const ws = new WebSocket(url);
        ws.onopen = () => resolve('open');
        ws.onerror = () => resolve('refused');
      }), `${handoffUrl.replace('http', 'ws')}/live`);
    before(async () => {
      [service, person] = await startedTogether([
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
        assert.equal(headers['referrer-policy'], 'no-referrer', 'the token in the URL is never sent on as a Referer');
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
        assert.equal(done.handoffUrl, paused.handoffUrl, 'the link stays on the job: it shows the receipt now');
        const events = await auditOf(service, key, jobId);
        assert.equal(events.at(-1).type, 'job_completed');
        assert.ok(events.at(-1).message.includes(confirmation));

        // The phone comes back from a locked screen and reloads: the link that took the payment now
        // shows what was booked and its code, and opens nothing else.
        const receipt = await page.reload();
        assert.equal(receipt?.status(), 200);
        assert.equal(receipt!.headers()['cache-control'], 'no-store');
        assert.match(receipt!.headers()['content-security-policy']!, /frame-ancestors 'none'/);
        assert.equal(await page.getAttribute('[data-outcome] [data-confirmation-code]', 'data-confirmation-code'), confirmation);
        const booked = await page.innerText('main');
        for (const part of ['Booked', 'What was booked', 'TableBook', 'Casa Azul', '€']) assert.ok(booked.includes(part), `the receipt shows ${part}`);
        assert.equal(await page.locator('[data-live-view], [data-cancel], [data-countdown]').count(), 0, 'no live view, Cancel or countdown any more');
        assert.equal(await openSocket(page, paused.handoffUrl), 'refused', 'the live view of an ended job is refused');
        const status = await page.request.get(`${paused.handoffUrl}/status`);
        assert.equal(status.status(), 200);
        assert.equal(status.headers()['cache-control'], 'no-store');
        const statusText = await status.text();
        bodies.push(statusText);
        assert.deepEqual(JSON.parse(statusText), { t: 'status', status: 'completed', words: 'Booked', confirmationCode: confirmation, open: false });
        const cancelled = await page.request.post(`${paused.handoffUrl}/cancel`, { headers: { origin: new URL(service.url).origin } });
        assert.equal(cancelled.status(), 409, 'a cancel after the payment changes nothing');
        assert.match(await cancelled.text(), /nothing left to cancel/);
        assert.equal((await api('GET', `/api/v1/execution-jobs/${jobId}`)).body.status, 'completed');
      } finally {
        await context.close();
      }
    });

    test('the connection goes quiet as Enter is pressed and drops before the confirmation reaches the page: the page asks, and ends with the code', async () => {
      const { jobId, paused } = await heldBooking('Quiet Quinta');
      const context = await person.newContext(PHONE);
      recordResponses(context);
      const page = await context.newPage();
      const network = await pageNetwork(page);
      try {
        await page.goto(paused.handoffUrl);
        const tab = held(jobId);
        await waitForLiveFrames(page, tab);
        await typeCodeOnLiveView(page, tab);
        assert.equal(network.sides.length, 1, 'the page\'s socket goes through the network the test controls');
        network.quiet = true;
        await page.keyboard.press('Enter');
        const done = await waitForJob(service, key, jobId, { until: ['completed', 'error'] });
        bodies.push(JSON.stringify(done));
        assert.equal(done.status, 'completed', done.summary);
        assert.equal(await page.locator('[data-outcome] [data-confirmation-code]').count(), 0, 'the confirmation has not reached the page');
        // The connection drops; the page is told nothing but that it closed.
        await network.drop();
        assert.equal(await shownCode(page), done.confirmationCode);
        assert.match(await page.innerText('[data-outcome]'), /Booked/);
        assert.ok(await page.locator('[data-cancel]').isHidden(), 'Cancel is gone');
      } finally {
        await context.close();
      }
    });

    test('one screen in control at a time: another screen takes over, the first says so plainly and can take it back; the guard stands aside while one is connected, and comes back when none is', async () => {
      const { jobId, paused } = await heldBooking('Control Cantina');
      const session = service.services.executor.holds.get(jobId)!;
      assert.equal(session.isUserInControl(), false, 'automation holds the tab until someone opens the live view');
      const context = await desktopContext();
      const socketUrl = `${paused.handoffUrl.replace('http', 'ws')}/live`;
      try {
        const [first, second] = [await context.newPage(), await context.newPage()];
        await first.goto(paused.handoffUrl);
        await waitForLiveFrames(first, session.page);
        assert.equal(session.isUserInControl(), true, 'the person is in control while the live view is open');

        // The same link opened on another screen: it takes over, and the first screen says so.
        await second.goto(paused.handoffUrl);
        await waitForLiveFrames(second, session.page);
        await first.waitForSelector('[data-outcome] [data-take-back]');
        assert.match(await first.innerText('[data-outcome]'), /This payment page was opened on another screen/);
        // The message comes first, then the socket's close: the view ends with the close.
        await first.waitForSelector('[data-live-view][data-state="ended"]', { timeout: 5_000 });
        assert.equal(liveViewOf(session.page).viewerCount, 1, 'one screen gets frames');
        assert.equal(session.isUserInControl(), true);

        // Whoever else holds the link (the API client that forwarded it) takes over from a socket of
        // its own: the person's screen says so at once; the person takes it back, and that socket
        // is told and closed, its input going nowhere.
        const other = new NodeWebSocket(socketUrl, { origin: new URL(service.url).origin });
        const heard: string[] = [];
        other.on('message', (data: Buffer, isBinary: boolean) => {
          if (!isBinary) {
            heard.push(String(data));
            bodies.push(String(data));
          }
        });
        const otherClosed = new Promise<number>((resolve) => other.once('close', (code: number) => resolve(code)));
        await new Promise((resolve, reject) => {
          other.once('open', resolve);
          other.once('error', reject);
        });
        other.send(JSON.stringify({ t: 'screen', width: 800, height: 600, pixelRatio: 1 }));
        await second.waitForSelector('[data-outcome] [data-take-back]');
        assert.match(await second.innerText('[data-outcome]'), /This payment page was opened on another screen/);
        await Promise.all([second.waitForEvent('load'), second.click('[data-take-back]')]);
        await waitForLiveFrames(second, session.page);
        assert.equal(await otherClosed, 4000);
        assert.ok(heard.includes(JSON.stringify({ t: 'ended', reason: 'taken_over' })), 'the socket taken over is told why');
        other.send?.(JSON.stringify({ t: 'text', text: '999' }));
        assert.equal(await session.page.inputValue('#tb-cvc'), '', 'nothing it sends reaches the tab');

        // Screens that were taken over leaving do not hand the tab back under the one in control.
        await first.close();
        await new Promise((r) => setTimeout(r, 1_000));
        assert.equal(session.isUserInControl(), true, 'a screen that was taken over left; the one in control still has the tab');

        await second.close();
        await until('nobody in control: automation again', () => !session.isUserInControl(), 5_000, 50);
        // And the guard covers the tab again: a key typed into the code field now is refused there.
        const denied = (await auditOf(service, key, jobId)).filter((e: { type: string }) => e.type === 'action_denied').length;
        await session.page.locator('#tb-cvc').focus();
        await session.page.keyboard.type('5');
        assert.equal(await session.page.inputValue('#tb-cvc'), '', 'nothing reached the field');
        let after: Array<{ type: string; message: string }> = [];
        await until('the guard recorded the refusal', async () => (after = (await auditOf(service, key, jobId)).filter((e: { type: string }) => e.type === 'action_denied')).length > denied, 5_000, 100);
        assert.match(after.at(-1)!.message, /in-page layer/, 'the guard recorded the refusal in the in-page layer');
      } finally {
        await context.close();
        await session.cancel();
      }
    });

    test('a screen whose handshake fails takes nothing: the screen in control keeps the tab, and its keys still reach the provider\'s page', async () => {
      const { jobId, paused } = await heldBooking('Steady Sopa');
      const session = service.services.executor.holds.get(jobId)!;
      const context = await desktopContext();
      try {
        const page = await context.newPage();
        await page.goto(paused.handoffUrl);
        await waitForLiveFrames(page, session.page);
        // A handshake with the link that the server cannot accept (a malformed key): it never
        // becomes a connection, so it takes nothing from the screen in control.
        const { port } = new URL(service.url);
        // Its switches of the tab are recorded: the refused handshake must have got as far as claiming it.
        const switches: boolean[] = [];
        const switchControl = session.setUserInControl.bind(session);
        session.setUserInControl = async (userInControl) => {
          switches.push(userInControl);
          await switchControl(userInControl);
        };
        const handshake = [
          `GET ${new URL(paused.handoffUrl).pathname}/live HTTP/1.1`, `Host: 127.0.0.1:${port}`, `Origin: ${new URL(service.url).origin}`,
          'Upgrade: websocket', 'Connection: Upgrade', 'Sec-WebSocket-Key: not a key', 'Sec-WebSocket-Version: 13', '', '',
        ].join('\r\n');
        const refused = await new Promise<string>((resolve, reject) => {
          const socket = net.connect(Number(port), '127.0.0.1', () => socket.write(handshake));
          let answer = '';
          socket.on('data', (chunk) => (answer += chunk));
          socket.on('close', () => resolve(answer));
          socket.on('error', reject);
        });
        assert.match(refused, /^HTTP\/1\.1 400 /, 'the handshake is refused');
        assert.deepEqual(switches, [true], 'the refused handshake had claimed the tab, before its upgrade failed');
        await new Promise((r) => setTimeout(r, 1_000));
        assert.equal(await page.locator('[data-take-back]').count(), 0, 'the screen in control was not told it was taken over');
        assert.equal(await page.getAttribute('[data-live-view]', 'data-state'), 'live');
        assert.equal(session.isUserInControl(), true);
        await typeCodeByKeys(page, session.page);
      } finally {
        await context.close();
        await session.cancel();
      }
    });

    test('a page taken over while its connection was dropping, which reconnects by itself, is told so: the screen that took over keeps the tab', async () => {
      const { jobId, paused } = await heldBooking('Blip Bacalhau');
      const session = service.services.executor.holds.get(jobId)!;
      // Each screen's switch to the person is let through by the test, one at a time, so the
      // handshakes can be interleaved as a network would.
      const waiting: Array<() => void> = [];
      const switchControl = session.setUserInControl.bind(session);
      session.setUserInControl = async (userInControl) => {
        if (userInControl) await new Promise<void>((resolve) => waiting.push(resolve));
        await switchControl(userInControl);
      };
      const letNextSwitch = async () => {
        await until('a screen waits for its switch', () => waiting.length > 0, 5_000, 25);
        waiting.shift()!();
      };
      const socketUrl = `${paused.handoffUrl.replace('http', 'ws')}/live`;
      /** A screen's socket (Node: the person's Chromium would wait for one handshake at a time), with what it is told. */
      const sockets: Array<{ terminate(): void }> = [];
      const screen = (id: string) => {
        const ws = new NodeWebSocket(`${socketUrl}?screen=${id}`, { origin: new URL(service.url).origin });
        sockets.push(ws);
        const told: string[] = [];
        ws.on('message', (data: Buffer, isBinary: boolean) => {
          if (!isBinary) {
            told.push(String(data));
            bodies.push(String(data));
          }
        });
        const opened = new Promise((resolve, reject) => {
          ws.once('open', resolve);
          ws.once('error', reject);
        });
        const closed = new Promise<number>((resolve) => ws.once('close', (code: number) => resolve(code)));
        return { ws, told, opened, closed };
      };
      const takenOverMessage = JSON.stringify({ t: 'ended', reason: 'taken_over' });
      try {
        const first = screen('screen-a-0123456789');
        await letNextSwitch();
        await within(first.opened);
        // Another screen starts connecting; meanwhile the first page, whose connection it believes
        // dropped, reconnects by itself under the same name.
        const other = screen('screen-b-0123456789');
        await until('the other screen waits for its switch', () => waiting.length > 0, 5_000, 25);
        const again = screen('screen-a-0123456789');
        await until('the reconnect waits for its switch too', () => waiting.length >= 2, 5_000, 25);
        // The other screen opens first: it takes over, and the first page's old connection is told.
        await letNextSwitch();
        await within(other.opened);
        assert.equal(await within(first.closed), 4000);
        assert.ok(first.told.includes(takenOverMessage));
        // The first page's reconnect opens next: it was taken over, so it is told so again, and the
        // other screen keeps the tab.
        await letNextSwitch();
        assert.equal(await within(again.closed), 4000);
        assert.ok(again.told.includes(takenOverMessage), 'the page that reconnected is told it was taken over');
        await new Promise((r) => setTimeout(r, 500));
        assert.equal(other.ws.readyState, NodeWebSocket.OPEN, 'the screen that took over is still connected');
        assert.ok(!other.told.includes(takenOverMessage), 'and was not told it was taken over');
        assert.equal(session.isUserInControl(), true);
        // Leaving, it hands the tab back to automation: it was the one in control.
        other.ws.close();
        await within(other.closed);
        await until('nobody in control: automation again', () => !session.isUserInControl(), 5_000, 25);
      } finally {
        for (const open of waiting.splice(0)) open();
        for (const ws of sockets) ws.terminate();
        await session.cancel();
      }
    });

    test('a screen that takes over while the first is still connecting: the first is told when it opens, and its leaving does not hand the tab back to automation', async () => {
      const { jobId, paused } = await heldBooking('Race Rodizio');
      const session = service.services.executor.holds.get(jobId)!;
      // The first screen's switch to the person takes a while to come back (a slow tab): it is held
      // open, after the guard has switched, until the test lets it finish.
      const calls: boolean[] = [];
      let letFirstFinish!: () => void;
      const firstFinishes = new Promise<void>((resolve) => (letFirstFinish = resolve));
      const switchControl = session.setUserInControl.bind(session);
      session.setUserInControl = async (userInControl) => {
        calls.push(userInControl);
        await switchControl(userInControl);
        if (calls.length === 1) await firstFinishes;
      };
      const context = await desktopContext();
      try {
        const first = await context.newPage();
        await first.goto(paused.handoffUrl);
        await until('the first screen asked for control', () => calls.length > 0, 5_000, 50);
        assert.deepEqual(calls, [true], 'the first screen is taking control');

        // The second screen's socket (from Node: a browser opens one WebSocket to a host at a time, so
        // the person's Chromium would wait for the first handshake) connects and takes over.
        const second = new NodeWebSocket(`${paused.handoffUrl.replace('http', 'ws')}/live`, { origin: new URL(service.url).origin });
        second.on('message', (data: Buffer, isBinary: boolean) => {
          if (!isBinary) bodies.push(String(data));
        });
        await new Promise((resolve, reject) => {
          second.once('open', resolve);
          second.once('error', reject);
        });
        second.send(JSON.stringify({ t: 'screen', width: 800, height: 600, pixelRatio: 1 }));

        // The first screen's switch comes back: it opens, learns it was taken over, and says so.
        letFirstFinish();
        await first.waitForSelector('[data-outcome] [data-take-back]', { timeout: 15_000 });
        assert.match(await first.innerText('[data-outcome]'), /opened on another screen/);
        await first.close();
        await new Promise((r) => setTimeout(r, 1_000));
        assert.ok(!calls.includes(false), 'the first screen leaving did not hand the tab back');
        assert.equal(session.isUserInControl(), true, 'the screen that took over is in control');

        second.close();
        await new Promise((resolve) => second.once('close', resolve));
        await until('the last screen gone, automation again', () => !session.isUserInControl(), 5_000, 50);
        assert.equal(calls.at(-1), false);
      } finally {
        letFirstFinish();
        await context.close();
        await session.cancel();
      }
    });

    test('reconnects: the page in control gets the tab back after its connection drops; a page taken over while offline reconnects by itself but never takes the tab back', async () => {
      const { jobId, paused } = await heldBooking('Reconnect Rotisserie');
      const session = service.services.executor.holds.get(jobId)!;
      const context = await desktopContext();
      const page = await context.newPage();
      const network = await pageNetwork(page);
      // The connection drops with the signal back (what was said meanwhile never reached the page).
      const drop = async () => {
        network.quiet = false;
        await network.drop();
      };
      try {
        await page.goto(paused.handoffUrl);
        await waitForLiveFrames(page, session.page);

        // A blip: the connection drops; the page reconnects and is in control again, not "taken over".
        await drop();
        await until('a second connection', () => network.connections >= 2, 5_000, 50);
        assert.equal(network.connections, 2, 'the page reconnected');
        await page.waitForSelector('[data-live-view][data-state="live"]');
        await new Promise((r) => setTimeout(r, 500));
        assert.equal(await page.locator('[data-take-back]').count(), 0, 'the page did not take over from itself');
        assert.equal(liveViewOf(session.page).viewerCount, 1, 'one connection gets frames: its old one is gone');
        assert.equal(session.isUserInControl(), true);
        const at = await pointOnView(page, session.page, '#tb-cvc');
        await page.mouse.click(at.x, at.y);
        await session.page.waitForFunction(() => document.activeElement?.id === 'tb-cvc');

        // The page loses its signal; meanwhile another screen (the API client's socket) takes over.
        network.quiet = true;
        const other = new NodeWebSocket(`${paused.handoffUrl.replace('http', 'ws')}/live`, { origin: new URL(service.url).origin });
        const heard: string[] = [];
        let otherFrames = 0;
        other.on('message', (data: Buffer, isBinary: boolean) => {
          if (isBinary) otherFrames += 1;
          else {
            heard.push(String(data));
            bodies.push(String(data));
          }
        });
        let otherClosed = false;
        other.once('close', () => (otherClosed = true));
        await new Promise((resolve, reject) => {
          other.once('open', resolve);
          other.once('error', reject);
        });
        other.send(JSON.stringify({ t: 'screen', width: 800, height: 600, pixelRatio: 1 }));
        await until('the other screen has the tab', () => otherFrames > 0, 10_000, 50);

        // The signal comes back and the connection drops: the page, which never heard it was taken
        // over, reconnects by itself. It is told now, and the screen in control keeps the tab.
        await drop();
        await page.waitForSelector('[data-outcome] [data-take-back]', { timeout: 15_000 });
        assert.match(await page.innerText('[data-outcome]'), /This payment page was opened on another screen/);
        assert.ok(network.connections >= 3, 'the page did reconnect');
        await new Promise((r) => setTimeout(r, 1_000));
        assert.equal(otherClosed, false, 'the screen in control was not taken over');
        assert.ok(!heard.some((m) => m.includes('taken_over')), 'nor told so');
        assert.equal(session.isUserInControl(), true);

        // Taking it back is the person's choice: the button.
        await Promise.all([page.waitForEvent('load'), page.click('[data-take-back]')]);
        await waitForLiveFrames(page, session.page);
        await until('the other screen closed', () => otherClosed, 5_000, 50);
        assert.ok(heard.includes(JSON.stringify({ t: 'ended', reason: 'taken_over' })), 'the other screen is told');
      } finally {
        await context.close();
        await session.cancel();
      }
    });

    test('Cancel on the handoff page: error, reason cancelled_by_user, an audit event, the hold released, the link dead', async () => {
      // Busy: the exact time is full, the executor moved it (as the consent allows); the page says so.
      const jobId = await createJob(service, key, requests.restaurant({ restaurant_name: `Busy Cancel Corner ${Math.random().toString(36).slice(2, 6)}` }));
      const paused = await waitForJob(service, key, jobId);
      assert.equal(paused.status, 'paused_payment');
      handoffTokens.push(paused.handoffUrl.split('/').pop());
      const tab = held(jobId);
      const context = await desktopContext();
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
        assert.equal(job.handoffUrl, paused.handoffUrl, 'the link stays on the job: it shows the cancellation');
        const last = (await auditOf(service, key, jobId)).at(-1);
        assert.equal(last.type, 'job_aborted');
        assert.equal(last.reason, 'cancelled_by_user');
        assert.equal(service.services.executor.holds.get(jobId), undefined, 'the hold is released');
        await until('the held tab is closed', () => tab.isClosed(), 10_000, 50);
        const later = await fetch(paused.handoffUrl);
        assert.equal(later.status, 200);
        const laterText = await later.text();
        assert.match(laterText, /Booking cancelled/);
        assert.match(laterText, /nothing was charged/);
        assert.ok(!laterText.includes('data-live-view') && !laterText.includes('data-cancel'), 'the link opens no live view and no Cancel');
        const audited = (await auditOf(service, key, jobId)).length;
        const replay = await fetch(`${paused.handoffUrl}/cancel`, { method: 'POST', headers: { origin: new URL(service.url).origin } });
        assert.equal(replay.status, 409, 'cancelling again changes nothing');
        assert.match(await replay.text(), /nothing left to cancel/);
        assert.equal((await auditOf(service, key, jobId)).length, audited, 'and records nothing');
      } finally {
        await context.close();
      }
    });

    test('Cancel while the payment is in flight (the provider answers 3 s late) is refused: "your payment is being processed", and the job completes with the code the provider issued', async () => {
      // Slow Pay: the sandbox charges the card on the Pay POST and answers it 3 s later.
      const { jobId, paused } = await heldBooking('Slow Pay Sardinha');
      const tab = held(jobId);
      const context = await desktopContext();
      const page = await context.newPage();
      // The provider's answer waits until the Cancel has been refused (not only its 3 s).
      const answerHeld = service.sandbox!.holdSlowPayAnswers();
      try {
        await page.goto(paused.handoffUrl);
        await waitForLiveFrames(page, tab);
        await typeCodeByKeys(page, tab);
        // The provider has the payment (it charged), and has not answered yet.
        const charged = await pressPayAndAwaitCharge(page);
        await new Promise((r) => setTimeout(r, 800));
        const [answer] = await Promise.all([page.waitForResponse((r) => r.url().endsWith('/cancel')), page.click('[data-cancel] button')]);
        assert.equal(answer.status(), 409);
        assert.match(await page.innerText('h1'), /Your payment is being processed/);
        const refusal = await page.innerText('main');
        assert.doesNotMatch(refusal, /nothing was charged|booking cancelled/i);
        assert.equal((await api('GET', `/api/v1/execution-jobs/${jobId}`)).body.status, 'paused_payment', 'the cancel changed nothing');
        answerHeld();

        const done = await waitForJob(service, key, jobId, { until: ['completed', 'error'] });
        bodies.push(JSON.stringify(done));
        assert.equal(done.status, 'completed', done.summary);
        assert.equal(done.confirmationCode, charged.code, 'the code the provider issued');
        const types = (await auditOf(service, key, jobId)).map((e: { type: string }) => e.type);
        assert.ok(!types.includes('job_aborted'), 'no cancel was recorded');
        // Back on the payment page (the refusal links to it): the code.
        await page.click('a[href$="' + paused.handoffUrl.split('/').pop() + '"]');
        assert.equal(await page.getAttribute('[data-outcome] [data-confirmation-code]', 'data-confirmation-code'), charged.code);
        assert.doesNotMatch(await page.innerText('main'), /nothing was charged/i);
      } finally {
        answerHeld();
        await context.close();
      }
    });

    test('the booking ended by another process while the payment was in flight, then the provider confirmed: the pages showing the ending turn into the confirmation', async () => {
      // Slow Pay: the sandbox charges the card on the Pay POST and answers it later.
      const { jobId, paused } = await heldBooking('Slow Pay Late Lisboa');
      const tab = held(jobId);
      const context = await desktopContext();
      const page = await context.newPage();
      // The provider's answer waits until both pages have been seen showing the ending.
      const answer = service.sandbox!.holdSlowPayAnswers();
      try {
        await page.goto(paused.handoffUrl);
        await waitForLiveFrames(page, tab);
        await typeCodeByKeys(page, tab);
        const charged = await pressPayAndAwaitCharge(page);
        // Another process records the person's cancel without seeing the payment (its mark had not
        // reached the database yet), while the provider is still answering.
        await transition(service.services.db, jobId, {
          to: 'error', from: ['paused_payment'],
          event: { type: 'job_aborted', message: 'The person cancelled the booking held at TableBook; the hold is released.', data: { reason: 'cancelled_by_user', providerOutcome: 'manual_override' } },
          set: { error: JSON.stringify({ reason: 'cancelled_by_user', step: 'payment', provider: 'tablebook', message: 'the person cancelled at the handoff' }), completed_at: new Date(), hold_instance: null },
        });
        await page.waitForFunction(() => /Cancelled by you[\s\S]*nothing was charged/.test(document.querySelector('[data-outcome]')?.textContent ?? ''));
        // A second screen opens the link now: the outcome page, which says the same for the moment.
        const outcomePage = await context.newPage();
        await outcomePage.goto(paused.handoffUrl);
        assert.match(await outcomePage.innerText('h1'), /Booking cancelled/);
        answer();

        const done = await waitForJob(service, key, jobId, { until: ['completed'] });
        bodies.push(JSON.stringify(done));
        assert.equal(done.confirmationCode, charged.code, 'the provider confirmed: the booking is made');
        // Both pages now show the code, with no reload by the person.
        const code = '[data-outcome] [data-confirmation-code]';
        await page.waitForSelector(code, { timeout: 15_000 });
        assert.equal(await page.getAttribute(code, 'data-confirmation-code'), charged.code);
        assert.doesNotMatch(await page.innerText('[data-outcome]'), /cancelled|nothing was charged/i);
        await outcomePage.waitForSelector(code, { timeout: 15_000 });
        assert.equal(await outcomePage.getAttribute(code, 'data-confirmation-code'), charged.code);
        assert.equal(new URL(outcomePage.url()).pathname, new URL(paused.handoffUrl).pathname);
        // The status says no more is to come; an ending nothing can overturn is not watched.
        const status = await (await fetch(`${paused.handoffUrl}/status`)).json();
        assert.equal(status.status, 'completed');
        assert.equal(status.confirmationMayFollow, undefined);
      } finally {
        answer();
        await context.close();
      }
    });

    test('a payment submitted that the provider did not confirm, then Cancel: the page says to check with the provider, never that nothing was charged', async () => {
      const { jobId, paused } = await heldBooking('Turned Down Tasca');
      const tab = held(jobId);
      const context = await desktopContext();
      const page = await context.newPage();
      try {
        await page.goto(paused.handoffUrl);
        await waitForLiveFrames(page, tab);
        // Two digits: the provider turns the payment down (its page asks again).
        await typeCodeByKeys(page, tab, '12');
        await Promise.all([tab.waitForResponse((r) => r.request().method() === 'POST'), page.keyboard.press('Enter')]);
        await tab.waitForSelector('#tb-cvc');
        await until('the declined payment no longer in flight', () => !service.services.executor.holds.get(jobId)?.paymentInFlight(), 10_000, 50);
        await Promise.all([page.waitForURL(/\/cancel$/), page.click('[data-cancel] button')]);
        assert.match(await page.innerText('h1'), /Payment not confirmed/);
        const text = await page.innerText('main');
        assert.match(text, /Check with TableBook whether your card was charged/);
        assert.doesNotMatch(text, /nothing was charged/i);
        const job = (await api('GET', `/api/v1/execution-jobs/${jobId}`)).body;
        assert.equal(job.status, 'error');
        assert.equal(job.error.reason, 'cancelled_by_user');
        assert.equal(job.error.paymentUncertain, true);
        const later = await fetch(paused.handoffUrl);
        const laterText = await later.text();
        assert.match(laterText, /Check with TableBook/);
        assert.doesNotMatch(laterText, /nothing was charged/i);
      } finally {
        await context.close();
      }
    });

    test('refusals: an unknown token, a cancel from another origin, a live view from another origin', async () => {
      const unknown = await fetch(`${service.url}/handoff/${'A'.repeat(43)}`);
      assert.equal(unknown.status, 404);
      assert.equal(unknown.headers.get('cache-control'), 'no-store');
      const unknownStatus = await fetch(`${service.url}/handoff/${'A'.repeat(43)}/status`);
      assert.equal(unknownStatus.status, 404);
      assert.deepEqual(await unknownStatus.json(), { error: { code: 'not_found', message: 'This payment link is not valid.' } });

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
      const bob = await signedInContext(service, person, 'bob@example.com');
      try {
        const booked = await mcp.client.callTool({ name: 'book_restaurant', arguments: { restaurant_name: 'Mcp Marisqueira', city: 'Porto', date: daysFromNow(9), time: '20:00', covers: 3, profile: PROFILE } });
        const { jobId } = textOf(booked);
        const jobStatus = async () => textOf(await mcp.client.callTool({ name: 'get_job_status', arguments: { jobId } }));
        let status: any;
        await until('the run paused or ended', async () => !['queued', 'running'].includes((status = await jobStatus()).status), 150_000, 150);
        assert.equal(status.status, 'paused_payment', JSON.stringify(status));
        const handoffUrl: string = status.handoffUrl;
        assert.ok(handoffUrl);
        handoffTokens.push(handoffUrl.split('/').pop()!);

        // Another signed-in user: 403, and nothing about the job.
        const bobRefused = async (secrets: string[]) => {
          const page = await bob.newPage();
          const response = await page.goto(handoffUrl);
          assert.equal(response?.status(), 403);
          const body = await response!.text();
          for (const secret of secrets) assert.ok(!body.includes(secret), `the refusal says nothing of ${secret}`);
          assert.equal(await openSocket(page, handoffUrl), 'refused', 'the live view refuses him too');
          const status = await page.request.get(`${handoffUrl}/status`);
          assert.equal(status.status(), 403);
          const statusBody = await status.text();
          for (const secret of secrets) assert.ok(!statusBody.includes(secret), `the status refusal says nothing of ${secret}`);
          await page.close();
        };
        await bobRefused(['Mcp Marisqueira', 'Porto', jobId, 'TableBook', '€', 'paused_payment']);

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

          await until('the job no longer paused for payment', async () => (status = await jobStatus()).status !== 'paused_payment', 10_000, 100);
          bodies.push(JSON.stringify(status));
          assert.equal(status.status, 'done');
          assert.equal(status.confirmationCode, confirmation);
          const audit = textOf(await mcp.client.callTool({ name: 'get_job_audit', arguments: { jobId } }));
          bodies.push(JSON.stringify(audit));

          // Afterwards the link shows its owner the receipt, and still tells Bob nothing.
          await page.reload();
          assert.equal(await page.getAttribute('[data-outcome] [data-confirmation-code]', 'data-confirmation-code'), confirmation);
          await bobRefused(['Mcp Marisqueira', 'Porto', jobId, 'TableBook', '€', confirmation!, 'Booked', 'completed']);
          const signedOut = await fetch(handoffUrl, { redirect: 'manual' });
          assert.equal(signedOut.status, 303, 'signed out, the receipt is behind sign-in too');
          assert.match(signedOut.headers.get('location')!, /signin/);
          const signedOutStatus = await fetch(`${handoffUrl}/status`);
          assert.equal(signedOutStatus.status, 401);
          assert.ok(!(await signedOutStatus.text()).includes(confirmation!), 'and so is its status');
        } finally {
          await context.close();
        }
      } finally {
        await bob.close();
        await mcp.close();
      }
    });

    test('an OAuth user\'s booking: HTML in its names is text; a signed-out Cancel signs in and comes back to the page; a Cancel without or with a wrong CSRF token changes nothing; the receipt stays 30 minutes after the end, then the link is gone', async () => {
      const cara = await signedInContext(service, person, 'cara@example.com');
      recordResponses(cara);
      const caraId = await userIdOf(service, 'cara@example.com');
      // A venue name carrying markup, as an agent might pass it on: shown as text everywhere.
      const venue = 'Tasca <img src=x data-injected onerror="document.title=1"> & "Co"';
      const parsed = parseExecutionJobRequest(requests.restaurant({ restaurant_name: venue }));
      assert.ok(parsed.ok);
      const { job: created } = await createCoreJob(service.services.jobs, { kind: 'user', userId: caraId, clientId: null }, parsed.value);
      const jobId = created.jobId;
      let job = created;
      await until('the run paused or ended', async () => ['paused_payment', 'error', 'completed'].includes((job = (await getJob(service.services.jobs, null, jobId))!).status), 150_000, 100);
      assert.equal(job.status, 'paused_payment', job.summary);
      const handoffUrl = service.services.links.handoffUrl(job)!;
      handoffTokens.push(handoffUrl.split('/').pop()!);
      const readStatus = async () => (await getJob(service.services.jobs, null, jobId))!;
      const auditCount = async () => (await service.services.db.selectFrom('audit_events').select('id').where('job_id', '=', jobId).execute()).length;
      try {
        const page = await cara.newPage();
        const opened = await page.goto(handoffUrl);
        assert.equal(opened?.status(), 200);
        assert.equal(opened!.headers()['referrer-policy'], 'no-referrer');
        assert.ok((await page.innerText('main')).includes(venue), 'the venue is shown as written, markup and all');
        assert.equal(await page.locator('[data-injected]').count(), 0, 'no element was injected');
        await page.waitForSelector('[data-live-view][data-state="live"]');

        // The same on /bookings, with a provider name carrying markup too.
        await service.services.db.updateTable('jobs').set({ provider_id: '<i data-injected>tb</i>' }).where('id', '=', jobId).execute();
        const bookings = await cara.newPage();
        const listed = await bookings.goto(`${service.url}/bookings`);
        assert.equal(listed!.headers()['referrer-policy'], 'no-referrer');
        const item = bookings.locator(`li[data-job-id="${jobId}"]`);
        const itemText = await item.innerText();
        assert.ok(itemText.includes(venue), 'the booking shows the venue as written');
        assert.ok(itemText.includes('<i data-injected>tb</i>'), 'and the provider name as written');
        assert.equal(await bookings.locator('[data-injected]').count(), 0, 'no element was injected');
        await bookings.close();
        await service.services.db.updateTable('jobs').set({ provider_id: 'tablebook' }).where('id', '=', jobId).execute();

        // Signed out meanwhile (the session ended in another tab), she presses Cancel: she signs in
        // and is back on the payment page (not on the Cancel POST's address), the booking untouched.
        await cara.clearCookies();
        await page.click('[data-cancel] button');
        await signInAtDevIdp(page, 'cara@example.com');
        await page.waitForURL(handoffUrl);
        assert.equal((await page.request.get(page.url())).status(), 200);
        assert.equal(await page.locator('[data-cancel]').count(), 1, 'the payment page, with its Cancel');
        assert.equal((await readStatus()).status, 'paused_payment', 'the cancel was not carried out');

        // Her session's CSRF token is required: without it, or with a wrong one, 403 and nothing changes.
        const audited = await auditCount();
        for (const csrf of [null, 'not-the-token']) {
          await page.goto(handoffUrl);
          await page.evaluate((value) => {
            const input = document.querySelector('[data-cancel] input[name=csrf]') as HTMLInputElement;
            if (value === null) input.remove();
            else input.value = value;
          }, csrf);
          const [answer] = await Promise.all([page.waitForResponse((r) => r.url().endsWith('/cancel')), page.click('[data-cancel] button')]);
          assert.equal(answer.status(), 403, `a Cancel ${csrf === null ? 'without' : 'with a wrong'} CSRF token is refused`);
          assert.match(await page.innerText('h1'), /Not allowed/);
          assert.equal((await readStatus()).status, 'paused_payment', 'nothing changed');
          assert.equal(await auditCount(), audited, 'and nothing was recorded');
        }

        // With it: cancelled.
        await page.goto(handoffUrl);
        await Promise.all([page.waitForURL(/\/cancel$/), page.click('[data-cancel] button')]);
        assert.match(await page.innerText('h1'), /Booking cancelled/);
        assert.equal((await readStatus()).error?.reason, 'cancelled_by_user');

        // The receipt stays for 30 minutes after the end...
        const endedAgo = (minutes: number) => service.services.db.updateTable('jobs').set({ completed_at: new Date(Date.now() - minutes * 60_000) }).where('id', '=', jobId).execute();
        await endedAgo(29);
        const receipt = await page.goto(handoffUrl);
        assert.equal(receipt?.status(), 200);
        assert.match(await page.innerText('main'), /Booking cancelled/);
        // ...then the link is gone, for everyone, and says nothing of the booking.
        await endedAgo(31);
        const gone = await page.goto(handoffUrl);
        assert.equal(gone?.status(), 410);
        assert.equal(gone!.headers()['referrer-policy'], 'no-referrer');
        const goneText = await page.innerText('main');
        assert.match(goneText, /This payment link has expired/);
        for (const secret of ['Tasca', 'TableBook', '€', jobId, 'cancelled']) assert.ok(!goneText.includes(secret), `the expired link says nothing of ${secret}`);
        const goneStatus = await page.request.get(`${handoffUrl}/status`);
        assert.equal(goneStatus.status(), 410);
        assert.deepEqual(await goneStatus.json(), { error: { code: 'gone', message: 'This payment link has expired. If you booked through an app, it has the outcome; if you booked signed in, your bookings page shows it.' } });
        const signedOut = await fetch(handoffUrl, { redirect: 'manual' });
        assert.equal(signedOut.status, 410, 'signed out too: gone, not a sign-in');
        assert.equal((await fetch(`${handoffUrl}/status`)).status, 410);
        const lateCancel = await page.request.post(`${handoffUrl}/cancel`, { headers: { origin: new URL(service.url).origin }, form: { csrf: 'x' } });
        assert.equal(lateCancel.status(), 403, 'a cancel is still refused (its CSRF check comes first)');
        const apiCancel = await fetch(`${handoffUrl}/cancel`, { method: 'POST', headers: { origin: new URL(service.url).origin } });
        assert.equal(apiCancel.status, 410);
        assert.ok(!(await apiCancel.text()).includes('Tasca'));
        assert.equal(await openSocket(page, handoffUrl), 'refused', 'and so is the live view');
        // Her bookings page still has it.
        await page.goto(`${service.url}/bookings`);
        assert.equal(await page.locator(`li[data-job-id="${jobId}"][data-status="error"]`).count(), 1);
      } finally {
        await cara.close();
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
      assert.ok(socketTexts >= 4, 'the live view sockets\' text messages were captured');
      assert.ok(bodies.some((b) => b.startsWith('{"t":"status"') && b.includes('"status":"completed"')));
      // No assertion on the socket's `{t:'ended'}`: it follows the final status in the same tick, and
      // the page closes its socket on that status, so the browser may drop it (WHATWG: no message
      // events once closing). It carries only a reason word.
      // The search finds a code however it leaked, and not a UUID's or a duration's digits.
      for (const leak of ['{"cvc":"7744"}', 'GET /pay?cvc=7744&x=1', 'code 7744.', '{"value":7744}']) assert.equal(lineWithCode([leak], '7744'), leak);
      for (const chance of ['"reqId":"1b2c3d4e-7744-4abc-8def-0123456789ab"', '"responseTime":7744.21', '"t":12.7744', 'svk_test_ab_7744-cd', ':17744']) assert.equal(lineWithCode([chance], '7744'), undefined, chance);
      for (const code of typedCodes) {
        // Each search names the line it found, so a chance match can be told from a leak.
        assert.equal(lineWithCode(captured.lines(), code), undefined, `no log line carries ${code}`);
        assert.equal(lineWithCode(dump.text.split('\n'), code), undefined, `no database row carries ${code}`);
        assert.equal(lineWithCode(audits, code), undefined, `no audit event carries ${code}`);
        assert.equal(lineWithCode(bodies, code), undefined, `no response body carries ${code}`);
        assert.equal(lineWithCode(metrics.split('\n'), code), undefined, `no metric carries ${code}`);
      }
      // Codes typed key by key on a desktop keyboard travel as one message per key: a code logged
      // (or echoed) one keystroke at a time would not contain it whole. Searched as such, in the
      // log lines written while each was typed, and in every socket message.
      assert.ok(keyedCodes.length >= 1, 'codes were typed key by key on a desktop');
      assert.ok(containsKeystrokes(['{"t":"key","action":"down","key":"5"}', '{"msg":"other"}', '{"key":"7"}{"key":"3"}', '{"text":"1"}'], '5731'), 'the search finds a code logged one key at a time');
      for (const { code, from, to } of keyedCodes) {
        assert.ok(!containsKeystrokes(captured.lines().slice(from, to), code), `no log lines carry ${code} one keystroke at a time`);
        assert.ok(!containsKeystrokes(socketMessages, code), `no socket messages carry ${code} one keystroke at a time`);
      }
      // The handoff pages were requested (and logged) many times: never with their token.
      assert.ok(captured.lines().some((line) => line.includes('/handoff/[redacted]')));
      for (const token of handoffTokens) assert.ok(!captured.lines().some((line) => line.includes(token)), 'no log line carries a handoff token');
    });
  });
}
