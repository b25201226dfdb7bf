import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { sql } from 'kysely';
import { runningTab } from '../../src/browser/running-tabs.ts';
import { confirmAfterHoldEnded, transition } from '../../src/jobs/transition.ts';
import { assertApiError, assertChangesNothing } from '../helpers/api-assert.ts';
import { call } from '../helpers/http.ts';
import { BACKENDS, restaurantRequest, startTestService, type TestService } from '../helpers/service.ts';
import { until } from '../helpers/wait.ts';
import { auditOf, createJob, venue, waitForJob } from '../executor/helpers.ts';

// POST /api/v1/execution-jobs/{jobId}/cancel in each state a job can be in: pending, running (the
// run stops), paused_payment (the held booking is released), paused with the person's payment in
// flight in the process holding it (refused), and final (refused, except a repeat of its own cancel).

const cancel = (service: TestService, key: string, jobId: string) => call(service.url, 'POST', `/api/v1/execution-jobs/${jobId}/cancel`, { key });

function assertCancelled(reply: { status: number; body: any; text: string }, jobId: string): void {
  assert.equal(reply.status, 200, reply.text);
  assert.equal(reply.body.jobId, jobId);
  assert.equal(reply.body.status, 'error');
  assert.equal(reply.body.error.reason, 'cancelled_by_client');
  assert.ok(reply.body.completedAt, 'a cancelled job is final');
}

for (const backend of BACKENDS) {
  describe(`cancel a job that no worker runs, on ${backend.name}`, () => {
    let service: TestService;
    let key: string;
    let otherKey: string;
    before(async () => {
      service = await startTestService(backend.url);
      [key, otherKey] = await Promise.all([service.mintKey('Acme Travel'), service.mintKey('Other Org')]);
    });
    after(() => service?.close());

    test('pending: error cancelled_by_client with one job_aborted event; a second cancel answers the same', async () => {
      const jobId = await createJob(service, key, restaurantRequest());
      const first = await cancel(service, key, jobId);
      assertCancelled(first, jobId);
      const events = await auditOf(service, key, jobId);
      assert.deepEqual(events.map((e) => e.type), ['job_created', 'job_aborted']);
      assert.equal(events[1].reason, 'cancelled_by_client');

      const again = await assertChangesNothing(service, () => cancel(service, key, jobId));
      assertCancelled(again, jobId);
      assert.equal(again.body.updatedAt, first.body.updatedAt, 'the repeat changed nothing');
      assert.deepEqual(again.body.decisionLog, first.body.decisionLog);
      // Nothing was held, so no provider's confirmation can come for it: the cancel is not a hold's
      // end that a later confirmation may turn into a booking.
      const turned = await confirmAfterHoldEnded(service.services.db, jobId, () => ({ event: { type: 'job_completed', message: 'test' }, set: {} }));
      assert.equal(turned, false);
      assert.equal((await call(service.url, 'GET', `/api/v1/execution-jobs/${jobId}`, { key })).body.status, 'error');
    });

    test('final: 409 job_already_final, and nothing changes', async () => {
      const jobId = await createJob(service, key, restaurantRequest());
      const db = service.services.db;
      await transition(db, jobId, { to: 'running', event: { type: 'job_started', message: 'test' } });
      await transition(db, jobId, { to: 'no_availability', event: { type: 'job_failed', message: 'test' } });
      const reply = await assertChangesNothing(service, () => cancel(service, key, jobId));
      assertApiError(reply, 409, 'job_already_final');
      assert.equal((await call(service.url, 'GET', `/api/v1/execution-jobs/${jobId}`, { key })).body.status, 'no_availability');
    });

    test("paused with the person's payment in flight in the process holding it: 409 payment_in_flight; once it has settled, the hold is released", async () => {
      const jobId = await createJob(service, key, restaurantRequest());
      const db = service.services.db;
      // What the holder (another process) writes while a payment it saw leave waits for the provider: a vouch ahead of now.
      await db.updateTable('jobs').set({
        status: 'paused_payment', provider_id: 'tablebook', hold_expires_at: new Date(Date.now() + 600_000), hold_instance: 'another-process',
        hold_seen_at: sql<Date>`now() + interval '60 seconds'`, payment_submitted_at: new Date(),
      }).where('id', '=', jobId).execute();
      const refused = await assertChangesNothing(service, () => cancel(service, key, jobId));
      assertApiError(refused, 409, 'payment_in_flight');
      assert.equal((await call(service.url, 'GET', `/api/v1/execution-jobs/${jobId}`, { key })).body.status, 'paused_payment');

      // The provider answered without a confirmation: the holder takes its vouch back.
      await db.updateTable('jobs').set({ hold_seen_at: sql<Date>`now()` }).where('id', '=', jobId).execute();
      const done = await cancel(service, key, jobId);
      assertCancelled(done, jobId);
      assert.equal(done.body.error.paymentUncertain, true, 'a payment was submitted: never worded as "nothing was charged"');
      const last = (await auditOf(service, key, jobId)).at(-1);
      assert.equal(last.type, 'job_aborted');
      assert.equal(last.reason, 'cancelled_by_client');
    });

    test("another organisation's job, an unknown id and a malformed id are 404 job_not_found; GET is 405", async () => {
      const jobId = await createJob(service, key, restaurantRequest());
      assertApiError(await assertChangesNothing(service, () => cancel(service, otherKey, jobId)), 404, 'job_not_found');
      assertApiError(await cancel(service, key, '00000000-0000-4000-8000-000000000000'), 404, 'job_not_found');
      assertApiError(await cancel(service, key, 'not-a-job'), 404, 'job_not_found');
      assertApiError(await call(service.url, 'GET', `/api/v1/execution-jobs/${jobId}/cancel`, { key }), 405, 'method_not_allowed');
      assert.equal((await call(service.url, 'GET', `/api/v1/execution-jobs/${jobId}`, { key })).body.status, 'pending');
    });
  });
}

// A running job and a held booking need the browser: PGlite only.
describe('cancel a job a worker runs or holds', () => {
  let service: TestService;
  let key: string;
  before(async () => {
    service = await startTestService('pglite:memory:', { WORKERS: '1', EXECUTOR_STEP_DELAY_MS: '600' }, { sandbox: true });
    key = await service.mintKey();
  });
  after(() => service?.close());

  test('running: the run stops (its browser closes) and writes nothing after the cancel', async () => {
    const jobId = await createJob(service, key, restaurantRequest({ restaurant_name: venue('Cancel Running') }));
    await until('the run has a tab', () => runningTab(jobId) !== null, 30_000);
    const reply = await cancel(service, key, jobId);
    assertCancelled(reply, jobId);
    await until('the run closed its browser', () => runningTab(jobId) === null, 10_000);
    // The queue entry is finished once the run has returned: nothing of it is left to write.
    await until('the queue entry is done', async () => (await service.services.queue.depth()).active === 0, 10_000);
    const events = await auditOf(service, key, jobId);
    assert.equal(events.at(-1).type, 'job_aborted', `nothing after the cancel: ${events.map((e) => e.type).join(', ')}`);
    assert.equal(events.at(-1).from, 'running');
    const job = await waitForJob(service, key, jobId);
    assert.equal(job.error.reason, 'cancelled_by_client');
  });

  test('paused_payment: the held booking is released and the handoff link shows it cancelled', async () => {
    const jobId = await createJob(service, key, restaurantRequest({ restaurant_name: venue('Cancel Held') }));
    const paused = await waitForJob(service, key, jobId, { timeoutMs: 60_000 });
    assert.equal(paused.status, 'paused_payment');
    const session = service.services.executor.holds.get(jobId);
    assert.ok(session, 'this process holds it');
    const reply = await cancel(service, key, jobId);
    assertCancelled(reply, jobId);
    assert.equal(reply.body.error.paymentUncertain, undefined);
    assert.equal(reply.body.handoffUrl, paused.handoffUrl, 'the link stays on the job: it shows the cancellation');
    assert.ok(session.isEnded(), 'the held session has ended');
    assert.equal(service.services.executor.holds.get(jobId), undefined);
    const last = (await auditOf(service, key, jobId)).at(-1);
    assert.equal(last.type, 'job_aborted');
    assert.equal(last.providerOutcome, 'manual_override');
    const page = await fetch(paused.handoffUrl);
    assert.match(await page.text(), /cancelled/i);
    assertCancelled(await cancel(service, key, jobId), jobId);
  });
});
