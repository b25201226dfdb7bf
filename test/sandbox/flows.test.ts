import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Browser, BrowserContext } from 'playwright-core';
import { PROVIDERS, startSandbox, type Sandbox } from '../../sandbox/index.ts';
import { clickAndNavigate, HOOKS, launchBrowser, newContext, normalVenue, SUITE_TIMEOUT, unlabelledControls, walkToReview } from './drivers.ts';
import { startedTogether } from '../helpers/together.ts';

let sandbox: Sandbox;
let browser: Browser;
let context: BrowserContext;

before(async () => {
  [sandbox, browser] = await startedTogether([startSandbox(), launchBrowser()]);
  // One context: each test drives a different provider (= a different origin and session).
  context = await newContext(browser);
});
after(async () => {
  await browser?.close();
  await sandbox?.close();
});

describe('normal booking flow on every provider (real Chromium)', { concurrency: 2, timeout: SUITE_TIMEOUT }, () => {
  for (const p of PROVIDERS) {
    test(`${p.id}: search → choose → details → review → payment → pay → confirmation`, async () => {
      const h = HOOKS[p.id];
      const origin = sandbox.origin(p.id);
      const host = new URL(origin).host;
      const page = await context.newPage();
      try {
        await walkToReview(page, origin, p.id, normalVenue(p.scenario));

        // review shows everything + a hold
        const review = await page.innerText('body');
        assert.match(review, /Ada/);
        assert.match(review, /Lovelace/i);
        assert.match(review, /ada@example\.com/);
        if (p.scenario === 'flight') assert.match(review, /X1234567/);
        const expires = await page.getAttribute(h.hold, 'data-hold-expires-at');
        assert.ok(expires && Date.parse(expires) > Date.now() + 800_000, 'hold of ~15 minutes shown');
        assert.equal(await page.locator(h.walkInConfirm).count(), 0);

        // payment page
        const payResp = await clickAndNavigate(page, h.reviewContinue);
        assert.equal(payResp.status(), 200);
        assert.equal((await page.textContent(h.cardOnFile))?.trim(), h.cardOnFileText);
        const cvc = page.locator(h.cvcInput);
        assert.equal(await cvc.getAttribute('autocomplete'), 'cc-csc');
        assert.equal(await cvc.getAttribute('name'), h.cvcName);
        assert.deepEqual(await unlabelledControls(page), [], 'every control on the payment page is labelled');
        const cvcId = await cvc.getAttribute('id');
        assert.equal(await page.locator(`label[for="${cvcId}"]`).count(), 1, 'code field has a label');
        assert.ok(await page.locator(h.hold).isVisible());
        assert.equal(sandbox.cardCodesReceived().filter((r) => r.host === host).length, 0, 'nothing received before paying');
        assert.equal(await page.locator('[data-confirmation-code]').count(), 0);

        // human types the code and pays
        await cvc.pressSequentially(h.cvcValue);
        const conf = await clickAndNavigate(page, h.pay);
        assert.equal(conf.status(), 200);
        assert.match(await page.title(), /Confirmed/);
        const code = await page.getAttribute('[data-confirmation-code]', 'data-confirmation-code');
        assert.ok(code, 'confirmation code shown');
        assert.match(code, h.confirmationCode);
        assert.ok((await page.textContent('[data-confirmation-code]'))?.includes(code));

        assert.deepEqual(sandbox.confirmations().filter((c) => c.provider === p.id), [{ provider: p.id, code, paidWithCard: true }]);
        const received = sandbox.cardCodesReceived().filter((r) => r.host === host);
        assert.equal(received.length, 1);
        assert.equal(received[0]?.field, h.cvcName);
        assert.match(received[0]?.path ?? '', /^\//);
        assert.ok(received[0]?.at instanceof Date);


        // session cookie is HttpOnly
        const cookies = await context.cookies(origin);
        assert.ok(cookies.length >= 1 && cookies.every((c) => c.httpOnly));
      } finally {
        await page.close();
      }
    });
  }
});

describe('payment validation', { timeout: SUITE_TIMEOUT }, () => {
  test('empty or malformed code is rejected and the form re-shown; no confirmation', async () => {
    const page = await context.newPage();
    const origin = sandbox.origin('tablebook');
    try {
      await walkToReview(page, origin, 'tablebook', 'Validation Bistro');
      await clickAndNavigate(page, HOOKS.tablebook.reviewContinue);
      const before = sandbox.confirmations().length;
      let r = await clickAndNavigate(page, '#tb-pay'); // empty (form is novalidate)
      assert.equal(r.status(), 422);
      assert.match(await page.textContent('#tb-payment-error') ?? '', /security code/i);
      await page.fill('#tb-cvc', '12');
      r = await clickAndNavigate(page, '#tb-pay');
      assert.equal(r.status(), 422);
      assert.match(await page.textContent('#tb-payment-error') ?? '', /3 or 4 digits/);
      assert.equal(await page.locator('[data-confirmation-code]').count(), 0);
      assert.equal(sandbox.confirmations().length, before);
      // confirmation URL cannot be reached by GET
      const bid = new URL(page.url()).pathname.split('/')[2];
      const g = await page.goto(`${origin}/reservations/${bid}/confirmed`);
      assert.ok(g);
      assert.match(g.url(), /\/payment$/);
    } finally {
      await page.close();
    }
  });

  test('search form validation re-renders with errors (422)', async () => {
    const page = await context.newPage();
    try {
      await page.goto(`${sandbox.origin('skyfare')}/`);
      await page.fill('[name="origin"]', 'Lisbon');
      const r = await clickAndNavigate(page, '#sf-search-flights');
      assert.equal(r.status(), 422);
      assert.ok(await page.locator('[data-testid="form-errors"]').isVisible());
      assert.equal(await page.inputValue('[name="origin"]'), 'Lisbon');
    } finally {
      await page.close();
    }
  });
});
