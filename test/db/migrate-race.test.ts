import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { dropSchemas, openDatabase, type Database } from '../../src/db/index.ts';
import { migrateToLatest } from '../../src/db/migrate.ts';
import { BACKENDS } from '../helpers/service.ts';

// Services (and parallel test runs) that share one PostgreSQL database each in a schema of their
// own: another session dropping its schema while this one migrates must not fail the migration.
// Kysely's migrator reads every schema's tables to find its own, looking each schema up by name.
const backend = BACKENDS.find((b) => b.name === 'postgres');
if (backend) {
  describe('migrations beside schemas that come and go, on postgres', () => {
    let other: pg.Client;
    before(async () => {
      other = new pg.Client({ connectionString: backend.url });
      await other.connect();
    });
    after(() => other.end());

    test('every migration run in a fresh schema succeeds while another session creates and drops schemas', { timeout: 120_000 }, async () => {
      let churning = true;
      let dropped = 0;
      // Bounded by the runs below; each cycle is a schema with a table, dropped at once.
      const churn = (async () => {
        while (churning) {
          const name = `t_churn_${randomBytes(4).toString('hex')}`;
          await other.query(`create schema "${name}"; create table "${name}".t (id serial primary key, a text)`);
          await other.query(`drop schema "${name}" cascade`);
          dropped += 1;
        }
      })();
      const runs = 12;
      const failures: string[] = [];
      try {
        for (let i = 0; i < runs; i++) {
          const schema = `t_${randomBytes(6).toString('hex')}`;
          let database: Database | undefined;
          try {
            database = await openDatabase({ DATABASE_URL: backend.url, DATABASE_SCHEMA: schema });
            const applied = await migrateToLatest(database.db, schema);
            assert.ok(applied.length > 0, 'the migrations ran');
          } catch (error) {
            failures.push((error as Error).message);
          } finally {
            await database?.close();
            await dropSchemas(backend.url, schema);
          }
        }
      } finally {
        churning = false;
        await churn;
      }
      assert.ok(dropped >= runs, `schemas were dropped meanwhile (${dropped})`);
      assert.deepEqual(failures, [], 'no migration run failed');
    });
  });
}
