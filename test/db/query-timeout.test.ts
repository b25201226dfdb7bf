import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import pg from 'pg';
import { BACKENDS, restaurantRequest, startTestService, type TestService } from '../helpers/service.ts';
import { call } from '../helpers/http.ts';
import { assertApiError } from '../helpers/api-assert.ts';
import { migrateToLatest } from '../../src/db/migrate.ts';
import { QUERY_TIMEOUT_MS } from '../../src/db/query-timeout.ts';

// On PostgreSQL every query of the service's pool is bounded by the query timeout
// (src/db/query-timeout.ts); migrations are not. Another session holds a table's lock for longer
// than the timeout, as a long migration or a stuck transaction elsewhere would.
const backend = BACKENDS.find((b) => b.name === 'postgres');
if (backend) {
  describe('query timeout on postgres', () => {
    let service: TestService;
    let admin: pg.Client;
    before(async () => {
      service = await startTestService(backend.url);
      admin = new pg.Client({ connectionString: backend.url });
      await admin.connect();
    });
    after(async () => {
      await admin.query('rollback').catch(() => {});
      await admin.end();
      await service.close();
    });

    const holdLock = async (table: string) => {
      await admin.query('begin');
      await admin.query(`lock table "${service.config.DATABASE_SCHEMA}".${table} in access exclusive mode`);
    };
    const elapsedSince = (started: number) => performance.now() - started;

    test('a request whose query waits past the timeout fails after it, and the service answers again once the lock is gone', { timeout: 60_000 }, async () => {
      const key = await service.mintKey();
      const created = await call(service.url, 'POST', '/api/v1/execution-jobs', { key, body: restaurantRequest() });
      assert.equal(created.status, 202);
      await holdLock('jobs');
      const started = performance.now();
      const reply = await call(service.url, 'GET', created.body._links.self, { key });
      const waited = elapsedSince(started);
      await admin.query('commit');
      // The database answers (it is only this table that is held), so this is not an outage.
      assertApiError(reply, 500, 'internal_error');
      assert.ok(waited >= QUERY_TIMEOUT_MS - 100 && waited < QUERY_TIMEOUT_MS + 3_000, `answered after ${Math.round(waited)} ms`);
      assert.equal((await call(service.url, 'GET', created.body._links.self, { key })).status, 200);
    });

    test('migrations may wait longer than the timeout', { timeout: 60_000 }, async () => {
      const holdFor = QUERY_TIMEOUT_MS + 1_500;
      await holdLock('kysely_migration');
      const started = performance.now();
      const migrating = migrateToLatest(service.services.db, service.config.DATABASE_SCHEMA);
      await new Promise((resolve) => setTimeout(resolve, holdFor));
      await admin.query('commit');
      assert.deepEqual(await migrating, [], 'nothing left to apply, and no timeout');
      assert.ok(elapsedSince(started) >= holdFor, 'the migration waited for the lock');
    });
  });
}
