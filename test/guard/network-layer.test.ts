import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { Browser, BrowserContext } from 'playwright-core';
import { startSandbox, type Sandbox } from '../../sandbox/index.ts';
import { BrowserPool } from '../../src/browser/pool.ts';
import { ATTACKS, CODE, attack, guardedContext, type Guarded } from './attacks.ts';
import { launchChromium } from '../helpers/chromium.ts';

// Layer 3 on its own: no driver API, no in-page script. The automation types the code into every
// adversarial page (nothing stops the typing) and lets each page send it its own way: a form post,
// an auto-submit, fetch with a JSON body, a GET query, sendBeacon, a WebSocket, a cross-origin iframe
// form, a shared or dedicated worker. The network layer must stop every one: zero card codes reach
// the sandbox's server. A control run with no guard at all shows each page really does send the
// code. Workers, whose requests and sockets the interception does not see, do not start while
// automation is in control, and those the person's tab started are stopped when automation takes it
// back; service workers are blocked by the executor's browser contexts.

const NETWORK_ONLY = { inPage: false, network: true };

let browser: Browser;
before(async () => {
  browser = await launchChromium();
});
after(() => browser.close());

describe('payment guard, network layer alone', () => {
  let sandbox: Sandbox;
  before(async () => {
    sandbox = await startSandbox();
  });
  after(() => sandbox.close());

  test('every adversarial page\'s attempt to send the code is blocked: the server receives none', async () => {
    const { context, log, page } = await guardedContext(browser, NETWORK_ONLY);
    for (const a of ATTACKS) {
      await attack(page, sandbox.origin('adversarial'), a, 'fill');
      // Workers' traffic is out of the interception's sight: the pages may not start them at all.
      if (a.worker) assert.match((await page.textContent('#adv-worker-status')) ?? '', /^refused: SecurityError$/, `the page on ${a.path} could not start its worker`);
      assert.deepEqual(sandbox.cardCodesReceived(), [], `nothing reached the server from ${a.path}`);
    }
    const denied = log.deniedBy('network');
    for (const expected of ["'f7'", "'sc_in'", "'vn'", "'d1'", "'fld_a'", "'security_code'", "'cvv'", 'securityCode', "'cvc'", 'WebSocket', "'cvc_d1'", "'cvv_1'"]) {
      assert.ok(denied.some((m) => m.includes(expected)), `a network block mentions ${expected}:\n${denied.join('\n')}`);
    }
    // Each refusal is an action_denied event (a page loaded again after an interrupted navigation tries again).
    for (const [path, what] of [['/shared-worker', 'a shared worker'], ['/worker-ws', 'a worker']]) {
      assert.ok(denied.some((m) => m.includes(`on ${sandbox.origin('adversarial').replace(/[0-9]/g, '#')}${path} start ${what}:`)), `a block for ${path}:\n${denied.join('\n')}`);
    }
    assert.ok(denied.some((m) => m.includes(`on ${sandbox.origin('adversarial').replace(/[0-9]/g, '#')}/fetch/stream start a request with a streamed body:`)), `the ReadableStream body is refused in the page:\n${denied.join('\n')}`);
    assert.ok(denied.every((m) => !m.includes('735')), 'no value in any message');
    assert.deepEqual(log.deniedBy('page'), [], 'the in-page layer was not installed');
    await context.close();
  });

  test('bodies the browser automation cannot read are not let through: a ReadableStream body is refused in the page, a Blob body is read and blocked', async () => {
    const { context, log, page } = await guardedContext(browser, NETWORK_ONLY);
    const failed: string[] = [];
    const posted: string[] = [];
    page.on('request', (r) => {
      if (r.method() === 'POST') posted.push(new URL(r.url()).pathname);
    });
    page.on('requestfailed', (r) => {
      if (r.method() === 'POST') failed.push(`${new URL(r.url()).pathname} ${r.failure()?.errorText}`);
    });
    // The Blob is read by the network layer, and the request blocked there.
    await attack(page, sandbox.origin('adversarial'), ATTACKS.find((a) => a.path === '/fetch/blob')!);
    for (let i = 0; i < 200 && failed.length === 0; i++) await page.waitForTimeout(50);
    assert.equal(failed.length, 1, failed.join(', '));
    assert.match(failed[0]!, /^\/api\/card\/verify net::ERR_BLOCKED_BY_CLIENT/);
    const blob = log.deniedBy('network');
    assert.equal(blob.length, 1, blob.join('\n'));
    assert.match(blob[0]!, /carried the card security code field 'cvc'/);
    // The stream never becomes a request: the page's fetch is refused with a SecurityError.
    posted.length = 0;
    await attack(page, sandbox.origin('adversarial'), ATTACKS.find((a) => a.path === '/fetch/stream')!);
    for (let i = 0; i < 200 && log.deniedBy('network').length === 1; i++) await page.waitForTimeout(50);
    const stream = log.deniedBy('network').slice(1);
    assert.equal(stream.length, 1, `one refusal\n${stream.join('\n')}`);
    assert.match(stream[0]!, /start a request with a streamed body: its body \(the browser shows no streamed body to the interception\) would leave outside the network layer's view/);
    assert.deepEqual(posted.filter((p) => p === '/api/card/verify'), [], 'no request was made');
    assert.deepEqual(sandbox.cardCodesReceived(), []);
    await context.close();
  });

  test('requests with nothing to read go through: an empty form post (a navigation), GET and HEAD', async () => {
    const { context, log, page } = await guardedContext(browser, NETWORK_ONLY);
    await page.goto(`${sandbox.origin('adversarial')}/`);
    const sent = await page.evaluate(async () => Promise.all(['GET', 'HEAD'].map((method) => fetch('/collect', { method }).then(() => `${method}: sent`, () => `${method}: refused`))));
    assert.deepEqual(sent, ['GET: sent', 'HEAD: sent']);
    const [response] = await Promise.all([
      page.waitForNavigation(),
      page.evaluate(() => {
        const form = document.createElement('form');
        form.method = 'post';
        form.action = '/odd-label';
        document.body.append(form);
        form.submit();
      }),
    ]);
    assert.equal(response?.status(), 200, 'an empty form post is a navigation with an empty body: nothing to hide, let through');
    assert.deepEqual(log.deniedBy('network'), []);
    await context.close();
  });

  test('a fetch with no body goes through (an empty POST is a single-page app\'s "continue"); one with a streamed body is refused in the page, by fetch() and new Request() alike', async () => {
    const { context, log, page } = await guardedContext(browser, NETWORK_ONLY);
    await page.goto(`${sandbox.origin('adversarial')}/`);
    // An empty body and a stream look the same from outside the page; inside, they do not.
    const outcomes = await page.evaluate(async () => {
      const tries: Array<[string, RequestInit]> = [
        ['POST no body', { method: 'POST' }],
        ['PUT empty stream', { method: 'PUT', body: new ReadableStream({ start: (c) => c.close() }), duplex: 'half' } as RequestInit],
        ['DELETE no body', { method: 'DELETE' }],
      ];
      const sent = await Promise.all(tries.map(([name, init]) => fetch('/collect', init).then(() => `${name}: sent`, (e: Error) => `${name}: refused (${e.name})`)));
      let made = 'Request with a stream: made';
      try {
        new Request('/collect', { method: 'POST', body: new ReadableStream(), duplex: 'half' } as RequestInit);
      } catch (e) {
        made = `Request with a stream: refused (${(e as Error).name})`;
      }
      return [...sent, made];
    });
    assert.deepEqual(outcomes, ['POST no body: sent', 'PUT empty stream: refused (SecurityError)', 'DELETE no body: sent', 'Request with a stream: refused (SecurityError)']);
    const denied = log.deniedBy('network');
    assert.equal(denied.length, 2, denied.join('\n'));
    assert.ok(denied.every((m) => /start a request with a streamed body/.test(m)));
    await context.close();
  });

  test('no worker starts while automation is in control, by any route to the constructors; in the tab handed to the person one does', async () => {
    const { context, log, guard, page } = await guardedContext(browser, NETWORK_ONLY);
    await page.goto(`${sandbox.origin('adversarial')}/worker-ws`);
    assert.equal(await page.textContent('#adv-worker-status'), 'refused: SecurityError', 'the page\'s own worker was refused');
    const tries = () => page.evaluate(async () => {
      const frame = document.createElement('iframe');
      document.body.append(frame);
      const fresh = frame.contentWindow as unknown as typeof globalThis;
      const ways: Record<string, () => unknown> = {
        'new Worker': () => new Worker('/worker-ws.js'),
        'new SharedWorker': () => new SharedWorker('/shared-worker.js'),
        'a blob worker': () => new Worker(URL.createObjectURL(new Blob(['postMessage("up")']))),
        'a fresh iframe\'s SharedWorker': () => new fresh.SharedWorker('/shared-worker.js'),
        'a fresh iframe\'s Worker': () => new fresh.Worker('/worker-ws.js'),
        'the prototype\'s constructor': () => new (Worker.prototype.constructor as typeof Worker)('/worker-ws.js'),
        'a subclass': () => new (class extends SharedWorker {})('/shared-worker.js'),
        'Reflect.construct': () => Reflect.construct(Worker, ['/worker-ws.js']),
      };
      const out: Record<string, string> = {};
      for (const [name, start] of Object.entries(ways)) {
        try {
          start();
          out[name] = 'started';
        } catch (error) {
          out[name] = (error as Error).name;
        }
      }
      return out;
    });
    const refused = await tries();
    assert.deepEqual(Object.values(refused), Object.keys(refused).map(() => 'SecurityError'), JSON.stringify(refused));
    assert.equal(log.deniedBy('network').length, 1 + Object.keys(refused).length, 'an action_denied for each');

    await guard.setUserInControl(page, true);
    const answer = await page.evaluate(() => new Promise((resolve) => {
      const worker = new Worker(URL.createObjectURL(new Blob(['postMessage("up")'])));
      worker.onmessage = (e) => resolve(e.data);
    }));
    assert.equal(answer, 'up', 'the person\'s tab runs workers');
    assert.deepEqual(sandbox.cardCodesReceived(), []);
    await context.close();
  });

  test('a tab handed to the person is let through (the handoff), other tabs stay guarded', async () => {
    const { context, guard, page: person } = await guardedContext(browser, NETWORK_ONLY);
    const robot = await context.newPage();
    await guard.setUserInControl(person, true);
    await attack(robot, sandbox.origin('adversarial'), ATTACKS.find((a) => a.path === '/fetch/get')!);
    assert.equal(sandbox.cardCodesReceived().length, 0);
    await attack(person, sandbox.origin('adversarial'), ATTACKS.find((a) => a.path === '/fetch/get')!);
    for (let i = 0; i < 100 && sandbox.cardCodesReceived().length === 0; i++) await person.waitForTimeout(50);
    assert.ok(sandbox.cardCodesReceived().length > 0, 'the person\'s own request went through');
    await context.close();
  });
});

describe('what the person\'s tab started, when automation takes the tab back', () => {
  let sandbox: Sandbox;
  before(async () => {
    sandbox = await startSandbox();
  });
  after(() => sandbox.close());

  /** The person's tab starts the page's two workers and types a code; they send it (the person's own, let through). */
  async function workersUnderThePerson(): Promise<Guarded> {
    const { context, log, guard, page } = await guardedContext(browser, NETWORK_ONLY);
    await page.goto(`${sandbox.origin('adversarial')}/worker-later`);
    await guard.setUserInControl(page, true);
    await page.click('#adv-start');
    assert.equal(await page.textContent('#adv-worker-status'), 'started');
    // Only what this page's workers send: earlier tests of this suite sent to the same paths.
    const since = sandbox.cardCodesReceived().length;
    await page.fill('#code', CODE);
    const sent = () => new Set(sandbox.cardCodesReceived().slice(since).map((r) => r.path));
    for (let i = 0; i < 200 && sent().size < 2; i++) await page.waitForTimeout(50);
    assert.deepEqual([...sent()].sort(), ['/collect', '/ws'], 'under the person, the workers send (a shared worker\'s GET and both WebSockets)');
    return { context, page, log, guard };
  }

  /** Receipts stop: nothing more arrives in the second after `settled` ms. */
  async function assertNothingMoreArrives(settled: number): Promise<void> {
    await new Promise((r) => setTimeout(r, settled));
    const before = sandbox.cardCodesReceived().length;
    await new Promise((r) => setTimeout(r, 1_000));
    assert.equal(sandbox.cardCodesReceived().length, before, 'nothing more reached the server once automation had the tab back');
  }

  test('workers started while the person had the tab are stopped when automation takes it back: nothing they held is sent after', async () => {
    const { context, page, log, guard } = await workersUnderThePerson();
    await guard.setUserInControl(page, false);
    await assertNothingMoreArrives(200);
    assert.equal(page.workers().length, 0, 'no dedicated worker left');
    assert.ok(!page.isClosed(), 'the tab stays: the person can come back to it');
    const denied = log.deniedBy('network');
    assert.equal(denied.length, 1, denied.join('\n'));
    assert.match(denied[0]!, /^Payment guard \(network layer\) stopped 2 workers or connections that the page on http:\/\/adversarial\.localhost:#+\/worker-later started while the person was in control/);
    // Under automation again, the page cannot start them anew.
    await page.click('#adv-start');
    assert.equal(await page.textContent('#adv-worker-status'), 'refused: SecurityError');
    await context.close();
  });

  test('WebRTC, whose traffic nothing intercepts: refused under automation, allowed to the person, closed when automation takes the tab back', async () => {
    const { context, log, guard, page } = await guardedContext(browser, NETWORK_ONLY);
    await page.goto(`${sandbox.origin('adversarial')}/`);
    const refused = await page.evaluate(() => {
      const frame = document.createElement('iframe');
      document.body.append(frame);
      const fresh = frame.contentWindow as unknown as typeof globalThis;
      const ways: Record<string, () => unknown> = {
        'new RTCPeerConnection': () => new RTCPeerConnection(),
        'webkitRTCPeerConnection': () => new (window as any).webkitRTCPeerConnection(),
        'a fresh iframe\'s RTCPeerConnection': () => new fresh.RTCPeerConnection(),
        'the prototype\'s constructor': () => new (RTCPeerConnection.prototype.constructor as typeof RTCPeerConnection)(),
      };
      const out: Record<string, string> = {};
      for (const [name, start] of Object.entries(ways)) {
        try {
          start();
          out[name] = 'started';
        } catch (error) {
          out[name] = (error as Error).name;
        }
      }
      return out;
    });
    assert.deepEqual(Object.values(refused), Object.keys(refused).map(() => 'SecurityError'), JSON.stringify(refused));
    assert.equal(log.deniedBy('network').filter((m) => /refused to let the page on .* start a WebRTC connection: its traffic would leave outside/.test(m)).length, 4);

    await guard.setUserInControl(page, true);
    assert.equal(await page.evaluate(() => {
      const pc = new RTCPeerConnection();
      pc.createDataChannel('card');
      (window as any).pc = pc;
      return pc.signalingState;
    }), 'stable', 'the person\'s tab opens one');
    await guard.setUserInControl(page, false);
    assert.equal(await page.evaluate(() => (window as any).pc.signalingState), 'closed');
    assert.match(log.deniedBy('network').at(-1)!, /stopped 1 worker or connection that the page on/);
    await context.close();
  });

  test('speculation rules the page added while the person had the tab are removed when automation takes it back', async () => {
    const { context, log, guard, page } = await guardedContext(browser, NETWORK_ONLY);
    await page.goto(`${sandbox.origin('adversarial')}/preload`);
    await guard.setUserInControl(page, true);
    // The person's page adds rules that prefetch every link, from now on.
    await page.evaluate(() => {
      const rules = document.createElement('script');
      rules.type = 'speculationrules';
      rules.textContent = JSON.stringify({ prefetch: [{ source: 'document', eagerness: 'immediate' }] });
      document.head.append(rules);
    });
    await guard.setUserInControl(page, false);
    assert.equal(await page.locator('script[type=speculationrules]').count(), 0);
    const before = sandbox.cardCodesReceived().length;
    // Under automation, a link carrying a code appears: nothing prefetches it.
    await page.evaluate(() => {
      const link = document.createElement('a');
      link.href = '/collect?cvc=735';
      document.body.append(link);
    });
    await page.waitForTimeout(800);
    assert.equal(sandbox.cardCodesReceived().length, before, 'no code reached the server');
    assert.ok(log.deniedBy('network').some((m) => /removed speculation rules from the page on http:\/\/adversarial\.localhost:#+\/preload/.test(m)));
    await context.close();
  });

  test('a page that does not answer when automation takes the tab back loses the tab, so its workers stop with it', { timeout: 60_000 }, async () => {
    const { context, page, log, guard } = await workersUnderThePerson();
    // The page's own thread spins for ever: it cannot be told to stop its workers, which run on.
    await page.evaluate(() => setTimeout(() => {
      for (;;);
    }, 0));
    await guard.setUserInControl(page, false);
    assert.ok(page.isClosed(), 'the tab was closed');
    await assertNothingMoreArrives(300);
    assert.match(log.deniedBy('network').at(-1)!, /closed the tab: the page on http:\/\/adversarial\.localhost:#+\/worker-later did not let the workers or connections it started while the person was in control be stopped/);
    await context.close();
  });
});

describe('control: the same automation with no guard', () => {
  test('each adversarial page does deliver the code to the server when nothing stops it', async () => {
    const sandbox = await startSandbox();
    const context = await browser.newContext();
    const page = await context.newPage();
    try {
      for (const a of ATTACKS.filter((x) => !x.http2Only)) {
        const before = sandbox.cardCodesReceived().length;
        await attack(page, sandbox.origin('adversarial'), a, 'fill');
        // The page's own send may land a moment after the submit or the event that triggered it.
        for (let i = 0; i < 200 && sandbox.cardCodesReceived().length === before; i++) await page.waitForTimeout(50);
        assert.ok(sandbox.cardCodesReceived().length > before, `${a.path} sends the code without a guard`);
      }
    } finally {
      await context.close();
      await sandbox.close();
    }
  });
});

describe('service workers, whose requests the network layer would not see', () => {
  let sandbox: Sandbox;
  before(async () => {
    sandbox = await startSandbox();
  });
  after(() => sandbox.close());

  /** Opens the page, lets it register its worker, reloads (a worker controls only pages loaded after it), sends the code. */
  async function serviceWorkerAttack(context: BrowserContext, { allowed }: { allowed: boolean }): Promise<{ controlled: boolean; registrations: number }> {
    const page = await context.newPage();
    const url = `${sandbox.origin('adversarial')}/service-worker`;
    await page.goto(url);
    // Where workers are allowed, 'registered' once the worker is active: a reload is then controlled by it.
    await page.locator('#adv-sw-status', allowed ? { hasText: 'registered' } : { hasNotText: 'registering' }).waitFor({ timeout: 10_000 });
    await page.goto(url);
    const state = await page.evaluate(async () => ({ controlled: navigator.serviceWorker?.controller != null, registrations: (await navigator.serviceWorker?.getRegistrations())?.length ?? 0 }));
    await page.fill('#code', CODE);
    await page.locator('#code').blur();
    await page.waitForTimeout(500);
    return state;
  }

  test('the contexts the executor opens (BrowserPool) block them: nothing is registered, nothing controls the page, no code is sent', async () => {
    const pool = new BrowserPool({ chromiumPath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium' });
    try {
      const context = await pool.newContext();
      assert.deepEqual(await serviceWorkerAttack(context, { allowed: false }), { controlled: false, registrations: 0 });
      assert.deepEqual(sandbox.cardCodesReceived(), []);
      await context.close();
    } finally {
      await pool.close();
    }
  });

  test('control: where service workers are allowed, the page\'s worker controls it and sends the code', async () => {
    const context = await browser.newContext({ serviceWorkers: 'allow' });
    try {
      assert.deepEqual(await serviceWorkerAttack(context, { allowed: true }), { controlled: true, registrations: 1 });
      for (let i = 0; i < 200 && sandbox.cardCodesReceived().length === 0; i++) await new Promise((r) => setTimeout(r, 50));
      assert.deepEqual(sandbox.cardCodesReceived().map((c) => `${c.path} ${c.field}`), ['/collect cvc']);
    } finally {
      await context.close();
    }
  });
});
