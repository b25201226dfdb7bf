import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { Browser } from 'playwright-core';
import { startSandbox, type Sandbox } from '../../sandbox/index.ts';
import { GuardedPage } from '../../src/executor/guard/page-api.ts';
import { ATTACKS, attack, guardedContext, openAfterRefusal } from './attacks.ts';
import { launchChromium } from '../helpers/chromium.ts';

// The three layers together, as every job's context runs them, against every adversarial page and
// every way of putting the code in; plus a naive "fill every field, press every button" automation
// through the driver API. Across all of it, zero card codes reach the sandbox's server.

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

describe('payment guard, all layers', () => {
  test('raw automation by fill, typing and script on every adversarial page: zero card codes reach a server', async () => {
    const { context, log, page } = await guardedContext(browser);
    for (const how of ['fill', 'type', 'script'] as const) {
      for (const a of ATTACKS) await attack(page, sandbox.origin('adversarial'), a, how);
    }
    await page.waitForTimeout(300);
    assert.deepEqual(sandbox.cardCodesReceived(), []);
    assert.ok(log.deniedBy('page').length > 0 && log.deniedBy('network').length > 0);
    await context.close();
  });

  test('a naive driver fills every field and presses every button through the page API: refused at each card step', async () => {
    const { context, log, page } = await guardedContext(browser);
    const g = new GuardedPage(page, log, { timeoutMs: 3_000 });
    for (const a of ATTACKS) {
      await openAfterRefusal(page, `${sandbox.origin('adversarial')}${a.path}`);
      const inputs = (await g.rows('input')).length;
      for (let i = 0; i < inputs; i++) await g.fill(`input >> nth=${i}`, '735').catch(() => {});
      await g.submit('button >> nth=0', 'continue').catch(() => {});
    }
    await page.waitForTimeout(300);
    assert.deepEqual(sandbox.cardCodesReceived(), []);
    assert.ok(log.deniedBy('driver').length >= ATTACKS.filter((a) => !a.frame).length);
    await context.close();
  });
});
