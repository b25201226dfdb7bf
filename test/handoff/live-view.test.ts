import assert from 'node:assert/strict';
import { Writable } from 'node:stream';
import { after, before, describe, test } from 'node:test';
import Fastify, { type FastifyBaseLogger, type FastifyInstance } from 'fastify';
import websocket from '@fastify/websocket';
import type { Browser, BrowserContext, Page } from 'playwright-core';
// @ts-expect-error -- ws ships no type declarations; the tests use a few calls of it.
import WebSocket from 'ws';
import { startSandbox, type Sandbox } from '../../sandbox/index.ts';
import { until } from '../helpers/wait.ts';
import { liveViewOf } from '../../src/browser/live-view.ts';
import { createLogger } from '../../src/observability/logger.ts';
import { LIVE_VIEW_CLIENT_PATH, liveViewClientRoute, liveViewSocketRoute } from '../../src/web/live-view-routes.ts';
import { clickAndNavigate, HOOKS, walkToReview } from '../sandbox/drivers.ts';
import { launchChromium, pointOnView, waitForLiveFrames } from './browsers.ts';
import { distinctCode, lineWithCode } from './helpers.ts';
import { startedTogether } from '../helpers/together.ts';

// The live view on its own: a sandbox payment page opened directly with Playwright (as the executor
// would hold it), served to a second Chromium acting as the person.

let sandbox: Sandbox;
let heldBrowser: Browser;
let personBrowser: Browser;
let heldContext: BrowserContext;
let app: FastifyInstance;
let base: string;
const logLines: string[] = [];
const tabs = new Map<string, { page: Page; mode: 'watch' | 'control' }>();

before(async () => {
  [sandbox, heldBrowser, personBrowser] = await startedTogether([startSandbox(), launchChromium(), launchChromium()]);
  heldContext = await heldBrowser.newContext({ viewport: { width: 1280, height: 720 } });
  const log = createLogger('trace', new Writable({ write(chunk, _enc, done) { logLines.push(String(chunk)); done(); } }));
  app = Fastify({ loggerInstance: log as unknown as FastifyBaseLogger });
  await app.register(websocket, { options: { maxPayload: 4096 } });
  liveViewClientRoute(app);
  app.get<{ Params: { id: string } }>('/view/:id', async (request, reply) => {
    const tab = tabs.get(request.params.id);
    reply.type('text/html; charset=utf-8');
    return `<!doctype html><meta name="viewport" content="width=device-width,initial-scale=1">
<style>body{margin:0} [data-live-view] canvas{width:100%;display:block;touch-action:none} [data-live-keys]{position:absolute;opacity:0;left:0;top:0;width:1px;height:1px;font-size:16px}</style>
<div data-live-view data-socket="/view/${request.params.id}/live" data-mode="${tab?.mode ?? 'watch'}"><canvas></canvas><input data-live-keys autocomplete="off" aria-label="keyboard"></div>
<script src="${LIVE_VIEW_CLIENT_PATH}"></script>`;
  });
  await app.register(async (scope) => {
    liveViewSocketRoute(scope, '/view/:id/live', {
      get allowedOrigin() {
        return base;
      },
      authorize: async (request) => {
        const tab = tabs.get((request.params as { id: string }).id);
        return tab ? { view: liveViewOf(tab.page), mode: tab.mode } : { refused: 404, message: 'no such view' };
      },
    });
  });
  base = await app.listen({ host: '127.0.0.1', port: 0 });
});

after(async () => {
  await app?.close();
  await Promise.all([heldBrowser?.close(), personBrowser?.close()]);
  await sandbox?.close();
});

async function holdPaymentPage(venue: string): Promise<Page> {
  const page = await heldContext.newPage();
  await walkToReview(page, sandbox.origin('tablebook'), 'tablebook', venue, true);
  await clickAndNavigate(page, HOOKS.tablebook.reviewContinue);
  await page.waitForSelector('#tb-cvc');
  return page;
}

function openSocket(path: string, origin?: string): Promise<{ status: number } | { open: any }> {
  return new Promise((resolve, reject) => {
    const ws = new WebSocket(base.replace('http', 'ws') + path, origin ? { origin } : {});
    ws.once('open', () => resolve({ open: ws }));
    ws.once('unexpected-response', (_req: unknown, res: { statusCode?: number }) => resolve({ status: res.statusCode ?? 0 }));
    ws.once('error', reject);
  });
}

describe('live view of a held payment page (real Chromium on both sides)', () => {
  test('desktop: click the code field in the view, type, press Enter: the provider confirms', async () => {
    const held = await holdPaymentPage('Live View Desktop');
    tabs.set('desk', { page: held, mode: 'control' });
    const person = await personBrowser.newPage({ viewport: { width: 1280, height: 900 } });
    try {
      await person.goto(`${base}/view/desk`);
      await waitForLiveFrames(person, held);
      const at = await pointOnView(person, held, '#tb-cvc');
      await person.mouse.click(at.x, at.y);
      await held.waitForFunction(() => document.activeElement?.id === 'tb-cvc');
      // A code the log does not already hold by chance, searched for as a whole token: '739' once
      // turned up inside a logged timestamp.
      const typed = distinctCode(logLines.join('\n'));
      await person.keyboard.type(typed);
      await held.waitForFunction((c) => (document.querySelector('#tb-cvc') as HTMLInputElement).value === c, typed);
      const before = sandbox.confirmations().length;
      await Promise.all([held.waitForURL(/\/confirmed$/), person.keyboard.press('Enter')]);
      const code = await held.getAttribute('[data-confirmation-code]', 'data-confirmation-code');
      assert.ok(code);
      const confirmations = sandbox.confirmations();
      assert.equal(confirmations.length, before + 1);
      assert.deepEqual(confirmations.at(-1), { provider: 'tablebook', code, paidWithCard: true });
      assert.equal(lineWithCode(logLines, typed), undefined, 'the typed code appears in no log line');
    } finally {
      await person.close();
      await held.close();
    }
  });

  test('phone: tap the field, type on the on-screen keyboard (text input), Enter: the provider confirms', async () => {
    const held = await holdPaymentPage('Live View Phone');
    tabs.set('phone', { page: held, mode: 'control' });
    const phone = await personBrowser.newContext({ viewport: { width: 390, height: 844 }, deviceScaleFactor: 3, isMobile: true, hasTouch: true });
    const person = await phone.newPage();
    try {
      await person.goto(`${base}/view/phone`);
      await waitForLiveFrames(person, held);
      const size = held.viewportSize();
      assert.ok(size && size.width === 390, `the held tab takes the phone's width (got ${JSON.stringify(size)})`);
      const at = await pointOnView(person, held, '#tb-cvc');
      await person.touchscreen.tap(at.x, at.y);
      await held.waitForFunction(() => document.activeElement?.id === 'tb-cvc');
      assert.equal(await person.evaluate(() => document.activeElement?.hasAttribute('data-live-keys')), true, 'the keyboard sink has focus (the phone shows its keyboard)');
      await person.keyboard.insertText('4');
      await person.keyboard.insertText('81');
      await held.waitForFunction(() => (document.querySelector('#tb-cvc') as HTMLInputElement).value === '481');
      assert.equal(await person.inputValue('[data-live-keys]'), '\u200b', 'nothing typed stays in the viewer page');
      const before = sandbox.confirmations().length;
      await Promise.all([held.waitForURL(/\/confirmed$/), person.keyboard.press('Enter')]);
      assert.equal(sandbox.confirmations().length, before + 1);
    } finally {
      await phone.close();
      await held.close();
    }
  });

  test('watch mode: frames arrive, input goes nowhere, the tab keeps its size', async () => {
    const held = await holdPaymentPage('Live View Watch');
    await held.focus('#tb-cvc');
    tabs.set('watch', { page: held, mode: 'watch' });
    const person = await personBrowser.newPage({ viewport: { width: 800, height: 600 } });
    try {
      await person.goto(`${base}/view/watch`);
      await waitForLiveFrames(person, held);
      assert.deepEqual(held.viewportSize(), { width: 1280, height: 720 });
      const at = await pointOnView(person, held, '#tb-cvc');
      await person.mouse.click(at.x, at.y);
      await person.focus('[data-live-keys]');
      await person.keyboard.type('222');
      await person.keyboard.press('Enter');
      // Also a hand-made socket sending input straight away.
      const raw = await openSocket('/view/watch/live', base);
      assert.ok('open' in raw);
      raw.open.send(JSON.stringify({ t: 'screen', width: 400, height: 400, pixelRatio: 1 }));
      raw.open.send(JSON.stringify({ t: 'text', text: '333' }));
      raw.open.send(JSON.stringify({ t: 'key', action: 'down', key: 'Enter' }));
      await new Promise((r) => setTimeout(r, 300));
      raw.open.close();
      assert.equal(await held.inputValue('#tb-cvc'), '');
      assert.match(held.url(), /\/payment$/);
    } finally {
      await person.close();
      await held.close();
    }
  });

  test('the screencast stops when the last viewer leaves; a closed tab ends its viewers', async () => {
    const held = await holdPaymentPage('Live View Leave');
    tabs.set('leave', { page: held, mode: 'watch' });
    const person = await personBrowser.newPage();
    await person.goto(`${base}/view/leave`);
    await waitForLiveFrames(person, held);
    assert.equal(liveViewOf(held).viewerCount, 1);
    await person.close();
    await until('the last viewer gone', () => liveViewOf(held).viewerCount === 0, 10_000, 50);

    const again = await personBrowser.newPage();
    try {
      await again.goto(`${base}/view/leave`);
      await waitForLiveFrames(again, held);
      await held.close();
      await again.waitForSelector('[data-live-view][data-state="ended"]');
    } finally {
      await again.close();
    }
  });

  test('a tab held for the person stops being watchable: watchers end at once, a new one gets no frame, the viewer in control stays', async () => {
    const held = await holdPaymentPage('Live View Held');
    tabs.set('held-watch', { page: held, mode: 'watch' });
    tabs.set('held-control', { page: held, mode: 'control' });
    const watcher = await personBrowser.newPage();
    const payer = await personBrowser.newPage();
    try {
      await watcher.goto(`${base}/view/held-watch`);
      await waitForLiveFrames(watcher, held);
      await payer.goto(`${base}/view/held-control`);
      await waitForLiveFrames(payer, held);
      assert.equal(liveViewOf(held).viewerCount, 2);

      liveViewOf(held).endWatching();
      assert.equal(liveViewOf(held).viewerCount, 1, 'the watcher gets no further frame');
      await watcher.waitForSelector('[data-live-view][data-state="ended"]');

      const late = await openSocket('/view/held-watch/live', base);
      assert.ok('open' in late);
      const received: string[] = [];
      late.open.on('message', (data: Buffer, isBinary: boolean) => received.push(isBinary ? 'frame' : String(data)));
      const closed = new Promise<number>((resolve) => late.open.once('close', (code: number) => resolve(code)));
      late.open.send(JSON.stringify({ t: 'screen', width: 400, height: 400, pixelRatio: 1 }));
      assert.equal(await closed, 4000);
      assert.deepEqual(received, [JSON.stringify({ t: 'ended', reason: 'held' })], 'a late watcher is told, and shown nothing');

      assert.equal(liveViewOf(held).viewerCount, 1);
      assert.equal(await payer.getAttribute('[data-live-view]', 'data-state'), 'live', 'the person keeps their view');
    } finally {
      await watcher.close();
      await payer.close();
      await held.close();
    }
  });

  test('a flood of screen reports neither makes the held tab jump nor restarts the screencast under the other viewers: in control or watching', async () => {
    const held = await holdPaymentPage('Live View Flood');
    tabs.set('flood-control', { page: held, mode: 'control' });
    tabs.set('flood-watch', { page: held, mode: 'watch' });
    await held.evaluate(() => {
      (window as unknown as { resizes: number }).resizes = 0;
      window.addEventListener('resize', () => (window as unknown as { resizes: number }).resizes++);
    });
    const resizes = () => held.evaluate(() => (window as unknown as { resizes: number }).resizes);
    // Every (re)start of the tab's screencast, counted on the CDP session the live view opens.
    let starts = 0;
    const newCDPSession = heldContext.newCDPSession.bind(heldContext);
    heldContext.newCDPSession = async (page) => {
      const session = await newCDPSession(page);
      const send = session.send.bind(session);
      session.send = ((method: string, params?: object) => {
        if (method === 'Page.startScreencast') starts++;
        return send(method as 'Page.startScreencast', params as never);
      }) as typeof session.send;
      return session;
    };
    // A bystander watching all along.
    const bystander = await openSocket('/view/flood-watch/live', base);
    assert.ok('open' in bystander);
    bystander.open.send(JSON.stringify({ t: 'screen', width: 500, height: 400, pixelRatio: 1 }));
    const flood = async (path: string) => {
      const raw = await openSocket(path, base);
      assert.ok('open' in raw);
      raw.open.send(JSON.stringify({ t: 'screen', width: 800, height: 600, pixelRatio: 1 }));
      await new Promise((r) => setTimeout(r, 1_000));
      const [resizedBefore, startsBefore] = [await resizes(), starts];
      for (let i = 0; i < 2000; i++) {
        const big = i % 2 === 0;
        raw.open.send(JSON.stringify({ t: 'screen', width: big ? 1200 : 400, height: big ? 900 : 500, pixelRatio: big ? 2 : 1 }));
      }
      await new Promise((r) => setTimeout(r, 1_500));
      const result = { resized: (await resizes()) - resizedBefore, restarts: starts - startsBefore };
      raw.open.close();
      return result;
    };
    try {
      const watching = await flood('/view/flood-watch/live');
      assert.equal(watching.resized, 0, 'a watcher never changes the tab');
      assert.ok(watching.restarts <= 2, `a watcher's flood restarted the screencast ${watching.restarts} times under the bystander`);
      const controlling = await flood('/view/flood-control/live');
      assert.ok(controlling.resized <= 3, `the held tab was re-laid out ${controlling.resized} times`);
      assert.ok(controlling.restarts <= 3, `the flood restarted the screencast ${controlling.restarts} times under the bystander`);
      // Still live: a real resize afterwards is applied.
      const last = await openSocket('/view/flood-control/live', base);
      assert.ok('open' in last);
      last.open.send(JSON.stringify({ t: 'screen', width: 700, height: 500, pixelRatio: 1 }));
      await until('the first report of a new viewer is applied at once', () => held.viewportSize()?.width === 700, 10_000, 50);
      last.open.send(JSON.stringify({ t: 'screen', width: 640, height: 500, pixelRatio: 1 }));
      await until('a later report of the viewer is applied too', () => held.viewportSize()?.width === 640, 10_000, 50);
      last.open.close();
    } finally {
      heldContext.newCDPSession = newCDPSession;
      bystander.open.close();
      await held.close();
    }
  });

  test('handshakes from another origin, without an origin, or for an unknown view are refused', async () => {
    const held = await holdPaymentPage('Live View Origin');
    tabs.set('origin', { page: held, mode: 'control' });
    try {
      assert.deepEqual(await openSocket('/view/origin/live', 'http://evil.example'), { status: 403 });
      assert.deepEqual(await openSocket('/view/origin/live', base.replace('127.0.0.1', 'localhost')), { status: 403 });
      assert.deepEqual(await openSocket('/view/origin/live'), { status: 403 });
      assert.deepEqual(await openSocket('/view/nope/live', base), { status: 404 });
      const ok = await openSocket('/view/origin/live', base);
      assert.ok('open' in ok);
      ok.open.close();
    } finally {
      await held.close();
    }
  });
});
