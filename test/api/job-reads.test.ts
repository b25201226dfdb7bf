import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { sql } from 'kysely';
import pg from 'pg';
import { BACKENDS, restaurantRequest, startTestService, type TestService } from '../helpers/service.ts';
import { call, type Reply } from '../helpers/http.ts';
import { until } from '../helpers/wait.ts';
import { assertApiError, assertChangesNothing } from '../helpers/api-assert.ts';
import { recordDecision, transition } from '../../src/jobs/transition.ts';
import { appendAuditEvent } from '../../src/jobs/audit.ts';
import { getJobWithLatestMessage, getJobWithLog } from '../../src/jobs/service.ts';
import { BOOKING_QUEUE } from '../../src/jobs/queue.ts';
import { createdJobSchema, executionJobSchema, jobAuditSchema } from '../../src/api/v1/response-schemas.ts';

const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

// Reading jobs and their audit logs: every field, the decision log, audit clamps and order,
// organisation isolation (and JOB_READ_ISOLATION=none), idempotent replays, the one-transaction
// write (job, job_created event, queue entry) and a failed write.
for (const backend of BACKENDS) {
  describe(`job reads on ${backend.name}`, () => {
    let service: TestService;
    let key: string;
    let otherOrgKey: string;
    let sameOrgKey: string;
    before(async () => {
      service = await startTestService(backend.url);
      key = await service.mintKey('Acme Travel');
      sameOrgKey = await service.mintKey('Acme Travel', ['restaurant']);
      otherOrgKey = await service.mintKey('Globex');
    });
    after(() => service.close());

    const create = async (body: unknown = restaurantRequest(), withKey = key) => {
      const reply = await call(service.url, 'POST', '/api/v1/execution-jobs', { key: withKey, body });
      assert.equal(reply.status, 202, reply.text);
      return reply;
    };

    test('the 202 reply has the contract fields, a Location header and matches its schema', async () => {
      const reply = await create();
      createdJobSchema.parse(reply.body);
      assert.equal(reply.headers.get('location'), `/api/v1/execution-jobs/${reply.body.jobId}`);
      assert.equal(reply.headers.get('idempotent-replayed'), null);
      assert.match(reply.body.jobId, /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    });

    test('GET shows every execution-job field, ISO 8601 times, and nothing else', async () => {
      const request = restaurantRequest();
      const { body } = await create(request);
      const read = await call(service.url, 'GET', body._links.self, { key });
      assert.equal(read.status, 200);
      const job = executionJobSchema.parse(read.body);
      for (const field of ['jobId', 'status', 'handoffUrl', 'sessionUrl', 'summary', 'decisionLog', 'attemptCount', 'usedFallback', 'createdAt', 'updatedAt', 'completedAt']) {
        assert.ok(field in read.body, `missing ${field}`);
      }
      assert.equal(job.status, 'pending');
      assert.equal(job.scenario, 'restaurant');
      assert.equal(job.organizationName, 'Acme Travel');
      assert.equal(job.handoffUrl, null);
      assert.equal(job.sessionUrl, null);
      assert.equal(job.completedAt, null);
      assert.equal(job.summary, `Queued: booking Noma, Copenhagen on ${request.request.params.date} at 19:30 for 2.`, 'a pending job says what it waits to book');
      assert.match(job.createdAt, ISO);
      assert.match(job.updatedAt, ISO);
      assert.equal('error' in read.body, false, 'error appears only on status error');
      assert.equal('params' in read.body || 'profile' in read.body, false, 'the request and the traveller are not echoed');
    });

    test('job ids are case-insensitive', async () => {
      const { body } = await create();
      const read = await call(service.url, 'GET', `/api/v1/execution-jobs/${body.jobId.toUpperCase()}`, { key });
      assert.equal(read.status, 200);
      assert.equal(read.body.jobId, body.jobId);
    });

    test('the decision log mirrors the audit log; decisions carry their fields', async () => {
      const { body } = await create();
      const db = service.services.db;
      await transition(db, body.jobId, { to: 'running', event: { type: 'job_started', message: 'worker took the job' }, set: { attempt_count: 1 } });
      await recordDecision(db, body.jobId, { type: 'step_attempt', message: 'trying resy', providerId: 'resy', data: { providerOutcome: 'failed', reason: 'no_availability' } });
      await recordDecision(db, body.jobId, { type: 'time_adjusted', message: 'moved to 20:00', providerId: 'opentable', data: { fromTime: '19:30', toTime: '20:00' } }, { used_fallback: true });
      const read = await call(service.url, 'GET', body._links.self, { key });
      const audit = await call(service.url, 'GET', body._links.audit, { key });
      jobAuditSchema.parse(audit.body);
      assert.equal(read.body.status, 'running');
      assert.equal(read.body.attemptCount, 1);
      assert.equal(read.body.usedFallback, true);
      assert.deepEqual(
        read.body.decisionLog,
        audit.body.events.map((e: any) => ({ timestamp: e.timestamp, type: e.type, message: e.message })),
      );
      assert.deepEqual(audit.body.events.map((e: any) => e.type), ['job_created', 'job_started', 'step_attempt', 'time_adjusted']);
      assert.deepEqual(audit.body.events.map((e: any) => e.stepIndex), [0, 1, 2, 3]);
      const adjusted = audit.body.events[3];
      assert.equal(adjusted.fromTime, '19:30');
      assert.equal(adjusted.toTime, '20:00');
      assert.equal(adjusted.providerId, 'opentable');
      assert.equal(audit.body.events[2].providerOutcome, 'failed');
      for (const e of audit.body.events) {
        assert.match(e.timestamp, ISO);
        assert.equal(e.jobId, body.jobId);
      }
      assert.ok(read.body.updatedAt >= read.body.createdAt);
    });

    test("an event's recorded details never override its own fields", async () => {
      const { body } = await create();
      const forged = { jobId: '00000000-0000-4000-8000-000000000000', stepIndex: 99, type: 'job_completed', timestamp: '2000-01-01T00:00:00.000Z', message: 'forged', providerId: 'forged' };
      await recordDecision(service.services.db, body.jobId, { type: 'step_attempt', message: 'trying resy', providerId: 'resy', data: { ...forged, providerOutcome: 'failed' } });
      const audit = await call(service.url, 'GET', body._links.audit, { key });
      const event = audit.body.events[1];
      assert.deepEqual(
        { jobId: event.jobId, stepIndex: event.stepIndex, type: event.type, message: event.message, providerId: event.providerId, providerOutcome: event.providerOutcome },
        { jobId: body.jobId, stepIndex: 1, type: 'step_attempt', message: 'trying resy', providerId: 'resy', providerOutcome: 'failed' },
      );
      assert.match(event.timestamp, ISO);
      assert.notEqual(event.timestamp, forged.timestamp);
      const read = await call(service.url, 'GET', body._links.self, { key });
      assert.deepEqual(read.body.decisionLog[1], { timestamp: event.timestamp, type: 'step_attempt', message: 'trying resy' });
    });

    test('a job in status error carries `error`; a terminal job has completedAt', async () => {
      const { body } = await create();
      const db = service.services.db;
      await transition(db, body.jobId, { to: 'running', event: { type: 'job_started', message: 'started' } });
      await transition(db, body.jobId, { to: 'error', event: { type: 'job_failed', message: 'the page broke' }, set: { error: JSON.stringify({ reason: 'provider_page_changed', provider: 'resy' }) } });
      const read = await call(service.url, 'GET', body._links.self, { key });
      const job = executionJobSchema.parse(read.body);
      assert.equal(job.status, 'error');
      assert.deepEqual(job.error, { reason: 'provider_page_changed', provider: 'resy' });
      assert.match(job.completedAt ?? '', ISO);
    });

    describe('audit limit', () => {
      let jobId: string;
      before(async () => {
        const { body } = await create();
        jobId = body.jobId;
        // 2100 events on a real job, through the same function the executor uses.
        await service.services.db.transaction().execute(async (trx) => {
          for (let i = 0; i < 2100; i++) await appendAuditEvent(trx, jobId, { type: 'step_attempt', message: `attempt ${i}` });
        });
      });
      const audit = async (query: string) => {
        const reply = await call(service.url, 'GET', `/api/v1/execution-jobs/${jobId}/audit${query}`, { key });
        assert.equal(reply.status, 200, reply.text);
        assert.equal(reply.body.count, reply.body.events.length);
        return reply.body;
      };

      test('default 500, oldest first', async () => {
        const body = await audit('');
        assert.equal(body.count, 500);
        assert.equal(body.events[0].type, 'job_created');
        assert.deepEqual(body.events.map((e: any) => e.stepIndex), Array.from({ length: 500 }, (_, i) => i));
      });

      test('clamped to 1..2000; a fraction is truncated; anything not a number is the default', async () => {
        const cases: Array<[string, number]> = [
          ['?limit=3', 3],
          ['?limit=1', 1],
          ['?limit=0', 1],
          ['?limit=-7', 1],
          ['?limit=2.9', 2],
          ['?limit=2000', 2000],
          ['?limit=2001', 2000],
          ['?limit=999999', 2000],
          ['?limit=1e3', 1000],
          ['?limit=abc', 500],
          ['?limit=', 500],
          ['?limit=Infinity', 500],
          ['?limit=3&limit=4', 500],
        ];
        for (const [query, expected] of cases) assert.equal((await audit(query)).count, expected, query);
      });

      test('the decision log of the job read is capped at 2000 entries', async () => {
        const read = await call(service.url, 'GET', `/api/v1/execution-jobs/${jobId}`, { key });
        assert.equal(read.body.decisionLog.length, 2000);
        assert.equal(read.body.decisionLog[0].type, 'job_created');
      });

      test('a status line (an MCP task) shows the message the capped decision log ends on', async () => {
        const acme = { kind: 'organization', organizationName: 'Acme Travel' } as const;
        const [withLog, latest] = await Promise.all([getJobWithLog(service.services.jobs, acme, jobId), getJobWithLatestMessage(service.services.jobs, acme, jobId)]);
        assert.equal(latest?.latestMessage, 'attempt 1998');
        assert.equal(latest?.latestMessage, withLog?.decisionLog.at(-1)?.message);
        assert.deepEqual(latest?.job, withLog?.job);
      });
    });

    test('a job without events gives an empty audit list, not a 404', async () => {
      const { body } = await create();
      await sql`delete from audit_events where job_id = ${body.jobId}`.execute(service.services.db);
      const audit = await call(service.url, 'GET', body._links.audit, { key });
      assert.equal(audit.status, 200);
      assert.deepEqual(audit.body, { jobId: body.jobId, count: 0, events: [], nextCursor: null });
      assert.deepEqual((await call(service.url, 'GET', body._links.self, { key })).body.decisionLog, []);
    });

    test('another organisation reads neither the job nor its audit: 404 job_not_found', async () => {
      const { body } = await create();
      assertApiError(await call(service.url, 'GET', body._links.self, { key: otherOrgKey }), 404, 'job_not_found');
      assertApiError(await call(service.url, 'GET', body._links.audit, { key: otherOrgKey }), 404, 'job_not_found');
      assert.equal((await call(service.url, 'GET', body._links.self, { key: sameOrgKey })).status, 200, 'another key of the same organisation reads it');
    });

    test('reads sent together each get their own job; isolation holds among them', async () => {
      const mine = await Promise.all([0, 1, 2, 3, 4].map(() => create()));
      const theirs = (await create(restaurantRequest(), otherOrgKey)).body;
      const missing = '00000000-0000-4000-8000-000000000000';
      const reads = await Promise.all([
        ...mine.map(({ body }) => call(service.url, 'GET', body._links.self, { key })),
        call(service.url, 'GET', `/api/v1/execution-jobs/${mine[0]!.body.jobId.toUpperCase()}`, { key }),
        call(service.url, 'GET', theirs._links.self, { key }),
        call(service.url, 'GET', theirs._links.self, { key: otherOrgKey }),
        call(service.url, 'GET', `/api/v1/execution-jobs/${missing}`, { key }),
      ]);
      mine.forEach(({ body }, i) => {
        assert.equal(reads[i]!.status, 200);
        assert.equal(reads[i]!.body.jobId, body.jobId);
        assert.equal(reads[i]!.body.decisionLog[0].type, 'job_created');
      });
      assert.equal(reads[5]!.body.jobId, mine[0]!.body.jobId, 'the same job twice in one batch');
      assertApiError(reads[6]!, 404, 'job_not_found');
      assert.equal(reads[7]!.body.jobId, theirs.jobId, 'its owner reads it in the same batch');
      assertApiError(reads[8]!, 404, 'job_not_found');
    });

    test('reads started in the same tick share one statement and still answer per reader', async () => {
      const mine = (await create()).body.jobId;
      const theirs = (await create(restaurantRequest(), otherOrgKey)).body.jobId;
      const acme = { kind: 'organization', organizationName: 'Acme Travel' } as const;
      const globex = { kind: 'organization', organizationName: 'Globex' } as const;
      const [a, b, c, d] = await Promise.all([
        getJobWithLog(service.services.jobs, acme, mine),
        getJobWithLog(service.services.jobs, acme, theirs),
        getJobWithLog(service.services.jobs, globex, theirs),
        getJobWithLog(service.services.jobs, globex, mine),
      ]);
      assert.equal(a?.job.jobId, mine);
      assert.equal(b, null);
      assert.equal(c?.job.jobId, theirs);
      assert.equal(d, null);
    });

    test('a read sees a change committed just before it', async () => {
      const { body } = await create();
      await transition(service.services.db, body.jobId, { to: 'running', event: { type: 'job_started', message: 'worker took the job' } });
      const read = await call(service.url, 'GET', body._links.self, { key });
      assert.equal(read.body.status, 'running');
      assert.deepEqual(read.body.decisionLog.map((e: { type: string }) => e.type), ['job_created', 'job_started']);
    });

    describe('idempotency', () => {
      test('a replay answers the same job with Idempotent-Replayed: true', async () => {
        const body = { ...restaurantRequest({ restaurant_name: 'Replay' }), clientMetadata: { idempotencyKey: 'replay-1' } };
        const first = await create(body);
        const second = await create(body);
        assert.equal(second.body.jobId, first.body.jobId);
        assert.equal(second.headers.get('idempotent-replayed'), 'true');
        const reordered = { clientMetadata: body.clientMetadata, profile: body.profile, request: { params: { ...body.request.params }, scenario: 'restaurant' } };
        assert.equal((await create(reordered)).body.jobId, first.body.jobId, 'field order does not matter');
      });

      test('the key is scoped to the organisation', async () => {
        const body = { ...restaurantRequest({ restaurant_name: 'Scoped' }), clientMetadata: { idempotencyKey: 'shared-key' } };
        const mine = await create(body);
        const theirs = await create(body, otherOrgKey);
        assert.notEqual(theirs.body.jobId, mine.body.jobId);
        assert.equal(theirs.body.organizationName, 'Globex');
      });

      test('the same key with a different request is 409 idempotency_key_reused', async () => {
        const body = { ...restaurantRequest({ restaurant_name: 'Conflict' }), clientMetadata: { idempotencyKey: 'conflict-1' } };
        await create(body);
        const reply = await assertChangesNothing(service, () => call(service.url, 'POST', '/api/v1/execution-jobs', { key, body: { ...body, consent: { maxRetries: 1 } } }));
        assertApiError(reply, 409, 'idempotency_key_reused');
      });
    });

    /** Changes the schema as an operator (or a failure) would: on PostgreSQL from a separate client. */
    const ddl = async (statement: string) => {
      if (backend.name === 'postgres') {
        const client = new pg.Client({ connectionString: backend.url });
        await client.connect();
        await client.query(`set search_path to "${service.config.DATABASE_SCHEMA}"`);
        await client.query(statement);
        await client.end();
      } else {
        await sql.raw(statement).execute(service.services.db);
      }
    };
    const jobsNamed = async (name: string) =>
      (await sql<{ n: number }>`select count(*)::int as n from jobs where params->>'restaurant_name' = ${name}`.execute(service.services.db)).rows[0]!.n;
    const bookingQueue = (options: { key?: string } = {}) => service.services.queue.boss.findJobs<{ jobId: string }>(BOOKING_QUEUE, options);

    test('a failed database write is 500 job_create_failed, then the same idempotencyKey succeeds', async () => {
      // The database refuses new jobs, as a full disk or a failing constraint would.
      const body = { ...restaurantRequest({ restaurant_name: 'Retry me' }), clientMetadata: { idempotencyKey: 'retry-after-failure' } };
      await ddl('alter table jobs add constraint test_refuse_jobs check (false) not valid');
      try {
        const failed = await call(service.url, 'POST', '/api/v1/execution-jobs', { key, body });
        assertApiError(failed, 500, 'job_create_failed');
        assert.match(failed.body.error.message, /retry with the same idempotencyKey/);
        assert.equal(await jobsNamed('Retry me'), 0);
      } finally {
        await ddl('alter table jobs drop constraint test_refuse_jobs');
      }
      const retried = await create(body);
      assert.equal(retried.headers.get('idempotent-replayed'), null, 'the retry creates the job');
      const again = await create(body);
      assert.equal(again.body.jobId, retried.body.jobId);
    });

    test('a database failure in the lookups before the write (idempotency key, stored profile) is 500 job_create_failed too', async () => {
      const profile = await call(service.url, 'POST', '/api/v1/profiles', { key, body: restaurantRequest().profile });
      assert.equal(profile.status, 201, profile.text);
      const cases: Array<[string, unknown]> = [
        // The jobs table is where an idempotency key is looked up first.
        ['jobs', { ...restaurantRequest({ restaurant_name: 'Lookup failure' }), clientMetadata: { idempotencyKey: 'lookup-failure' } }],
        ['profiles', { request: restaurantRequest({ restaurant_name: 'Lookup failure' }).request, profileId: profile.body.profileId }],
        // A body with other problems still has its profileId looked up, to report every problem.
        ['profiles', { request: restaurantRequest({ restaurant_name: 'Lookup failure', covers: 0 }).request, profileId: profile.body.profileId }],
      ];
      for (const [table, body] of cases) {
        await ddl(`alter table ${table} rename to ${table}_away`);
        try {
          const failed = await call(service.url, 'POST', '/api/v1/execution-jobs', { key, body });
          assertApiError(failed, 500, 'job_create_failed');
        } finally {
          await ddl(`alter table ${table}_away rename to ${table}`);
        }
      }
      assert.equal(await jobsNamed('Lookup failure'), 0);
    });

    test('a created job has exactly one queue entry, keyed by its id', async () => {
      const { body } = await create(restaurantRequest({ restaurant_name: 'Queued once' }));
      const entries = await bookingQueue({ key: body.jobId });
      assert.equal(entries.length, 1);
      assert.equal(entries[0]!.singletonKey, body.jobId);
      assert.deepEqual(entries[0]!.data, { jobId: body.jobId });
      assert.equal((await bookingQueue()).filter((e) => e.data.jobId === body.jobId).length, 1, 'and no other entry for it');
    });

    test('the job row, its job_created event and its queue entry are written together: a refused event leaves neither job nor queue entry', async () => {
      const queued = (await bookingQueue()).length;
      // The job row and the queue entry are written; then the audit log refuses the job_created event.
      await ddl(`create function test_refuse_audit() returns trigger language plpgsql as $$ begin raise exception 'the audit log refuses writes'; end $$`);
      await ddl('create trigger test_refuse_audit before insert on audit_events for each row execute function test_refuse_audit()');
      try {
        const failed = await call(service.url, 'POST', '/api/v1/execution-jobs', { key, body: restaurantRequest({ restaurant_name: 'Half written' }) });
        assertApiError(failed, 500, 'job_create_failed');
        assert.equal(await jobsNamed('Half written'), 0, 'no job row');
        assert.equal((await bookingQueue()).length, queued, 'no queue entry');
      } finally {
        await ddl('drop trigger test_refuse_audit on audit_events');
        await ddl('drop function test_refuse_audit()');
      }
      // The write itself works again: the refusal, not the request, was the cause.
      await create(restaurantRequest({ restaurant_name: 'Half written' }));
      assert.equal(await jobsNamed('Half written'), 1);
      assert.equal((await bookingQueue()).length, queued + 1);
    });
  });

  describe(`the summary of a running job on ${backend.name}`, () => {
    let service: TestService;
    before(async () => {
      // A worker and the sandbox sites, slowed so that the run is still going when it is read.
      service = await startTestService(backend.url, { WORKERS: '1', EXECUTOR_STEP_DELAY_MS: '1500' }, { sandbox: true });
    });
    after(() => service.close());

    test('once a worker takes the job, the summary says it is running and what it books', async () => {
      const key = await service.mintKey();
      const request = restaurantRequest({ restaurant_name: 'Geranium' });
      const created = await call(service.url, 'POST', '/api/v1/execution-jobs', { key, body: request });
      assert.equal(created.status, 202, created.text);
      let read!: Reply;
      await until('a worker took the job', async () => (read = await call(service.url, 'GET', created.body._links.self, { key })).body.status !== 'pending', 60_000, 50);
      assert.equal(read.body.status, 'running', read.text);
      assert.equal(read.body.summary, `Running: booking Geranium, Copenhagen on ${request.request.params.date} at 19:30 for 2.`);
    });
  });

  describe(`JOB_READ_ISOLATION=none on ${backend.name}`, () => {
    let service: TestService;
    before(async () => {
      service = await startTestService(backend.url, { JOB_READ_ISOLATION: 'none' });
    });
    after(() => service.close());

    test("any valid key reads any organisation's job and audit, as in the contract's v1-alpha", async () => {
      const acme = await service.mintKey('Acme Travel');
      const globex = await service.mintKey('Globex');
      const created = await call(service.url, 'POST', '/api/v1/execution-jobs', { key: acme, body: restaurantRequest() });
      assert.equal(created.status, 202);
      const read = await call(service.url, 'GET', created.body._links.self, { key: globex });
      assert.equal(read.status, 200);
      assert.equal(read.body.organizationName, 'Acme Travel');
      assert.equal((await call(service.url, 'GET', created.body._links.audit, { key: globex })).status, 200);
      // Idempotency keys stay scoped to the organisation that created the job.
      const body = { ...restaurantRequest(), clientMetadata: { idempotencyKey: 'k' } };
      const a = await call(service.url, 'POST', '/api/v1/execution-jobs', { key: acme, body });
      const g = await call(service.url, 'POST', '/api/v1/execution-jobs', { key: globex, body });
      assert.notEqual(a.body.jobId, g.body.jobId);
    });
  });
}
