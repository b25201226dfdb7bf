import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { McpError } from '@modelcontextprotocol/sdk/types.js';
import { StreamableHTTPError } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { BACKENDS, daysFromNow, PROFILE, startTestService, type TestService } from '../helpers/service.ts';
import { bookingArguments, mcpClient, textOf } from '../helpers/mcp.ts';
import { transition } from '../../src/jobs/transition.ts';

const TOOL_NAMES = ['book_restaurant', 'book_hotel', 'book_flight', 'book_activity', 'get_job_status', 'get_job_audit'];

/** Every property of a JSON Schema, at any depth, with its path. */
function* properties(schema: any, path = ''): Generator<[string, any]> {
  for (const [name, sub] of Object.entries<any>(schema.properties ?? {})) {
    yield [`${path}${name}`, sub];
    const inner = sub.type === 'array' ? sub.items : sub.anyOf ? sub.anyOf.find((s: any) => s.type === 'object' || s.type === 'array') : sub;
    if (inner?.type === 'object') yield* properties(inner, `${path}${name}.`);
    if (inner?.type === 'array' && inner.items?.type === 'object') yield* properties(inner.items, `${path}${name}[].`);
  }
}

for (const backend of BACKENDS) {
  describe(`MCP tools over the SDK client with an API key on ${backend.name}`, () => {
    let service: TestService;
    let key: string;
    let mcp: Awaited<ReturnType<typeof mcpClient>>;
    before(async () => {
      service = await startTestService(backend.url);
      key = await service.mintKey('Acme Travel');
      mcp = await mcpClient(service.url, key);
    });
    after(async () => {
      await mcp.close();
      await service.close();
    });

    test('initialize negotiates the SDK client\'s revision and names the server', () => {
      assert.equal(mcp.transport.protocolVersion, '2025-11-25');
      assert.equal(mcp.client.getServerVersion()?.name, 'concierge');
      assert.ok(mcp.client.getServerCapabilities()?.tools);
      assert.match(mcp.client.getInstructions() ?? '', /never pays/);
    });

    test('tools/list: six tools with complete schemas, descriptions, annotations and output schemas', async () => {
      const { tools } = await mcp.client.listTools();
      assert.deepEqual(tools.map((t) => t.name), TOOL_NAMES);
      for (const tool of tools) {
        assert.ok(tool.title, `${tool.name} has a title`);
        assert.match(tool.description ?? '', /.{120,}/, `${tool.name} has a description written for a model`);
        assert.equal(tool.inputSchema.type, 'object');
        assert.equal(tool.outputSchema?.type, 'object', `${tool.name} has an outputSchema`);
        for (const [path, property] of properties(tool.inputSchema)) {
          assert.ok(property.description, `${tool.name} input ${path} has a description`);
        }
        for (const [path, property] of properties(tool.outputSchema)) {
          assert.ok(property.description, `${tool.name} output ${path} has a description`);
        }
        if (tool.name.startsWith('book_')) {
          assert.deepEqual(tool.annotations, { readOnlyHint: false, destructiveHint: false, openWorldHint: true });
          assert.match(tool.description!, /never pays/);
          // Every scenario is booked for real, activities too (the contract's "not executed yet" is behind us).
          assert.match(tool.description!, /drives [\w' ]+ websites in a real browser/, `${tool.name} says it books`);
        } else {
          assert.deepEqual(tool.annotations, { readOnlyHint: true, destructiveHint: false, openWorldHint: false });
        }
      }
      const byName = Object.fromEntries(tools.map((t) => [t.name, t]));
      const restaurant = byName.book_restaurant!.inputSchema as any;
      assert.deepEqual(restaurant.required, ['restaurant_name', 'city', 'date', 'time', 'covers', 'profile']);
      assert.equal(restaurant.additionalProperties, false);
      assert.equal(restaurant.properties.date.format, 'date');
      assert.equal(restaurant.properties.covers.type, 'integer');
      assert.equal(restaurant.properties.profile.properties.email.format, 'email');
      assert.deepEqual(restaurant.properties.profile.required, ['first_name', 'last_name', 'email', 'phone']);
      assert.equal(restaurant.properties.consent.properties.paymentPolicy.const, 'stop_before_cvc');
      assert.equal(restaurant.properties.idempotencyKey.type, 'string');
      // What the flight sites cannot sell is said before a model asks for it.
      assert.match(byName.book_flight!.description!, /With return_date the trip is booked as one return fare/);
      assert.match(byName.book_flight!.description!, /profile\.additional_travellers names the others/);
      const flight = byName.book_flight!.inputSchema as any;
      assert.deepEqual(flight.properties.cabin_class.enum, ['economy', 'premium_economy', 'business', 'first']);
      assert.deepEqual(flight.properties.profile.required, ['first_name', 'last_name', 'email', 'phone', 'dob', 'passport_number', 'passport_country']);
      // Every other passenger gives the same passport details; the lead is the contact.
      assert.deepEqual(flight.properties.profile.properties.additional_travellers.items.required, ['first_name', 'last_name', 'dob', 'passport_number', 'passport_country']);
      assert.deepEqual((byName.get_job_status!.inputSchema as any).required, ['jobId']);
      assert.deepEqual((byName.get_job_status!.outputSchema as any).properties.status.enum, ['queued', 'running', 'done', 'error', 'paused_payment', 'captcha', 'needs_login']);
    });

    test('each booking tool creates a queued job that get_job_status and get_job_audit then read', async () => {
      for (const [name, args] of Object.entries(bookingArguments())) {
        const booked = await mcp.client.callTool({ name, arguments: args });
        assert.equal(booked.isError, undefined, `${name}: ${JSON.stringify(booked.content)}`);
        const job = booked.structuredContent as any;
        assert.match(job.jobId, /^[0-9a-f-]{36}$/);
        assert.equal(job.status, 'queued');
        assert.equal(job.scenario, name.slice('book_'.length));
        assert.equal(job.nextPollSeconds, 15);
        assert.match(job.instruction, /get_job_status/);
        assert.deepEqual(textOf(booked), job, 'the text content is the same JSON');

        const status = await mcp.client.callTool({ name: 'get_job_status', arguments: { jobId: job.jobId } });
        const report = status.structuredContent as any;
        assert.equal(report.jobId, job.jobId);
        assert.equal(report.status, 'queued');
        assert.equal(report.scenario, job.scenario);
        assert.equal(typeof report.summary, 'string');
        assert.ok(!Number.isNaN(Date.parse(report.updatedAt)));
        assert.equal(report.nextPollSeconds, 15);
        assert.deepEqual(textOf(status), report);

        const audit = await mcp.client.callTool({ name: 'get_job_audit', arguments: { jobId: job.jobId } });
        const log = audit.structuredContent as any;
        assert.equal(log.jobId, job.jobId);
        assert.equal(log.count, 1);
        assert.equal(log.events[0].type, 'job_created');
        assert.equal(log.events[0].stepIndex, 0);
      }
    });

    test('the job is the one REST sees: same id, pending there, queued here', async () => {
      const booked = await mcp.client.callTool({ name: 'book_restaurant', arguments: bookingArguments().book_restaurant! });
      const { jobId } = booked.structuredContent as any;
      const rest = await fetch(`${service.url}/api/v1/execution-jobs/${jobId}`, { headers: { authorization: `Bearer ${key}` } });
      assert.equal(rest.status, 200);
      const body = await rest.json();
      assert.equal(body.status, 'pending');
      assert.equal(body.organizationName, 'Acme Travel');
    });

    test('invalid arguments are a tool error listing every problem, and create nothing', async () => {
      const before = await service.services.db.selectFrom('jobs').select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow();
      const result = await mcp.client.callTool({
        name: 'book_restaurant',
        arguments: { restaurant_name: '', city: 'Copenhagen', date: '2020-01-01', time: '25:00', covers: 0, surprise: true, profile: { first_name: 'Ada', email: 'not-an-email' } },
      });
      assert.equal(result.isError, true);
      assert.equal(result.structuredContent, undefined);
      const body = textOf(result);
      assert.equal(body.error, 'invalid_arguments');
      const paths = body.issues.map((i: { path: string }) => i.path).sort();
      assert.deepEqual(paths, ['covers', 'date', 'profile.email', 'profile.last_name', 'profile.phone', 'restaurant_name', 'surprise', 'time'].sort());
      assert.ok(body.issues.find((i: any) => i.path === 'date').message.includes('past'));
      assert.ok(body.issues.find((i: any) => i.path === 'surprise'));
      const after = await service.services.db.selectFrom('jobs').select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow();
      assert.equal(Number(after.n), Number(before.n));
    });

    test('text the database cannot store (U+0000, an unpaired surrogate) is an invalid_arguments tool error, not job_create_failed', async () => {
      const args = bookingArguments().book_restaurant as Record<string, unknown>;
      const result = await mcp.client.callTool({ name: 'book_restaurant', arguments: { ...args, restaurant_name: 'No\u0000ma', idempotencyKey: 'k\ud800' } });
      assert.equal(result.isError, true);
      const body = textOf(result);
      assert.equal(body.error, 'invalid_arguments');
      assert.deepEqual(body.issues.map((i: { path: string }) => i.path).sort(), ['idempotencyKey', 'restaurant_name']);
    });

    test('cross-field rules are the REST ones: hotel dates, flight passport fields, a missing profile', async () => {
      const hotel = await mcp.client.callTool({ name: 'book_hotel', arguments: { ...bookingArguments().book_hotel, checkin: daysFromNow(12), checkout: daysFromNow(10) } });
      assert.equal(hotel.isError, true);
      assert.deepEqual(textOf(hotel).issues, [{ path: 'checkout', message: 'checkout must be after checkin' }]);

      const flight = await mcp.client.callTool({ name: 'book_flight', arguments: { ...bookingArguments().book_flight, dest: 'lhr', profile: PROFILE } });
      assert.equal(flight.isError, true);
      assert.deepEqual(textOf(flight).issues.map((i: any) => i.path).sort(), ['dest', 'profile.dob', 'profile.passport_country', 'profile.passport_number']);

      // More passengers than travellers: refused at once, naming the field as the tool calls it.
      const party = await mcp.client.callTool({ name: 'book_flight', arguments: { ...bookingArguments().book_flight, passengers: 2 } });
      assert.equal(party.isError, true);
      assert.deepEqual(textOf(party).issues.map((i: any) => i.path), ['passengers']);
      assert.match(textOf(party).issues[0].message, /^passengers is 2 but the profile describes 1 traveller/);

      const { profile: _profile, ...withoutProfile } = bookingArguments().book_activity!;
      const activity = await mcp.client.callTool({ name: 'book_activity', arguments: { ...withoutProfile, consent: { paymentPolicy: 'pay_everything' }, idempotencyKey: 7 } });
      assert.equal(activity.isError, true);
      assert.deepEqual(textOf(activity).issues, [
        { path: 'consent.paymentPolicy', message: 'paymentPolicy must be "stop_before_cvc": the service always stops before the card security code' },
        { path: 'idempotencyKey', message: 'idempotencyKey must be a string, not a number' },
        { path: 'profile', message: 'profile is required' },
      ]);

      const status = await mcp.client.callTool({ name: 'get_job_status', arguments: {} });
      assert.equal(status.isError, true);
      assert.equal(textOf(status).issues[0].path, 'jobId');
      const audit = await mcp.client.callTool({ name: 'get_job_audit', arguments: { jobId: '00000000-0000-4000-8000-000000000000', limit: 'all' } });
      assert.deepEqual(textOf(audit).issues, [{ path: 'limit', message: 'limit must be a number' }]);
    });

    test('an unknown tool is JSON-RPC error -32602', async () => {
      await assert.rejects(mcp.client.callTool({ name: 'book_spaceship', arguments: {} }), (error: unknown) => {
        assert.ok(error instanceof McpError);
        assert.equal(error.code, -32602);
        assert.match(error.message, /Unknown tool: book_spaceship/);
        return true;
      });
    });

    test('the same idempotencyKey returns the same job; reused for another request it is a tool error', async () => {
      const args = { ...bookingArguments().book_restaurant, idempotencyKey: `retry-${backend.name}` };
      const first = await mcp.client.callTool({ name: 'book_restaurant', arguments: args });
      const again = await Promise.all([1, 2, 3].map(() => mcp.client.callTool({ name: 'book_restaurant', arguments: args })));
      const ids = new Set([first, ...again].map((r) => (r.structuredContent as any).jobId));
      assert.equal(ids.size, 1);
      const reused = await mcp.client.callTool({ name: 'book_restaurant', arguments: { ...args, covers: 4 } });
      assert.equal(reused.isError, true);
      assert.equal(textOf(reused).error, 'idempotency_key_reused');
    });

    test('get_job_audit clamps limit as REST does', async () => {
      const booked = await mcp.client.callTool({ name: 'book_restaurant', arguments: bookingArguments().book_restaurant! });
      const { jobId } = booked.structuredContent as any;
      await transition(service.services.db, jobId, { to: 'running', event: { type: 'job_started', message: 'started' } });
      const one = await mcp.client.callTool({ name: 'get_job_audit', arguments: { jobId, limit: 0 } });
      assert.equal((one.structuredContent as any).count, 1);
      const all = await mcp.client.callTool({ name: 'get_job_audit', arguments: { jobId, limit: 100000 } });
      assert.deepEqual((all.structuredContent as any).events.map((e: any) => e.type), ['job_created', 'job_started']);
    });

    test('get_job_audit pages with after and nextCursor, as REST does', async () => {
      const booked = await mcp.client.callTool({ name: 'book_restaurant', arguments: bookingArguments().book_restaurant! });
      const { jobId } = booked.structuredContent as any;
      await transition(service.services.db, jobId, { to: 'running', event: { type: 'job_started', message: 'started' } });
      const first = (await mcp.client.callTool({ name: 'get_job_audit', arguments: { jobId, limit: 1 } })).structuredContent as any;
      assert.deepEqual(first.events.map((e: any) => e.type), ['job_created']);
      assert.equal(typeof first.nextCursor, 'string');
      const second = (await mcp.client.callTool({ name: 'get_job_audit', arguments: { jobId, limit: 1, after: first.nextCursor } })).structuredContent as any;
      assert.deepEqual(second.events.map((e: any) => e.type), ['job_started']);
      assert.equal(second.nextCursor, null);
      const bad = await mcp.client.callTool({ name: 'get_job_audit', arguments: { jobId, after: 'nope' } });
      assert.equal(bad.isError, true);
      assert.match(JSON.stringify(bad.content), /invalid_cursor/);
    });

    test('statuses map from the core: running, paused_payment with handoffUrl, done with confirmationCode, the failures with a reason', async () => {
      const { db } = service.services;
      const book = async () => ((await mcp.client.callTool({ name: 'book_restaurant', arguments: bookingArguments().book_restaurant! })).structuredContent as any).jobId as string;
      const status = async (jobId: string) => (await mcp.client.callTool({ name: 'get_job_status', arguments: { jobId } })).structuredContent as any;
      const start = (jobId: string) => transition(db, jobId, { to: 'running', event: { type: 'job_started', message: 'started' } });

      const running = await book();
      await start(running);
      const runningReport = await status(running);
      assert.deepEqual(pick(runningReport, 'status', 'nextPollSeconds'), { status: 'running', nextPollSeconds: 15 });
      // Running: the read-only live view, for the user to watch (the link the job's REST read carries).
      assert.match(runningReport.sessionUrl, new RegExp(`^${service.url}/watch/${running}/[A-Za-z0-9_-]{43}$`));
      assert.ok(runningReport.instruction.includes(runningReport.sessionUrl), 'the instruction passes it on');

      const held = await book();
      await start(held);
      const holdExpiresAt = new Date(Date.now() + 600_000);
      await transition(db, held, { to: 'paused_payment', event: { type: 'paused_payment', message: 'held' }, set: { hold_expires_at: holdExpiresAt } });
      const report = await status(held);
      assert.equal(report.status, 'paused_payment');
      assert.equal(report.holdExpiresAt, holdExpiresAt.toISOString());
      assert.equal(report.nextPollSeconds, 30);
      assert.match(report.instruction, /never pays/);
      // handoffUrl comes from the service's job links: the executor's handoff token for this hold.
      assert.match(report.handoffUrl, new RegExp(`^${service.url}/handoff/[A-Za-z0-9_-]{43}$`));
      assert.ok(report.instruction.includes(report.handoffUrl));
      assert.equal(report.sessionUrl, undefined, 'no watching once the run paused');

      const done = await book();
      await start(done);
      await transition(db, done, { to: 'completed', event: { type: 'job_completed', message: 'booked' }, set: { confirmation_code: 'NOMA-42' } });
      const doneReport = await status(done);
      assert.deepEqual(pick(doneReport, 'status', 'confirmationCode', 'nextPollSeconds'), { status: 'done', confirmationCode: 'NOMA-42', nextPollSeconds: null });
      assert.match(doneReport.instruction, /NOMA-42/);

      const cases = [
        { to: 'no_availability', error: null, expected: { status: 'error', reason: 'no_availability' } },
        { to: 'error', error: { reason: 'provider_unreachable', message: 'timeout' }, expected: { status: 'error', reason: 'provider_unreachable' } },
        { to: 'error', error: null, expected: { status: 'error', reason: 'unknown' } },
        { to: 'captcha', error: null, expected: { status: 'captcha', reason: 'captcha' } },
        { to: 'needs_login', error: { reason: 'account_required' }, expected: { status: 'needs_login', reason: 'account_required' } },
        { to: 'error', error: { reason: 'cancelled_by_user', paymentUncertain: true }, expected: { status: 'error', reason: 'cancelled_by_user' } },
      ] as const;
      for (const c of cases) {
        const jobId = await book();
        await start(jobId);
        await transition(db, jobId, { to: c.to, event: { type: 'job_failed', message: c.to }, set: c.error ? { error: JSON.stringify(c.error) } : {} });
        const report = await status(jobId);
        assert.deepEqual(pick(report, 'status', 'reason', 'nextPollSeconds'), { ...c.expected, nextPollSeconds: null }, c.to);
        // A payment submitted that the provider did not confirm: the user is sent to check with it.
        if (c.error && 'paymentUncertain' in c.error) assert.match(report.instruction, /check with the provider whether their card was charged/);
        else assert.doesNotMatch(report.instruction, /check with the provider/);
      }
    });

    test('scenario_not_allowed: an API key limited to restaurants gets 403 for the other booking tools, and reads still work', async () => {
      const limitedKey = await service.mintKey('Acme Travel', ['restaurant']);
      const limited = await mcpClient(service.url, limitedKey);
      try {
        await assert.rejects(limited.client.callTool({ name: 'book_hotel', arguments: bookingArguments().book_hotel! }), (error: unknown) => {
          assert.ok(error instanceof StreamableHTTPError);
          assert.equal(error.code, 403);
          assert.match(error.message, /scenario_not_allowed/);
          return true;
        });
        const booked = await limited.client.callTool({ name: 'book_restaurant', arguments: bookingArguments().book_restaurant! });
        assert.equal((booked.structuredContent as any).status, 'queued');
      } finally {
        await limited.close();
      }
    });

    test('ownership: another organisation\'s job reads exactly like a job that does not exist', async () => {
      const booked = await mcp.client.callTool({ name: 'book_restaurant', arguments: bookingArguments().book_restaurant! });
      const { jobId } = booked.structuredContent as any;
      const other = await mcpClient(service.url, await service.mintKey('Globex'));
      try {
        const missing = '9b2f0c3e-1d1a-4a57-9d7e-5a8f3f1c2b4d';
        for (const tool of ['get_job_status', 'get_job_audit']) {
          const theirs = await other.client.callTool({ name: tool, arguments: { jobId } });
          const none = await other.client.callTool({ name: tool, arguments: { jobId: missing } });
          assert.equal(theirs.isError, true);
          assert.equal(textOf(theirs).error, 'job_not_found');
          assert.deepEqual(textOf(theirs), { ...textOf(none), message: textOf(none).message.replace(missing, jobId) });
        }
        const mine = await mcp.client.callTool({ name: 'get_job_status', arguments: { jobId } });
        assert.equal((mine.structuredContent as any).status, 'queued');
      } finally {
        await other.close();
      }
    });

    test('a client that prefers an SSE stream gets every answer as text/event-stream', async () => {
      const contentTypes: string[] = [];
      const preferSse = async (url: string | URL, init?: RequestInit) => {
        const headers = new Headers(init?.headers);
        if (init?.method === 'POST') headers.set('accept', 'text/event-stream, application/json;q=0.5');
        const response = await fetch(url, { ...init, headers });
        if (init?.method === 'POST' && response.status === 200) contentTypes.push(response.headers.get('content-type') ?? '');
        return response;
      };
      const sse = await mcpClient(service.url, key, { fetch: preferSse });
      try {
        const { tools } = await sse.client.listTools();
        assert.equal(tools.length, 6);
        const booked = await sse.client.callTool({ name: 'book_activity', arguments: bookingArguments().book_activity! });
        assert.equal((booked.structuredContent as any).status, 'queued');
        assert.ok(contentTypes.length >= 3);
        assert.ok(contentTypes.every((t) => t === 'text/event-stream'), contentTypes.join());
      } finally {
        await sse.close();
      }
    });
  });
}

function pick(object: Record<string, unknown>, ...keys: string[]) {
  return Object.fromEntries(keys.map((k) => [k, object[k]]));
}
