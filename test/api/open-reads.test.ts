import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Browser } from 'playwright-core';
import { JsonRpcResponseError, type TaskEnabledSession } from '@modelcontextprotocol/ext-tasks/client';
import { taskId } from '@modelcontextprotocol/ext-tasks/core';
import { transition } from '../../src/jobs/transition.ts';
import { assertApiError, assertChangesNothing } from '../helpers/api-assert.ts';
import { call } from '../helpers/http.ts';
import { bookingArguments, mcpClient, tasksClient, tasksSession } from '../helpers/mcp.ts';
import { launchChromium, obtainAccessToken } from '../helpers/oauth.ts';
import { restaurantRequest, startTestService, type TestService } from '../helpers/service.ts';
import { startedTogether } from '../helpers/together.ts';
import { until } from '../helpers/wait.ts';
import { auditOf, createJob, pauseForPayment } from '../executor/helpers.ts';
import { startReceiver, type Receiver } from '../webhooks/receiver.ts';

// JOB_READ_ISOLATION=none (the contract's open reads) opens a job's data to every organisation and
// nothing more: its handoffUrl and sessionUrl (the person's payment screen, the live view) are shown
// to its owner only, in the job, its audit log and its webhooks, and every write (REST cancel, MCP
// tasks/cancel, tasks/update answering the payment request) checks ownership: another owner's is
// answered as for a missing job and changes nothing. Jobs are moved by hand (no worker, no browser
// for the bookings); one Chromium signs a person in for the OAuth case.

/** What opens a job's capabilities: a handoff page or a watch view. */
const LINK = /\/handoff\/|\/watch\//;

describe('JOB_READ_ISOLATION=none: any organisation reads a job; its links and its writes stay its owner\'s', () => {
  let service: TestService;
  let receiver: Receiver;
  let acme: string;
  let globex: string;
  before(async () => {
    [service, receiver] = await startedTogether([startTestService('pglite:memory:', { JOB_READ_ISOLATION: 'none', WEBHOOK_RETRY_SCHEDULE: '0,0,0,0,0' }), startReceiver()]);
    [acme, globex] = await Promise.all([service.mintKey('Acme Travel'), service.mintKey('Globex')]);
  });
  after(async () => {
    await service?.close();
    await receiver?.close();
  });

  const read = (key: string, jobId: string) => call(service.url, 'GET', `/api/v1/execution-jobs/${jobId}`, { key });
  const cancel = (key: string, jobId: string) => call(service.url, 'POST', `/api/v1/execution-jobs/${jobId}/cancel`, { key });
  const heldJob = async (key = acme) => {
    const jobId = await createJob(service, key, restaurantRequest());
    await pauseForPayment(service, jobId);
    return jobId;
  };
  const answers = async (jobId: string) => (await service.services.db.selectFrom('task_input_answers').selectAll().where('job_id', '=', jobId).execute()).length;
  const task = (session: TaskEnabledSession, id: string) => session.task(taskId(id));
  const taskNotFound = (error: unknown) => error instanceof JsonRpcResponseError && error.code === -32602 && /Task not found/.test(error.message);

  test('REST: another organisation reads the job and its audit log without handoffUrl or sessionUrl; the owner sees them', async () => {
    const running = await createJob(service, acme, restaurantRequest());
    await transition(service.services.db, running, { to: 'running', event: { type: 'job_started', message: 'test run' } });
    assert.match((await read(acme, running)).body.sessionUrl, LINK, 'the owner watches the run');
    const watched = await read(globex, running);
    assert.equal(watched.status, 200, 'reads are open');
    assert.equal(watched.body.sessionUrl, null);

    const jobId = await heldJob();
    const own = await read(acme, jobId);
    assert.match(own.body.handoffUrl, LINK);
    const paused = (await auditOf(service, acme, jobId)).find((e) => e.type === 'paused_payment');
    assert.equal(paused.handoffUrl, own.body.handoffUrl, 'the owner\'s paused_payment event quotes the link');

    const other = await read(globex, jobId);
    assert.equal(other.status, 200);
    assert.equal(other.body.status, 'paused_payment');
    assert.equal(other.body.organizationName, 'Acme Travel');
    assert.equal(other.body.handoffUrl, null);
    assert.equal(other.body.sessionUrl, null);
    assert.doesNotMatch(other.text, LINK);
    const log = await call(service.url, 'GET', `/api/v1/execution-jobs/${jobId}/audit`, { key: globex });
    assert.equal(log.status, 200);
    const redacted = log.body.events.find((e: any) => e.type === 'paused_payment');
    assert.equal('handoffUrl' in redacted, false, 'the event is read without the link');
    assert.equal(redacted.message, paused.message, 'and otherwise as stored');
    assert.doesNotMatch(log.text, LINK);
  });

  test('REST: another organisation\'s cancel is 404 job_not_found, like a missing job, and changes nothing; the owner\'s cancels', async () => {
    const jobId = await heldJob();
    const before = (await read(acme, jobId)).body;
    const refused = await assertChangesNothing(service, () => cancel(globex, jobId));
    assertApiError(refused, 404, 'job_not_found');
    assert.equal(refused.body.error.message, (await cancel(globex, '00000000-0000-4000-8000-000000000000')).body.error.message.replace('00000000-0000-4000-8000-000000000000', jobId));
    assert.deepEqual((await read(acme, jobId)).body, before, 'the job is as it was');

    const done = await cancel(acme, jobId);
    assert.equal(done.status, 200, done.text);
    assert.equal(done.body.error.reason, 'cancelled_by_client');
  });

  test('MCP tools: get_job_status and get_job_audit give the links to the owner only', async () => {
    const jobId = await heldJob();
    const [owner, other] = await Promise.all([mcpClient(service.url, acme), mcpClient(service.url, globex)]);
    try {
      const status = async (client: typeof owner) => (await client.client.callTool({ name: 'get_job_status', arguments: { jobId } })).structuredContent as any;
      const audit = async (client: typeof owner) => (await client.client.callTool({ name: 'get_job_audit', arguments: { jobId } })).structuredContent as any;
      const mine = await status(owner);
      assert.match(mine.handoffUrl, LINK);
      assert.match(mine.instruction, LINK, 'the owner is told where the person pays');
      assert.match((await audit(owner)).events.find((e: any) => e.type === 'paused_payment').handoffUrl, LINK);

      const theirs = await status(other);
      assert.equal(theirs.status, 'paused_payment', 'reads are open');
      assert.equal(theirs.handoffUrl, null);
      assert.doesNotMatch(JSON.stringify(theirs), LINK);
      const log = await audit(other);
      assert.equal(log.events.find((e: any) => e.type === 'paused_payment').handoffUrl, undefined);
      assert.doesNotMatch(JSON.stringify(log), LINK);

      const running = await createJob(service, acme, restaurantRequest());
      await transition(service.services.db, running, { to: 'running', event: { type: 'job_started', message: 'test run' } });
      const watch = async (client: typeof owner) => (await client.client.callTool({ name: 'get_job_status', arguments: { jobId: running } })).structuredContent as any;
      assert.match((await watch(owner)).sessionUrl, LINK);
      assert.equal((await watch(other)).sessionUrl, null);
    } finally {
      await Promise.all([owner.close(), other.close()]);
    }
  });

  /** Task sessions of the official client for Acme (the owner) and Globex, closed after `body`. */
  async function withSessions(body: (owner: TaskEnabledSession, other: TaskEnabledSession) => Promise<void>): Promise<void> {
    const [ownerClient, otherClient] = await Promise.all([tasksClient(service.url, acme), tasksClient(service.url, globex)]);
    const owner = tasksSession(ownerClient, service.url, acme);
    const other = tasksSession(otherClient, service.url, globex);
    try {
      await body(owner, other);
    } finally {
      await Promise.all([owner.close(), other.close()]);
      await Promise.all([ownerClient.close(), otherClient.close()]);
    }
  }

  test('MCP tasks/get: another organisation reads the held task without its payment request (the handoff URL)', async () => {
    const jobId = await heldJob();
    await withSessions(async (owner, other) => {
      const asked = await task(owner, jobId).snapshot();
      assert.equal(asked.status, 'input_required');
      assert.match((asked.raw as any).inputRequests.payment.params.url, LINK);

      const seen = await task(other, jobId).snapshot();
      assert.equal(seen.status, 'working', 'readable, but the payment request is the owner\'s');
      assert.equal((seen.raw as any).inputRequests, undefined);
      assert.doesNotMatch(JSON.stringify(seen.raw), LINK);
    });
  });

  test('MCP tasks/update and tasks/cancel: another organisation\'s are "Task not found", like a missing task, and change nothing; the owner\'s take effect', async () => {
    const jobId = await heldJob();
    await withSessions(async (owner, other) => {
      const before = (await read(acme, jobId)).body;
      for (const action of ['accept', 'decline', 'cancel'] as const) {
        await assert.rejects(assertChangesNothing(service, () => task(other, jobId).update({ payment: { action } } as never)), taskNotFound, `tasks/update ${action}`);
      }
      await assert.rejects(assertChangesNothing(service, () => task(other, jobId).cancel()), taskNotFound, 'tasks/cancel');
      await assert.rejects(task(other, '00000000-0000-4000-8000-000000000000').update({ payment: { action: 'accept' } } as never), taskNotFound, 'as for a missing task');
      assert.equal(await answers(jobId), 0, 'no answer was recorded');
      assert.deepEqual((await read(acme, jobId)).body, before, 'the job is as it was');
      assert.equal((await task(owner, jobId).snapshot()).status, 'input_required', 'the request still waits for the owner\'s answer');

      await task(owner, jobId).update({ payment: { action: 'accept' } } as never);
      assert.equal(await answers(jobId), 1);
      const waiting = await task(owner, jobId).snapshot();
      assert.equal(waiting.status, 'working');
      assert.match(waiting.statusMessage ?? '', /waiting for the person to complete the payment/);
      await task(owner, jobId).cancel();
      assert.equal((await task(owner, jobId).snapshot()).status, 'cancelled');
    });
  });

  test('webhooks go to the owning organisation\'s endpoints only', async () => {
    const register = async (key: string, path: string) => {
      const reply = await call(service.url, 'POST', '/api/v1/webhook-endpoints', { key, body: { url: `${receiver.url}/${path}` } });
      assert.equal(reply.status, 201, reply.text);
      return reply.body.id as string;
    };
    const [mine, theirs] = [await register(acme, 'acme'), await register(globex, 'globex')];
    const jobId = await heldJob();
    const recorded = await service.services.db.selectFrom('webhook_deliveries').select('endpoint_id').where('job_id', '=', jobId).execute();
    assert.deepEqual(recorded.map((r) => r.endpoint_id), [mine], 'one delivery, to the owner\'s endpoint');
    await until('the owner\'s endpoint got the paused_payment event', () => receiver.received.some((r) => JSON.parse(r.body).data?.jobId === jobId), 20_000);
    const delivered = receiver.received.filter((r) => JSON.parse(r.body).data?.jobId === jobId);
    assert.equal(delivered.length, 1);
    assert.match(JSON.parse(delivered[0]!.body).data.handoffUrl, LINK);
    assert.deepEqual((await call(service.url, 'GET', `/api/v1/webhook-endpoints/${theirs}/deliveries`, { key: globex })).body.deliveries, []);
    for (const id of [mine, theirs]) await call(service.url, 'DELETE', `/api/v1/webhook-endpoints/${id}`, { key: id === mine ? acme : globex });
  });

  describe('a person\'s job (OAuth)', () => {
    let browser: Browser;
    let person: string;
    before(async () => {
      browser = await launchChromium();
      person = (await obtainAccessToken(service, { email: 'ada@example.com', browser })).accessToken;
    });
    after(() => browser?.close());

    test('an organisation reads it without its links and cannot change it; the person cannot touch an organisation\'s job', async () => {
      const booked = await mcpClient(service.url, person);
      let jobId: string;
      try {
        const result = await booked.client.callTool({ name: 'book_hotel', arguments: bookingArguments().book_hotel });
        jobId = (result.structuredContent as any).jobId;
        await pauseForPayment(service, jobId);
        const own = (await booked.client.callTool({ name: 'get_job_status', arguments: { jobId } })).structuredContent as any;
        assert.match(own.handoffUrl, LINK, 'the person sees their payment link');
      } finally {
        await booked.close();
      }

      const seen = await read(globex, jobId);
      assert.equal(seen.status, 200, 'an organisation reads any job under open reads');
      assert.equal(seen.body.organizationName, null);
      assert.equal(seen.body.handoffUrl, null);
      assert.doesNotMatch((await call(service.url, 'GET', `/api/v1/execution-jobs/${jobId}/audit`, { key: globex })).text, LINK);
      assertApiError(await assertChangesNothing(service, () => cancel(globex, jobId)), 404, 'job_not_found');
      const orgClient = await tasksClient(service.url, globex);
      const org = tasksSession(orgClient, service.url, globex);
      try {
        await assert.rejects(task(org, jobId).update({ payment: { action: 'decline' } } as never), taskNotFound);
        await assert.rejects(task(org, jobId).cancel(), taskNotFound);
      } finally {
        await org.close();
        await orgClient.close();
      }
      assert.equal(await answers(jobId), 0);
      assert.equal((await service.services.db.selectFrom('jobs').select('status').where('id', '=', jobId).executeTakeFirstOrThrow()).status, 'paused_payment');

      // Open reads are the organisations' (API keys): a person sees only their own jobs, and changes none else.
      const acmeJob = await heldJob();
      const personClient = await tasksClient(service.url, person);
      const personal = tasksSession(personClient, service.url, person);
      try {
        await assert.rejects(task(personal, acmeJob).snapshot(), taskNotFound);
        await assert.rejects(task(personal, acmeJob).update({ payment: { action: 'accept' } } as never), taskNotFound);
        await assert.rejects(task(personal, acmeJob).cancel(), taskNotFound);
      } finally {
        await personal.close();
        await personClient.close();
      }
      assert.equal(await answers(acmeJob), 0);
      assert.equal((await read(acme, acmeJob)).body.status, 'paused_payment');
    });
  });
});
