import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Browser, BrowserContext } from 'playwright-core';
import { attemptProvider, type AttemptDeps } from '../../src/executor/attempt.ts';
import { RunAborted } from '../../src/executor/failures.ts';
import { consentSchema } from '../../src/jobs/schemas.ts';
import { tablebook } from '../../src/providers/tablebook/index.ts';
import { startSandbox, type Sandbox } from '../../sandbox/index.ts';
import { launchChromium } from '../helpers/chromium.ts';
import { daysFromNow } from '../helpers/service.ts';
import { memoryRecorder, TRAVELLER } from '../generic/harness.ts';
import { startedTogether } from '../helpers/together.ts';

// consent.maxJobDurationSeconds is a soft cap: once it has passed, the step under way finishes and
// no new step starts. Here the cap "passes" at a chosen step (pastCap reads the step the attempt is
// on), on the real TableBook site in a real Chromium: passed during the payment step, the hold is
// still reached; passed during the guest details, the run stops before the review.

describe('the soft duration cap, step by step', () => {
  let sandbox: Sandbox;
  let browser: Browser;
  let context: BrowserContext;
  before(async () => {
    [sandbox, browser] = await startedTogether([startSandbox(), launchChromium()]);
    context = await browser.newContext();
  });
  after(async () => {
    await browser?.close();
    await sandbox?.close();
  });

  const run = (capPassedDuring: string) => {
    const recorder = memoryRecorder();
    const progress: AttemptDeps['progress'] = { step: null, url: null };
    const request = { scenario: 'restaurant' as const, venue: 'Chez Nous', city: 'Paris', date: daysFromNow(9), time: '19:30', partySize: 2 };
    const outcome = attemptProvider({
      context,
      recorder,
      plan: { request, traveller: TRAVELLER, consent: consentSchema.parse({ maxRetries: 0 }), preferences: {} },
      startUrl: `${sandbox.origin('tablebook')}/`,
      signal: new AbortController().signal,
      stepDelayMs: 0,
      timeoutMs: 15_000,
      backoffMs: 10,
      progress,
      pastCap: () => progress.step === capPassedDuring,
    }, tablebook);
    const started = () => recorder.events.filter((e) => e.type === 'step_started').map((e) => (e.data as { step: string }).step);
    return { outcome, started };
  };

  test('passed during the payment step: the step finishes, and the hold it reaches is kept', async () => {
    const { outcome, started } = run('payment');
    const result = await outcome;
    assert.equal(result.kind, 'paused');
    assert.equal(started().at(-1), 'payment');
    if (result.kind === 'paused') await result.page.close();
  });

  test('passed during the guest details: they are finished, and no later step is started', async () => {
    const { outcome, started } = run('guest_details');
    await assert.rejects(outcome, (error: unknown) => error instanceof RunAborted && error.reason === 'soft_cap');
    assert.deepEqual(started(), ['search', 'choose', 'guest_details']);
  });
});
