import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { BrowserPool } from '../../src/browser/pool.ts';
import type { HeldSession, HoldInput } from '../../src/executor/held-session.ts';
import { HoldRegistry } from '../../src/executor/holds.ts';
import { runJob, type RunDeps } from '../../src/executor/run-job.ts';
import { createLogger } from '../../src/observability/logger.ts';
import { call } from '../helpers/http.ts';
import { BACKENDS, startTestService, type TestService } from '../helpers/service.ts';
import { auditOf, createJob, directRunDeps, firstClaim, requests, types } from './helpers.ts';

// A run stopped by something other than the provider (here the hold registry refuses the session at
// the pause), driven through the real run on a real job, browser and sandbox. On the queue's last
// try the job ends `error` (internal_error), and the attempt under way gets its provider outcome so
// the provider metrics count it; on an earlier try the error goes back to the queue for a retry.

class BrokenHolds extends HoldRegistry {
  contexts: HoldInput['context'][] = [];
  override add(input: HoldInput): HeldSession {
    this.contexts.push(input.context);
    throw new Error('the hold registry is unavailable');
  }
}

for (const backend of BACKENDS) {
  describe(`an internal error stops a run on ${backend.name}`, () => {
    let service: TestService;
    let key: string;
    let pool: BrowserPool;
    let holds: BrokenHolds;
    let deps: RunDeps;
    before(async () => {
      service = await startTestService(backend.url, {}, { sandbox: true });
      key = await service.mintKey();
      pool = new BrowserPool({ chromiumPath: service.config.CHROMIUM_PATH });
      holds = new BrokenHolds(service.services.db, createLogger('silent'), 'test-instance', service.services.providers);
      deps = directRunDeps(service, pool, holds);
    });
    after(async () => {
      await pool.close();
      await service.close();
    });

    test('on the last try: error internal_error, and the provider\'s attempt is counted as failed', async () => {
      const jobId = await createJob(service, key, requests.restaurant({ restaurant_name: 'Noma' }));
      await runJob(deps, jobId, { signal: new AbortController().signal, retryCount: 3, lastTry: true });

      const job = (await call(service.url, 'GET', `/api/v1/execution-jobs/${jobId}`, { key })).body;
      assert.equal(job.status, 'error');
      assert.deepEqual({ reason: job.error.reason, provider: job.error.provider, step: job.error.step }, { reason: 'internal_error', provider: 'tablebook', step: 'payment' });
      assert.match(job.error.message, /the hold registry is unavailable/);
      const events = await auditOf(service, key, jobId);
      const failed = events.at(-1);
      assert.equal(failed.type, 'job_failed');
      assert.equal(failed.providerId, 'tablebook');
      assert.equal(failed.providerOutcome, 'failed');
      assert.ok(!types(events).includes('paused_payment'));
      const metrics = (await call(service.url, 'GET', '/api/v1/metrics/providers/tablebook', { key })).body;
      assert.deepEqual([metrics.totalAttempts, metrics.failedCount], [1, 1]);
      // The session the registry did not take is not left open.
      assert.equal(holds.contexts.length, 1);
      assert.equal(holds.contexts[0]!.pages().length, 0, 'its browser context was closed');
    });

    test('before the last try: the error goes back to the queue, which will retry the job', async () => {
      const jobId = await createJob(service, key, requests.restaurant({ restaurant_name: 'Noma' }));
      await assert.rejects(runJob(deps, jobId, firstClaim()), /the hold registry is unavailable/);
      const job = (await call(service.url, 'GET', `/api/v1/execution-jobs/${jobId}`, { key })).body;
      assert.equal(job.status, 'running', 'left for the next try');
    });
  });
}
