import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Browser } from 'playwright-core';
import { sql } from 'kysely';
import { socketPathFor } from '../../src/db/lock.ts';
import { IDLE_MS } from '../../src/db/pglite-socket.ts';
import { handoffToken, handoffTokenHash } from '../../src/jobs/handoff-tokens.ts';
import { restaurantRequest, startTestService, type TestService } from '../helpers/service.ts';
import { call } from '../helpers/http.ts';
import { mcpClient, textOf } from '../helpers/mcp.ts';
import { launchChromium, obtainAccessToken, postForm, type ObtainedTokens } from '../helpers/oauth.ts';
import { until } from '../helpers/wait.ts';
import { startedTogether } from '../helpers/together.ts';

// The embedded database's socket, as an operator uses it while the service runs: pg_dump and psql
// (Debian's postgresql-client) and the project's CLI, each a child process. Whatever a client does
// to its session (search_path, settings, prepared statements, a transaction left open) must not
// reach the service, and no client's statements may run inside the service's transactions, nor
// the reverse.
const BIN = fileURLToPath(new URL('../../bin/concierge', import.meta.url));

interface Run {
  code: number | null;
  stdout: string;
  stderr: string;
}

function run(command: string, args: string[], env: Record<string, string> = {}, input?: string): Promise<Run> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '/tmp', ...env }, stdio: ['pipe', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (c) => (stdout += c));
    child.stderr.on('data', (c) => (stderr += c));
    const timer = setTimeout(() => child.kill('SIGKILL'), 60_000);
    child.on('error', reject);
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
    child.stdin.end(input ?? '');
  });
}

describe('the embedded database shared over its socket while the service runs', () => {
  let dir: string;
  let dataDir: string;
  let service: TestService;
  let browser: Browser;
  let key: string;
  let tokens: ObtainedTokens;
  const psql = (script: string) => run('psql', ['-X', '-v', 'ON_ERROR_STOP=0', '-h', dataDir, '-U', 'postgres', '-d', 'postgres', '-At'], {}, script);

  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'concierge-socket-'));
    dataDir = join(dir, 'data');
    [service, browser] = await startedTogether([startTestService(`pglite:${dataDir}`), launchChromium()]);
    key = await service.mintKey();
    tokens = await obtainAccessToken(service, { browser });
  });
  after(async () => {
    await browser?.close();
    await service?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  /** Every surface that reads or writes data answers as it should. */
  async function everySurfaceWorks(): Promise<void> {
    assert.equal((await call(service.url, 'GET', '/readyz')).status, 200, 'ready');
    const created = await call(service.url, 'POST', '/api/v1/execution-jobs', { key, body: restaurantRequest() });
    assert.equal(created.status, 202, created.text);
    const jobId: string = created.body.jobId;
    assert.equal((await call(service.url, 'GET', `/api/v1/execution-jobs/${jobId}`, { key })).status, 200);

    const refreshed = await postForm(`${service.url}/oauth/token`, { grant_type: 'refresh_token', refresh_token: tokens.refreshToken }, { basic: [tokens.clientId, tokens.clientSecret] });
    assert.equal(refreshed.status, 200, JSON.stringify(refreshed.body));
    tokens = { ...tokens, accessToken: refreshed.body.access_token, refreshToken: refreshed.body.refresh_token };
    const mine = await mcpClient(service.url, tokens.accessToken);
    try {
      const listed = await mine.client.listTools();
      assert.ok(listed.tools.length > 0);
    } finally {
      await mine.close();
    }
    const mcp = await mcpClient(service.url, key);
    try {
      const status = await mcp.client.callTool({ name: 'get_job_status', arguments: { jobId } });
      assert.equal(status.isError ?? false, false, JSON.stringify(status));
      assert.ok(JSON.stringify(textOf(status)).includes(jobId), JSON.stringify(status));
    } finally {
      await mcp.close();
    }

    // A held booking's handoff status.
    const expiresAt = new Date(Date.now() + 600_000);
    const token = handoffToken(service.services.secretKey, jobId, expiresAt.toISOString());
    await service.services.db.updateTable('jobs').set({ status: 'paused_payment', provider_id: 'tablebook', hold_expires_at: expiresAt, handoff_token_hash: handoffTokenHash(token), summary: 'Held.' }).where('id', '=', jobId).execute();
    const status = await call(service.url, 'GET', `/handoff/${token}/status`);
    assert.equal(status.status, 200, status.text);
  }

  test('the socket is reachable only by the service\'s user (mode 0600)', () => {
    assert.equal(statSync(socketPathFor(dataDir)).mode & 0o777, 0o600);
  });

  test('pg_dump and psql change their own session only: REST, MCP, OAuth and handoff still work, and /readyz says ready', async () => {
    await everySurfaceWorks();
    // pg_dump's first statement empties search_path for the session; whatever its version says of the server.
    const dump = await run('pg_dump', ['-h', dataDir, '-U', 'postgres', '-d', 'postgres', '--schema-only']);
    assert.ok(dump.code !== null, 'pg_dump ended');
    const changed = await psql(
      [
        "select set_config('search_path', '', false);",
        'set statement_timeout = 1;',
        "set timezone = 'Pacific/Kiritimati';",
        'prepare mine as select 1;',
        'create temporary table scratch (x int);',
        'select pg_advisory_lock(42);',
        'unlisten *;',
        'begin;',
        'delete from public.api_keys;',
        // Left open: psql ends here with the transaction uncommitted.
      ].join('\n'),
    );
    assert.equal(changed.code, 0, changed.stderr);
    await everySurfaceWorks();
    assert.ok(Number((await sql<{ n: number }>`select count(*)::int as n from api_keys`.execute(service.services.db)).rows[0]!.n) >= 1, 'the delete left open was rolled back');
    // The service's session is as it was: its search_path, settings, and no client leftovers.
    const session = await sql<{ path: string; tz: string; timeout: string; prepared: number; locks: number }>`
      select current_setting('search_path') as path, current_setting('timezone') as tz, current_setting('statement_timeout') as timeout,
        (select count(*)::int from pg_prepared_statements) as prepared,
        (select count(*)::int from pg_locks where locktype = 'advisory') as locks`.execute(service.services.db);
    const row = session.rows[0]!;
    assert.notEqual(row.path, '');
    assert.notEqual(row.tz, 'Pacific/Kiritimati');
    assert.equal(row.timeout, '0');
    assert.equal(row.prepared, 0);
    assert.equal(row.locks, 0);
    // A second client meets a fresh session too.
    const fresh = await psql("select current_setting('search_path'); select count(*) from pg_prepared_statements;");
    assert.equal(fresh.code, 0, fresh.stderr);
    assert.deepEqual(fresh.stdout.trim().split('\n'), [row.path, '0']);
  });

  test('a client\'s transaction and the service\'s writes never merge: the service\'s jobs survive the client\'s rollback', async () => {
    const before = Number((await sql<{ n: number }>`select count(*)::int as n from jobs`.execute(service.services.db)).rows[0]!.n);
    // psql opens a transaction and writes, says so (a file), waits, and rolls back; meanwhile the
    // service creates jobs. Interleaved in the one session, the service's inserts would run inside
    // psql's transaction and be rolled back with it.
    const signal = join(dir, 'in-transaction');
    const client = psql(['begin;', "insert into api_keys (prefix, key_hash, organization_name, allowed_job_types, mode) values ('x', 'rolled-back', 'Rolled Back', '{restaurant}', 'test');", `\\! touch ${signal}`, 'select pg_sleep(0.5);', 'rollback;'].join('\n'));
    await until('psql is inside its transaction', () => existsSync(signal), 10_000);
    const creations = await Promise.all(Array.from({ length: 10 }, () => call(service.url, 'POST', '/api/v1/execution-jobs', { key, body: restaurantRequest() })));
    const done = await client;
    assert.equal(done.code, 0, done.stderr);
    for (const created of creations) assert.equal(created.status, 202, created.text);
    const after = Number((await sql<{ n: number }>`select count(*)::int as n from jobs`.execute(service.services.db)).rows[0]!.n);
    assert.equal(after - before, 10, 'every job the service created was kept');
    const rolledBack = await sql`select 1 from api_keys where key_hash = 'rolled-back'`.execute(service.services.db);
    assert.equal(rolledBack.rows.length, 0, 'the client\'s rolled-back write stayed rolled back');
  });

  test('the CLI and the service writing at the same time: no write lost or merged', { timeout: 120_000 }, async () => {
    const env = { DATABASE_URL: `pglite:${dataDir}` };
    const keysBefore = Number((await sql<{ n: number }>`select count(*)::int as n from api_keys`.execute(service.services.db)).rows[0]!.n);
    const jobsBefore = Number((await sql<{ n: number }>`select count(*)::int as n from jobs`.execute(service.services.db)).rows[0]!.n);
    const cli = Promise.all(Array.from({ length: 3 }, (_, i) => run(BIN, ['keys', 'create', '--org', `Concurrent ${i}`, '--types', 'restaurant', '--json'], env)));
    const creations: Array<Promise<{ status: number; text: string }>> = [];
    for (let round = 0; round < 5; round++) {
      creations.push(...Array.from({ length: 4 }, () => call(service.url, 'POST', '/api/v1/execution-jobs', { key, body: restaurantRequest() })));
      await new Promise((resolve) => setImmediate(resolve));
    }
    const [runs, created] = await Promise.all([cli, Promise.all(creations)]);
    for (const one of runs) assert.equal(one.code, 0, one.stderr);
    for (const reply of created) assert.equal(reply.status, 202, reply.text);
    const minted = runs.map((one) => JSON.parse(one.stdout) as { id: number; organizationName: string });
    const keys = await service.services.db.selectFrom('api_keys').select(['id', 'organization_name']).where('id', 'in', minted.map((m) => m.id)).execute();
    assert.deepEqual(keys.map((k) => k.organization_name).sort(), ['Concurrent 0', 'Concurrent 1', 'Concurrent 2']);
    assert.equal(Number((await sql<{ n: number }>`select count(*)::int as n from api_keys`.execute(service.services.db)).rows[0]!.n) - keysBefore, 3);
    assert.equal(Number((await sql<{ n: number }>`select count(*)::int as n from jobs`.execute(service.services.db)).rows[0]!.n) - jobsBefore, 20);
    await everySurfaceWorks();
  });

  test('a statement that runs longer than the idle limit is not cut off: idle is waiting for the client, not for the database', { timeout: 60_000 }, async () => {
    const slow = await psql(`select pg_sleep(${(IDLE_MS + 1_500) / 1000}); select 'finished';`);
    assert.equal(slow.code, 0, slow.stderr);
    assert.doesNotMatch(slow.stderr, /idle too long/);
    assert.match(slow.stdout, /finished/);
  });

  test('a client that holds the session without a word is cut off, and the service goes on', { timeout: 30_000 }, async () => {
    const { connect } = await import('node:net');
    const socket = connect(socketPathFor(dataDir));
    await new Promise<void>((resolve) => socket.once('connect', () => resolve()));
    let closed = false;
    let said = '';
    socket.on('data', (data) => (said += data.toString('latin1')));
    socket.on('close', () => (closed = true));
    socket.on('error', () => {});
    // Connected, nothing sent: once the idle limit passes, it is ended and the service answers again.
    await until('the silent client is cut off', () => closed, 15_000, 50);
    assert.match(said, /idle too long/, 'it is told why, as a FATAL error');
    assert.equal((await call(service.url, 'GET', '/readyz')).status, 200);
  });
});
