import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import pg from 'pg';
import { PLAN_PER_CALL } from '../../src/db/prepared-statements.ts';
import { BACKENDS, restaurantRequest, startTestService, type TestService } from '../helpers/service.ts';
import { call } from '../helpers/http.ts';

// On PostgreSQL the service's data statements are named prepared statements (src/db/prepared-statements.ts).
const backend = BACKENDS.find((b) => b.name === 'postgres');
if (backend) {
  describe('prepared statements on postgres', () => {
    let service: TestService;
    let admin: pg.Client;
    before(async () => {
      service = await startTestService(backend.url);
      admin = new pg.Client({ connectionString: backend.url });
      await admin.connect();
    });
    after(async () => {
      await admin.end();
      await service.close();
    });

    test('the job read is prepared once per connection and reused', async () => {
      const key = await service.mintKey();
      const created = await call(service.url, 'POST', '/api/v1/execution-jobs', { key, body: restaurantRequest() });
      for (let i = 0; i < 5; i++) assert.equal((await call(service.url, 'GET', created.body._links.self, { key })).status, 200);
      // pg_prepared_statements is per session: look from inside one of the service's own connections.
      const rows = await service.services.db.transaction().execute(async (trx) => {
        await trx.selectFrom('jobs').select('id').where('id', '=', created.body.jobId).execute();
        const { rows } = await (await import('kysely')).sql<{ name: string; statement: string }>`select name, statement from pg_prepared_statements`.execute(trx);
        return rows;
      });
      assert.ok(rows.some((r) => r.name.startsWith('k') && /from "jobs"/.test(r.statement)), JSON.stringify(rows.map((r) => r.name)));
    });

    test('a statement marked to be planned per call (a batch over arrays, like the refresh grant\'s) is never prepared', async () => {
      const { sql } = await import('kysely');
      const statements = await service.services.db.transaction().execute(async (trx) => {
        for (let i = 0; i < 7; i++) {
          await sql`${sql.raw(PLAN_PER_CALL)} select id from jobs where id = any(${[randomUUID()]}::uuid[]) and ${i} >= 0`.execute(trx);
          await sql`select id from jobs where id = any(${[randomUUID()]}::uuid[]) and ${i} >= 0`.execute(trx);
        }
        const { rows } = await sql<{ statement: string }>`select statement from pg_prepared_statements`.execute(trx);
        return rows.map((r) => r.statement);
      });
      assert.ok(statements.some((s) => s.startsWith('select id from jobs where id = any(')), 'the same statement unmarked is prepared');
      assert.ok(!statements.some((s) => s.includes(PLAN_PER_CALL)), 'the marked one is not');
    });

    test('a column added under a prepared `select *` does not break reads (re-prepared)', async () => {
      const key = await service.mintKey();
      const created = await call(service.url, 'POST', '/api/v1/execution-jobs', { key, body: restaurantRequest() });
      // Warm every pooled connection with the prepared read.
      await Promise.all(Array.from({ length: 30 }, () => call(service.url, 'GET', created.body._links.self, { key })));
      await admin.query(`alter table "${service.config.DATABASE_SCHEMA}".jobs add column test_extra text`);
      const replies = await Promise.all(Array.from({ length: 30 }, () => call(service.url, 'GET', created.body._links.self, { key })));
      assert.deepEqual([...new Set(replies.map((r) => r.status))], [200]);
    });
  });
}
