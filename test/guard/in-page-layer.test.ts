import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { Browser } from 'playwright-core';
import { startSandbox, type Sandbox } from '../../sandbox/index.ts';
import { ATTACKS, attack, fieldValues, guardedContext } from './attacks.ts';
import { launchChromium } from '../helpers/chromium.ts';

// Layer 2 on its own: no driver API, no network interception. The in-page script must keep every
// card-code field of every adversarial page empty while automation is in control, whether the
// automation fills, types key by key, or sets the value by script, in the page and in a cross-origin
// iframe, and no code is picked from lists or ticked digit by digit; so the pages' own senders
// (auto-submit, fetch, beacon, WebSocket, workers, form posts) have nothing to send. It stands aside
// only for a tab the person controls.

const IN_PAGE_ONLY = { inPage: true, network: false };

let browser: Browser;
let sandbox: Sandbox;
before(async () => {
  browser = await launchChromium();
  sandbox = await startSandbox();
});
after(async () => {
  await browser.close();
  await sandbox.close();
});

describe('payment guard, in-page layer alone', () => {
  for (const how of ['fill', 'type', 'script'] as const) {
    test(`input by ${how} into card-code fields is blocked on every adversarial page, nothing reaches the server`, async () => {
      const { context, log, page } = await guardedContext(browser, IN_PAGE_ONLY);
      for (const a of ATTACKS.filter((x) => !x.submit)) {
        // Pages that send on their own: the field must still be empty after the attempt.
        await attack(page, sandbox.origin('adversarial'), a, how);
        assert.deepEqual(await fieldValues(page, a), a.fields.map(() => ''), `${a.path}: the field stayed empty`);
      }
      // A frame that runs no script runs none of the guard's either (see Attack.scriptless).
      for (const a of ATTACKS.filter((x) => x.submit && !x.scriptless)) {
        await attack(page, sandbox.origin('adversarial'), a, how);
      }
      await page.waitForTimeout(200);
      assert.deepEqual(sandbox.cardCodesReceived(), []);
      const denied = log.deniedBy('page');
      for (const field of ["'f7'", "'sc_in'", "'vn'", "'d1'", "'cvc'", "'fld_a'", "'security_code'", "'cvv'", "'code'", "'cvc_d1'", "'cvv_1'"]) {
        assert.ok(denied.some((m) => m.includes(field)), `an in-page block names ${field}`);
      }
      assert.ok(denied.every((m) => !m.includes('735') && /in-page layer/.test(m)));
      await context.close();
    });
  }

  test('a page script cannot undo the guard: the value setter and form.submit stay guarded', async () => {
    const { context, page } = await guardedContext(browser, IN_PAGE_ONLY);
    await page.goto(`${sandbox.origin('adversarial')}/early/payment`);
    const result = await page.evaluate(() => {
      const el = document.getElementById('cvc') as HTMLInputElement;
      let redefined = true;
      try {
        Object.defineProperty(HTMLInputElement.prototype, 'value', { set() {}, get() { return ''; } });
      } catch {
        redefined = false;
      }
      el.value = '999';
      const form = el.form!;
      HTMLFormElement.prototype.submit.call(form);
      return { redefined, value: el.value };
    });
    assert.deepEqual(result, { redefined: false, value: '' });
    await page.waitForTimeout(200);
    assert.deepEqual(sandbox.cardCodesReceived(), []);
    await context.close();
  });

  test('a list of digits stays unpicked: choosing an option and setting the value by script are refused, nothing reaches the server', async () => {
    const { context, log, page } = await guardedContext(browser, IN_PAGE_ONLY);
    await page.goto(`${sandbox.origin('adversarial')}/select`);
    await page.selectOption('#cvc-d1', '7');
    await page.evaluate(() => {
      (document.getElementById('cvc-d2') as HTMLSelectElement).value = '3';
    });
    assert.deepEqual(await page.$$eval('select', (els) => els.map((e) => (e as HTMLSelectElement).value)), ['', '', '']);
    await page.click('#adv-submit');
    await page.waitForTimeout(200);
    assert.deepEqual(sandbox.cardCodesReceived(), []);
    const denied = log.deniedBy('page');
    assert.ok(denied.some((m) => /blocked typing into the card security code field 'cvc_d1'/.test(m)), denied.join('\n'));
    assert.ok(denied.some((m) => /blocked script into the card security code field 'cvc_d2'/.test(m)), denied.join('\n'));
    await context.close();
  });

  test('a code picked digit by digit from radio buttons stays unticked, however it is ticked; a form with one ticked is not submitted', async () => {
    const { context, log, page } = await guardedContext(browser, IN_PAGE_ONLY);
    await page.goto(`${sandbox.origin('adversarial')}/radio`);
    const ticked = () => page.$$eval('input[type=radio]', (els) => els.filter((e) => (e as HTMLInputElement).checked).map((e) => `${(e as HTMLInputElement).name}=${(e as HTMLInputElement).value}`));
    await page.check('input[name="cvv_1"][value="7"]', { timeout: 1_000 }).catch(() => {});
    await page.getByText('3', { exact: true }).nth(1).click(); // the label "3" of the second digit
    await page.focus('input[name="cvv_3"][value="5"]');
    await page.keyboard.press('Space');
    await page.keyboard.press('ArrowRight');
    const byScript = await page.evaluate(() => {
      const box = document.querySelector('input[name="cvv_2"][value="9"]') as HTMLInputElement;
      box.checked = true;
      box.defaultChecked = true;
      box.setAttribute('checked', '');
      box.toggleAttribute('checked', true);
      box.click();
      return box.checked;
    });
    assert.equal(byScript, false);
    assert.deepEqual(await ticked(), []);
    const denied = log.deniedBy('page');
    assert.ok(denied.some((m) => /blocked ticking the card security code field 'cvv_1'/.test(m)), denied.join('\n'));
    assert.ok(denied.some((m) => /blocked script into the card security code field 'cvv_2'/.test(m)), denied.join('\n'));

    // Ticked before the guard saw it (the markup of a new document): the form does not go.
    await page.evaluate(() => {
      const form = document.getElementById('adv-form')!;
      form.insertAdjacentHTML('beforeend', '<input type="radio" name="cvv_1" value="4" checked>');
      (form as HTMLFormElement).requestSubmit();
    });
    await page.waitForTimeout(200);
    assert.match(page.url(), /\/radio$/, 'not submitted');
    assert.ok(log.deniedBy('page').some((m) => /blocked submitting into the card security code field 'cvv_1'/.test(m)));
    assert.deepEqual(sandbox.cardCodesReceived(), []);
    await context.close();
  });

  test('the person in control of the tab types freely; back under automation, input is blocked again', async () => {
    const { context, log, guard, page } = await guardedContext(browser, IN_PAGE_ONLY);
    await page.goto(`${sandbox.origin('adversarial')}/early/payment`);
    await guard.setUserInControl(page, true);
    await page.focus('#cvc');
    await page.keyboard.type('42');
    assert.equal(await page.inputValue('#cvc'), '42');
    // A new document in the same tab asks who is in control as it starts.
    await page.reload();
    await page.fill('#cvc', '43');
    assert.equal(await page.inputValue('#cvc'), '43');
    await guard.setUserInControl(page, false);
    await page.fill('#cvc', '');
    await page.fill('#cvc', '44');
    assert.equal(await page.inputValue('#cvc'), '');
    assert.equal(log.deniedBy('page').length > 0, true);
    await context.close();
  });
});
