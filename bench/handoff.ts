// Live view benchmark: how quickly a person sees the held payment page, and how quickly what they
// type reaches the provider's field and comes back to their screen as a frame. A sandbox payment
// page is held in one Chromium; a second Chromium plays the person on a phone and on a desktop.
//
//   node --disable-warning=ExperimentalWarning bench/handoff.ts [keystrokes=30]
//
// Reference, in the same run: the same keys pressed on the held tab directly (playwright-core's
// keyboard, CDP input with no person, socket or second browser in between): the floor a key can
// reach the field at. The live view's key → field is reported against it.
import { loadavg } from 'node:os';
import { performance } from 'node:perf_hooks';
import Fastify from 'fastify';
import websocket from '@fastify/websocket';
import { chromium, type Page } from 'playwright-core';
import { startSandbox } from '../sandbox/index.ts';
import { CHROMIUM_ARGS } from '../src/browser/pool.ts';
import { liveViewOf } from '../src/browser/live-view.ts';
import { LIVE_VIEW_CLIENT_PATH, liveViewClientRoute, liveViewSocketRoute } from '../src/web/live-view-routes.ts';

const KEYSTROKES = Number(process.argv[2] ?? 30);
const launch = () => chromium.launch({ executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium', args: CHROMIUM_ARGS });

function quantile(values: number[], q: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? NaN;
}

const sandbox = await startSandbox();
const [heldBrowser, personBrowser] = await Promise.all([launch(), launch()]);
const tabs = new Map<string, Page>();
const app = Fastify();
await app.register(websocket, { options: { maxPayload: 4096 } });
liveViewClientRoute(app);
app.get<{ Params: { id: string } }>('/view/:id', async (request, reply) => {
  reply.type('text/html; charset=utf-8');
  return `<!doctype html><meta name="viewport" content="width=device-width,initial-scale=1"><style>body{margin:0}canvas{width:100%;display:block}[data-live-keys]{position:absolute;opacity:0;width:1px;height:1px;font-size:16px}</style>
<div data-live-view data-socket="/view/${request.params.id}/live" data-mode="control"><canvas></canvas><input data-live-keys autocomplete="off"></div><script src="${LIVE_VIEW_CLIENT_PATH}"></script>`;
});
let base = '';
liveViewSocketRoute(app, '/view/:id/live', {
  get allowedOrigin() {
    return base;
  },
  authorize: async (request) => {
    const page = tabs.get((request.params as { id: string }).id);
    return page ? { view: liveViewOf(page), mode: 'control' } : { refused: 404, message: 'no such view' };
  },
});
base = await app.listen({ host: '127.0.0.1', port: 0 });

const profiles = [
  { name: 'phone 390×844 @3x', context: { viewport: { width: 390, height: 844 }, deviceScaleFactor: 3, isMobile: true, hasTouch: true } },
  { name: 'desktop 1280×900 @1x', context: { viewport: { width: 1280, height: 900 } } },
];

const load = () => loadavg().map((l) => l.toFixed(1)).join(' ');
console.log(`live view: ${KEYSTROKES} keystrokes per profile, sandbox payment page (tablebook); load average ${load()} (1, 5, 15 min)\n`);
console.log('profile                 first frame   frame size    key → field p50/p95   key → frame p50/p95   reference key → field p50   × reference');
for (const profile of profiles) {
  const heldContext = await heldBrowser.newContext({ viewport: { width: 1280, height: 860 } });
  const held = await heldContext.newPage();
  const origin = sandbox.origin('tablebook');
  await held.goto(`${origin}/?restaurant_name=Bench+Bistro&city=Lisbon&date=2031-05-16&time=19%3A00&party_size=2`);
  await Promise.all([held.waitForNavigation(), held.click('#tb-find-table')]);
  await Promise.all([held.waitForNavigation(), held.click('button.tb-slot[data-available="true"] >> nth=0')]);
  await held.fill('input[autocomplete="given-name"]', 'Ada');
  await held.fill('input[autocomplete="family-name"]', 'Lovelace');
  await held.fill('input[autocomplete="email"]', 'ada@example.com');
  await held.fill('input[autocomplete="tel"]', '+44 20 7946 0000');
  await Promise.all([held.waitForNavigation(), held.click('#tb-guest-continue')]);
  await Promise.all([held.waitForNavigation(), held.click('#tb-review-continue')]);
  await held.focus('#tb-cvc');

  /** One key for the n-th press: digits, and Backspace now and then (the field takes 4 digits at most). */
  const nextKey = async (i: number) => {
    const length = (await held.inputValue('#tb-cvc')).length;
    const key = length >= 4 || (i % 4 === 3 && length > 0) ? 'Backspace' : String((i * 7) % 10);
    return { key, expectedLength: length + (key === 'Backspace' ? -1 : 1) };
  };
  const fieldHolds = (n: number) => held.waitForFunction((length) => (document.querySelector('#tb-cvc') as HTMLInputElement).value.length === length, n, { polling: 5 });
  // The reference: the same keys pressed on the held tab itself.
  const direct: number[] = [];
  for (let i = 0; i < KEYSTROKES; i++) {
    const { key, expectedLength } = await nextKey(i);
    const start = performance.now();
    await held.keyboard.press(key);
    await fieldHolds(expectedLength);
    direct.push(performance.now() - start);
  }
  await held.fill('#tb-cvc', '');
  await held.focus('#tb-cvc');
  const id = profile.name.split(' ')[0]!;
  tabs.set(id, held);

  const personContext = await personBrowser.newContext(profile.context);
  const person = await personContext.newPage();
  const frames: Array<{ at: number; bytes: number }> = [];
  person.on('websocket', (ws) => ws.on('framereceived', (f) => {
    if (typeof f.payload !== 'string') frames.push({ at: performance.now(), bytes: f.payload.length });
  }));
  const opened = performance.now();
  await person.goto(`${base}/view/${id}`);
  await person.waitForSelector('[data-live-view][data-state="live"]');
  const firstFrame = performance.now() - opened;
  await new Promise((r) => setTimeout(r, 500));
  const sizes = frames.map((f) => f.bytes);
  await person.focus('[data-live-keys]');

  const toField: number[] = [];
  const toFrame: number[] = [];
  for (let i = 0; i < KEYSTROKES; i++) {
    const { key, expectedLength } = await nextKey(i);
    const seen = frames.length;
    const start = performance.now();
    await person.keyboard.press(key);
    await fieldHolds(expectedLength);
    toField.push(performance.now() - start);
    while (frames.length === seen && performance.now() - start < 2000) await new Promise((r) => setTimeout(r, 2));
    if (frames.length > seen) toFrame.push(frames[seen]!.at - start);
  }
  const fmt = (v: number) => `${v.toFixed(0)} ms`.padStart(6);
  console.log(
    `${profile.name.padEnd(22)}  ${fmt(firstFrame).padStart(10)}   ${`${(quantile(sizes, 0.5) / 1024).toFixed(0)} KiB`.padStart(9)}    ${fmt(quantile(toField, 0.5))} / ${fmt(quantile(toField, 0.95))}     ${fmt(quantile(toFrame, 0.5))} / ${fmt(quantile(toFrame, 0.95))}     ${fmt(quantile(direct, 0.5)).padStart(22)}   ${`${(quantile(toField, 0.5) / quantile(direct, 0.5)).toFixed(1)}×`.padStart(11)}`,
  );
  await personContext.close();
  await heldContext.close();
}
console.log('\nkey → field: the person presses a key until the provider field holds it; key → frame: until the next frame reaches the person (the key visible on their screen);');
console.log(`reference: the same key pressed on the held tab directly (CDP input, nothing in between). Load average at the end ${load()}.`);

await app.close();
await Promise.all([heldBrowser.close(), personBrowser.close()]);
await sandbox.close();
