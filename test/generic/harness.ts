import type { Browser, BrowserContext } from 'playwright-core';
import { ACTION_TIMEOUT_MS, attemptProvider, type AttemptDeps, type AttemptOutcome } from '../../src/executor/attempt.ts';
import type { JobRecorder } from '../../src/executor/recorder.ts';
import type { BookingPlan } from '../../src/executor/request.ts';
import { installTabScripts } from '../../src/executor/guard/tab-scripts.ts';
import { consentSchema } from '../../src/jobs/schemas.ts';
import { genericDriver, type GenericProvider } from '../../src/providers/generic/index.ts';
import type { SearchRequest, Traveller } from '../../src/driver/types.ts';

// Runs the generic driver through the executor's own attempt (search to the pause), on a real
// Chromium tab, with a recorder that keeps the audit events in memory (the registry that makes a
// provider of the generic driver a job's provider is another branch's).

export interface Recorded {
  type: string;
  message: string;
  data?: unknown;
}

export function memoryRecorder(): JobRecorder & { events: Recorded[] } {
  const events: Recorded[] = [];
  const recorder = {
    jobId: 'test',
    runId: 'test',
    usedFallback: false,
    events,
    record: async (e: Recorded) => {
      events.push(e);
    },
    recordAttempt: async (e: Recorded) => {
      events.push(e);
    },
    transition: async () => {},
    flush: async () => {},
    denied: (_layer: string, message: string) => {
      events.push({ type: 'action_denied', message });
    },
    allowed: (message: string) => {
      events.push({ type: 'action_allowed', message });
    },
  };
  return recorder as unknown as JobRecorder & { events: Recorded[] };
}

export const TRAVELLER: Traveller = {
  givenName: 'Ada',
  familyName: 'Lovelace',
  email: 'ada@example.com',
  phone: '+44 20 7946 0000',
  birthDate: '1985-12-10',
  passportNumber: 'P1234567',
  passportCountry: 'GB',
};

export async function attempt(context: BrowserContext, provider: GenericProvider, request: SearchRequest, plan: Partial<BookingPlan> = {}, onAction?: AttemptDeps['onAction']): Promise<AttemptOutcome & { events: Recorded[] }> {
  const recorder = memoryRecorder();
  const outcome = await attemptProvider({
    context,
    recorder,
    plan: { request, traveller: TRAVELLER, consent: consentSchema.parse({ maxRetries: 0 }), preferences: {}, ...plan },
    startUrl: provider.startUrl,
    signal: new AbortController().signal,
    stepDelayMs: 0,
    timeoutMs: ACTION_TIMEOUT_MS,
    backoffMs: 10,
    progress: { step: null, url: null },
    onAction,
  }, genericDriver(provider));
  return Object.assign(outcome, { events: recorder.events });
}

export async function newContext(browser: Browser): Promise<BrowserContext> {
  const context = await browser.newContext();
  // As long as a run's action may take (a loaded CI machine ran a 15 s limit out, 2026-12-04).
  context.setDefaultTimeout(ACTION_TIMEOUT_MS);
  // As a run's context has them (the guard's layers are tested on their own, test/guard).
  await installTabScripts(context);
  return context;
}
