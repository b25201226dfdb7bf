import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { setTimeout as sleep } from 'node:timers/promises';
import { sql, type KyselyPlugin } from 'kysely';
import { BrowserPool } from '../../src/browser/pool.ts';
import { HoldRegistry } from '../../src/executor/holds.ts';
import { runJob as run } from '../../src/executor/run-job.ts';
import { createLogger } from '../../src/observability/logger.ts';
import { call } from '../helpers/http.ts';
import { HARD_CEILING_FACTOR } from '../../src/executor/duration.ts';
import { BACKENDS, BROWSER_BACKEND, startTestService, type TestService } from '../helpers/service.ts';
import { auditOf, createJob, directRunDeps, firstClaim, outcomes, requests, runJob, types } from './helpers.ts';

// consent.maxJobDurationSeconds stops a run cleanly. The shortest limit the API accepts is 30 s, so
// the run is slowed with EXECUTOR_STEP_DELAY_MS (a test aid: a pause before each step) until it
// cannot finish in time.

describe(`maxJobDurationSeconds, a soft cap, on ${BROWSER_BACKEND.name}`, () => {
  let service: TestService;
  let key: string;
  before(async () => {
    // Each step waits 12 s first: the 30 s cap passes during the third step (guest details).
    service = await startTestService(BROWSER_BACKEND.url, { WORKERS: '1', EXECUTOR_STEP_DELAY_MS: '12000' }, { sandbox: true });
    key = await service.mintKey();
  });
  after(() => service.close());

  test('past its limit, the run finishes the step under way and starts no other: error max_duration_exceeded, job_aborted saying so, nothing held', async () => {
    const started = Date.now();
    const { job, events } = await runJob(service, key, requests.restaurant({ restaurant_name: 'Slow Food' }, { maxJobDurationSeconds: 30 }), { timeoutMs: 150_000 });
    const took = Date.now() - started;
    assert.equal(job.status, 'error');
    assert.equal(job.error.reason, 'max_duration_exceeded');
    assert.equal(job.error.provider, 'tablebook');
    assert.ok(took >= 29_000, 'not before the limit');
    assert.ok(took < 60_000, `stopped by the soft cap, not the hard ceiling of 60 s (${took} ms)`);
    const last = events.at(-1);
    assert.equal(last.type, 'job_aborted');
    assert.equal(last.cap, 'soft');
    assert.match(last.message, /passed its 30 s limit \(consent\.maxJobDurationSeconds, a soft cap\) while working at TableBook; the step under way was finished \(\w[\w ]*\) and no new step, retry or provider was started/);
    assert.deepEqual(outcomes(events), [['tablebook', 'failed']]);
    assert.ok(!events.some((e) => e.type === 'paused_payment'));
    assert.ok(!events.some((e) => e.type === 'provider_fallback'), 'no other provider was started');
    assert.equal(service.services.executor.holds.get(job.jobId), undefined);
    assert.match(job.summary, /Stopped after 30 s/);
  });
});

describe(`the hard ceiling of a run that hangs, on ${BROWSER_BACKEND.name}`, () => {
  let service: TestService;
  let key: string;
  let pool: BrowserPool;
  before(async () => {
    service = await startTestService(BROWSER_BACKEND.url, {}, { sandbox: true });
    key = await service.mintKey();
    pool = new BrowserPool({ chromiumPath: service.config.CHROMIUM_PATH });
    // Launched now, so that a slow launch does not spend the run's time window.
    await pool.browser();
  });
  after(async () => {
    await pool?.close();
    await service?.close();
  });

  test(`stuck in a step, the run is stopped at ${HARD_CEILING_FACTOR} × the cap: job_aborted names the hard ceiling`, async () => {
    const jobId = await createJob(service, key, requests.restaurant({ restaurant_name: 'Hung Bistro' }, { maxJobDurationSeconds: 30 }));
    // Started 20 s ago: the cap passes 10 s into the run, during its first step (a loaded machine
    // has that long to start it), and the ceiling (60 s) 40 s in.
    await service.services.db.updateTable('jobs').set({ started_at: sql<Date>`now() - interval '20 seconds'` }).where('id', '=', jobId).execute();
    const started = Date.now();
    // The first step waits 60 s: a run hung in a step, past the cap and the ceiling alike.
    const deps = directRunDeps(service, pool, new HoldRegistry(service.services.db, createLogger('silent'), 'test-instance', service.services.providers));
    await run({ ...deps, settings: { ...deps.settings, stepDelayMs: 60_000 } }, jobId, firstClaim());
    const took = Date.now() - started;
    const job = (await call(service.url, 'GET', `/api/v1/execution-jobs/${jobId}`, { key })).body;
    assert.ok(took >= 38_000 && took < 90_000, `stopped at the ceiling, 40 s into the run (${took} ms): ${JSON.stringify(job.error)} ${job.summary}`);
    assert.equal(job.status, 'error');
    assert.equal(job.error.reason, 'max_duration_exceeded');
    const aborted = (await auditOf(service, key, jobId)).at(-1);
    assert.equal(aborted.type, 'job_aborted');
    assert.equal(aborted.cap, 'hard');
    assert.match(aborted.message, /ran past its hard ceiling of 60 s \(2 × consent\.maxJobDurationSeconds of 30 s\) while working at TableBook, stuck in search/);
    assert.match(job.summary, /Stopped after 60 s/);
  });
});

for (const backend of BACKENDS) {
  describe(`a time limit reached between two providers on ${backend.name}`, () => {
    let service: TestService;
    let key: string;
    let pool: BrowserPool;
    before(async () => {
      service = await startTestService(backend.url, {}, { sandbox: true });
      key = await service.mintKey();
      pool = new BrowserPool({ chromiumPath: service.config.CHROMIUM_PATH });
      // Launched now, so that a slow launch does not spend the run's time window.
      await pool.browser();
    });
    after(async () => {
      await pool.close();
      await service.close();
    });

    test('blames no provider: the one that failed has its outcome (the fallback), the next one was never tried', async () => {
      // Sold out at TableBook: the chain falls back to DineNow. The limit runs out while the fallback
      // is being written (the write is held until the limit has passed), that is after TableBook's
      // outcome and before DineNow's first try. Started 12 s back, TableBook has 18 s to say sold out,
      // room for a loaded machine.
      const capSeconds = 30;
      const jobId = await createJob(service, key, requests.restaurant({ restaurant_name: 'Sold Out Supper' }, { maxJobDurationSeconds: capSeconds }));
      const { started_at: startedAt } = await service.services.db.updateTable('jobs').set({ started_at: sql<Date>`now() - interval '12 seconds'` }).where('id', '=', jobId).returning('started_at').executeTakeFirstOrThrow();
      const limitPassed = new Date(startedAt!).getTime() + capSeconds * 1000 + 500;
      const queries = new Set<unknown>();
      let fallbackWrittenAt = 0;
      const slowFallback: KyselyPlugin = {
        transformQuery(args) {
          if (args.node.kind === 'InsertQueryNode' && JSON.stringify(args.node).includes('provider_fallback')) queries.add(args.queryId);
          return args.node;
        },
        async transformResult(args) {
          if (queries.delete(args.queryId)) {
            fallbackWrittenAt = Date.now();
            await sleep(Math.max(0, limitPassed - fallbackWrittenAt));
          }
          return args.result;
        },
      };
      await run(directRunDeps(service, pool, new HoldRegistry(service.services.db, createLogger('silent'), 'test-instance', service.services.providers), service.services.db.withPlugin(slowFallback)), jobId, firstClaim());

      const job = (await call(service.url, 'GET', `/api/v1/execution-jobs/${jobId}`, { key })).body;
      // Else the limit passed during TableBook's search, and blaming TableBook would be right: the
      // machine, not the run, would have failed this test.
      assert.ok(fallbackWrittenAt > 0 && fallbackWrittenAt < limitPassed - 500, `TableBook said sold out before the limit (${JSON.stringify(job.error)})`);
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
