import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import type { Socket } from 'node:net';
import { after, before, describe, test } from 'node:test';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import type { Page } from 'playwright-core';
// @ts-expect-error -- ws ships no type declarations; the test uses a few calls of it.
import WebSocket from 'ws';
import { BROWSER_BACKEND, startTestService, type TestService } from '../helpers/service.ts';
import { until } from '../helpers/wait.ts';
import { createJob, requests, waitForJob } from '../executor/helpers.ts';
import { launchChromium, pointOnView, waitForLiveFrames } from './browsers.ts';
import { liveViewOf } from '../../src/browser/live-view.ts';
import type { HeldSession } from '../../src/executor/held-session.ts';

// The live view's socket under abuse, on the real service and a booking it holds (real Chromium on
// the sandbox's payment page), over loopback: whoever holds the handoff link can open a socket in
// control and send anything. Each abuse is bounded (a count of messages, not a duration) and must be
// dropped, ignored or cut off as docs/handoff.md says; afterwards the person's own screen takes the
// tab over and pays, and the process's memory has not grown with what was sent.

/** docs/handoff.md: input beyond this many messages a second is dropped. */
const INPUT_PER_SECOND = 120;
/** The WebSocket's largest message (@fastify/websocket's maxPayload); a larger one closes the socket, 1009. */
const MAX_MESSAGE_BYTES = 4096;
/** The held tab's viewport follows the screen in control within these bounds (CSS px). */
const VIEWPORT = { minWidth: 320, maxWidth: 1280, minHeight: 400, maxHeight: 1000 };
/** A viewer with more than this queued is skipped: the server may hold one frame more for it, no more. */
const MAX_BUFFERED = 512 * 1024;
/** docs/handoff.md: pointer moves beyond this many waiting for the tab are dropped. */
const MAX_QUEUED_MOTION = 16;

// A collected heap, so that what is measured is what is kept, not what waits for collection.
setFlagsFromString('--expose-gc');
const gc = runInNewContext('gc') as () => void;
function memory(): { heap: number; rss: number } {
  gc();
  gc();
  const { heapUsed, rss } = process.memoryUsage();
  return { heap: heapUsed, rss };
}
const MB = 1024 * 1024;

interface Screen {
  ws: any;
  id: string;
  frames: number;
  /** Each frame's size in bytes. */
  frameBytes: number[];
  /** The viewport sizes the frames said they show. */
  frameSizes: Array<[number, number]>;
  texts: string[];
  closed: Promise<number>;
  readonly closeCode: number | null;
  send(message: unknown): void;
}

describe('the live view under abuse (a held booking on the real service, over loopback)', () => {
  let service: TestService;
  let key: string;
  let jobId: string;
  let handoffUrl: string;
  let session: HeldSession;
  let tab: Page;
  let origin: string;
  let baseline: { heap: number; rss: number };
  /** Messages the abusers sent, for the memory check's message. */
  let sent = 0;

  before(async () => {
    service = await startTestService(BROWSER_BACKEND.url, { WORKERS: '1' }, { sandbox: true });
    key = await service.mintKey();
    jobId = await createJob(service, key, requests.restaurant({ restaurant_name: 'Sturdy Sardine' }));
    const paused = await waitForJob(service, key, jobId);
    assert.equal(paused.status, 'paused_payment', paused.summary);
    handoffUrl = paused.handoffUrl;
    session = service.services.executor.holds.get(jobId)!;
    tab = session.page;
    origin = new URL(service.url).origin;
    // What the tab receives, counted in the tab: mouse moves, and the viewport of every re-layout.
    await tab.evaluate(() => {
      const w = window as unknown as { moves: number; sizes: string[] };
      w.moves = 0;
      w.sizes = [];
      document.addEventListener('mousemove', () => w.moves++, true);
      window.addEventListener('resize', () => w.sizes.push(`${window.innerWidth}x${window.innerHeight}`));
    });
    baseline = memory();
  });

  after(async () => {
    await service?.close();
  });

  const moves = () => tab.evaluate(() => (window as unknown as { moves: number }).moves);
  const sizes = () => tab.evaluate(() => (window as unknown as { sizes: string[] }).sizes.splice(0));

  /** A socket in control of the held tab, as any holder of the link can open one (a screen of its own). */
  async function screen(report: unknown = { t: 'screen', width: 390, height: 700, pixelRatio: 1 }): Promise<Screen> {
    const id = randomBytes(12).toString('base64url');
    const ws = new WebSocket(`${handoffUrl.replace('http', 'ws')}/live?screen=${id}`, { origin });
    let closeCode: number | null = null;
    const s: Screen = {
      ws,
      id,
      frames: 0,
      frameBytes: [],
      frameSizes: [],
      texts: [],
      closed: new Promise<number>((resolve) => ws.once('close', (code: number) => resolve((closeCode = code)))),
      get closeCode() {
        return closeCode;
      },
      send(message: unknown) {
        sent += 1;
        ws.send(typeof message === 'string' || Buffer.isBuffer(message) ? message : JSON.stringify(message));
      },
    };
    ws.on('message', (data: Buffer, isBinary: boolean) => {
      if (!isBinary) return void s.texts.push(String(data));
      s.frames += 1;
      s.frameBytes.push(data.length);
      s.frameSizes.push([data.readUInt16BE(0), data.readUInt16BE(2)]);
    });
    await new Promise((resolve, reject) => {
      ws.once('open', resolve);
      ws.once('error', reject);
    });
    if (report) s.send(report);
    return s;
  }

  /** Resolves once `read` has given the same value twice `everyMs` apart: what the tab got has stopped changing. */
  async function settled<T>(what: string, read: () => Promise<T>, everyMs = 400): Promise<T> {
    let last = await read();
    let value = last;
    await until(what, async () => {
      await new Promise((r) => setTimeout(r, everyMs));
      [last, value] = [value, await read()];
      return JSON.stringify(last) === JSON.stringify(value);
    }, 30_000, 0);
    return value;
  }

  async function leave(s: Screen): Promise<void> {
    if (s.closeCode === null) s.ws.close();
    await s.closed;
  }

  test(`an input flood past ${INPUT_PER_SECOND} messages a second: the excess is dropped, the socket stays, and input is taken again afterwards`, async () => {
    const abuser = await screen();
    await until('frames reach the screen in control', () => abuser.frames > 0, 10_000, 20);
    const before = await settled('the tab is still', moves);
    const started = Date.now();
    for (let i = 0; i < 5_000; i++) abuser.send({ t: 'mouse', action: 'move', x: 10 + (i % 300), y: 10 + (i % 200) });
    const sentWithinMs = Date.now() - started;
    const relayed = (await settled('the flood has been relayed', moves)) - before;
    // Every window of a second the burst touched may pass its allowance (the burst was sent in
    // `sentWithinMs`; arriving, it may straddle one more window boundary).
    const windows = Math.ceil(sentWithinMs / 1000) + 1;
    assert.ok(relayed <= INPUT_PER_SECOND * windows, `${relayed} of 5000 moves reached the tab (at most ${INPUT_PER_SECOND * windows})`);
    assert.ok(relayed > 0, 'the moves within the allowance were relayed');
    assert.equal(abuser.closeCode, null, 'the socket is not cut for it: the excess is dropped');
    // The next second, input is taken again.
    const now = await moves();
    await until('a move after the flood reaches the tab', async () => {
      abuser.send({ t: 'mouse', action: 'move', x: 123, y: 45 });
      return (await moves()) > now;
    }, 10_000, 300);
    await leave(abuser);
  });

  test(`a burst within the allowance leaves no backlog: of 100 moves at once, at most ${MAX_QUEUED_MOTION} wait for the tab, the rest are dropped`, async () => {
    const abuser = await screen();
    await until('frames reach the screen in control', () => abuser.frames > 0, 10_000, 20);
    const before = await settled('the tab is still', moves);
    // One write (the socket corked): the server reads the 100 messages at once, far faster than the tab takes them.
    abuser.ws._socket.cork();
    for (let i = 0; i < 100; i++) abuser.send({ t: 'mouse', action: 'move', x: 20 + i, y: 30 });
    abuser.ws._socket.uncork();
    const relayed = (await settled('the burst has been relayed', moves)) - before;
    assert.ok(relayed > 0, 'the moves that fit the queue were relayed');
    assert.ok(relayed <= MAX_QUEUED_MOTION + 2, `${relayed} of 100 moves reached the tab: the rest should have been dropped, not queued behind one another`);
    await leave(abuser);
  });

  test(`oversized and malformed messages: ignored, with nothing reaching the tab; one past ${MAX_MESSAGE_BYTES} bytes closes the socket (1009)`, async () => {
    const abuser = await screen();
    await until('frames reach the screen in control', () => abuser.frames > 0, 10_000, 20);
    const before = await settled('the tab is still', moves);
    const malformed: unknown[] = [
      Buffer.from([0, 1, 2, 3, 255]),
      Buffer.from(JSON.stringify({ t: 'text', text: '1234' })), // JSON, but in a binary frame
      'not json',
      '{"t":"mouse","action":"move","x":',
      'null', '42', '"text"', '[]', '[{"t":"text","text":"1"}]',
      JSON.stringify({ t: 'mouse', action: 'move', x: '10', y: 10 }),
      JSON.stringify({ t: 'mouse', action: 'move', x: 1e308, y: 10 }),
      JSON.stringify({ t: 'mouse', action: 'jump', x: 10, y: 10 }),
      JSON.stringify({ t: 'mouse', action: 'move', x: { valueOf: 10 }, y: [10] }),
      JSON.stringify({ t: 'wheel', x: 10, y: 10, deltaY: -1e12 }),
      JSON.stringify({ t: 'key', action: 'down', key: 'ab' }),
      JSON.stringify({ t: 'key', action: 'down', key: '\u0000' }),
      JSON.stringify({ t: 'key', action: 'press', key: 'a' }),
      JSON.stringify({ t: 'key', action: 'down', key: 7 }),
      JSON.stringify({ t: 'text', text: 'x'.repeat(257) }),
      JSON.stringify({ t: 'text', text: ['1', '2'] }),
      JSON.stringify({ t: 'text', text: '\r\n\t' }),
      JSON.stringify({ t: '__proto__', text: '1' }),
      '{"__proto__":{"t":"text","text":"1"}}',
      JSON.stringify({ t: 'screen', width: 'wide' }),
      `{"a":${'['.repeat(1000)}${']'.repeat(1000)}}`,
      '\uD800',
    ];
    for (const message of malformed) abuser.send(message);
    // Still open and still in control: a valid move after all that is relayed.
    await until('a valid move after the malformed ones reaches the tab', async () => {
      abuser.send({ t: 'mouse', action: 'move', x: 200, y: 60 });
      return (await moves()) > before;
    }, 10_000, 300);
    assert.equal(abuser.closeCode, null);
    assert.equal(await tab.inputValue('#tb-cvc'), '', 'no text reached the code field');
    assert.match(tab.url(), /\/payment$/, 'the tab is still on the payment page');
    // One message over the limit: the socket is closed, before anything of it is read.
    abuser.send(JSON.stringify({ t: 'text', text: '1'.repeat(MAX_MESSAGE_BYTES) }));
    assert.equal(await abuser.closed, 1009);
    assert.equal(await tab.inputValue('#tb-cvc'), '');
  });

  test('screen reports that do not match any screen: the impossible ones are ignored, the extreme ones kept within bounds', async () => {
    const abuser = await screen({ t: 'screen', width: 400, height: 700, pixelRatio: 1 });
    await until('the first report is applied', () => tab.viewportSize()?.width === 400, 10_000, 50);
    await sizes();
    const impossible = [
      { width: -400, height: 700 }, { width: 0, height: 700 }, { width: 400, height: -1 }, { width: 1e9, height: 700 },
      { width: 400, height: 700, pixelRatio: 0 }, { width: 400, height: 700, pixelRatio: -2 }, { width: 400, height: 700, pixelRatio: 1000 },
      { width: '400', height: 700 }, { width: null, height: 700 }, { width: 400 }, { width: 400, height: 700, pixelRatio: 'retina' },
    ];
    for (const report of impossible) abuser.send({ t: 'screen', pixelRatio: 1, ...report });
    abuser.send('{"t":"screen","width":NaN,"height":700}');
    abuser.send('{"t":"screen","width":Infinity,"height":700}');
    // A last, ordinary report: once it is applied, every report before it has been read.
    abuser.send({ t: 'screen', width: 410, height: 700, pixelRatio: 1 });
    await until('the ordinary report is applied', () => tab.viewportSize()?.width === 410, 10_000, 50);
    assert.deepEqual(await settled('the tab is laid out', sizes), [], 'nothing re-laid out the tab after the ordinary report');
    // The extreme but possible: the tab follows within its bounds, never beyond.
    for (const report of [{ width: 1, height: 1, pixelRatio: 1 }, { width: 9999, height: 9999, pixelRatio: 8 }, { width: 10_000, height: 1, pixelRatio: 0.01 }]) {
      abuser.send({ t: 'screen', ...report });
      const expected = { width: Math.min(VIEWPORT.maxWidth, Math.max(VIEWPORT.minWidth, report.width)), height: Math.min(VIEWPORT.maxHeight, Math.max(VIEWPORT.minHeight, report.height)) };
      await until(`the report ${JSON.stringify(report)} is applied within bounds`, () => JSON.stringify(tab.viewportSize()) === JSON.stringify(expected), 10_000, 50);
      await until(`the page is laid out at ${expected.width}x${expected.height}`, async () => (await tab.evaluate(() => `${innerWidth}x${innerHeight}`)) === `${expected.width}x${expected.height}`, 10_000, 50);
    }
    // What the page was laid out at once each report was applied (above), and every frame the screen
    // was sent: within bounds. (Resize events in between are Chromium's own steps towards the size
    // asked, one of them seen under load at the window's size less its toolbar, 87 px short.)
    await sizes();
    for (const [w, h] of abuser.frameSizes) {
      assert.ok(w >= VIEWPORT.minWidth && w <= VIEWPORT.maxWidth && h >= VIEWPORT.minHeight && h <= VIEWPORT.maxHeight, `the tab was laid out at ${w}x${h}`);
    }
    assert.equal(abuser.closeCode, null);
    await leave(abuser);
  });

  test('screens racing for control: of eight opened at once, one is in control, every other is told it was taken over and closed', async () => {
    const racers = await Promise.all(Array.from({ length: 8 }, () => screen()));
    await until('all but one closed', () => racers.filter((r) => r.closeCode === null).length === 1, 15_000, 50);
    const [winner] = racers.filter((r) => r.closeCode === null);
    for (const loser of racers.filter((r) => r !== winner)) {
      assert.equal(loser.closeCode, 4000);
      assert.ok(loser.texts.includes(JSON.stringify({ t: 'ended', reason: 'taken_over' })), 'told why');
    }
    assert.equal(session.isUserInControl(), true);
    assert.equal(liveViewOf(tab).viewerCount, 1, 'one screen gets frames');
    // The winner's input is relayed; a loser's socket is gone, so nothing it sends can be.
    const before = await moves();
    await until('the winner\'s move reaches the tab', async () => {
      winner!.send({ t: 'mouse', action: 'move', x: 77, y: 88 });
      return (await moves()) > before;
    }, 10_000, 300);
    await leave(winner!);
    await until('nobody in control: automation again', () => !session.isUserInControl(), 10_000, 50);
  });

  test('a socket held open without reading: the server holds at most its allowance for it, and the person\'s screen takes over and pays', async () => {
    // The server's end of each upgraded connection, as the HTTP server hands it over: what the
    // server has queued for a socket is its writableLength (the WebSocket's bufferedAmount).
    const upgraded = new Map<string, Socket>();
    const onUpgrade = (request: IncomingMessage, socket: Socket) => upgraded.set(new URL(request.url ?? '/', 'http://x').searchParams.get('screen') ?? '', socket);
    service.app.server.on('upgrade', onUpgrade);
    // A small screen: the payment page scrolls, and every scroll is a new frame.
    const stuck = await screen({ t: 'screen', width: 800, height: 400, pixelRatio: 2 });
    service.app.server.off('upgrade', onUpgrade);
    const serverSide = upgraded.get(stuck.id);
    assert.ok(serverSide, 'the server\'s end of the socket is known');
    await until('frames reach it', () => stuck.frames > 0, 10_000, 20);
    stuck.ws.pause();
    // Scrolls until the server has had to queue past the allowance (the kernel's buffers full), then
    // as many again: a server that kept queueing would be well past it by then.
    let peak = 0;
    let beyond = 0;
    for (let i = 0; beyond < 250; i++) {
      assert.ok(i < 5_000, `the socket never fell behind (${serverSide.writableLength} bytes queued): otherwise this proves nothing`);
      stuck.send({ t: 'wheel', x: 160, y: 200, deltaY: i % 2 === 0 ? 400 : -400 });
      await new Promise((r) => setTimeout(r, 12));
      peak = Math.max(peak, serverSide.writableLength);
      if (peak >= MAX_BUFFERED) beyond += 1;
    }
    // Reading again, it gets what was queued: the largest frame is what may pass the allowance.
    stuck.ws.resume();
    await until('the queue drains once it reads', () => serverSide.writableLength === 0, 10_000, 50);
    const largestFrame = Math.max(...stuck.frameBytes);
    assert.ok(peak <= MAX_BUFFERED + largestFrame + 1024, `the server queued ${peak} bytes for a socket that read nothing (allowance ${MAX_BUFFERED} + one frame of at most ${largestFrame})`);

    // The person's own screen takes the tab over from the stuck socket (still attached, its wheel
    // turns still arriving), gets frames, and pays: nothing the stuck one sent is replayed ahead of it.
    const person = await launchChromium();
    try {
      const context = await person.newContext({ viewport: { width: 390, height: 844 }, deviceScaleFactor: 2, isMobile: true, hasTouch: true });
      const page = await context.newPage();
      for (let i = 0; i < 60; i++) stuck.send({ t: 'wheel', x: 160, y: 200, deltaY: i % 2 === 0 ? 400 : -400 });
      await page.goto(handoffUrl);
      await waitForLiveFrames(page, tab);
      // On a loaded machine the tab may still be settling into the phone's layout when the first
      // tap lands: tap where the field is now until it has the focus (a person taps again too).
      for (let tries = 1; ; tries++) {
        const at = await pointOnView(page, tab, '#tb-cvc');
        await page.touchscreen.tap(at.x, at.y);
        const focused = await tab.waitForFunction(() => document.activeElement?.id === 'tb-cvc', undefined, { timeout: 10_000 }).then(() => true, () => false);
        if (focused) break;
        assert.ok(tries < 4, 'the card-code field took the focus from a tap on the live view');
      }
      await page.keyboard.insertText('4321');
      await tab.waitForFunction(() => (document.querySelector('#tb-cvc') as HTMLInputElement).value === '4321');
      await page.keyboard.press('Enter');
      const shown = await (await page.waitForSelector('[data-outcome] [data-confirmation-code]', { timeout: 20_000 })).getAttribute('data-confirmation-code');
      const done = await waitForJob(service, key, jobId, { until: ['completed', 'error'] });
      assert.equal(done.status, 'completed', done.summary);
      assert.equal(done.confirmationCode, shown);
    } finally {
      await person.close();
      stuck.ws.terminate();
    }

    // After all of it, the process has not kept what it was sent.
    const now = memory();
    const grew = { heap: (now.heap - baseline.heap) / MB, rss: (now.rss - baseline.rss) / MB };
    assert.ok(grew.heap < 48, `the heap grew by ${grew.heap.toFixed(1)} MB after ${sent} messages`);
    assert.ok(grew.rss < 160, `the resident set grew by ${grew.rss.toFixed(1)} MB after ${sent} messages`);
  });
});
