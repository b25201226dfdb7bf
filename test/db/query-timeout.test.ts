import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { setTimeout as sleep } from 'node:timers/promises';
import pg from 'pg';
import { sql } from 'kysely';
import { BACKENDS, restaurantRequest, startTestService, type TestService } from '../helpers/service.ts';
import { call } from '../helpers/http.ts';
import { assertApiError } from '../helpers/api-assert.ts';
import { obtainAccessToken, postForm } from '../helpers/oauth.ts';
import { startTcpProxy, viaProxy } from '../helpers/tcp-proxy.ts';
import { until } from '../helpers/wait.ts';
import { migrateToLatest } from '../../src/db/migrate.ts';
import { openDatabase } from '../../src/db/index.ts';
import { LOCK_TIMEOUT_MS, QUERY_TIMEOUT_MS, SILENT_SERVER_TIMEOUT_MS } from '../../src/db/query-timeout.ts';
import { sha256 } from '../../src/security/secrets.ts';

// On PostgreSQL the server ends every statement of the service's pool past the query timeout
// (src/db/query-timeout.ts); migrations are not limited. Another session holds a lock for longer
// than the timeout, as a long migration or a stuck transaction elsewhere would.
const backend = BACKENDS.find((b) => b.name === 'postgres');
if (backend) {
  describe('query timeout on postgres', () => {
    let service: TestService;
    let admin: pg.Client;
    /** Outside any transaction, so that each look at pg_stat_activity is a fresh one. */
    let watcher: pg.Client;
    before(async () => {
      service = await startTestService(backend.url);
      admin = new pg.Client({ connectionString: backend.url });
      watcher = new pg.Client({ connectionString: backend.url });
      await Promise.all([admin.connect(), watcher.connect()]);
    });
    after(async () => {
      await admin.query('rollback').catch(() => {});
      await Promise.all([admin.end(), watcher.end()]);
      await service.close();
    });

    const table = (name: string) => `"${service.config.DATABASE_SCHEMA}".${name}`;
    const holdLock = async (name: string) => {
      await admin.query('begin');
      await admin.query(`lock table ${table(name)} in access exclusive mode`);
    };
    const elapsedSince = (started: number) => performance.now() - started;
    /** A lock wait ends at the lock timeout, and in any case by the statement's: `waits` of them. */
    const assertCutAtTheLimit = (waited: number, waits = 1) =>
      assert.ok(waited >= waits * LOCK_TIMEOUT_MS - 100 && waited < waits * QUERY_TIMEOUT_MS + 3_000, `answered after ${Math.round(waited)} ms`);
    /** The backends the admin session's lock holds up. */
    const blockedBackends = async (): Promise<number[]> => {
      const adminPid = (admin as unknown as { processID: number }).processID;
      const { rows } = await watcher.query<{ pid: number }>('select pid from pg_stat_activity where $1 = any(pg_blocking_pids(pid))', [adminPid]);
      return rows.map((r) => r.pid);
    };

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
      assertCutAtTheLimit(waited);
      assert.equal((await call(service.url, 'GET', created.body._links.self, { key })).status, 200);
    });

    test('a refresh held up by a row lock fails at the timeout, its statement is ended on the server, and the token is not rotated behind the client\'s back', { timeout: 60_000 }, async () => {
      const tokens = await obtainAccessToken(service);
      const refresh = () => postForm(`${service.url}/oauth/token`, { grant_type: 'refresh_token', refresh_token: tokens.refreshToken }, { basic: [tokens.clientId, tokens.clientSecret] });
      const tokenHash = sha256(tokens.refreshToken);
      await admin.query('begin');
      await admin.query(`select 1 from ${table('oauth_refresh_tokens')} where token_hash = $1 for update`, [tokenHash]);
      const started = performance.now();
      const pending = refresh();
      let waiting: number[] = [];
      await until('a statement of the refresh blocked on the row', async () => (waiting = await blockedBackends()).length > 0, QUERY_TIMEOUT_MS);
      assert.equal(waiting.length, 1, 'the refresh waits for the row');
      const reply = await pending;
      const waited = elapsedSince(started);
      assert.equal(reply.status, 500);
      assert.equal(reply.body.error, 'server_error');
      // Two statements wait in turn: the batched rotation, then the one-by-one path it falls back to.
      assertCutAtTheLimit(waited, 2);
      // Had only the client given up, their backends would still be waiting for the row.
      assert.deepEqual(await blockedBackends(), [], 'no statement of the refresh still runs on the server');
      await admin.query('rollback');
      // An abandoned statement would now take the row and commit the rotation.
      await sleep(500);
      const { rows: stored } = await watcher.query<{ rotated_at: Date | null }>(`select rotated_at from ${table('oauth_refresh_tokens')} where token_hash = $1`, [tokenHash]);
      assert.equal(stored[0]!.rotated_at, null, 'the failed refresh rotated nothing');
      // So the client's retry of the same token is a refresh, not reuse that revokes the family.
      const retry = await refresh();
      assert.equal(retry.status, 200, JSON.stringify(retry.body));
    });

    test('migrations may wait longer than the timeout', { timeout: 60_000 }, async () => {
      const holdFor = QUERY_TIMEOUT_MS + 1_500;
      await holdLock('kysely_migration');
      const started = performance.now();
      const migrating = migrateToLatest(service.services.db, service.config.DATABASE_SCHEMA);
      await sleep(holdFor);
      await admin.query('commit');
      assert.deepEqual(await migrating, [], 'nothing left to apply, and no timeout');
      assert.ok(elapsedSince(started) >= holdFor, 'the migration waited for the lock');
      // Its connection went back to the pool with the pool's limits.
      const { rows } = await sql<{ statement_timeout: string; lock_timeout: string }>`select current_setting('statement_timeout') as statement_timeout, current_setting('lock_timeout') as lock_timeout`.execute(service.services.db);
      assert.deepEqual(rows[0], { statement_timeout: `${QUERY_TIMEOUT_MS / 1000}s`, lock_timeout: `${LOCK_TIMEOUT_MS / 1000}s` });
    });

    test('a transaction that meets a silent server fails after the client\'s own limit, with the timeout as the cause of the failed ROLLBACK', { timeout: 60_000 }, async () => {
      const target = new URL(backend.url);
      const proxy = await startTcpProxy(target.hostname, Number(target.port || 5432));
      const database = await openDatabase({ DATABASE_URL: viaProxy(backend.url, proxy), DATABASE_SCHEMA: 'public' });
      try {
        const started = performance.now();
        const failure = await database.db
          .transaction()
          .execute(async (trx) => {
            await sql`select 1`.execute(trx);
            await proxy.freeze();
            await sql`select 1`.execute(trx);
          })
          .then(
            () => null,
            (error: unknown) => error as Error,
          );
        assert.ok(failure, 'the transaction failed');
        assert.ok(elapsedSince(started) >= SILENT_SERVER_TIMEOUT_MS - 100);
        const chain: string[] = [];
        for (let e: unknown = failure; e instanceof Error; e = e.cause) chain.push(e.message);
        assert.ok(chain.includes('Query read timeout'), `the timeout is in the error or its causes: ${JSON.stringify(chain)}`);
      } finally {
        await proxy.cut();
        await database.close();
        await proxy.close();
      }
    });
  });
}
