import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { sql } from 'kysely';
import { randomBytes } from 'node:crypto';
import { BACKENDS, restaurantRequest, startTestService, type TestService } from '../helpers/service.ts';
import { call } from '../helpers/http.ts';
import { captureLogs, type LogCapture } from '../helpers/log-capture.ts';
import { bookingArguments, rpc, textOf } from '../helpers/mcp.ts';
import { transition } from '../../src/jobs/transition.ts';
import { JOB_STATUSES } from '../../src/jobs/types.ts';
import { loadConfig } from '../../src/config.ts';
import { metricsAccess } from '../../src/observability/metrics.ts';
import { dropSchemas } from '../../src/db/index.ts';

// Probes, Prometheus metrics and logs, read from the running service: route labels are patterns
// (never ids), and no credential ever reaches a log line.
for (const backend of BACKENDS) {
  describe(`observability on ${backend.name}`, () => {
    let service: TestService;
    let logs: LogCapture;
    let key: string;
    let jobIds: string[];
    before(async () => {
      logs = captureLogs();
      service = await startTestService(backend.url, {}, { logDestination: logs });
      key = await service.mintKey('Acme Travel');
      jobIds = [];
      for (let i = 0; i < 3; i++) {
        const created = await call(service.url, 'POST', '/api/v1/execution-jobs', { key, body: restaurantRequest({ covers: i + 1 }) });
        assert.equal(created.status, 202);
        jobIds.push(created.body.jobId);
      }
    });
    after(() => service.close());

    test('GET /healthz and /readyz', async () => {
      const health = await call(service.url, 'GET', '/healthz');
      assert.equal(health.status, 200);
      assert.deepEqual(health.body, { status: 'ok' });
      const ready = await call(service.url, 'GET', '/readyz');
      assert.equal(ready.status, 200);
      assert.deepEqual(ready.body, { status: 'ready' });
    });

    test('GET /metrics: requests by route pattern and status, jobs by status, queue depth', async () => {
      // One of the three jobs moves on, so that the counts span two statuses.
      await transition(service.services.db, jobIds[2]!, { to: 'running', event: { type: 'job_started', message: 'a worker took the job' } });
      for (const id of jobIds) assert.equal((await call(service.url, 'GET', `/api/v1/execution-jobs/${id}`, { key })).status, 200);
      await call(service.url, 'GET', '/api/v1/execution-jobs/00000000-0000-4000-8000-000000000000', { key });
      await call(service.url, 'GET', '/api/v1/nowhere', { key });
      const reply = await call(service.url, 'GET', '/metrics');
      assert.equal(reply.status, 200);
      assert.match(reply.headers.get('content-type') ?? '', /^text\/plain/);
      const text = reply.text;
      const value = (pattern: RegExp) => {
        const match = pattern.exec(text);
        assert.ok(match, `no ${pattern} in\n${text.split('\n').filter((l) => l.startsWith('http_requests_total') || l.startsWith('concierge')).join('\n')}`);
        return Number(match[1]);
      };
      assert.ok(value(/^http_requests_total\{method="GET",route="\/api\/v1\/execution-jobs\/:jobId",status="200"\} (\d+)$/m) >= 3);
      assert.ok(value(/^http_requests_total\{method="GET",route="\/api\/v1\/execution-jobs\/:jobId",status="404"\} (\d+)$/m) >= 1);
      assert.ok(value(/^http_requests_total\{method="POST",route="\/api\/v1\/execution-jobs",status="202"\} (\d+)$/m) >= 3);
      assert.ok(value(/^http_requests_total\{method="GET",route="unmatched",status="404"\} (\d+)$/m) >= 1);
      assert.match(text, /^http_request_duration_seconds_bucket\{le="0\.005",method="GET",route="\/api\/v1\/execution-jobs\/:jobId",status="200"\} \d+$/m);
      // Every status is listed, zeros included, so a dashboard never mistakes a missing series for none.
      const expected: Record<string, number> = { ...Object.fromEntries(JOB_STATUSES.map((status) => [status, 0])), pending: 2, running: 1 };
      for (const status of JOB_STATUSES) assert.equal(value(new RegExp(`^concierge_cluster_jobs\\{status="${status}"\\} (\\d+)$`, 'm')), expected[status], status);
      // Counted at the scrape: the three entries just queued, none taken (this service has no workers).
      assert.equal(value(/^concierge_cluster_queue_depth\{state="queued"\} (\d+)$/m), 3);
      assert.equal(value(/^concierge_cluster_queue_depth\{state="active"\} (\d+)$/m), 0);
      for (const id of jobIds) assert.ok(!text.includes(id), 'job ids never become label values');
    });

    test('logs: an incoming and a completed line per request, both with its id; no Authorization value, API key or query string', async () => {
      const secretQuery = 'svk_test_QueryStringSecretQueryStringSecret';
      await call(service.url, 'GET', `/api/v1/execution-jobs/${jobIds[0]}?api_key=${secretQuery}`, { key, headers: { 'x-request-id': 'log-probe-1' } });
      await call(service.url, 'GET', `/api/v1/execution-jobs/${jobIds[0]}`, { headers: { authorization: 'Basic QWxhZGRpbjpvcGVuIHNlc2FtZQ==' } });
      await call(service.url, 'GET', `/api/v1/execution-jobs/${jobIds[0]}`, { key: 'svk_test_UnknownButWellFormedKey000000' });
      // Request lines log the headers: the ones that carry credentials are redacted by name.
      await call(service.url, 'GET', '/healthz', { headers: { 'x-request-id': 'log-probe-3', cookie: 'sid=cookie-secret-1', 'proxy-authorization': 'Basic proxy-secret-2' } });
      const text = logs.text();
      assert.ok(!text.includes(key), 'the API key is in the logs');
      assert.ok(!text.includes(key.slice(13)), 'part of the API key is in the logs');
      assert.ok(!text.includes(secretQuery), 'a query string reached the logs');
      assert.ok(!text.includes('QWxhZGRpbjpvcGVuIHNlc2FtZQ=='), 'a Basic credential is in the logs');
      assert.ok(!text.includes('svk_test_UnknownButWellFormedKey000000'));
      assert.ok(!/Bearer /i.test(text), 'an Authorization value is in the logs');
      assert.ok(!text.includes('cookie-secret-1') && !text.includes('proxy-secret-2'), 'a cookie or proxy credential is in the logs');
      const lines = logs.lines();
      const probe = lines.filter((l) => l.reqId === 'log-probe-1');
      assert.equal(probe.length, 2, 'the incoming and the completed line carry the request id');
      const [incoming, completed] = probe as any[];
      assert.equal(incoming.req.url, `/api/v1/execution-jobs/${jobIds[0]}`);
      assert.equal(incoming.req.headers.authorization, '[redacted]');
      assert.equal(completed.res.statusCode, 200);
      assert.equal(typeof completed.responseTime, 'number');
      const headers = (lines.find((l) => l.reqId === 'log-probe-3' && (l.req as any)?.headers)!.req as any).headers;
      assert.equal(headers.cookie, '[redacted]');
      assert.equal(headers['proxy-authorization'], '[redacted]');
    });

    test('an unknown path under a capability link is 404 without the token in the body or the logs; each surface keeps its envelope', async () => {
      const token = 'HandoffTokenThatMustNotLeak0123456789abcdef';
      const cases: Array<[string, string, string]> = [
        ['POST', `/handoff/${token}`, '/handoff/[redacted]'],
        ['GET', `/handoff/${token}/x`, '/handoff/[redacted]/x'],
        ['PUT', `/handoff/${token}/cancel?code=${token}`, '/handoff/[redacted]/cancel'],
        ['GET', `/watch/${jobIds[0]}/${token}/x`, `/watch/${jobIds[0]}/[redacted]/x`],
      ];
      for (const [method, path, shown] of cases) {
        const reply = await call(service.url, method, path, { headers: { 'x-request-id': 'log-probe-404' } });
        assert.equal(reply.status, 404, `${method} ${path}`);
        assert.deepEqual(reply.body, { error: 'not_found', message: `no route ${method} ${shown}` });
      }
      const mcp = await call(service.url, 'POST', '/api/mcp/nowhere', { body: {} });
      assert.equal(mcp.status, 404);
      assert.deepEqual(Object.keys(mcp.body), ['error', 'message']);
      const rest = await call(service.url, 'GET', '/api/v1/nowhere', { key });
      assert.equal(rest.status, 404);
      assert.equal(rest.body.error.code, 'not_found', 'REST keeps its own 404 envelope');
      const lines = logs.lines().filter((l) => l.reqId === 'log-probe-404');
      assert.ok(lines.some((l) => l.msg === 'no route' && l.path === '/handoff/[redacted]'), 'the 404 is logged with the redacted path');
      assert.ok(!logs.text().includes(token), 'the token reached the logs');
    });

    test('a failure is logged without a stack trace, SQL or row data, from REST and from an MCP tool', async () => {
      const statement = (on: boolean) =>
        sql.raw(on ? 'alter table jobs add constraint test_refuse check (false) not valid' : 'alter table jobs drop constraint test_refuse').execute(service.services.db);
      await statement(true);
      try {
        const reply = await call(service.url, 'POST', '/api/v1/execution-jobs', { key, body: restaurantRequest({ restaurant_name: 'Logged failure' }), headers: { 'x-request-id': 'log-probe-2' } });
        assert.equal(reply.status, 500);
        const tool = await rpc(
          service.url,
          { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'book_restaurant', arguments: { ...bookingArguments().book_restaurant, restaurant_name: 'Logged failure' } } },
          { bearer: key, headers: { 'x-request-id': 'log-probe-4' } },
        );
        assert.equal(textOf(tool.body.result).error, 'job_create_failed');
      } finally {
        await statement(false);
      }
      for (const [reqId, msg] of [
        ['log-probe-2', 'request failed: job_create_failed'],
        ['log-probe-4', 'job create failed'],
      ]) {
        const failure = logs.lines().find((l) => l.reqId === reqId && l.level === 50);
        assert.ok(failure, `the failure is logged at error level (${reqId})`);
        assert.equal(failure.msg, msg);
        const raw = JSON.stringify(failure);
        assert.doesNotMatch(raw, /\\n\s+at |"stack"/, 'no stack trace');
        assert.doesNotMatch(raw, /insert into|Failing row|Logged failure|ada@example\.com/i, 'no SQL and no row data');
        assert.match(raw, /test_refuse/, 'the cause is named');
      }
    });
  });
}

/** One sample's value from Prometheus text, or undefined when the series is absent. */
function sample(text: string, series: string): number | undefined {
  const line = text.split('\n').find((l) => l.startsWith(`${series} `));
  return line === undefined ? undefined : Number(line.slice(series.length + 1));
}

// Prometheus scrapes every node. A series read from the shared database must read the same on each
// (so max() over nodes is the truth, and a sum would count every job once per node); a series a node
// counts itself must count only what that node saw.
const postgres = BACKENDS.find((b) => b.name === 'postgres');
describe('/metrics on two nodes of one PostgreSQL schema', { skip: postgres ? false : 'needs TEST_DATABASE_URL' }, () => {
  const schema = `t_${randomBytes(6).toString('hex')}`;
  let nodes: TestService[] = [];
  before(async () => {
    // One after the other: the first creates the schema and runs the migrations.
    nodes.push(await startTestService(postgres!.url, { DATABASE_SCHEMA: schema }));
    nodes.push(await startTestService(postgres!.url, { DATABASE_SCHEMA: schema }));
  });
  after(async () => {
    await Promise.all(nodes.map((n) => n.close()));
    nodes = [];
    await dropSchemas(postgres!.url, schema);
  });

  test('concierge_cluster_* series read the same on both nodes; http_requests_total counts each node\'s own requests', async () => {
    const [a, b] = nodes as [TestService, TestService];
    const key = await a.mintKey();
    // Two jobs created through node A, one through node B; the job reads all go to node A.
    const ids: string[] = [];
    for (const node of [a, a, b]) {
      const created = await call(node.url, 'POST', '/api/v1/execution-jobs', { key, body: restaurantRequest({ restaurant_name: `Two nodes ${ids.length}` }) });
      assert.equal(created.status, 202, created.text);
      ids.push(created.body.jobId);
    }
    for (const id of ids) assert.equal((await call(a.url, 'GET', `/api/v1/execution-jobs/${id}`, { key })).status, 200);
    const [onA, onB] = [(await call(a.url, 'GET', '/metrics')).text, (await call(b.url, 'GET', '/metrics')).text];

    for (const series of ['concierge_cluster_jobs{status="pending"}', 'concierge_cluster_queue_depth{state="queued"}']) {
      assert.equal(sample(onA, series), 3, `${series} on node A: every job of the cluster`);
      assert.equal(sample(onB, series), 3, `${series} on node B: the same value, not its own share`);
    }
    const created = 'http_requests_total{method="POST",route="/api/v1/execution-jobs",status="202"}';
    const read = 'http_requests_total{method="GET",route="/api/v1/execution-jobs/:jobId",status="200"}';
    assert.equal(sample(onA, created), 2);
    assert.equal(sample(onB, created), 1, 'node B counts only the creation it answered');
    assert.equal(sample(onA, read), 3);
    assert.equal(sample(onB, read), undefined, 'node B answered no read');
    assert.match(onA, /^# HELP concierge_cluster_jobs .*aggregate with max, not sum$/m, 'the help text says how to aggregate');
  });
});

describe('who may scrape /metrics', () => {
  const TOKEN = 'm'.repeat(40);

  test('without METRICS_TOKEN: public in development and test, not served in production', () => {
    assert.equal(metricsAccess({ NODE_ENV: 'development', METRICS_TOKEN: undefined }).kind, 'public');
    assert.equal(metricsAccess({ NODE_ENV: 'test', METRICS_TOKEN: undefined }).kind, 'public');
    assert.equal(metricsAccess({ NODE_ENV: 'production', METRICS_TOKEN: undefined }).kind, 'off');
    const production = metricsAccess({ NODE_ENV: 'production', METRICS_TOKEN: TOKEN });
    assert.equal(production.kind, 'token');
  });

  test('with METRICS_TOKEN: 401 without the token or with another, the metrics with it', async () => {
    const service = await startTestService('pglite:memory:', { METRICS_TOKEN: TOKEN });
    try {
      const none = await call(service.url, 'GET', '/metrics');
      assert.equal(none.status, 401);
      assert.equal(none.headers.get('www-authenticate'), 'Bearer realm="metrics"');
      assert.doesNotMatch(none.text, /http_requests_total/);
      assert.equal((await call(service.url, 'GET', '/metrics', { headers: { authorization: `Bearer ${'x'.repeat(40)}` } })).status, 401);
      assert.equal((await call(service.url, 'GET', '/metrics', { headers: { authorization: `Basic ${TOKEN}` } })).status, 401);
      const scraped = await call(service.url, 'GET', '/metrics', { headers: { authorization: `Bearer ${TOKEN}` } });
      assert.equal(scraped.status, 200);
      assert.match(scraped.text, /^concierge_cluster_jobs\{status="pending"\} \d+$/m);
    } finally {
      await service.close();
    }
  });

  test('a METRICS_TOKEN shorter than 32 characters is refused at start', () => {
    assert.throws(() => loadConfig({}, { METRICS_TOKEN: 'short' }), /METRICS_TOKEN: must be at least 32 characters/);
  });
});
