import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { recordDecision, transition } from '../../src/jobs/transition.ts';
import { call } from '../helpers/http.ts';
import { JobRecorder, MAX_PAGE_GUARD_EVENTS } from '../../src/executor/recorder.ts';
import { BACKENDS, startTestService, type TestService } from '../helpers/service.ts';
import { auditOf, createJob, requests } from './helpers.ts';

// What a run writes, against the real job store. The guard-event cap: a hostile page's in-page and
// network blocks are listed up to the cap and counted beyond it; the driver layer's events, the pause
// among them, are always listed; the run's outcome is preceded by one event giving the count left
// out. And attemptCount, counted in the database with each step_attempt.

for (const backend of BACKENDS) {
  describe(`guard events of a run (${backend.name})`, () => {
    let service: TestService;
    let key: string;
    before(async () => {
      service = await startTestService(backend.url);
      key = await service.mintKey();
    });
    after(() => service.close());

    async function runningJob(): Promise<{ jobId: string; recorder: JobRecorder }> {
      const jobId = await createJob(service, key, requests.restaurant({ restaurant_name: 'Hostile House' }));
      const runId = randomUUID();
      await transition(service.services.db, jobId, { to: 'running', from: ['pending'], set: { run_id: runId }, event: { type: 'job_started', message: 'A worker took the job.' } });
      const recorder = new JobRecorder(service.services.db, jobId, runId, { usedFallback: false }, () => {});
      recorder.provider = 'tablebook';
      return { jobId, recorder };
    }

    test('past the cap, page and network blocks are counted; the pause is still listed; the count is reported before the outcome', async () => {
      const { jobId, recorder } = await runningJob();
      recorder.allowed("Payment guard (driver layer) allowed pressing 'Continue' to search: no card security code is involved.");
      for (let i = 0; i < MAX_PAGE_GUARD_EVENTS + 15; i++) recorder.denied(i % 3 ? 'network' : 'page', `block ${i}`);
      for (let i = 0; i < 5; i++) recorder.allowed(`allowed ${i}`);
      recorder.denied('driver', "Payment guard (driver layer) refused to press 'Pay': the next step takes the card security code ('cvc'). Stopping here for the person to pay.");
      assert.equal(recorder.droppedGuardEvents, 15);
      await recorder.transition({ to: 'paused_payment', from: ['running'], event: { type: 'paused_payment', providerId: 'tablebook', message: 'Stopped before the card security code.' } });
      await recorder.flush();

      const events = await auditOf(service, key, jobId);
      const guard = events.filter((e) => e.type === 'action_denied' && (e.layer === 'page' || e.layer === 'network'));
      assert.equal(guard.length, MAX_PAGE_GUARD_EVENTS, 'page and network blocks listed up to the cap');
      assert.match(guard.at(-1).message, /further in-page and network blocks of this run are counted, not listed/);
      assert.equal(events.filter((e) => e.type === 'action_allowed').length, 6, 'driver-layer events are never capped');
      const pause = events.find((e) => e.type === 'action_denied' && e.layer === 'driver');
      assert.match(pause?.message ?? '', /refused to press 'Pay'/, 'the pause is listed however many blocks came before');
      const [summary, outcome] = events.slice(-2);
      assert.equal(outcome.type, 'paused_payment');
      assert.equal(summary.type, 'action_denied');
      assert.equal(summary.providerId, 'tablebook');
      assert.equal(summary.droppedGuardEvents, 15);
      // Blocks 60-74 were dropped: i % 3 === 0 are in-page (60, 63, 66, 69, 72), the rest network.
      assert.deepEqual(summary.dropped, { page: 5, network: 10 });
      assert.equal(summary.message, 'Payment guard: 15 more blocks in this run (5 by the in-page layer, 10 by the network layer) beyond the 60 listed were counted, not listed.');
      assert.equal(recorder.droppedGuardEvents, 0, 'reported once');
    });

    test('attemptCount is counted by the database as each step_attempt is written: tries counted meanwhile by another writer are kept', async () => {
      const { jobId, recorder } = await runningJob();
      // After this run read the row, the job's previous run (since taken over) wrote two tries of its own.
      for (const attempt of [1, 2]) {
        await recordDecision(service.services.db, jobId, { type: 'step_attempt', providerId: 'tablebook', message: `Trying TableBook (try ${attempt}).`, data: { attempt, maxAttempts: 2 } }, { attempt_count: attempt });
      }
      await recorder.recordAttempt({ type: 'step_attempt', providerId: 'tablebook', message: 'Trying TableBook (try 1 of up to 1).', data: { attempt: 1, maxAttempts: 1 } });
      await recorder.recordAttempt({ type: 'step_attempt', providerId: 'dinenow', message: 'Trying DineNow (try 1 of up to 1).', data: { attempt: 1, maxAttempts: 1 } });
      await recorder.flush();
      const job = (await call(service.url, 'GET', `/api/v1/execution-jobs/${jobId}`, { key })).body;
      assert.equal(job.attemptCount, 4);
      assert.equal(job.attemptCount, (await auditOf(service, key, jobId)).filter((e) => e.type === 'step_attempt').length, 'attemptCount = number of step_attempt events');
    });

    test('under the cap nothing is dropped and no count is written', async () => {
      const { jobId, recorder } = await runningJob();
      recorder.denied('network', 'one block');
      recorder.denied('page', 'another');
      await recorder.transition({ to: 'error', from: ['running'], event: { type: 'job_failed', message: 'Not booked.' } });
      await recorder.flush();
      const events = await auditOf(service, key, jobId);
      assert.deepEqual(events.map((e) => e.type), ['job_created', 'job_started', 'action_denied', 'action_denied', 'job_failed']);
      assert.ok(events.every((e) => e.droppedGuardEvents === undefined));
    });
  });
}
