import assert from 'node:assert/strict';
import { providerRegistry } from '../../src/providers/registry.ts';
import type { BrowserPool } from '../../src/browser/pool.ts';
import type { HoldRegistry } from '../../src/executor/holds.ts';
import type { Claim, RunDeps } from '../../src/executor/run-job.ts';
import { createLogger } from '../../src/observability/logger.ts';
import { transition } from '../../src/jobs/transition.ts';
import { call } from '../helpers/http.ts';
import type { TestService } from '../helpers/service.ts';

// Shared by the executor's end-to-end tests: create a job over REST as an API client would, poll it
// to a terminal status, read its audit log.

export const TERMINAL = ['paused_payment', 'completed', 'no_availability', 'needs_login', 'captcha', 'error'];

/** A venue name unique to one test: the sandbox's Flaky behaviour remembers venues it has failed once. */
export function venue(word: string): string {
  return `${word} ${Math.random().toString(36).slice(2, 8)}`;
}

export { requests } from '../helpers/service.ts';

export async function createJob(service: TestService, key: string, body: unknown): Promise<string> {
  const created = await call(service.url, 'POST', '/api/v1/execution-jobs', { key, body });
  assert.equal(created.status, 202, created.text);
  return created.body.jobId;
}

export interface WaitOptions {
  until?: string[];
  timeoutMs?: number;
  /** Between polls (default 150 ms); many jobs polled at once poll less often, so the polling does not take the CPU the browser needs. */
  intervalMs?: number;
}

/** Polls GET /execution-jobs/{id} until the status is one of `until` (default: terminal). */
export async function waitForJob(service: TestService, key: string, jobId: string, options: WaitOptions = {}): Promise<any> {
  const until = options.until ?? TERMINAL;
  const deadline = Date.now() + (options.timeoutMs ?? 150_000);
  for (;;) {
    const read = await call(service.url, 'GET', `/api/v1/execution-jobs/${jobId}`, { key });
    assert.equal(read.status, 200, read.text);
    if (until.includes(read.body.status)) return read.body;
    if (Date.now() > deadline) {
      // Where it stood: a job that hangs says at which step and on which page, for the next one to look.
      const last = read.body.decisionLog?.at(-1);
      assert.fail(`job ${jobId} still ${read.body.status} after ${options.timeoutMs ?? 150_000} ms${last ? `; last event ${last.timestamp} ${last.type}: ${last.message}` : ''}`);
    }
    await new Promise((r) => setTimeout(r, options.intervalMs ?? 150));
  }
}

/**
 * Moves a pending job as the executor would, without a browser: running, then held for payment (the
 * hold ten minutes ahead, so the job shows its handoff link). Nothing holds a tab for it: a cancel
 * or the person's decline releases it in the database alone.
 */
export async function pauseForPayment(service: TestService, jobId: string): Promise<void> {
  const db = service.services.db;
  await transition(db, jobId, { to: 'running', event: { type: 'job_started', message: 'test run' } });
  await transition(db, jobId, {
    to: 'paused_payment',
    set: { provider_id: 'tablebook', hold_expires_at: new Date(Date.now() + 600_000), summary: 'Held at TableBook.' },
    event: { type: 'paused_payment', message: 'held', providerId: 'tablebook' },
  });
}

export async function auditOf(service: TestService, key: string, jobId: string): Promise<any[]> {
  const audit = await call(service.url, 'GET', `/api/v1/execution-jobs/${jobId}/audit`, { key });
  assert.equal(audit.status, 200, audit.text);
  return audit.body.events;
}

export async function runJob(service: TestService, key: string, body: unknown, options: WaitOptions = {}): Promise<{ job: any; events: any[] }> {
  const jobId = await createJob(service, key, body);
  const job = await waitForJob(service, key, jobId, options);
  return { job, events: await auditOf(service, key, jobId) };
}

export const types = (events: any[]) => events.map((e) => e.type);

/** attemptCount and usedFallback must agree with the audit events. */
export function assertCountersAgree(job: any, events: any[]): void {
  assert.equal(job.attemptCount, events.filter((e) => e.type === 'step_attempt').length, 'attemptCount = number of step_attempt events');
  assert.equal(job.usedFallback, events.some((e) => e.type === 'provider_fallback'), 'usedFallback = a provider_fallback event exists');
  assert.deepEqual(job.decisionLog.map((e: any) => e.type), types(events), 'decisionLog lists the audit events in order');
}

/** Every provider attempt ends with exactly one event carrying providerOutcome. */
export function outcomes(events: any[]): Array<[string, string]> {
  return events.filter((e) => e.providerOutcome).map((e) => [e.providerId, e.providerOutcome]);
}

/**
 * What a test needs to call runJob itself (outside the service's workers): its own browser pool,
 * hold registry or database wrapper, with the service's settings and no step delay.
 */
export function directRunDeps(service: TestService, pool: BrowserPool, holds: HoldRegistry, db: RunDeps['db'] = service.services.db): RunDeps {
  return {
    db,
    pool,
    holds,
    providers: providerRegistry(db, { builtIns: true, urlTemplate: service.config.PROVIDER_URL_TEMPLATE }),
    log: createLogger('silent'),
    secretKey: service.services.secretKey,
    stopping: new AbortController().signal,
    settings: { holdSeconds: 900, stepDelayMs: 0, timeoutMs: 30_000, backoffMs: 300 },
  };
}

/** A claim as the queue gives it on a job's first and only try. */
export function firstClaim(): Claim {
  return { signal: new AbortController().signal, retryCount: 0, lastTry: false };
}
