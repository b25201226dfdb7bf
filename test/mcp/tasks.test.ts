import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Browser } from 'playwright-core';
import { resultFromTaskOutcome } from '@modelcontextprotocol/ext-tasks/client';
import { isCreateTaskResultV2, isDetailedTaskV2 } from '@modelcontextprotocol/ext-tasks/core/v2';
import { transition } from '../../src/jobs/transition.ts';
import { launchChromium, pointOnView, waitForLiveFrames } from '../handoff/browsers.ts';
import { bookingArguments, modernRequest, rpc, TASKS, taskRpc, tasksClient, tasksSession, textOf } from '../helpers/mcp.ts';
import { BROWSER_BACKEND, daysFromNow, PROFILE, startTestService, type TestService } from '../helpers/service.ts';
import { until } from '../helpers/wait.ts';
import { startedTogether } from '../helpers/together.ts';

// Bookings as MCP tasks (revision 2026-07-28, the Tasks extension io.modelcontextprotocol/tasks):
// a client that declares the extension gets a task for a booking tool's call; the task is the job,
// polled with tasks/get until the person has paid on the handoff page (input_required, a URL-mode
// elicitation) and the booking is completed with its confirmation code. The client is the official
// one: the SDK v2 Client with the ext-tasks session on top (its own wire validation included).

const restaurant = (restaurant_name: string) => ({ restaurant_name, city: 'Lisbon', date: daysFromNow(7), time: '19:30', covers: 2, profile: PROFILE });

describe('bookings as MCP tasks, paid by the person in Chromium', () => {
  let service: TestService;
  let key: string;
  let person: Browser;
  before(async () => {
    [service, person] = await startedTogether([startTestService(BROWSER_BACKEND.url, { WORKERS: '1' }, { sandbox: true }), launchChromium()]);
    key = await service.mintKey('Acme Travel');
  });
  after(async () => {
    await person?.close();
    await service?.close();
  });

  /** The person opens the link the task asks for, types a card code on the live view and presses Enter. */
  async function payAt(url: string, jobId: string): Promise<void> {
    const page = await person.newPage({ viewport: { width: 1280, height: 900 } });
    try {
      await page.goto(url);
      const tab = service.services.executor.holds.get(jobId)?.page;
      assert.ok(tab, 'this process holds the booking');
      await waitForLiveFrames(page, tab);
      const at = await pointOnView(page, tab, '#tb-cvc');
      await page.mouse.click(at.x, at.y);
      await tab.waitForFunction(() => document.activeElement?.id === 'tb-cvc');
      await page.keyboard.type('737');
      await page.keyboard.press('Enter');
      await page.waitForSelector('[data-outcome] [data-confirmation-code]', { timeout: 20_000 });
    } finally {
      await page.close();
    }
  }

  test('discovery, then a booking as a task: working → input_required (pay at the handoff URL) → completed with the confirmation code', async () => {
    const client = await tasksClient(service.url, key);
    assert.deepEqual(client.getServerCapabilities()?.extensions, TASKS, 'server/discover advertises the extension');
    const asked: Array<{ kind: string; params: any }> = [];
    const session = tasksSession(client, service.url, key, {
      onInputRequest: async (request) => {
        asked.push(request as { kind: string; params: any });
        const params = request.params as { mode: string; url: string; elicitationId: string };
        await payAt(params.url, params.elicitationId.split(':')[0]!);
        return { action: 'accept' } as never;
      },
    });
    try {
      const execution = await session.callTool('book_restaurant', restaurant('Casa Azul'));
      const { outcome } = await execution.settle();
      const result = resultFromTaskOutcome(outcome) as { structuredContent?: any; isError?: boolean };
      assert.notEqual(result.isError, true, JSON.stringify(result));
      const done = result.structuredContent;
      assert.equal(done.status, 'done');
      const issued = service.sandbox!.confirmations().filter((c) => c.provider === 'tablebook').at(-1)!;
      assert.equal(done.confirmationCode, issued.code, 'the task ends with the code the provider issued');

      assert.equal(asked.length, 1, 'the payment was asked for once');
      assert.equal(asked[0]!.kind, 'elicitation');
      assert.equal(asked[0]!.params.mode, 'url');
      assert.match(asked[0]!.params.url, new RegExp(`^${service.url}/handoff/[A-Za-z0-9_-]{43}$`));
      assert.match(asked[0]!.params.message, /never pays/);
      assert.equal(asked[0]!.params.elicitationId, `${done.jobId}:payment`);

      // The task is the job: REST and get_job_status tell the same story.
      const status = await taskRpc(service, key, 'tasks/get', { taskId: done.jobId });
      assert.ok(isDetailedTaskV2(status.body.result), JSON.stringify(status.body));
      assert.equal(status.body.result.status, 'completed');
      assert.equal(status.body.result.resultType, 'complete');
      assert.equal(status.body.result.result.structuredContent.confirmationCode, issued.code);
    } finally {
      await session.close();
      await client.close();
    }
  });

  test('tasks/cancel of a held booking releases the hold; the task reads cancelled, the job error cancelled_by_client', async () => {
    const created = await taskRpc(service, key, 'tools/call', { name: 'book_restaurant', arguments: restaurant('Tasca Nova') });
    assert.ok(isCreateTaskResultV2(created.body.result), JSON.stringify(created.body));
    assert.equal(created.body.result.resultType, 'task');
    assert.equal(created.body.result.status, 'working');
    const taskId = created.body.result.taskId as string;
    let task: any;
    await until('the task asks for the payment', async () => {
      task = (await taskRpc(service, key, 'tasks/get', { taskId })).body.result;
      return task.status === 'input_required';
    }, 150_000, 200);
    assert.equal(isDetailedTaskV2(task), true, JSON.stringify(task));
    assert.deepEqual(Object.keys(task.inputRequests), ['payment']);
    assert.equal(task.inputRequests.payment.method, 'elicitation/create');

    const cancelled = await taskRpc(service, key, 'tasks/cancel', { taskId });
    assert.deepEqual(cancelled.body.result, { resultType: 'complete', _meta: cancelled.body.result._meta });
    task = (await taskRpc(service, key, 'tasks/get', { taskId })).body.result;
    assert.equal(task.status, 'cancelled');
    assert.equal(service.services.executor.holds.get(taskId), undefined, 'the hold is released');
    const job = await rpc(service.url, { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'get_job_status', arguments: { jobId: taskId } } }, { bearer: key, headers: { 'mcp-protocol-version': '2025-06-18' } });
    assert.equal(job.body.result.structuredContent.status, 'error');
    assert.equal(job.body.result.structuredContent.reason, 'cancelled_by_client');
  });
});

// The mapping of every job state, the input answers and the errors, on jobs moved by hand (no
// worker, no browser).
describe('MCP tasks: states, answers and errors', () => {
  let service: TestService;
  let key: string;
  let otherKey: string;
  before(async () => {
    service = await startTestService('pglite:memory:');
    [key, otherKey] = await Promise.all([service.mintKey('Acme Travel'), service.mintKey('Other Org')]);
  });
  after(() => service?.close());

  const newTask = async (): Promise<string> => {
    const created = await taskRpc(service, key, 'tools/call', { name: 'book_hotel', arguments: bookingArguments().book_hotel });
    assert.ok(isCreateTaskResultV2(created.body.result), JSON.stringify(created.body));
    return created.body.result.taskId;
  };
  const get = async (taskId: string, bearer = key) => (await taskRpc(service, bearer, 'tasks/get', { taskId })).body;
  const hold = (taskId: string) =>
    transition(service.services.db, taskId, { to: 'running', event: { type: 'job_started', message: 'Started on Staymate.' } }).then(() =>
      transition(service.services.db, taskId, { to: 'paused_payment', event: { type: 'paused_payment', message: 'held' }, set: { hold_expires_at: new Date(Date.now() + 600_000), provider_id: 'staymate' } }));

  test('a client that does not declare the extension gets the booking as before: jobId and queued', async () => {
    const request = modernRequest('tools/call', { name: 'book_hotel', arguments: bookingArguments().book_hotel });
    const { body } = await rpc(service.url, request.body, { bearer: key, headers: request.headers });
    assert.equal(body.result.resultType, 'complete');
    assert.equal(body.result.structuredContent.status, 'queued');
    assert.equal(body.result.taskId, undefined);
    const invalid = await taskRpc(service, key, 'tools/call', { name: 'book_hotel', arguments: { city: 'Lisbon' } });
    assert.equal(invalid.body.result.resultType, 'complete', 'invalid arguments answer at once, no task');
    assert.equal(textOf(invalid.body.result).error, 'invalid_arguments');
    const read = await taskRpc(service, key, 'tools/call', { name: 'get_job_status', arguments: { jobId: body.result.structuredContent.jobId } });
    assert.equal(read.body.result.resultType, 'complete', 'only the booking tools become tasks');
  });

  test('working carries the latest audit event; a failed booking is completed with isError; held → input_required', async () => {
    const taskId = await newTask();
    let task = (await get(taskId)).result;
    assert.ok(isDetailedTaskV2(task));
    assert.equal(task.status, 'working');
    assert.equal(task.ttlMs, null);
    assert.equal(task.pollIntervalMs, 2000);
    await transition(service.services.db, taskId, { to: 'running', event: { type: 'job_started', message: 'Started on Staymate.' } });
    task = (await get(taskId)).result;
    assert.equal(task.statusMessage, 'Started on Staymate.');
    await transition(service.services.db, taskId, { to: 'no_availability', event: { type: 'job_failed', message: 'nothing free' }, set: { summary: 'No rooms.' } });
    task = (await get(taskId)).result;
    assert.ok(isDetailedTaskV2(task));
    assert.equal(task.status, 'completed', 'a failed booking is a completed call whose result is an error, not a failed task');
    assert.equal(task.result.isError, true);
    assert.equal(textOf(task.result).error, 'no_availability');
  });

  test('answers: cancel asks again under a new key, unknown keys are ignored, accept waits as working, decline releases the hold', async () => {
    const taskId = await newTask();
    await hold(taskId);
    let task = (await get(taskId)).result;
    assert.equal(task.status, 'input_required');
    assert.deepEqual(Object.keys(task.inputRequests), ['payment']);

    await taskRpc(service, key, 'tasks/update', { taskId, inputResponses: { nope: { action: 'accept' } } });
    assert.equal((await get(taskId)).result.status, 'input_required', 'an answer to a key never asked changes nothing');
    const bad = await taskRpc(service, key, 'tasks/update', { taskId, inputResponses: { payment: { action: 'maybe' } } });
    assert.equal(bad.body.error.code, -32602);

    const dismissed = await taskRpc(service, key, 'tasks/update', { taskId, inputResponses: { payment: { action: 'cancel' } } });
    assert.equal(dismissed.body.result.resultType, 'complete');
    task = (await get(taskId)).result;
    assert.deepEqual(Object.keys(task.inputRequests), ['payment-2'], 'a key is never reused');
    await taskRpc(service, key, 'tasks/update', { taskId, inputResponses: { 'payment-2': { action: 'accept' } } });
    task = (await get(taskId)).result;
    assert.equal(task.status, 'working');
    assert.match(task.statusMessage, /waiting for the person to complete the payment/);

    const second = await newTask();
    await hold(second);
    await taskRpc(service, key, 'tasks/update', { taskId: second, inputResponses: { payment: { action: 'decline' } } });
    task = (await get(second)).result;
    assert.equal(task.status, 'cancelled', 'the person will not pay: the hold is released');
  });

  test('errors: no capability is -32021, an unknown, malformed or other owner\'s task is -32602, and a 2025 revision has no tasks', async () => {
    const taskId = await newTask();
    const undeclared = await taskRpc(service, key, 'tasks/get', { taskId }, false);
    assert.equal(undeclared.body.error.code, -32021);
    assert.deepEqual(undeclared.body.error.data.requiredCapabilities, { extensions: TASKS });
    for (const method of ['tasks/update', 'tasks/cancel']) {
      const refused = await taskRpc(service, key, method, { taskId, inputResponses: {} }, false);
      assert.equal(refused.body.error.code, -32021, `${method}: ${JSON.stringify(refused.body)}`);
    }
    for (const id of ['00000000-0000-4000-8000-000000000000', 'not-a-task']) {
      const missing = await get(id);
      assert.equal(missing.error.code, -32602, id);
      assert.match(missing.error.message, /Task not found/);
    }
    const foreign = await get(taskId, otherKey);
    assert.equal(foreign.error.code, -32602, 'another owner\'s task reads like a missing one');
    const cancelForeign = await taskRpc(service, otherKey, 'tasks/cancel', { taskId });
    assert.equal(cancelForeign.body.error.code, -32602);
    assert.equal((await get(taskId)).result.status, 'working', 'and it changed nothing');
    const malformed = await taskRpc(service, key, 'tasks/get', { taskId: 42 });
    assert.equal(malformed.body.error.code, -32602);

    const legacy = await rpc(service.url, { jsonrpc: '2.0', id: 3, method: 'tasks/get', params: { taskId } }, { bearer: key, headers: { 'mcp-protocol-version': '2025-06-18' } });
    assert.equal(legacy.body.error.code, -32601, 'the 2025 revisions do not serve this extension');
  });

  test('a final task: tasks/cancel is acknowledged and changes nothing', async () => {
    const taskId = await newTask();
    await transition(service.services.db, taskId, { to: 'running', event: { type: 'job_started', message: 'x' } });
    await transition(service.services.db, taskId, { to: 'captcha', event: { type: 'job_failed', message: 'captcha' } });
    const ack = await taskRpc(service, key, 'tasks/cancel', { taskId });
    assert.equal(ack.body.result.resultType, 'complete');
    const task = (await get(taskId)).result;
    assert.equal(task.status, 'completed');
    assert.equal(textOf(task.result).error, 'captcha');
  });
  test('with the database gone, tasks/get fails closed: 503 with Retry-After, nothing of the database in the body (last: it closes the database)', async () => {
    const taskId = await newTask();
    assert.equal((await get(taskId)).result.status, 'working', 'the key is checked (and cached) just before');
    await service.services.database.close();
    for (const method of ['tasks/get', 'tasks/cancel']) {
      const reply = await taskRpc(service, key, method, { taskId });
      assert.equal(reply.status, 503, `${method}: ${JSON.stringify(reply.body)}`);
      assert.ok(reply.headers.get('retry-after'), 'Retry-After');
      assert.equal(reply.body.error, 'auth_backend_unavailable');
      assert.doesNotMatch(JSON.stringify(reply.body), /relation|pglite|closed|select|stack/i);
    }
  });
});
