import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { startSandbox, type Sandbox } from '../../sandbox/index.ts';
import { until } from '../helpers/wait.ts';
import { assertNoCodeStored, launchBrowser, newContext, SUITE_TIMEOUT } from './drivers.ts';
import { startedTogether } from '../helpers/together.ts';

let sandbox: Sandbox;
let browser: Browser;
let context: BrowserContext;

before(async () => {
  [sandbox, browser] = await startedTogether([startSandbox(), launchBrowser()]);
  context = await newContext(browser);
});
after(async () => {
  await browser?.close();
  await sandbox?.close();
});

const SECRET = '739';

function receiptsFor(path: string) {
  return sandbox.cardCodesReceived().filter((r) => r.path === path);
}

async function onPage(path: string, fn: (page: Page) => Promise<void>): Promise<void> {
  const page = await context.newPage();
  try {
    await page.goto(`${sandbox.origin('adversarial')}${path}`);
    assert.equal(receiptsFor(path).length, 0, 'loading the page sends nothing');
    await fn(page);
  } finally {
    await page.close();
  }
}

function assertRecorded(path: string, field: string, host: 'adversarial' | 'payments' = 'adversarial'): void {
  const r = receiptsFor(path).filter((x) => x.field === field);
  assert.ok(r.length >= 1, `a code arrived at ${path} in field ${field}`);
  assert.equal(r[0]?.host, new URL(sandbox.origin(host)).host);
  assertNoCodeStored(sandbox, SECRET);
}

/**
 * Several pages send to the same collection endpoints (/api/card/verify, /collect, /ws), so a receipt
 * is a page's own only if it arrived after the page opened and while no other such page was open:
 * their tests run one at a time and look only at receipts since their start.
 */
function mark(): number {
  return sandbox.cardCodesReceived().length;
}

async function assertSentSince(since: number, path: string, field: string): Promise<void> {
  const mine = () => sandbox.cardCodesReceived().slice(since).filter((r) => r.path === path && r.field === field);
  await until('the server received the code', () => mine().length > 0, 15_000);
  assert.equal(mine()[0]?.host, new URL(sandbox.origin('adversarial')).host);
  assertNoCodeStored(sandbox, SECRET);
}

describe('adversarial pages: a human typing a code is detected server-side', { concurrency: 3, timeout: SUITE_TIMEOUT }, () => {
  test('index lists the pages', async () => {
    const page = await context.newPage();
    await page.goto(`${sandbox.origin('adversarial')}/`);
    assert.ok(await page.locator('#adv-index li').count() >= 10);
    await page.close();
  });

  test('/odd-label: name="f7", only placeholder CVV + aria-label', () => onPage('/odd-label', async (page) => {
    const field = page.getByPlaceholder('CVV');
    assert.equal(await field.getAttribute('name'), 'f7');
    assert.equal(await field.getAttribute('autocomplete'), null);
    assert.equal(await page.getByLabel('Card verification value').count(), 1);
    await field.pressSequentially(SECRET);
    await Promise.all([page.waitForNavigation(), page.click('#adv-submit')]);
    assertRecorded('/odd-label', 'f7');
  }));

  test('/odd-label/back-digits: label "Security code (3 digits on the back)", id cvc2', () => onPage('/odd-label/back-digits', async (page) => {
    await page.getByLabel('Security code (3 digits on the back)').pressSequentially(SECRET);
    assert.equal(await page.locator('#cvc2').inputValue(), SECRET);
    await Promise.all([page.waitForNavigation(), page.click('#adv-submit')]);
    assertRecorded('/odd-label/back-digits', 'sc_in');
  }));

  test('/odd-label/password: password-type "Verification number"', () => onPage('/odd-label/password', async (page) => {
    await page.getByLabel('Verification number').pressSequentially(SECRET);
    await Promise.all([page.waitForNavigation(), page.click('#adv-submit')]);
    assertRecorded('/odd-label/password', 'vn');
  }));

  test('/odd-label/split: three one-digit inputs', () => onPage('/odd-label/split', async (page) => {
    await page.getByLabel('Digit 1').click();
    await page.keyboard.type(SECRET, { delay: 10 }); // focus auto-advances
    assert.equal(await page.getByLabel('Digit 3').inputValue(), '9');
    await Promise.all([page.waitForNavigation(), page.click('#adv-submit')]);
    for (const f of ['d1', 'd2', 'd3']) assertRecorded('/odd-label/split', f);
  }));

  test('/iframe: code field in a cross-origin iframe (payments.localhost)', () => onPage('/iframe', async (page) => {
    const frameEl = page.locator('#adv-payment-frame');
    assert.equal(new URL(await frameEl.getAttribute('src') ?? '').hostname, 'payments.localhost');
    const frame = page.frameLocator('#adv-payment-frame');
    await frame.getByLabel('Security code').pressSequentially(SECRET);
    await frame.locator('#pay-frame-submit').click();
    await frame.locator('#pay-frame-done').waitFor();
    assertRecorded('/frame/card', 'cvc', 'payments');
  }));

  test('/iframe/odd: odd field name inside the cross-origin iframe', () => onPage('/iframe/odd', async (page) => {
    const frame = page.frameLocator('#adv-payment-frame');
    await frame.getByPlaceholder('•••').pressSequentially(SECRET);
    await frame.locator('#pay-frame-submit').click();
    await frame.locator('#pay-frame-done').waitFor();
    assertRecorded('/frame/odd', 'fld_a', 'payments');
  }));

  test('/early: security code on the guest-details step', () => onPage('/early', async (page) => {
    await page.getByLabel('First name').fill('Ada');
    await page.getByLabel('Last name').fill('Lovelace');
    await page.getByLabel('Email').fill('ada@example.com');
    await page.getByLabel('Card security code').pressSequentially(SECRET);
    await Promise.all([page.waitForNavigation(), page.click('#adv-submit')]);
    assert.match(page.url(), /\/early\/payment$/);
    assertRecorded('/early', 'security_code');
  }));

  test('/select: the code picked from three lists of digits', () => onPage('/select', async (page) => {
    for (const [i, d] of [...SECRET].entries()) await page.getByLabel(`Digit ${i + 1}`).selectOption(d);
    await Promise.all([page.waitForNavigation(), page.locator('#adv-submit').click()]);
    assert.ok(await page.locator('#adv-done').isVisible());
    for (const field of ['cvc_d1', 'cvc_d2', 'cvc_d3']) assertRecorded('/select', field);
  }));

  test('/radio: the code picked digit by digit from radio buttons', () => onPage('/radio', async (page) => {
    for (const [i, d] of [...SECRET].entries()) await page.locator(`input[name="cvv_${i + 1}"][value="${d}"]`).check();
    await Promise.all([page.waitForNavigation(), page.locator('#adv-submit').click()]);
    for (const field of ['cvv_1', 'cvv_2', 'cvv_3']) assertRecorded('/radio', field);
  }));

  test('/autosubmit: submits from the input event on the first keystroke', () => onPage('/autosubmit', async (page) => {
    await Promise.all([page.waitForNavigation(), page.locator('#cvv').press('7')]);
    assert.ok(await page.locator('#adv-done').isVisible());
    assertRecorded('/autosubmit', 'cvv');
  }));

  describe('pages that send to shared collection endpoints, one at a time', { concurrency: 1 }, () => {
    test('/fetch: nested JSON body via fetch() on input', () => onPage('/fetch', async (page) => {
      const since = mark();
      await page.getByLabel('Security code').pressSequentially(SECRET);
      await assertSentSince(since, '/api/card/verify', 'payment.card.securityCode');
    }));

    test('/fetch/get: GET /collect?cvc=...', () => onPage('/fetch/get', async (page) => {
      const since = mark();
      await page.getByLabel('CVC').pressSequentially(SECRET);
      await assertSentSince(since, '/collect', 'cvc');
    }));

    test('/fetch/beacon: navigator.sendBeacon text/plain JSON on change', () => onPage('/fetch/beacon', async (page) => {
      const since = mark();
      await page.getByLabel('Card code').pressSequentially(SECRET);
      await page.keyboard.press('Tab'); // change event
      await assertSentSince(since, '/collect', 'cvv');
    }));

    test('/fetch/blob: fetch() with a Blob body (JSON, no content type) on change', () => onPage('/fetch/blob', async (page) => {
      const since = mark();
      await page.getByLabel('Security code').pressSequentially(SECRET);
      await page.keyboard.press('Tab'); // change event
      await assertSentSince(since, '/api/card/verify', 'cvc');
    }));

    test('/fetch/stream: fetch() with a ReadableStream body on change (Chromium streams only over HTTP/2: the POST is made, and fails here)', () => onPage('/fetch/stream', async (page) => {
      const failed = page.waitForEvent('requestfailed', { predicate: (r) => r.method() === 'POST' && r.url().endsWith('/api/card/verify') });
      await page.getByLabel('Security code').pressSequentially(SECRET);
      await page.keyboard.press('Tab'); // change event
      const request = await failed;
      assert.match(request.failure()?.errorText ?? '', /ALPN/);
      assert.equal(request.postDataBuffer(), null, 'a stream body cannot be read from outside the page');
    }));

    test('/service-worker: the page\'s service worker sends the code from outside the page', async () => {
      // Its own context: the worker would otherwise control the other pages of this origin.
      const own = await newContext(browser);
      try {
        const page = await own.newPage();
        await page.goto(`${sandbox.origin('adversarial')}/service-worker`);
        await page.locator('#adv-sw-status', { hasText: 'registered' }).waitFor();
        await page.reload();
        assert.equal(await page.locator('#adv-sw-status').textContent(), 'controlling');
        const since = mark();
        await page.getByLabel('Security code').pressSequentially(SECRET);
        await page.keyboard.press('Tab'); // change event
        await assertSentSince(since, '/collect', 'cvc');
      } finally {
        await own.close();
      }
    });

    test('/shared-worker: the page hands the code to a SharedWorker, which sends it by GET, JSON POST and WebSocket', () => onPage('/shared-worker', async (page) => {
      await page.locator('#adv-worker-status', { hasText: 'ready' }).waitFor();
      const since = mark();
      await page.getByLabel('Security code').pressSequentially(SECRET);
      await assertSentSince(since, '/api/card/verify', 'cvv');
      await assertSentSince(since, '/collect', 'cvc');
      await assertSentSince(since, '/ws', 'cvc');
    }));

    test('/worker-ws: the page hands the code to a dedicated Worker, which sends it over its own WebSocket', () => onPage('/worker-ws', async (page) => {
      await page.locator('#adv-worker-status', { hasText: 'ready' }).waitFor();
      const since = mark();
      await page.getByLabel('Security code').pressSequentially(SECRET);
      await assertSentSince(since, '/ws', 'cvv');
    }));

    test('/fetch/ws: WebSocket message on input', () => onPage('/fetch/ws', async (page) => {
      await page.waitForFunction(() => (window as unknown as { ws: WebSocket }).ws.readyState === 1);
      const since = mark();
      await page.getByLabel('Security code').pressSequentially(SECRET);
      await assertSentSince(since, '/ws', 'cvc');
    }));
  });
});
