import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { BACKENDS, restaurantRequest, startTestService, type TestService } from '../helpers/service.ts';
import { call, type Reply } from '../helpers/http.ts';
import { assertApiError } from '../helpers/api-assert.ts';
import { postForm } from '../helpers/oauth.ts';
import { assertRefusedOnceRevokedElsewhere } from '../helpers/revocation.ts';
import { startTcpProxy, viaProxy, type TcpProxy } from '../helpers/tcp-proxy.ts';
import { captureLogs, type LogCapture } from '../helpers/log-capture.ts';
import { answered as answeredWithin, until } from '../helpers/wait.ts';
import { openDatabase } from '../../src/db/index.ts';
import { SILENT_SERVER_TIMEOUT_MS } from '../../src/db/query-timeout.ts';
import { listApiKeys, revokeApiKey } from '../../src/auth/api-keys.ts';

// When the database cannot be reached, authentication fails closed: 503 auth_backend_unavailable
// with Retry-After, never a pass; checks that need no database (the header's form, the key's
// format) still answer 401 at once, which also proves they are decided before any lookup.
//
// PostgreSQL: the service connects through a TCP proxy started here; cutting the proxy resets the
// service's connections and refuses new ones, which is what a lost database host looks like.
// PGlite is inside the process and has no connection to cut: the database is closed underneath the
// running service (services.database.close()), as a crashed embedded engine would leave it.

function assertUnavailable(reply: Reply): void {
  assertApiError(reply, 503, 'auth_backend_unavailable');
  assert.equal(reply.headers.get('retry-after'), '5');
}

async function checksWhileDown(service: TestService, key: string, jobPath: string): Promise<void> {
  // A key that was verified a moment ago (and may be cached) is not let through.
  assertUnavailable(await call(service.url, 'GET', jobPath, { key }));
  assertUnavailable(await call(service.url, 'GET', `${jobPath}/audit`, { key }));
  // A key never seen before cannot be checked.
  assertUnavailable(await call(service.url, 'GET', jobPath, { key: 'svk_test_NeverSeenBeforeNeverSeenBefore00' }));
  assertUnavailable(await call(service.url, 'POST', '/api/v1/execution-jobs', { key: 'svk_live_NeverSeenBeforeNeverSeenBefore00', body: restaurantRequest() }));
  assertUnavailable(await call(service.url, 'POST', '/api/v1/execution-jobs', { key, body: restaurantRequest() }));
  assertUnavailable(await call(service.url, 'GET', '/api/v1/profiles', { key }));
  assertUnavailable(await call(service.url, 'GET', '/api/v1/metrics/providers/resy', { key }));
  // Decided without the database: these stay 401.
  assertApiError(await call(service.url, 'GET', jobPath, { key: 'svk_test_short' }), 401, 'malformed_api_key');
  assertApiError(await call(service.url, 'GET', jobPath, { key: 'not-a-key-at-all' }), 401, 'malformed_api_key');
  assertApiError(await call(service.url, 'GET', jobPath), 401, 'missing_authorization');
  assertApiError(await call(service.url, 'GET', jobPath, { headers: { authorization: 'Basic eDp5' } }), 401, 'invalid_auth_scheme');
  assertApiError(await call(service.url, 'GET', jobPath, { headers: { authorization: 'Bearer ' } }), 401, 'empty_api_key');
  // Probes: the process is up, the database is not.
  assert.equal((await call(service.url, 'GET', '/healthz')).status, 200);
  const ready = await call(service.url, 'GET', '/readyz');
  assert.equal(ready.status, 503);
  assert.equal(ready.body.status, 'unavailable');
  const metrics = await call(service.url, 'GET', '/metrics');
  assert.equal(metrics.status, 200, 'metrics are scraped even with the database down');
  assert.match(metrics.text, /http_requests_total\{method="GET",route="\/api\/v1\/execution-jobs\/:jobId",status="503"\} \d+/);
  // The API's documentation needs no database.
  assert.equal((await call(service.url, 'GET', '/api/v1/openapi.json')).status, 200);
  // The OAuth endpoints fail closed the same way: 503 with Retry-After, not a 500 that invites no retry.
  for (const [path, form] of [
    ['/oauth/token', { grant_type: 'refresh_token', refresh_token: 'r'.repeat(43), client_id: 'dcr_someone', client_secret: 's'.repeat(43) }],
    ['/oauth/revoke', { token: 't'.repeat(43), client_id: 'dcr_someone', client_secret: 's'.repeat(43) }],
  ] as const) {
    const reply = await postForm(`${service.url}${path}`, form);
    assert.equal(reply.status, 503, `${path} answers 503 with the database down (got ${reply.status} ${JSON.stringify(reply.body)})`);
    assert.equal(reply.body.error, 'temporarily_unavailable');
    assert.equal(reply.headers.get('retry-after'), '5');
  }
}

/** The database URL with its host and port replaced by the proxy's. */
/** Waits for a read to stop failing (up to ten seconds after the database is back). */
function readsOnceBack(what: string, service: TestService, jobPath: string, key: string): Promise<void> {
  return until(what, async () => (await call(service.url, 'GET', jobPath, { key })).status === 200, 10_000, 100);
}

const pgBackend = BACKENDS.find((b) => b.name === 'postgres');

/** A service on PostgreSQL through a TCP proxy started here, a key of 'Acme Travel', and one job. */
interface Proxied {
  proxy: TcpProxy;
  service: TestService;
  key: string;
  jobPath: string;
}
async function startBehindProxy(url: string, options: { logDestination?: LogCapture } = {}): Promise<Proxied> {
  const target = new URL(url);
  const proxy = await startTcpProxy(target.hostname, Number(target.port || 5432));
  const service = await startTestService(viaProxy(url, proxy), {}, { adminUrl: url, ...options });
  const key = await service.mintKey('Acme Travel');
  const created = await call(service.url, 'POST', '/api/v1/execution-jobs', { key, body: restaurantRequest() });
  assert.equal(created.status, 202);
  return { proxy, service, key, jobPath: created.body._links.self };
}
if (pgBackend) {
  describe('fail-closed on postgres (database behind a TCP proxy that is cut)', () => {
    let proxy: TcpProxy;
    let service: TestService;
    let key: string;
    let jobPath: string;
    before(async () => {
      ({ proxy, service, key, jobPath } = await startBehindProxy(pgBackend.url));
    });
    after(async () => {
      await proxy.restore();
      await service.close();
      await proxy.close();
    });

    test('with the database unreachable: 503 with Retry-After for anything that needs a key check, 401 for what does not', async () => {
      // Warm up: the key is now verified, and cached.
      for (let i = 0; i < 3; i++) assert.equal((await call(service.url, 'GET', jobPath, { key })).status, 200);
      assert.equal((await call(service.url, 'GET', '/readyz')).status, 200);
      await proxy.cut();
      await checksWhileDown(service, key, jobPath);
    });

    test('when the database comes back, the same key works again without a restart', async () => {
      await proxy.restore();
      await readsOnceBack('the key works again', service, jobPath, key);
      assert.equal((await call(service.url, 'GET', '/readyz')).status, 200);
    });
  });
}

if (pgBackend) {
  describe('fail-closed on postgres when the connection is cut under load', () => {
    let proxy: TcpProxy;
    let service: TestService;
    let key: string;
    let jobPath: string;
    let logs: LogCapture;
    before(async () => {
      logs = captureLogs();
      ({ proxy, service, key, jobPath } = await startBehindProxy(pgBackend.url, { logDestination: logs }));
    });
    after(async () => {
      await proxy.restore();
      await service.close();
      await proxy.close();
    });

    // A connection reset while a query is in flight reaches a client the pool has lent out, which
    // has no 'error' listener of the pool's own: unhandled, it would end the process. Several rounds,
    // because which connections are busy at the instant of the cut varies.
    test('30 concurrent reads, then the connection is cut: the process survives, answers 503, and recovers', async () => {
      for (let round = 0; round < 4; round++) {
        const reads = Array.from({ length: 30 }, () => call(service.url, 'GET', jobPath, { key }));
        await new Promise((resolve) => setTimeout(resolve, 2 + round * 3));
        await proxy.cut();
        for (const reply of await Promise.all(reads)) {
          if (reply.status === 200) assert.equal(reply.body.jobId, jobPath.split('/').pop());
          else assertUnavailable(reply);
        }
        assertUnavailable(await call(service.url, 'GET', jobPath, { key }));
        await proxy.restore();
        await readsOnceBack(`round ${round}: the service answers again once the database is back`, service, jobPath, key);
      }
      // The lost connections are in the log, as an operator needs them, without a stack.
      const failures = logs.lines().filter((l) => l.msg === 'database connection failed');
      assert.ok(failures.length > 0, 'a lost connection is logged');
      for (const line of failures) {
        assert.equal(line.level, 40);
        assert.equal(typeof (line.err as { message?: unknown }).message, 'string');
        assert.doesNotMatch(JSON.stringify(line), /\n\s+at |"stack"/);
      }
    });
  });
}

if (pgBackend) {
  describe('fail-closed on postgres when the database stops answering (connections frozen, not closed)', () => {
    // A silent server is given up on at the client's own limit (SILENT_SERVER_TIMEOUT_MS, 10 s), then
    // a second goes to the reachability check that makes it a 503; a request that has to open a
    // connection gives up on that after 5 s.
    const ANSWER_WITHIN_MS = SILENT_SERVER_TIMEOUT_MS + 5_000;
    let proxy: TcpProxy;
    let service: TestService;
    let key: string;
    let jobPath: string;
    before(async () => {
      ({ proxy, service, key, jobPath } = await startBehindProxy(pgBackend.url));
    });
    after(async () => {
      // Frozen connections are reset first: pg-boss's own pool has no query timeout, and stopping
      // it waits for the queries it has in flight.
      await proxy.cut();
      await proxy.restore();
      await service.close();
      await proxy.close();
    });

    /** The reply, failing the test (rather than hanging it) when it takes longer than ANSWER_WITHIN_MS. */
    const answered = (label: string, request: Promise<Reply>) => answeredWithin(label, request, ANSWER_WITHIN_MS);

    test('every request answers 503 with Retry-After within a bounded time; nothing hangs', { timeout: 90_000 }, async () => {
      // Warm up: the key is now verified, and cached.
      for (let i = 0; i < 3; i++) assert.equal((await call(service.url, 'GET', jobPath, { key })).status, 200);
      await proxy.freeze();
      const [read, audit, unseen, create, profiles, ready] = await Promise.all([
        answered('a job read', call(service.url, 'GET', jobPath, { key })),
        answered('an audit read', call(service.url, 'GET', `${jobPath}/audit`, { key })),
        answered('a key never seen before', call(service.url, 'GET', jobPath, { key: 'svk_test_NeverSeenBeforeNeverSeenBefore00' })),
        answered('a job creation', call(service.url, 'POST', '/api/v1/execution-jobs', { key, body: restaurantRequest() })),
        answered('a profile list', call(service.url, 'GET', '/api/v1/profiles', { key })),
        answered('the readiness probe', call(service.url, 'GET', '/readyz')),
      ]);
      for (const reply of [read, audit, unseen, create, profiles]) assertUnavailable(reply);
      assert.equal(ready.status, 503);
      // The connections given up on do not hold later requests up.
      assertUnavailable(await answered('a read after the first ones', call(service.url, 'GET', jobPath, { key })));
      assert.equal((await answered('the liveness probe', call(service.url, 'GET', '/healthz'))).status, 200);
    });

    test('once the database answers again the service recovers by itself, and a key revoked elsewhere is refused at once', { timeout: 90_000 }, async () => {
      await proxy.restore();
      // Connections frozen before the restore never answer again; a request that meets one gives up
      // on it at the client's limit for a silent server. Rounds of concurrent reads go through all the pool still holds.
      let statuses: number[] = [];
      for (const deadline = Date.now() + 45_000; Date.now() < deadline; ) {
        statuses = (await Promise.all(Array.from({ length: 25 }, () => answered('a read after the restore', call(service.url, 'GET', jobPath, { key }))))).map((r) => r.status);
        if (statuses.every((status) => status === 200)) break;
      }
      assert.deepEqual([...new Set(statuses)], [200], 'reads succeed again without a restart');
      // The notification connection froze with the others. Had the service kept trusting it, a
      // key verified a moment ago would be served from the cache after a revocation it never heard of.
      const other = await service.mintKey('Acme Travel');
      const elsewhere = await openDatabase({ DATABASE_URL: pgBackend.url, DATABASE_SCHEMA: service.config.DATABASE_SCHEMA });
      try {
        const newest = (await listApiKeys(elsewhere.db)).at(-1)!;
        // As `concierge keys revoke` does, from another process: the notification arrives when it arrives.
        await assertRefusedOnceRevokedElsewhere(service, jobPath, other, async () => {
          assert.ok(await revokeApiKey(elsewhere.db, newest.id));
        });
      } finally {
        await elsewhere.close();
      }
    });
  });
}

if (BACKENDS.some((b) => b.name === 'pglite')) {
  describe('fail-closed on pglite (database closed underneath the running service)', () => {
    let service: TestService;
    before(async () => {
      service = await startTestService('pglite:memory:');
    });
    after(() => service.close());

    test('with the database closed: 503 with Retry-After, never a pass; format checks stay 401', async () => {
      const key = await service.mintKey('Acme Travel');
      const created = await call(service.url, 'POST', '/api/v1/execution-jobs', { key, body: restaurantRequest() });
      assert.equal(created.status, 202);
      const jobPath = created.body._links.self;
      assert.equal((await call(service.url, 'GET', jobPath, { key })).status, 200);
      await service.services.database.close();
      await checksWhileDown(service, key, jobPath);
    });
  });
}
