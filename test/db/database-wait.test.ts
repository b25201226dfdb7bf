import { after, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { ConfigError, loadConfig } from '../../src/config.ts';
import { openServiceDatabase } from '../../src/db/open-service.ts';
import { FIRST_PAUSE_MS, isTransientConnectError, waitForDatabase } from '../../src/db/wait.ts';
import { createLogger } from '../../src/observability/logger.ts';
import { BACKENDS, freePort, startTestService, type TestService } from '../helpers/service.ts';
import { startChild, type ChildService } from '../helpers/processes.ts';
import { startTcpProxy, viaProxy, type TcpProxy } from '../helpers/tcp-proxy.ts';
import { captureLogs } from '../helpers/log-capture.ts';
import { call } from '../helpers/http.ts';
import { answered, until } from '../helpers/wait.ts';

// A node and its database at start (issue 26 §5): a PostgreSQL that cannot be reached yet is tried
// again with backoff for DATABASE_WAIT_SECONDS, the node's HTTP port answering /healthz 200 and
// /readyz 503 meanwhile; a DATABASE_URL that cannot work (malformed, an unknown database, a refused
// user or password) fails at once, naming DATABASE_URL and never the password. Real sockets on
// loopback only: a port nothing listens on, a TCP proxy in front of the shared PostgreSQL that
// refuses connections until it is restored, and `concierge serve` / `concierge worker` as children
// where the exit code and the message are what is tested.

const PASSWORD = 'Pw-never-shown-9f3';
const postgres = BACKENDS.find((b) => b.name === 'postgres');

/** `url` with PASSWORD set (trust authentication ignores it; what matters is that nothing repeats it). */
function withPassword(url: string): string {
  const parsed = new URL(url);
  parsed.password = PASSWORD;
  return parsed.toString();
}

/** `url` naming another database on the same server. */
function withDatabase(url: string, database: string): string {
  const parsed = new URL(url);
  parsed.pathname = `/${database}`;
  return parsed.toString();
}

/** How long a child service may take to load before its first try, on a loaded machine: "at once" means within this. */
const AT_ONCE_MS = 30_000;

/** The environment of a child node that must not start anything beside the database (no sandbox, no workers, its own port). */
async function childEnv(databaseUrl: string, extra: Record<string, string> = {}): Promise<Record<string, string>> {
  return { NODE_ENV: 'test', DATABASE_URL: databaseUrl, WORKERS: '0', PORT: String(await freePort()), ...extra };
}

/** A child's exit code, failing the test when it does not exit within `withinMs`. */
async function exitOf(child: ChildService, withinMs: number): Promise<number | string> {
  return answered('the process exit', child.exited, withinMs);
}

function assertNoPassword(label: string, text: string): void {
  assert.ok(!text.includes(PASSWORD), `${label} never shows the password: ${text.slice(0, 500)}`);
}

describe('DATABASE_URL is checked when the configuration is read', () => {
  const refused: Array<[string, string, RegExp]> = [
    ['a stray %', 'postgres://%%bad', /percent-encoding/],
    ['a % in the password not written as %25', `postgres://app:${PASSWORD}%zz@db.internal:5432/concierge`, /percent-encoding/],
    ['no host', `postgres://app:${PASSWORD}@/concierge`, /no host/],
    ['a port out of range', `postgres://app:${PASSWORD}@db.internal:99999/concierge`, /bad port/],
    ['a port that is no number', `postgres://app:${PASSWORD}@db.internal:54x2/concierge`, /bad port/],
    ['a / left unencoded in the password', `postgres://app:${PASSWORD}/x@db.internal/concierge`, /bad port/],
    ['a space in the host', 'postgres://db internal/concierge', /invalid host/],
  ];
  for (const [label, url, problem] of refused) {
    test(`refused: ${label}`, () => {
      assert.throws(() => loadConfig({}, { DATABASE_URL: url }), (error: Error) => {
        assert.ok(error instanceof ConfigError);
        assert.match(error.message, /DATABASE_URL: /);
        assert.match(error.message, problem);
        assertNoPassword('the message', error.message);
        return true;
      });
    });
  }

  test('accepted: the forms the driver reads', () => {
    for (const url of ['postgres://app:p%25ss@db.internal:5432/concierge', 'postgresql://db_1/concierge', 'postgres://[::1]:5432/concierge', 'postgres:///concierge?host=/var/run/postgresql', 'postgres://%2Fvar%2Frun%2Fpostgresql/concierge', 'postgres://app:p@ss@db.internal/concierge?sslmode=verify-full']) {
      assert.equal(loadConfig({}, { DATABASE_URL: url }).DATABASE_URL, url, url);
    }
  });

  test('DATABASE_WAIT_SECONDS: 180 by default, a whole number of seconds', () => {
    assert.equal(loadConfig({}, {}).DATABASE_WAIT_SECONDS, 180);
    assert.equal(loadConfig({}, { DATABASE_WAIT_SECONDS: '0' }).DATABASE_WAIT_SECONDS, 0);
    for (const bad of ['-1', '2.5', 'soon']) {
      assert.throws(() => loadConfig({}, { DATABASE_WAIT_SECONDS: bad }), /DATABASE_WAIT_SECONDS/);
    }
  });

  test('concierge serve with postgres://%%bad stops at once, naming DATABASE_URL (not a bare getaddrinfo ENOTFOUND)', { timeout: 60_000 }, async () => {
    const child = startChild(['serve'], await childEnv('postgres://%%bad', { DATABASE_WAIT_SECONDS: '600' }));
    assert.equal(await exitOf(child, AT_ONCE_MS), 2);
    const output = child.lines().join('\n');
    assert.match(output, /DATABASE_URL: has a malformed percent-encoding/);
    assert.doesNotMatch(output, /ENOTFOUND/);
  });
});

describe('which connection failures are waited for', () => {
  const coded = (code: string, message = 'x') => Object.assign(new Error(message), { code });

  // This server trusts every connection, so it cannot be made to refuse a password: 28P01 is tested
  // here, on the classification and on the wait that acts on it, with an open that fails as pg does.
  test('permanent: a refused password (28P01) or user (28000), an unknown database (3D000), anything unrecognised', () => {
    for (const error of [coded('28P01'), coded('28000'), coded('3D000'), coded('42501'), new Error('self-signed certificate'), 'nonsense']) {
      assert.equal(isTransientConnectError(error), false, String((error as Error).message ?? error));
    }
  });

  test('transient: refused, reset, timed out, a name not resolving yet, a server starting or full', () => {
    const timedOut = new Error('Connection terminated due to connection timeout', { cause: new Error('Connection terminated unexpectedly') });
    const bothFamilies = new AggregateError([coded('ECONNREFUSED'), coded('ECONNREFUSED')], '');
    for (const error of [coded('ECONNREFUSED'), coded('ECONNRESET'), coded('ETIMEDOUT'), coded('ENOTFOUND'), coded('EAI_AGAIN'), coded('57P03'), coded('53300'), coded('08006'), timedOut, bothFamilies, new Error('timeout exceeded when trying to connect')]) {
      assert.equal(isTransientConnectError(error), true, (error as Error).message || (error as { code?: string }).code);
    }
  });

  test('a refused password fails the first try, naming DATABASE_URL, without the password even if the server quoted it', async () => {
    const logs = captureLogs();
    let tries = 0;
    const url = `postgres://app:${PASSWORD}@db.internal:5432/concierge`;
    const started = Date.now();
    await assert.rejects(
      waitForDatabase(async () => {
        tries++;
        throw Object.assign(new Error(`password authentication failed for user "app" (${PASSWORD})`), { code: '28P01' });
      }, { url, waitSeconds: 600, log: createLogger('info', logs) }),
      (error: Error) => {
        assert.ok(error instanceof ConfigError);
        assert.match(error.message, /^DATABASE_URL: .*refused the password.*28P01/);
        assert.match(error.message, /app@db\.internal:5432\/concierge/);
        assertNoPassword('the message', error.message);
        return true;
      },
    );
    assert.equal(tries, 1);
    assert.ok(Date.now() - started < FIRST_PAUSE_MS, 'no pause before failing');
    assertNoPassword('the log', logs.text());
  });
});

describe('a database that cannot be reached at start', () => {
  const children: ChildService[] = [];
  after(async () => {
    for (const child of children) await child.signal('SIGKILL');
  });

  test('serve and worker try again with backoff for DATABASE_WAIT_SECONDS, the probes answering meanwhile, then exit non-zero naming DATABASE_URL', { timeout: 120_000 }, async () => {
    // Long enough for three logged tries (0, 0.5, 1.5 and 3.5 s) even when each try is slowed by a busy machine.
    const waitSeconds = 8;
    const nowhere = `postgres://app:${PASSWORD}@127.0.0.1:${await freePort()}/concierge`;
    const env = await childEnv(nowhere, { DATABASE_WAIT_SECONDS: String(waitSeconds) });
    const spawned = Date.now();
    const serve = startChild(['serve'], env);
    const worker = startChild(['worker'], env);
    children.push(serve, worker);
    const url = `http://127.0.0.1:${env.PORT}`;
    // While it waits: alive, not ready, and any request refused as when the database goes away later.
    await until('/healthz answering', async () => (await call(url, 'GET', '/healthz').catch(() => null))?.status === 200, AT_ONCE_MS, 50);
    const [ready, api] = await Promise.all([call(url, 'GET', '/readyz'), call(url, 'GET', '/api/v1/execution-jobs/x')]);
    assert.equal(ready.status, 503, ready.text);
    assert.equal(ready.body.status, 'starting');
    assert.equal(api.status, 503, api.text);
    assert.equal(api.body.error.code, 'auth_backend_unavailable');
    assert.equal(api.headers.get('retry-after'), '5');
    assert.equal(serve.child.exitCode, null, 'still waiting while the probes answer');

    for (const node of [serve, worker]) {
      const code = await exitOf(node, waitSeconds * 1000 + AT_ONCE_MS);
      const elapsed = Date.now() - spawned;
      assert.equal(code, 1);
      assert.ok(elapsed >= waitSeconds * 1000, `waited out DATABASE_WAIT_SECONDS (${elapsed} ms)`);
      const output = node.lines().join('\n');
      assertNoPassword('the output', output);
      assert.match(output, /concierge: DATABASE_URL: the database at app@127\.0\.0\.1:\d+\/concierge could not be reached within 8 s \(DATABASE_WAIT_SECONDS\)/);
      const tries = node.lines().filter((line) => line.includes('database not reachable yet')).map((line) => JSON.parse(line) as { attempt: number; retryInMs: number; err: { code: string } });
      assert.ok(tries.length >= 3, `each try is logged: ${tries.length}`);
      assert.deepEqual(tries.map((t) => t.attempt), tries.map((_, i) => i + 1));
      assert.deepEqual(tries.slice(0, 2).map((t) => t.retryInMs), [500, 1000], 'backoff from half a second, doubling');
      assert.equal(tries[0]!.err.code, 'ECONNREFUSED');
    }
  });

  if (postgres) {
    test('an unknown database is not waited for: a worker exits at once, naming DATABASE_URL', { timeout: 60_000 }, async () => {
      const unknown = withPassword(withDatabase(postgres.url, `concierge_none_${randomBytes(4).toString('hex')}`));
      const worker = startChild(['worker'], await childEnv(unknown, { DATABASE_WAIT_SECONDS: '600' }));
      children.push(worker);
      assert.equal(await exitOf(worker, AT_ONCE_MS), 2);
      const output = worker.lines().join('\n');
      assert.match(output, /DATABASE_URL: database "concierge_none_[0-9a-f]+" does not exist .*3D000/);
      assertNoPassword('the output', output);
    });

    test('an unknown database or role, in process: a ConfigError on the first try', { timeout: 30_000 }, async () => {
      const log = createLogger('silent');
      const cases: Array<[string, RegExp]> = [
        [withPassword(withDatabase(postgres.url, `concierge_none_${randomBytes(4).toString('hex')}`)), /does not exist .*3D000/],
        [(() => {
          const parsed = new URL(withPassword(postgres.url));
          parsed.username = `nobody_${randomBytes(4).toString('hex')}`;
          return parsed.toString();
        })(), /refused the user .*28000/],
      ];
      for (const [url, expected] of cases) {
        const started = Date.now();
        const config = loadConfig({}, { DATABASE_URL: url, DATABASE_WAIT_SECONDS: '600' });
        await assert.rejects(openServiceDatabase(config, log), (error: Error) => {
          assert.ok(error instanceof ConfigError, String(error));
          assert.match(error.message, /^DATABASE_URL: /);
          assert.match(error.message, expected);
          assertNoPassword('the message', error.message);
          return true;
        });
        assert.ok(Date.now() - started < 10_000, 'at once');
      }
    });

    describe('a node started before its database is reachable (PostgreSQL behind a TCP proxy that refuses, then forwards)', () => {
      let proxy: TcpProxy;
      let service: TestService | undefined;
      after(async () => {
        await proxy?.restore();
        await service?.close();
        await proxy?.close();
      });

      test('/healthz 200 and /readyz 503 while it waits, then up by itself with /readyz 200', { timeout: 120_000 }, async () => {
        const target = new URL(postgres.url);
        proxy = await startTcpProxy(target.hostname, Number(target.port || 5432));
        await proxy.cut();
        const logs = captureLogs();
        const port = await freePort();
        const url = `http://127.0.0.1:${port}`;
        const starting = startTestService(viaProxy(withPassword(postgres.url), proxy), { PORT: String(port), DATABASE_WAIT_SECONDS: '120' }, { adminUrl: postgres.url, logDestination: logs });
        starting.catch(() => {});
        await until('/healthz answering', async () => (await call(url, 'GET', '/healthz').catch(() => null))?.status === 200, AT_ONCE_MS, 50);
        const waiting = await call(url, 'GET', '/readyz');
        assert.equal(waiting.status, 503, waiting.text);
        const retried = () => logs.lines().filter((line) => line.msg === 'database not reachable yet: trying again');
        await until('two tries logged', () => retried().length >= 2, AT_ONCE_MS, 50);
        assert.equal((await call(url, 'GET', '/healthz')).status, 200, 'alive all along');
        assert.equal((await call(url, 'GET', '/readyz')).status, 503, 'not ready all along');

        await proxy.restore();
        service = await answered('the start once the database is reachable', starting, 60_000);
        assert.equal((await call(url, 'GET', '/readyz')).status, 200);
        assert.equal((await call(url, 'GET', '/healthz')).status, 200);
        const reached = logs.lines().find((line) => line.msg === 'database reached');
        assert.ok(reached, 'the try that succeeded is logged');
        assert.equal(reached.attempt, retried().length + 1, 'every failed try logged before it');
        assert.match(String(reached.database), /127\.0\.0\.1:\d+\//);
        assertNoPassword('the logs', logs.text());
      });
    });
  }
});
