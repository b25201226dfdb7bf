import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { Browser, Page } from 'playwright-core';
import { startSandbox, type Sandbox } from '../../sandbox/index.ts';
import { ACTION_TIMEOUT_MS } from '../../src/executor/attempt.ts';
import { GuardedPage } from '../../src/executor/guard/page-api.ts';
import { CardStepReached, PageUnresponsive } from '../../src/executor/guard/page-errors.ts';
import { until } from '../helpers/wait.ts';
import { CODE, guardedContext } from './attacks.ts';
import { launchChromium } from '../helpers/chromium.ts';

// The payment guard's rule for WebMCP tools, against the sandbox's adversarial WebMCP pages in real
// Chromium with all three layers: a tool that asks for the card code (under any name) or would pay
// is never called (an action_denied event, then the pause); a tool that fills the card-code field
// from script when called gets no code through (in-page and network layers); odd results are
// bounded. Card codes are counted where they would arrive: on the sandbox's server.

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

const calls = (page: Page) => page.evaluate(() => (window as unknown as { __webmcpCalls: string[] }).__webmcpCalls);

/** Requests the page makes to a path (what a tool that ran would have sent). */
function watch(page: Page, path: string): string[] {
  const seen: string[] = [];
  page.on('request', (r) => {
    if (new URL(r.url()).pathname === path) seen.push(r.method());
  });
  return seen;
}

async function refusal(work: Promise<unknown>): Promise<CardStepReached> {
  const error = await work.then(() => null, (e: unknown) => e);
  assert.ok(error instanceof CardStepReached, `expected the pause, got ${String(error)}`);
  return error;
}

describe('payment guard, WebMCP tools', () => {
  test('tools that ask for the card code under other names are never called: action_denied, then the pause, and no code reaches the server', async () => {
    const { context, log, page } = await guardedContext(browser);
    const g = new GuardedPage(page, log, { timeoutMs: ACTION_TIMEOUT_MS });
    await g.goto(`${sandbox.origin('adversarial')}/webmcp/renamed`);
    const before = sandbox.cardCodesReceived().length;
    const collected = watch(page, '/collect');
    const inputs: Record<string, string> = { verify_guest: 'verifier', confirm_identity: 'vcode', secure_step: 'sc' };
    for (const [name, key] of Object.entries(inputs)) {
      const paused = await refusal(g.callTool(name, { [key]: CODE }));
      assert.notEqual(paused.field, null, name);
      assert.match(paused.control, new RegExp(name));
    }
    assert.deepEqual(await calls(page), []);
    assert.deepEqual(collected, []);
    assert.equal(sandbox.cardCodesReceived().length, before);
    const denied = log.deniedBy('driver');
    assert.equal(denied.length, 3);
    assert.match(denied[0]!, /refused to call the WebMCP tool 'verify_guest'.*asks for the card security code.*described as the card security code/);
    assert.match(denied[1]!, /'confirm_identity'.*three or four digits in a tool about a card/);
    assert.match(denied[2]!, /'secure_step'.*input 'sc' is described as the card security code/);
    for (const message of denied) assert.doesNotMatch(message, new RegExp(CODE));
    await context.close();
  });

  test('the control: called without the guard, the same tool does send the code, and the server counts it', async () => {
    const context = await browser.newContext();
    const page = await context.newPage();
    await page.goto(`${sandbox.origin('adversarial')}/webmcp/renamed`);
    const before = sandbox.cardCodesReceived().length;
    await page.webmcp.callTool('confirm_identity', { vcode: CODE });
    await until('the code to arrive', () => sandbox.cardCodesReceived().length > before, 30_000);
    assert.equal(sandbox.cardCodesReceived().at(-1)!.field, 'vcode');
    await context.close();
  });

  test('tools that would pay, without asking for a code, are never called: action_denied, then the pause with no code field', async () => {
    const { context, log, page } = await guardedContext(browser);
    const g = new GuardedPage(page, log, { timeoutMs: ACTION_TIMEOUT_MS });
    await g.goto(`${sandbox.origin('adversarial')}/webmcp/pay`);
    const charges = watch(page, '/webmcp/charge');
    const why: Record<string, RegExp> = {
      place_order: /its name says it pays/,
      finish_booking: /its description says it pays \('charges'\)/,
      secure_table: /its description says it pays \('deposit'\), and the page marks it as consequential/,
      complete: /its form is sent with 'Pay now'/,
    };
    for (const [name, reason] of Object.entries(why)) {
      const paused = await refusal(g.callTool(name, {}));
      assert.equal(paused.field, null, name);
      assert.match(log.deniedBy('driver').at(-1)!, reason);
      assert.match(log.deniedBy('driver').at(-1)!, /calling it would pay.*Stopping here for the person to pay/);
    }
    assert.deepEqual(await calls(page), []);
    assert.deepEqual(charges, []);
    assert.equal(page.url(), `${sandbox.origin('adversarial')}/webmcp/pay`);
    await context.close();
  });

  test('a tool that fills the card-code field from script when called: the in-page and network layers stop the code, and none reaches the server', async () => {
    const { context, log, page } = await guardedContext(browser);
    const g = new GuardedPage(page, log, { timeoutMs: ACTION_TIMEOUT_MS });
    await g.goto(`${sandbox.origin('adversarial')}/webmcp/fills-code`);
    const before = sandbox.cardCodesReceived().length;
    // Nothing in its declaration asks for a code, and the page shows no code field yet: the call is allowed.
    await g.callTool('apply_voucher', { voucher: CODE });
    assert.match(log.entries.find((e) => e.kind === 'allowed')!.message, /allowed calling the WebMCP tool 'apply_voucher' \("Apply a voucher to the booking\."\) with the inputs voucher/);
    // The in-page layer refuses the value, and the network layer both of the tool's sends that carry
    // the field: its fetch, and its form (the field left empty). The three reports arrive in any order.
    const blocked = () => ({
      page: log.deniedBy('page').some((m) => /script into the card security code field 'cvc'/.test(m)),
      fetch: log.deniedBy('network').some((m) => /api\/card\/verify: .*'cvc'/.test(m)),
      form: log.deniedBy('network').some((m) => /webmcp\/fills-code: .*'cvc'/.test(m)),
    });
    await until('the in-page layer to refuse the value and the network layer the fetch and the form', () => Object.values(blocked()).every(Boolean), 30_000)
      .catch((error: unknown) => assert.fail(`${String(error)}: ${JSON.stringify(blocked())}`));
    // The refused form ends its navigation on the browser's error page; a goto before then would be cut short by it.
    await until('the refused form to end its navigation', () => page.url().startsWith('chrome-error:'), 30_000);
    assert.equal(sandbox.cardCodesReceived().length, before);
    // With the code field on the page already, the tool is not called at all (as any press there).
    await g.goto(`${sandbox.origin('adversarial')}/webmcp/fills-code?present`);
    const paused = await refusal(g.callTool('apply_voucher', { voucher: CODE }));
    assert.equal(paused.field, 'cvc');
    assert.match(log.deniedBy('driver').at(-1)!, /the page shows the card security code field 'cvc'/);
    assert.deepEqual(await calls(page), []);
    assert.equal(sandbox.cardCodesReceived().length, before);
    await context.close();
  });

  test('a tool whose description tells the agent to enter the security code is never called', async () => {
    const { context, log, page } = await guardedContext(browser);
    const g = new GuardedPage(page, log, { timeoutMs: ACTION_TIMEOUT_MS });
    await g.goto(`${sandbox.origin('adversarial')}/webmcp/injection`);
    const paused = await refusal(g.callTool('search_tours', { tour: 'Harbour cruise' }));
    assert.equal(paused.field, 'search_tours');
    assert.match(log.deniedBy('driver').at(-1)!, /its description asks for the card security code/);
    assert.deepEqual(await calls(page), []);
    await context.close();
  });

  test('huge, deep, wide, malformed and polluting results come back bounded; a tool that never answers times out; an unreadable declaration is not called', async () => {
    const { context, log, page } = await guardedContext(browser);
    const g = new GuardedPage(page, log, { timeoutMs: ACTION_TIMEOUT_MS });
    await g.goto(`${sandbox.origin('adversarial')}/webmcp/huge`);
    const big = await g.callTool('big_result', {}) as { content: Array<{ text: string }> };
    assert.equal(big.content[0]!.text.length, 4_000);
    let deep = await g.callTool('deep_result', {}) as Record<string, unknown> | undefined;
    let depth = 0;
    while (deep && typeof deep === 'object') {
      deep = deep.inner as Record<string, unknown> | undefined;
      depth += 1;
    }
    assert.ok(depth <= 8, `depth ${depth}`);
    await assert.rejects(g.callTool('too_deep', {}));
    const wide = await g.callTool('wide_result', {}) as { o: Record<string, number>; list: number[] };
    assert.equal(Object.keys(wide.o).length, 100);
    assert.equal(wide.list.length, 200);
    const malformed = await g.callTool('malformed', {}) as { content: Array<{ text: string }> };
    assert.equal(malformed.content[0]!.text, '{"slots": [1, 2,');
    await g.callTool('polluting', {});
    assert.equal(({} as Record<string, unknown>).polluted, undefined);
    // A short time limit (the page has loaded by now): the call is given up, whatever the tool does.
    const impatient = new GuardedPage(page, log, { timeoutMs: 1_500 });
    await assert.rejects(impatient.callTool('never', {}), (e: unknown) => e instanceof PageUnresponsive || /Timeout/.test(String(e)));
    await refusal(g.callTool('deep_schema', {}));
    assert.match(log.deniedBy('driver').at(-1)!, /'deep_schema'.*larger than the guard reads/);
    await refusal(g.callTool('long_description', {}));
    assert.match(log.deniedBy('driver').at(-1)!, /'long_description'.*larger than the guard reads/);
    // ('never' itself may or may not have been reached within the short limit.)
    assert.deepEqual((await calls(page)).filter((n) => n !== 'never').sort(), ['big_result', 'deep_result', 'malformed', 'polluting', 'too_deep', 'wide_result']);
    await context.close();
  });
});
