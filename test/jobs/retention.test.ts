import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { sql } from 'kysely';
import { BACKENDS, daysFromNow, requests, startTestService, type TestService } from '../helpers/service.ts';
import { call } from '../helpers/http.ts';
import { until } from '../helpers/wait.ts';
import { dumpEveryTable } from '../helpers/db-dump.ts';
import { transition } from '../../src/jobs/transition.ts';
import { createJobFromRequest, toJob } from '../../src/jobs/service.ts';
import { mintApiKey } from '../../src/auth/api-keys.ts';
import { listAuditEvents } from '../../src/jobs/audit.ts';
import { eraseExpiredPersonalData } from '../../src/jobs/retention.ts';
import { RETENTION_PURGE_CRON, RETENTION_PURGE_QUEUE } from '../../src/jobs/retention-purge.ts';
import { statusReport } from '../../src/mcp/status.ts';
import { bookingItem } from '../../src/web/bookings-routes.ts';
import { renderFragment } from '../../src/pages/handoff-render.ts';

// Traveller data retention (issue 15 §5): JOB_PERSONAL_DATA_RETENTION_DAYS after a job is final,
// its traveller's personal data is erased from the job, its audit events and its webhook deliveries;
// the job, its log and the provider metrics stay. Proven on the database itself: before the purge a
// dump holds the traveller's values, after it none.

const DAY = 86400_000;

/** A traveller whose every value is distinctive: any trace of it in a dump is this test's. */
const TRAVELLER = {
  first_name: 'Zenobia',
  last_name: 'Quarrington',
  email: 'zenobia.quarrington@retention.example',
  phone: '+44 20 7946 0173',
  dob: '1979-04-23',
  passport_number: 'ZQ8841377',
  passport_country: 'GB',
};
const CARD_ON_FILE = 'Amex •••• 8431';
const ROOM_WISH = 'quiet room, Zenobia uses a wheelchair';
const END_USER = 'crm-user-5531977';
/** What must be gone from the database after the purge (and was there before it). */
const DISTINCTIVE = [TRAVELLER.first_name, TRAVELLER.last_name, TRAVELLER.email, TRAVELLER.phone, TRAVELLER.dob, TRAVELLER.passport_number, CARD_ON_FILE, ROOM_WISH, END_USER];

type Db = TestService['services']['db'];

async function createJob(service: TestService, key: string, scenario: 'hotel' | 'flight', profile: Record<string, unknown> = TRAVELLER): Promise<string> {
  const params = scenario === 'hotel'
    ? { hotel_name: 'Hotel Lutetia', city: 'Paris', checkin: daysFromNow(10), checkout: daysFromNow(12), adults: 1, room_preference: ROOM_WISH }
    : { origin: 'LHR', dest: 'JFK', date: daysFromNow(20), passengers: 1 };
  const body = { request: { scenario, params }, profile, clientMetadata: { agentId: 'agent-7', userId: END_USER, idempotencyKey: `idem-${Math.random()}` } };
  const reply = await call(service.url, 'POST', '/api/v1/execution-jobs', { key, body });
  assert.equal(reply.status, 202, JSON.stringify(reply.body));
  requestOf.set(reply.body.jobId, body);
  return reply.body.jobId as string;
}

/** The request body each job was created with, for replays. */
const requestOf = new Map<string, unknown>();

/** What the executor writes for a hotel held and then paid: the guest's name and the card on file as the site showed them. */
async function holdAndBook(db: Db, jobId: string): Promise<void> {
  await transition(db, jobId, { to: 'running', event: { type: 'job_started', message: 'A worker took the job.' } });
  const what = `Hotel Lutetia, Paris · ${daysFromNow(10)} to ${daysFromNow(12)} · 1 room, 1 adult · Deluxe room for Zenobia Quarrington · €420.00, card on file ${CARD_ON_FILE}`;
  await transition(db, jobId, {
    to: 'paused_payment',
    set: { summary: `Held at StaySearch: ${what}. Waiting for the card security code.`, provider_id: 'staysearch' },
    event: {
      type: 'paused_payment',
      providerId: 'staysearch',
      message: `Stopped before the card security code at StaySearch: ${what}.`,
      data: { providerOutcome: 'accepted', held: { provider: 'staysearch', venue: 'Hotel Lutetia, Paris', when: daysFromNow(10), quantity: '1 room, 1 adult', item: 'Deluxe room for Zenobia Quarrington', price: '€420.00', cardOnFile: CARD_ON_FILE } },
    },
  });
  await transition(db, jobId, {
    to: 'completed',
    set: { summary: `Booked and paid at StaySearch: ${what}. Confirmation SS-77120.`, confirmation_code: 'SS-77120' },
    event: { type: 'job_completed', providerId: 'staysearch', message: 'The person paid at StaySearch; the booking is confirmed with code SS-77120.', data: { confirmationCode: 'SS-77120' } },
  });
}

/** A flight whose site refused the passport, quoting it (sites echo what was typed). */
async function failFlight(db: Db, jobId: string): Promise<void> {
  await transition(db, jobId, { to: 'running', event: { type: 'job_started', message: 'A worker took the job.' } });
  const message = `the site refused passport ${TRAVELLER.passport_number} for ${TRAVELLER.first_name} ${TRAVELLER.last_name}`;
  await transition(db, jobId, {
    to: 'error',
    set: { summary: `The booking could not be made for LHR → JFK. SkyFare: ${message}.`, error: JSON.stringify({ reason: 'unexpected', step: 'details', provider: 'skyfare', url: 'http://skyfare.localhost/book', message }) },
    event: { type: 'job_failed', providerId: 'skyfare', message: `Not booked (error): SkyFare: ${message}.`, data: { providerOutcome: 'failed', reason: 'unexpected', status: 'error' } },
  });
}

async function endedDaysAgo(db: Db, jobId: string, days: number): Promise<void> {
  await db.updateTable('jobs').set({ completed_at: new Date(Date.now() - days * DAY) }).where('id', '=', jobId).execute();
}

async function rowOf(db: Db, jobId: string) {
  return db.selectFrom('jobs').selectAll().where('id', '=', jobId).executeTakeFirstOrThrow();
}

/** Everything stored about a job, as text: its row, its audit events and its webhook deliveries. */
async function storedText(db: Db, jobId: string): Promise<string> {
  const job = await rowOf(db, jobId);
  const events = await db.selectFrom('audit_events').selectAll().where('job_id', '=', jobId).orderBy('id').execute();
  // Their events only: the sender updates their attempts meanwhile.
  const deliveries = await db.selectFrom('webhook_deliveries').select(['id', 'event']).where('job_id', '=', jobId).orderBy('id').execute();
  return JSON.stringify({ job, events, deliveries });
}

/** The service's tables as an operator would dump them: pg_dump on PostgreSQL, every row on PGlite. */
async function databaseDump(service: TestService, backend: (typeof BACKENDS)[number]): Promise<string> {
  if (backend.name === 'pglite') return (await dumpEveryTable(service)).text;
  const { database } = service.services;
  const { stdout } = await promisify(execFile)('pg_dump', ['--data-only', '--no-owner', `--schema=${database.schema}`, `--schema=${database.boss.schema}`, backend.url], { maxBuffer: 256 * 1024 * 1024 });
  assert.ok(stdout.includes(`COPY ${database.schema}.jobs`), 'the dump holds the jobs table (sanity check)');
  return stdout;
}

function present(dump: string): string[] {
  const lower = dump.toLowerCase();
  return DISTINCTIVE.filter((value) => lower.includes(value.toLowerCase()));
}

for (const backend of BACKENDS) {
  describe(`traveller data retention on ${backend.name}`, () => {
    let service: TestService;
    let key: string;
    before(async () => {
      service = await startTestService(backend.url);
      key = await service.mintKey('Retention Travel');
      // A webhook endpoint, so the jobs' events are recorded as deliveries (their copies of the summary and clientMetadata).
      assert.equal((await call(service.url, 'POST', '/api/v1/webhook-endpoints', { key, body: { url: 'http://127.0.0.1:9/hook' } })).status, 201);
    });
    after(() => service?.close());

    test('the purge runs on a pg-boss schedule', async () => {
      const schedules = await service.services.queue.boss.getSchedules(RETENTION_PURGE_QUEUE);
      assert.equal(schedules.length, 1);
      assert.equal(schedules[0]!.cron, RETENTION_PURGE_CRON);
    });

    test('a final job past retention loses its traveller data; recent and unfinished jobs keep theirs; the job, its log and the metrics remain', async () => {
      const { db } = service.services;
      const booked = await createJob(service, key, 'hotel');
      await holdAndBook(db, booked);
      await endedDaysAgo(db, booked, 31);
      const failed = await createJob(service, key, 'flight');
      await failFlight(db, failed);
      await endedDaysAgo(db, failed, 45);
      // Final but recent; queued; and held for payment since long ago (not final: the person may still pay).
      const recent = await createJob(service, key, 'flight');
      await failFlight(db, recent);
      await endedDaysAgo(db, recent, 29);
      const queued = await createJob(service, key, 'hotel');
      const held = await createJob(service, key, 'hotel');
      await transition(db, held, { to: 'running', event: { type: 'job_started', message: 'A worker took the job.' } });
      await transition(db, held, { to: 'paused_payment', set: { summary: `Held for Zenobia Quarrington, card on file ${CARD_ON_FILE}.` }, event: { type: 'paused_payment', providerId: 'roomly', message: 'Stopped before the card security code.', data: { providerOutcome: 'accepted', held: { provider: 'roomly', venue: 'Hotel Lutetia', quantity: '1 adult', price: '€300.00', cardOnFile: CARD_ON_FILE } } } });
      await endedDaysAgo(db, held, 60);

      const untouched = [recent, queued, held];
      const before = Object.fromEntries(await Promise.all(untouched.map(async (id) => [id, await storedText(db, id)] as const)));
      const logBefore = (await call(service.url, 'GET', `/api/v1/execution-jobs/${booked}/audit`, { key })).body;
      const metricsBefore = (await call(service.url, 'GET', '/api/v1/metrics/providers/staysearch', { key })).body;
      for (const id of [booked, failed]) assert.ok(present(await storedText(db, id)).length > 0, 'the job holds traveller data before the purge (sanity check)');

      assert.equal(await eraseExpiredPersonalData(db, 30), 2);

      for (const id of [booked, failed]) {
        const text = await storedText(db, id);
        assert.deepEqual(present(text), [], `job ${id} still holds traveller data`);
        const row = await rowOf(db, id);
        assert.deepEqual(row.profile, {});
        assert.ok(row.personal_data_erased_at instanceof Date);
      }
      for (const id of untouched) {
        assert.equal(await storedText(db, id), before[id], 'a job not due is left exactly as it was');
        assert.equal((await rowOf(db, id)).personal_data_erased_at, null);
      }

      // What was booked, the outcome and the references stay; the traveller's words read [erased].
      const row = await rowOf(db, booked);
      assert.equal(row.status, 'completed');
      assert.equal(row.confirmation_code, 'SS-77120');
      assert.equal(row.params.hotel_name, 'Hotel Lutetia');
      assert.equal(row.params.room_preference, undefined);
      assert.deepEqual(Object.keys(row.client_metadata).sort(), ['agentId', 'idempotencyKey']);
      assert.match(row.summary, /^Booked and paid at StaySearch: Hotel Lutetia, Paris · .* · Deluxe room for \[erased\] \[erased\] · €420\.00, card on file \[erased\]\. Confirmation SS-77120\.$/);

      // REST: the job reads as before, saying when its traveller data was erased; its audit log keeps every event.
      const reply = await call(service.url, 'GET', `/api/v1/execution-jobs/${booked}`, { key });
      assert.equal(reply.status, 200);
      assert.equal(reply.body.personalDataErasedAt, row.personal_data_erased_at!.toISOString());
      assert.equal(reply.body.confirmationCode, 'SS-77120');
      assert.equal(reply.body.summary, row.summary);
      const logAfter = (await call(service.url, 'GET', `/api/v1/execution-jobs/${booked}/audit`, { key })).body;
      assert.deepEqual(logAfter.events.map((e: { type: string; timestamp: string }) => [e.type, e.timestamp]), logBefore.events.map((e: { type: string; timestamp: string }) => [e.type, e.timestamp]));
      const paused = logAfter.events.find((e: { type: string }) => e.type === 'paused_payment');
      assert.equal(paused.held.cardOnFile, null);
      assert.equal(paused.held.item, 'Deluxe room for [erased] [erased]');
      assert.equal(paused.held.price, '€420.00');
      const failedReply = await call(service.url, 'GET', `/api/v1/execution-jobs/${failed}`, { key });
      assert.equal(failedReply.status, 200);
      assert.equal(failedReply.body.error.message, 'the site refused passport [erased] for [erased] [erased]');
      assert.equal(failedReply.body.error.provider, 'skyfare');
      // The original request replayed with its idempotency key still answers with this job, not a new booking.
      const replay = await call(service.url, 'POST', '/api/v1/execution-jobs', { key, body: requestOf.get(booked) });
      assert.equal(replay.status, 202);
      assert.equal(replay.body.jobId, booked);
      // The provider metrics count as before.
      assert.deepEqual((await call(service.url, 'GET', '/api/v1/metrics/providers/staysearch', { key })).body, metricsBefore);
      assert.equal(metricsBefore.acceptedCount, 1);

      // MCP get_job_status and /bookings read the erased job too.
      const job = toJob(row);
      const report = statusReport(job, null);
      assert.equal(report.status, 'done');
      assert.equal(report.confirmationCode, 'SS-77120');
      assert.equal(report.personalDataErasedAt, job.personalDataErasedAt);
      const item = bookingItem({ job, events: await listAuditEvents(db, booked, 100) }, service.services.links);
      assert.ok(item.erasedAt);
      assert.deepEqual(present(JSON.stringify(item)), []);
      assert.ok(item.held?.some((l) => l.label === 'Price' && l.value === '€420.00'));
      const html = renderFragment('bookings-item', item);
      assert.match(html, /data-section="erased">Traveller details erased \d{4}-\d{2}-\d{2} \d{2}:\d{2} UTC/);
      assert.match(html, /SS-77120/);
      assert.deepEqual(present(html), []);

      // Done once: a second run finds nothing.
      assert.equal(await eraseExpiredPersonalData(db, 30), 0);
    });

    test('a database dump holds the traveller\'s values before the purge and none after it', async () => {
      const { db } = service.services;
      // Nothing else in this database is due: the jobs above are erased or not yet due.
      await eraseExpiredPersonalData(db, 30);
      const jobs = await db.selectFrom('jobs').select('id').where('personal_data_erased_at', 'is', null).execute();
      // Every job left with traveller data is made due, and one more of each kind is added.
      const booked = await createJob(service, key, 'hotel');
      await holdAndBook(db, booked);
      const failed = await createJob(service, key, 'flight');
      await failFlight(db, failed);
      for (const { id } of jobs) {
        const { status } = await rowOf(db, id);
        if (status === 'pending') await transition(db, id, { to: 'error', event: { type: 'job_aborted', message: 'Cancelled.' } });
        if (status === 'paused_payment') await transition(db, id, { to: 'error', event: { type: 'job_failed', message: 'The hold ran out.' } });
      }
      await sql`update jobs set completed_at = now() - interval '40 days' where personal_data_erased_at is null`.execute(db);

      const before = present(await databaseDump(service, backend));
      assert.deepEqual(before, DISTINCTIVE, 'the dump holds every traveller value before the purge (sanity check)');
      assert.ok((await eraseExpiredPersonalData(db, 30)) >= 2);
      assert.deepEqual(present(await databaseDump(service, backend)), [], 'traveller data left in the database dump');
    });

    test('a deleted stored profile is gone from the database, not hidden', async () => {
      const stored = { ...TRAVELLER, email: 'stored.profile.4471@retention.example', passport_number: 'SP4471902' };
      const created = await call(service.url, 'POST', '/api/v1/profiles', { key, body: stored });
      assert.equal(created.status, 201);
      const dump = (text: string) => [stored.email, stored.passport_number].filter((v) => text.includes(v));
      assert.equal(dump(await databaseDump(service, backend)).length, 2, 'the stored profile is in the dump (sanity check)');
      assert.equal((await call(service.url, 'DELETE', `/api/v1/profiles/${created.body.profileId}`, { key })).status, 204);
      assert.deepEqual(dump(await databaseDump(service, backend)), []);
    });
  });
}

for (const backend of BACKENDS) {
  describe(`traveller data purge worker on ${backend.name}`, () => {
    let service: TestService;
    before(async () => {
      // A process that runs workers runs the purge job too; a one-day retention.
      service = await startTestService(backend.url, { WORKERS: '1', JOB_PERSONAL_DATA_RETENTION_DAYS: '1' });
    });
    after(() => service?.close());

    test('the worker erases a final job past the configured retention when the scheduled job runs', async () => {
      const { db } = service.services;
      const { info } = await mintApiKey(db, { organizationName: 'Retention Worker', allowedJobTypes: ['hotel'], live: false, dailyLimit: null });
      const owner = { kind: 'organization' as const, organizationName: 'Retention Worker', apiKeyId: info.id };
      // Jobs with no queue entry, so this process's booking worker never takes them up; ended with a
      // summary quoting the traveller, as a provider's page might have made it.
      const deps = { ...service.services.jobs, queue: { enqueueBooking: async () => {} } };
      const [due, recent] = await Promise.all([1, 2].map(async () => (await createJobFromRequest(deps, owner, { ...requests.hotel({ room_preference: ROOM_WISH }), profile: TRAVELLER })).job.jobId));
      for (const id of [due!, recent!]) {
        await transition(db, id, { to: 'error', event: { type: 'job_aborted', message: 'Cancelled.' }, set: { summary: 'Cancelled for Zenobia Quarrington.' } });
      }
      await endedDaysAgo(db, due!, 2);
      await endedDaysAgo(db, recent!, 0.5);
      // The job the hourly schedule sends, sent now.
      await service.services.queue.boss.send(RETENTION_PURGE_QUEUE, {});
      await until('the purge job erased the due job', async () => (await rowOf(db, due!)).personal_data_erased_at !== null, 30_000, 100);
      assert.equal((await rowOf(db, due!)).summary, 'Cancelled for [erased] [erased].');
      assert.deepEqual((await rowOf(db, due!)).profile, {});
      assert.equal((await rowOf(db, recent!)).personal_data_erased_at, null);
      assert.equal((await rowOf(db, recent!)).params.room_preference, ROOM_WISH);
    });
  });
}
