import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { setTimeout as sleep } from 'node:timers/promises';
import { sql, type KyselyPlugin } from 'kysely';
import { BrowserPool } from '../../src/browser/pool.ts';
import { HoldRegistry } from '../../src/executor/holds.ts';
import { runJob as run } from '../../src/executor/run-job.ts';
import { createLogger } from '../../src/observability/logger.ts';
import { call } from '../helpers/http.ts';
import { BACKENDS, startTestService, type TestService } from '../helpers/service.ts';
import { auditOf, createJob, directRunDeps, firstClaim, outcomes, requests, runJob, types } from './helpers.ts';

// consent.maxJobDurationSeconds stops a run cleanly. The shortest limit the API accepts is 30 s, so
// the run is slowed with EXECUTOR_STEP_DELAY_MS (a test aid: a pause before each step) until it
// cannot finish in time.

for (const backend of BACKENDS) {
  describe(`maxJobDurationSeconds on ${backend.name}`, () => {
    let service: TestService;
    let key: string;
    before(async () => {
      service = await startTestService(backend.url, { WORKERS: '1', EXECUTOR_STEP_DELAY_MS: '7000' }, { sandbox: true });
      key = await service.mintKey();
    });
    after(() => service.close());

    test('a run past its limit is aborted: status error max_duration_exceeded, job_aborted, nothing held', async () => {
      const started = Date.now();
      const { job, events } = await runJob(service, key, requests.restaurant({ restaurant_name: 'Slow Food' }, { maxJobDurationSeconds: 30 }), { timeoutMs: 120_000 });
      assert.equal(job.status, 'error');
      assert.equal(job.error.reason, 'max_duration_exceeded');
      assert.equal(job.error.provider, 'tablebook');
      assert.ok(Date.now() - started >= 29_000, 'not before the limit');
      assert.ok(Date.now() - started < 90_000, 'soon after the limit');
      const last = events.at(-1);
      assert.equal(last.type, 'job_aborted');
      assert.match(last.message, /30 s limit/);
      assert.deepEqual(outcomes(events), [['tablebook', 'failed']]);
      assert.ok(!events.some((e) => e.type === 'paused_payment'));
      assert.equal(service.services.executor.holds.get(job.jobId), undefined);
      assert.match(job.summary, /Stopped after 30 s/);
    });
  });

  describe(`a time limit reached between two providers on ${backend.name}`, () => {
    let service: TestService;
    let key: string;
    let pool: BrowserPool;
    before(async () => {
      service = await startTestService(backend.url, {}, { sandbox: true });
      key = await service.mintKey();
      pool = new BrowserPool({ chromiumPath: service.config.CHROMIUM_PATH });
    });
    after(async () => {
      await pool.close();
      await service.close();
    });

    test('blames no provider: the one that failed has its outcome (the fallback), the next one was never tried', async () => {
      // Sold out at TableBook: the chain falls back to DineNow. The limit runs out while the fallback
      // is being written (the write is held for 8 s), that is after TableBook's outcome and before
      // DineNow's first try.
      const jobId = await createJob(service, key, requests.restaurant({ restaurant_name: 'Sold Out Supper' }, { maxJobDurationSeconds: 30 }));
      await service.services.db.updateTable('jobs').set({ started_at: sql<Date>`now() - interval '24 seconds'` }).where('id', '=', jobId).execute();
      const queries = new Set<unknown>();
      const slowFallback: KyselyPlugin = {
        transformQuery(args) {
          if (args.node.kind === 'InsertQueryNode' && JSON.stringify(args.node).includes('provider_fallback')) queries.add(args.queryId);
          return args.node;
        },
        async transformResult(args) {
          if (queries.delete(args.queryId)) await sleep(8_000);
          return args.result;
        },
      };
      await run(directRunDeps(service, pool, new HoldRegistry(service.services.db, createLogger('silent'), 'test-instance'), service.services.db.withPlugin(slowFallback)), jobId, firstClaim());

      const job = (await call(service.url, 'GET', `/api/v1/execution-jobs/${jobId}`, { key })).body;
      assert.equal(job.status, 'error');
      assert.deepEqual({ reason: job.error.reason, provider: job.error.provider, step: job.error.step }, { reason: 'max_duration_exceeded', provider: null, step: null });
      const events = await auditOf(service, key, jobId);
      assert.deepEqual(types(events).filter((t) => t !== 'action_allowed' && t !== 'step_started'), ['job_created', 'job_started', 'step_attempt', 'provider_fallback', 'job_aborted']);
      const aborted = events.at(-1);
      assert.equal(aborted.providerId, undefined, aborted.message);
      assert.doesNotMatch(aborted.message, /while working at/);
      assert.deepEqual(outcomes(events), [['tablebook', 'failed']], 'one attempt, one outcome: DineNow never had one');
      const metrics = (await call(service.url, 'GET', '/api/v1/metrics/providers/dinenow', { key })).body;
      assert.equal(metrics.totalAttempts, 0);
    });
  });
}
