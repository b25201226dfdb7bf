import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { startTestService, type TestService } from '../helpers/service.ts';
import { outcomes, requests, runJob } from './helpers.ts';

// consent.maxJobDurationSeconds stops a run cleanly. The shortest limit the API accepts is 30 s, so
// the run is slowed with EXECUTOR_STEP_DELAY_MS (a test aid: a pause before each step) until it
// cannot finish in time.

let service: TestService;
let key: string;
before(async () => {
  service = await startTestService('pglite:memory:', { WORKERS: '1', EXECUTOR_STEP_DELAY_MS: '7000' }, { sandbox: true });
  key = await service.mintKey();
});
after(() => service.close());

describe('maxJobDurationSeconds', () => {
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
