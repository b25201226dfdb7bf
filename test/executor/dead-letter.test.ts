import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import type { JobWithMetadata } from 'pg-boss';
import { BOOKING_DEAD_LETTER_QUEUE, BOOKING_QUEUE, BOOKING_RETRY_LIMIT, startQueue, type BookingMessage } from '../../src/jobs/queue.ts';
import { recordDecision, transition } from '../../src/jobs/transition.ts';
import { previousRunEnd } from '../../src/executor/run-job.ts';
import { BACKENDS, startTestService, type TestService } from '../helpers/service.ts';
import { until } from '../helpers/wait.ts';
import { auditOf, createJob, requests, waitForJob } from './helpers.ts';

// A job must never stay `running` (or `pending`) once the queue has given up on it. The queue is
// driven directly here, as dead workers would leave it: the service has no booking worker
// (WORKERS=0), the test claims each try with pg-boss's fetch and fails it, or claims the last try
// and goes silent as a killed worker would, so that pg-boss's supervisor fails it by heartbeat.

type Claimed = JobWithMetadata<BookingMessage>;

for (const backend of BACKENDS) {
  describe(`a booking the queue gave up on (${backend.name})`, () => {
    let service: TestService;
    let key: string;
    before(async () => {
      service = await startTestService(backend.url);
      key = await service.mintKey();
    });
    after(() => service.close());

    /** Claims the job's next try as a worker would (waiting out the retry delay). */
    async function claim(jobId: string): Promise<Claimed> {
      let job: Claimed | undefined;
      await until('the queue offered the next try', async () => {
        [job] = (await service.services.queue.boss.fetch<BookingMessage>(BOOKING_QUEUE, { includeMetadata: true })) as Claimed[];
        return job !== undefined;
      }, 30_000, 250);
      assert.equal(job!.data.jobId, jobId);
      return job!;
    }

    /** Fails every try but the last, as workers that threw would. */
    async function failTriesBeforeTheLast(jobId: string): Promise<void> {
      for (let n = 0; n < BOOKING_RETRY_LIMIT; n++) {
        const job = await claim(jobId);
        assert.equal(job.retryCount, n);
        await service.services.queue.boss.fail(BOOKING_QUEUE, job.id, new Error('the worker is shutting down; the job will be taken up again'));
      }
    }

    test('every try failed: the job ends error (worker_lost) with a job_failed event', async () => {
      const jobId = await createJob(service, key, requests.restaurant({ restaurant_name: 'Nobody Home' }));
      await failTriesBeforeTheLast(jobId);
      const last = await claim(jobId);
      assert.equal(last.retryCount, last.retryLimit, 'the last try');
      assert.equal(last.deadLetter, BOOKING_DEAD_LETTER_QUEUE);
      await service.services.queue.boss.fail(BOOKING_QUEUE, last.id, new Error('boom'));

      const job = await waitForJob(service, key, jobId, { timeoutMs: 30_000 });
      assert.equal(job.status, 'error');
      assert.equal(job.error.reason, 'worker_lost');
      assert.match(job.error.message, /no worker could finish the booking after 4 tries/);
      assert.match(job.summary, /^Not booked: no worker could finish the booking after 4 tries/);
      const events = await auditOf(service, key, jobId);
      assert.deepEqual(events.map((e) => e.type), ['job_created', 'job_failed']);
      assert.equal(events[1].reason, 'worker_lost');
      assert.equal(events[1].tries, 4);
      assert.equal(events[1].providerOutcome, undefined, 'an attempt interrupted by a lost worker has no provider outcome');
    });

    test('the last try\'s worker dies mid-run (its heartbeat runs out): the running job ends error, and the dead run is fenced out', async () => {
      const jobId = await createJob(service, key, requests.restaurant({ restaurant_name: 'Killed Kitchen' }));
      // A run that started and then died: the job is running under its run id.
      const deadRun = randomUUID();
      await transition(service.services.db, jobId, { to: 'running', from: ['pending'], set: { run_id: deadRun, started_at: new Date() }, event: { type: 'job_started', message: 'A worker took the job.' } });
      await failTriesBeforeTheLast(jobId);
      const last = await claim(jobId);
      assert.equal(last.retryCount, BOOKING_RETRY_LIMIT);
      // … and this claim is never heard from again (kill -9): no heartbeat, no fail, no complete.

      const job = await waitForJob(service, key, jobId, { timeoutMs: 60_000 });
      assert.equal(job.status, 'error');
      assert.equal(job.error.reason, 'worker_lost');
      const events = await auditOf(service, key, jobId);
      assert.deepEqual(events.map((e) => e.type), ['job_created', 'job_started', 'job_failed']);
      assert.match(events[2].message, /no worker could finish the booking after 4 tries/);
      const [entry] = await service.services.queue.boss.findJobs(BOOKING_QUEUE, { id: last.id });
      assert.equal(entry?.state, 'failed');
      assert.deepEqual(entry?.output, { value: { message: 'job heartbeat timeout' } }, 'failed by the supervisor, not by us');
      // A run still alive somewhere cannot write to the job any more.
      await assert.rejects(recordDecision(service.services.db, jobId, { type: 'step_started', message: 'late' }, undefined, { runId: deadRun }), /owned by another executor run/);
    });

    test('a job that settled before the queue gave up is left as it is', async () => {
      const jobId = await createJob(service, key, requests.restaurant({ restaurant_name: 'Settled Already' }));
      await transition(service.services.db, jobId, { to: 'error', from: ['pending'], set: { error: JSON.stringify({ reason: 'test' }) }, event: { type: 'job_failed', message: 'Settled by its run.' } });
      await failTriesBeforeTheLast(jobId);
      const last = await claim(jobId);
      await service.services.queue.boss.fail(BOOKING_QUEUE, last.id, new Error('boom'));
      // The dead-letter entry is worked and completed without touching the job.
      const deadline = Date.now() + 30_000;
      for (;;) {
        const entries = await service.services.queue.boss.findJobs(BOOKING_DEAD_LETTER_QUEUE, { data: { jobId } });
        if (entries.length && entries.every((e) => e.state === 'completed')) break;
        assert.ok(Date.now() < deadline, `the dead-letter entry was not worked: ${JSON.stringify(entries.map((e) => e.state))}`);
        await new Promise((r) => setTimeout(r, 250));
      }
      const job = await waitForJob(service, key, jobId);
      assert.equal(job.error.reason, 'test');
      assert.deepEqual((await auditOf(service, key, jobId)).map((e) => e.type), ['job_created', 'job_failed']);
    });

    test('a database whose booking queue predates the dead-letter queue gets it at start', async () => {
      const { boss } = service.services.queue;
      await boss.updateQueue(BOOKING_QUEUE, { deadLetter: null });
      assert.equal((await boss.getQueue(BOOKING_QUEUE))?.deadLetter ?? null, null);
      const again = await startQueue(service.services.database, { supervise: false });
      await again.stop();
      assert.equal((await boss.getQueue(BOOKING_QUEUE))?.deadLetter, BOOKING_DEAD_LETTER_QUEUE);
    });
  });
}

describe('the message of a job taken up again', () => {
  test('tells why the previous run stopped, as the queue recorded it, or stays neutral', () => {
    assert.equal(previousRunEnd({ value: { message: 'job heartbeat timeout' } }), 'the previous run stopped responding (its heartbeat went silent)');
    assert.equal(previousRunEnd({ name: 'Error', message: 'the worker is shutting down; the job will be taken up again' }), 'the previous run was interrupted by its worker shutting down');
    assert.equal(previousRunEnd({ name: 'Error', message: 'something else' }), 'the previous run stopped before finishing');
    assert.equal(previousRunEnd(null), 'the previous run stopped before finishing');
  });
});
