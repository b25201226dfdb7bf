import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { BrowserPool, openTab } from '../../src/browser/pool.ts';
import { GuardLog } from '../../src/executor/guard/events.ts';
import { installGuard } from '../../src/executor/guard/index.ts';
import { startSandbox, type Sandbox } from '../../sandbox/index.ts';
import { ATTACKS, attack } from '../guard/attacks.ts';

// The spare (BrowserPool.keepSpare): the next job's context made while the worker waits, its tab
// open. It must be as fresh as a context made at the claim, and the payment guard installed on it
// afterwards must hold its already open tab as it holds a tab opened after it.

let sandbox: Sandbox;
let pool: BrowserPool;
before(async () => {
  sandbox = await startSandbox();
  pool = new BrowserPool({ chromiumPath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium' });
});
after(async () => {
  await pool.close();
  await sandbox.close();
});

/** A spare from the pool, and its tab (the browser started first: keepSpare starts none). */
async function spare() {
  await pool.browser();
  pool.keepSpare();
  const context = await pool.newContext();
  const [tab] = context.pages();
  assert.ok(tab, 'a spare context comes with its tab open');
  return { context, tab };
}

describe('browser pool: the spare context', () => {
  test('none before the browser runs; then the next context comes with one blank tab, which its first try takes, and nothing of the job before it', async () => {
    const cold = new BrowserPool({ chromiumPath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium' });
    try {
      cold.keepSpare();
      const first = await cold.newContext();
      assert.deepEqual(first.pages(), [], 'no spare was made before the first job started the browser');
      const page = await openTab(first);
      await page.goto(`${sandbox.origin('adversarial')}/odd-label`);
      await first.addCookies([{ name: 'seen', value: 'yes', url: sandbox.origin('adversarial') }]);
      await page.evaluate(() => localStorage.setItem('seen', 'yes'));

      cold.keepSpare();
      const next = await cold.newContext();
      assert.notEqual(next, first);
      const [tab, ...others] = next.pages();
      assert.equal(others.length, 0);
      assert.equal(tab!.url(), 'about:blank');
      assert.deepEqual(await next.cookies(), [], 'the previous job\'s cookies are not in the spare');
      assert.equal(await openTab(next), tab, 'the first try takes the spare\'s tab');
      await tab!.goto(`${sandbox.origin('adversarial')}/odd-label`);
      assert.equal(await tab!.evaluate(() => localStorage.getItem('seen')), null, 'nor its storage');
      const second = await openTab(next);
      assert.notEqual(second, tab, 'a retry opens a tab of its own');
      await first.close();
      await next.close();
    } finally {
      await cold.close();
    }
  });

  test('a spare whose tab closed before a job took it (its renderer gone, say) is not handed out', async () => {
    const browser = await pool.browser();
    const before = new Set(browser.contexts());
    pool.keepSpare();
    let made = browser.contexts().find((c) => !before.has(c) && c.pages().length > 0);
    for (let i = 0; i < 200 && !made; i++) {
      await new Promise((r) => setTimeout(r, 25));
      made = browser.contexts().find((c) => !before.has(c) && c.pages().length > 0);
    }
    assert.ok(made, 'the spare was made');
    await made.pages()[0]!.close();
    const next = await pool.newContext();
    assert.notEqual(next, made);
    assert.deepEqual(next.pages(), [], 'a context made now, not the broken spare');
    assert.ok(!browser.contexts().includes(made), 'the broken spare is closed');
    await next.close();
  });

  test('the payment guard installed on a spare guards the tab already open in it: zero card codes reach the server', async () => {
    const { context, tab } = await spare();
    const log = new GuardLog();
    await installGuard(context, log);
    const page = await openTab(context);
    assert.equal(page, tab);
    for (const a of ATTACKS) await attack(page, sandbox.origin('adversarial'), a, 'fill');
    await page.waitForTimeout(300);
    assert.deepEqual(sandbox.cardCodesReceived(), []);
    assert.ok(log.deniedBy('page').length > 0, 'the in-page layer runs in the spare\'s tab');
    assert.ok(log.deniedBy('network').length > 0, 'the network layer sees the spare\'s tab');
    await context.close();
  });

  test('control: a spare with no guard sends the code, so the test above can fail', async () => {
    const { context, tab } = await spare();
    const autosubmit = ATTACKS.find((a) => a.path === '/autosubmit')!;
    await attack(tab, sandbox.origin('adversarial'), autosubmit, 'fill');
    for (let i = 0; i < 100 && sandbox.cardCodesReceived().length === 0; i++) await tab.waitForTimeout(50);
    assert.ok(sandbox.cardCodesReceived().length > 0);
    await context.close();
  });
});
