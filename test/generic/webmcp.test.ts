import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { Browser } from 'playwright-core';
import { ACTION_TIMEOUT_MS, attemptProvider, type AttemptDeps } from '../../src/executor/attempt.ts';
import type { GuardLayer } from '../../src/executor/guard/events.ts';
import type { JobRecorder } from '../../src/executor/recorder.ts';
import type { BookingPlan } from '../../src/executor/request.ts';
import { consentSchema } from '../../src/jobs/schemas.ts';
import { GuardedPage } from '../../src/executor/guard/page-api.ts';
import { DECLINE } from '../../src/providers/generic/strategy.ts';
import { webmcpStrategy } from '../../src/providers/generic/webmcp/index.ts';
import { guardedContext } from '../guard/attacks.ts';
import { launchChromium } from '../helpers/chromium.ts';
import { composedDriver, sitePages } from './compose.ts';
import { startWebMcpSite, type WebMcpSite } from './webmcp-site.ts';

// The WebMCP strategy books on a site that publishes only tools, through the executor's attempt
// (consent decisions, what is held, the pause) and the payment guard's three layers: search → hold
// → guest details by tool, the checkout page in the browser, paused at the card code; then the
// person pays and the site's booking reference is read. No code reaches the site before the person's.

let browser: Browser;
let site: WebMcpSite;
before(async () => {
  browser = await launchChromium();
  site = await startWebMcpSite();
});
after(async () => {
  await browser.close();
  await site.close();
});

/** The run's audit events in memory (the database is not what these tests are about). */
class MemoryRecorder {
  readonly events: Array<{ type: string; message: string }> = [];
  provider: string | null = null;
  async record(event: { type: string; message: string }): Promise<void> {
    this.events.push({ type: event.type, message: event.message });
  }
  async recordAttempt(event: { type: string; message: string }): Promise<void> {
    this.events.push({ type: event.type, message: event.message });
  }
  denied(_layer: GuardLayer, message: string): void {
    this.events.push({ type: 'action_denied', message });
  }
  allowed(message: string): void {
    this.events.push({ type: 'action_allowed', message });
  }
}

function plan(partySize: number, time = '19:30'): BookingPlan {
  return {
    request: { scenario: 'restaurant', venue: 'Harbour Table', city: 'Lisbon', date: '2030-06-01', time, partySize },
    traveller: { givenName: 'Ada', familyName: 'Lovelace', email: 'ada@example.com', phone: '+44 20 7946 0958' },
    consent: consentSchema.parse({ allowTimeAdjustment: true, maxTimeAdjustmentMinutes: 30 }),
    preferences: {},
  };
}

const driver = (start = '/') => composedDriver({ id: 'harbour', name: 'Harbour Table', scenario: 'restaurant', startUrl: site.url(start) }, [webmcpStrategy, sitePages]);

async function attempt(p: BookingPlan, start = '/') {
  const { context, guard, page } = await guardedContext(browser);
  await page.close();
  const recorder = new MemoryRecorder();
  const deps: AttemptDeps = {
    context, recorder: recorder as unknown as JobRecorder, plan: p, startUrl: site.url(start), signal: new AbortController().signal,
    stepDelayMs: 0, timeoutMs: ACTION_TIMEOUT_MS, backoffMs: 10, progress: { step: null, url: null },
  };
  return { outcome: await attemptProvider(deps, driver(start)), recorder, context, guard };
}

describe('generic driver, WebMCP strategy', () => {
  test('books through the tools, pauses at the card code on the checkout page, and reads the reference once the person pays', async () => {
    const { outcome, recorder, context, guard } = await attempt(plan(2, '19:40'));
    assert.equal(outcome.kind, 'paused', JSON.stringify(outcome.kind === 'failed' ? outcome.failure : null));
    if (outcome.kind !== 'paused') return;
    assert.equal(outcome.field, 'cvc');
    assert.deepEqual(outcome.held && { venue: outcome.held.venue, when: outcome.held.when, quantity: outcome.held.quantity, price: outcome.held.price }, { venue: 'Harbour Table, Lisbon', when: '2030-06-01 at 19:30', quantity: '2 guests', price: '€60.00' });
    // Within the consent: 19:40 is not offered, 19:30 is the nearest (the later 20:00 is sold out).
    assert.deepEqual(outcome.decisions.adjusted, { from: '19:40', to: '19:30' });
    const messages = recorder.events.map((e) => `${e.type}: ${e.message}`);
    for (const tool of ['search_availability', 'hold_slot', 'add_guest_details']) {
      assert.ok(messages.some((m) => m.startsWith('action_allowed') && m.includes(`the WebMCP tool '${tool}'`)), `${tool}\n${messages.join('\n')}`);
    }
    assert.ok(messages.some((m) => /^step_started: Choosing 19:30 · Dining room/.test(m)), messages.join('\n'));
    assert.ok(messages.some((m) => /^action_denied: Payment guard \(driver layer\) refused to press 'Pay'/.test(m)), messages.join('\n'));
    assert.deepEqual(site.cardCodesReceived(), []);

    // The person pays on the held tab (the handoff's live view types into it).
    await guard.setUserInControl(outcome.page, true);
    await outcome.page.locator('#cvc').pressSequentially('123');
    await Promise.all([outcome.page.waitForURL(/\/confirmed\//), outcome.page.locator('#pay').click()]);
    const code = await driver().confirmation(outcome.guarded);
    assert.match(code ?? '', /^HT-[0-9A-F]{6}$/);
    assert.deepEqual(site.confirmations(), [code]);
    assert.deepEqual(site.cardCodesReceived().map((r) => r.field), ['cvc']);
    await context.close();
  });

  test('tools that chain: the search\'s slot id goes to a hold tool that takes the guest too (a full name from first and last), at the guest step', async () => {
    const codesBefore = site.cardCodesReceived().length;
    const { outcome, recorder, context } = await attempt(plan(2, '19:30'), '/chained');
    assert.equal(outcome.kind, 'paused', JSON.stringify(outcome.kind === 'failed' ? outcome.failure : null));
    if (outcome.kind !== 'paused') return;
    assert.equal(outcome.field, 'cvc');
    assert.deepEqual(outcome.held && { when: outcome.held.when, quantity: outcome.held.quantity }, { when: '2030-06-01 at 19:30', quantity: '2 guests' });
    const calls = recorder.events.filter((e) => e.type === 'action_allowed' && /WebMCP tool/.test(e.message)).map((e) => e.message);
    assert.equal(calls.length, 2, calls.join('\n'));
    assert.match(calls[1]!, /'reserve_table' .* with the inputs slot_ref, guest, contact_email, contact_phone:/);
    assert.match(await outcome.page.locator('#held').innerText(), /Guest\s+Ada Lovelace/, 'the site holds the slot in the guest\'s full name');
    assert.equal(site.cardCodesReceived().length, codesBefore, 'no card code reached the site');
    await context.close();
  });

  test('a hold tool that says it charges the card is never called: the attempt pauses there for the person, with no code field', async () => {
    const before = site.confirmations().length;
    const { outcome, recorder, context } = await attempt(plan(2), '/?prepaid');
    assert.equal(outcome.kind, 'paused');
    if (outcome.kind !== 'paused') return;
    assert.equal(outcome.step, 'choose');
    assert.equal(outcome.field, null);
    assert.equal(outcome.control, "the WebMCP tool 'hold_slot'");
    const denied = recorder.events.filter((e) => e.type === 'action_denied').map((e) => e.message);
    assert.deepEqual(denied, ["Payment guard (driver layer) refused to call the WebMCP tool 'hold_slot' (\"Books one of the slots search_availability returned and charges the card on file.\"): calling it would pay (its description says it pays ('charges'), and the page marks it as consequential). Stopping here for the person to pay."]);
    assert.equal(site.confirmations().length, before);
    await context.close();
  });

  test('a search tool that says there is nothing free ends the attempt as no_availability, quoting the site', async () => {
    const { outcome, context } = await attempt(plan(12));
    assert.equal(outcome.kind, 'failed');
    if (outcome.kind !== 'failed') return;
    assert.equal(outcome.failure.kind, 'no_availability');
    assert.match(outcome.failure.message, /No tables are available for parties over 8/);
    await context.close();
  });

  test('a declarative form tool is seen with the schema Chromium derives, called like any tool, and the page it loads is left to the next strategy', async () => {
    const { context, log, page } = await guardedContext(browser);
    const g = new GuardedPage(page, log, { timeoutMs: ACTION_TIMEOUT_MS });
    const provider = { id: 'harbour', name: 'Harbour Table', scenario: 'restaurant' as const, startUrl: site.url('/declarative') };
    const ctx = { page: g, provider, state: { notes: new Map() } };
    const request = plan(2).request;
    assert.equal(await webmcpStrategy.search!(ctx, request), undefined);
    assert.equal(new URL(page.url()).pathname, '/declarative/results');
    assert.equal(new URL(page.url()).searchParams.get('date'), '2030-06-01');
    assert.equal(new URL(page.url()).searchParams.get('party_size'), '2');
    assert.match(log.entries.find((e) => e.kind === 'allowed')!.message, /the WebMCP tool 'find_tables' \("Find free tables at Harbour Table"\) with the inputs date, party_size/);
    // The results are a page, not a tool's answer: the page-reading strategy reads them.
    assert.equal(await webmcpStrategy.availability!(ctx), DECLINE);
    await g.goto(site.url('/declarative'));
    const [tool] = await g.tools();
    assert.deepEqual(tool!.inputSchema?.required, ['date', 'party_size']);
    assert.deepEqual((tool!.inputSchema?.properties as Record<string, { format?: string; enum?: string[] }>).area!.enum, ['in', 'out']);
    await context.close();
  });

  test('a tool that opens its page a moment after answering: the step ends on that page, not on the one it left', async () => {
    const { context, log, page } = await guardedContext(browser);
    const g = new GuardedPage(page, log, { timeoutMs: ACTION_TIMEOUT_MS });
    const ctx = { page: g, provider: { id: 'harbour', name: 'Harbour Table', scenario: 'restaurant' as const, startUrl: site.url('/later') }, state: { notes: new Map() } };
    assert.equal(await webmcpStrategy.search!(ctx, plan(2).request), undefined);
    assert.equal(new URL(page.url()).pathname, '/declarative/results');
    assert.equal(await page.locator('h1').textContent(), 'Free tables on 2030-06-01 for 2');
    await context.close();
  });

  test('a page without tools is declined untouched, for the next strategy', async () => {
    const { context, log, page } = await guardedContext(browser);
    const g = new GuardedPage(page, log, { timeoutMs: ACTION_TIMEOUT_MS });
    const ctx = { page: g, provider: { id: 'x', name: 'X', scenario: 'restaurant' as const, startUrl: site.url('/declarative/results') }, state: { notes: new Map() } };
    assert.equal(await webmcpStrategy.search!(ctx, plan(2).request), DECLINE);
    assert.deepEqual(log.entries, []);
    await context.close();
  });
});
