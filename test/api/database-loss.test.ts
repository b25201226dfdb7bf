import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { Browser, BrowserContext, Page } from 'playwright-core';
// @ts-expect-error -- ws ships no type declarations; the test uses a few calls of it.
import WebSocket from 'ws';
import { startTestService, type TestService } from '../helpers/service.ts';
import { call, type Reply } from '../helpers/http.ts';
import { rpc } from '../helpers/mcp.ts';
import { discover, postForm, registerClient, type RegisteredClient } from '../helpers/oauth.ts';
import { startTcpProxy, viaProxy, type TcpProxy } from '../helpers/tcp-proxy.ts';
import { startPrivatePostgres, type PrivatePostgres } from '../helpers/private-postgres.ts';
import { captureLogs, type LogCapture } from '../helpers/log-capture.ts';
import { answered, until } from '../helpers/wait.ts';
import { createJob, requests, TERMINAL, waitForJob } from '../executor/helpers.ts';
import { launchChromium, pointOnView, waitForLiveFrames } from '../handoff/browsers.ts';
import { SILENT_SERVER_TIMEOUT_MS } from '../../src/db/query-timeout.ts';
import { startedTogether } from '../helpers/together.ts';

// Losing the database, on a real PostgreSQL server of the test's own (initdb + pg_ctl on a free
// loopback port, in a temporary directory; never the machine's shared server), the service reaching
// it through a TCP proxy. Three ways to lose it: the server stopped (as a crash: `pg_ctl stop -m
// immediate`, then started again), the server frozen (SIGSTOP on every one of its processes, then
// SIGCONT), the connection cut (the proxy closed, then listening again). Each time, while it is
// gone: every surface (REST, MCP, the OAuth token endpoint, the handoff page, its status, its
// Cancel and its live view's handshake) answers 503 with Retry-After within the documented time, and
// no answer or log line carries SQL, a driver's words or a stack. Once it is back: the service
// recovers by itself, every job created before is as it was, a job caught running reaches a final
// or held state, and the booking held before the outage is paid on the live view that stayed open.

/** What the README documents: at once for a server gone or a connection cut; a server that stops answering is given up on after SILENT_SERVER_TIMEOUT_MS, plus a second for the ping. A margin for a loaded machine on top. */
const GONE_WITHIN_MS = 5_000;
const SILENT_WITHIN_MS = SILENT_SERVER_TIMEOUT_MS + 5_000;
/** How long after the database is back the service must answer again, by itself. */
const BACK_WITHIN_MS = 30_000;
/** A job caught by the outage: its run is taken up again from the start (docs/executor.md: usually within 15-30 s), then runs to the pause. */
const SETTLED_WITHIN_MS = 120_000;

/** Words that would betray the database behind an answer: SQL, the driver's errors, a stack. */
const LEAKS = /\b(select|insert|update|delete)\b[^"]*\b(from|into|set)\b|sqlstate|econnrefused|econnreset|etimedout|connection terminated|timeout exceeded|postgres|kysely|pg-boss|relation "|\.ts:\d+|\n\s+at /i;

function assertNoLeak(label: string, text: string): void {
  assert.doesNotMatch(text, LEAKS, `${label} says nothing of the database behind it: ${text.slice(0, 300)}`);
}

/** A WebSocket handshake: the HTTP status of its refusal, or 101 when it opened (then closed again). */
function handshake(url: string, origin: string): Promise<{ status: number; retryAfter: string | null; text: string }> {
  return new Promise((resolve, reject) => {
    const ws = new WebSocket(url, { origin });
    ws.once('open', () => {
      ws.close();
      resolve({ status: 101, retryAfter: null, text: '' });
    });
    ws.once('unexpected-response', (_req: unknown, res: NodeJS.ReadableStream & { statusCode?: number; headers: Record<string, string> }) => {
      let text = '';
      res.on('data', (chunk: Buffer) => (text += chunk));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, retryAfter: res.headers['retry-after'] ?? null, text }));
    });
    ws.once('error', reject);
  });
}

interface Outage {
  name: string;
  /** The documented bound for a request to be answered while the database is gone this way. */
  withinMs: number;
  down(): Promise<void> | void;
  up(): Promise<void> | void;
}

describe('losing the database (a private PostgreSQL server: stopped, frozen, cut off)', () => {
  let pg: PrivatePostgres;
  let proxy: TcpProxy;
  let service: TestService;
  let person: Browser;
  let key: string;
  let client: RegisteredClient;
  const logs: LogCapture = captureLogs();
  /** Every job the test created, for the snapshots and the final sweep. */
  const jobIds: string[] = [];
  let held: Array<{ jobId: string; handoffUrl: string }> = [];

  before(async () => {
    pg = await startPrivatePostgres();
    proxy = await startTcpProxy('127.0.0.1', pg.port);
    [service, person] = await startedTogether([
      startTestService(viaProxy(pg.url, proxy), { WORKERS: '3' }, { sandbox: true, adminUrl: pg.url, logDestination: logs }),
      launchChromium(),
    ]);
    key = await service.mintKey();
    client = await registerClient(await discover(service));
    // One booking per outage, all held from the start: the later ones live through the earlier outages too.
    held = await Promise.all([0, 1, 2].map((i) => holdBooking(`Steadfast Osteria ${i}`)));
  });

  after(async () => {
    // Whatever a failed test left: the server running and reachable, so the service can stop cleanly.
    pg?.thaw();
    await proxy?.restore();
    await person?.close();
    await service?.close().catch(() => {});
    await proxy?.close();
    await pg?.remove();
  });

  const api = (method: string, path: string, body?: unknown) => call(service.url, method, path, { key, ...(body === undefined ? {} : { body }) });

  /** A restaurant booking taken to paused_payment by the executor. */
  async function holdBooking(name: string): Promise<{ jobId: string; handoffUrl: string }> {
    const jobId = await createJob(service, key, requests.restaurant({ restaurant_name: name }));
    jobIds.push(jobId);
    const paused = await waitForJob(service, key, jobId);
    assert.equal(paused.status, 'paused_payment', paused.summary);
    return { jobId, handoffUrl: paused.handoffUrl };
  }

  /** The person's phone showing the live view of a held booking. */
  async function openOnPhone(booking: { jobId: string; handoffUrl: string }): Promise<{ context: BrowserContext; page: Page; tab: Page }> {
    const tab = service.services.executor.holds.get(booking.jobId)!.page;
    const context = await person.newContext({ viewport: { width: 390, height: 844 }, deviceScaleFactor: 2, isMobile: true, hasTouch: true });
    const page = await context.newPage();
    await page.goto(booking.handoffUrl);
    await waitForLiveFrames(page, tab);
    return { context, page, tab };
  }

  /** Each job as the API shows it, with its audit events. */
  async function snapshot(ids: string[]): Promise<Map<string, { job: unknown; events: unknown }>> {
    const out = new Map<string, { job: unknown; events: unknown }>();
    for (const id of ids) {
      const [job, audit] = await Promise.all([api('GET', `/api/v1/execution-jobs/${id}`), api('GET', `/api/v1/execution-jobs/${id}/audit?limit=200`)]);
      assert.equal(job.status, 200, job.text);
      assert.equal(audit.status, 200, audit.text);
      out.set(id, { job: job.body, events: audit.body.events });
    }
    return out;
  }

  /** Every surface while the database is gone: 503 with Retry-After within `withinMs`, nothing leaked. */
  async function surfacesWhileDown(outage: Outage, jobId: string, handoffUrl: string): Promise<void> {
    const within = outage.withinMs;
    const origin = new URL(service.url).origin;
    const token = handoffUrl.split('/').pop()!;
    const [read, audit, create, unseen, mcp, oauthToken, page, status, cancel, socket] = await Promise.all([
      answered('a job read', api('GET', `/api/v1/execution-jobs/${jobId}`), within),
      answered('an audit read', api('GET', `/api/v1/execution-jobs/${jobId}/audit`), within),
      answered('a job creation', api('POST', '/api/v1/execution-jobs', requests.restaurant({ restaurant_name: 'Never Created' })), within),
      answered('a key never seen', call(service.url, 'GET', `/api/v1/execution-jobs/${jobId}`, { key: 'svk_test_NeverSeenBeforeNeverSeenBefore00' }), within),
      answered('an MCP tool call', rpc(service.url, { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'get_job_status', arguments: { jobId } } }, { bearer: key, headers: { 'mcp-protocol-version': '2025-06-18' } }), within),
      answered('the OAuth token endpoint', postForm(`${service.url}/oauth/token`, { grant_type: 'refresh_token', refresh_token: 'r'.repeat(43), client_id: client.client.client_id, client_secret: client.clientSecret! }), within),
      answered('the handoff page', fetch(handoffUrl, { headers: { accept: 'text/html' } }).then(async (r) => ({ status: r.status, headers: r.headers, text: await r.text() })), within),
      answered('the handoff status', call(service.url, 'GET', `/handoff/${token}/status`), within),
      answered('the handoff Cancel', call(service.url, 'POST', `/handoff/${token}/cancel`, { headers: { origin, 'content-type': 'application/x-www-form-urlencoded' }, raw: '' }), within),
      answered('the live view handshake', handshake(`${handoffUrl.replace('http', 'ws')}/live`, origin), within),
    ]);
    const rest: Array<[string, Reply]> = [['a job read', read], ['an audit read', audit], ['a job creation', create], ['a key never seen', unseen]];
    for (const [label, reply] of rest) {
      assert.equal(reply.status, 503, `${label}: ${reply.status} ${reply.text}`);
      assert.equal(reply.body.error.code, 'auth_backend_unavailable', label);
      assert.equal(reply.headers.get('retry-after'), '5', label);
      assertNoLeak(label, reply.text);
    }
    assert.equal(mcp.status, 503, `MCP: ${mcp.status} ${mcp.text}`);
    assert.equal(mcp.body.error, 'auth_backend_unavailable');
    assert.equal(mcp.headers.get('retry-after'), '5');
    assertNoLeak('MCP', mcp.text);
    assert.equal(oauthToken.status, 503, `OAuth token: ${oauthToken.status} ${JSON.stringify(oauthToken.body)}`);
    assert.equal(oauthToken.body.error, 'temporarily_unavailable');
    assert.equal(oauthToken.headers.get('retry-after'), '5');
    assertNoLeak('OAuth token', JSON.stringify(oauthToken.body));
    // The person's pages: the app-wide envelope, 503 with Retry-After as the API's.
    assert.equal(page.status, 503, `the handoff page: ${page.status}`);
    assert.equal(page.headers.get('retry-after'), '5');
    assert.match(page.text, /Briefly unavailable/);
    assertNoLeak('the handoff page', page.text);
    for (const [label, reply] of [['the handoff status', status], ['the handoff Cancel', cancel]] as const) {
      assert.equal(reply.status, 503, `${label}: ${reply.status} ${reply.text}`);
      assert.equal(reply.body.error, 'auth_backend_unavailable', label);
      assert.equal(reply.headers.get('retry-after'), '5', label);
      assertNoLeak(label, reply.text);
    }
    assert.equal(socket.status, 503, `a new live view is refused while its link cannot be checked (got ${socket.status} ${socket.text})`);
    assert.equal(socket.retryAfter, '5');
    assertNoLeak('the live view handshake', socket.text);
    // The process is up, the database is not.
    assert.equal((await answered('the liveness probe', call(service.url, 'GET', '/healthz'), within)).status, 200);
    assert.equal((await answered('the readiness probe', call(service.url, 'GET', '/readyz'), within)).status, 503);
  }

  const outages: Outage[] = [
    { name: 'the server stopped (a crash), then started again', withinMs: GONE_WITHIN_MS, down: () => pg.stop('immediate'), up: () => pg.start() },
    { name: 'the server frozen (SIGSTOP), then let go (SIGCONT)', withinMs: SILENT_WITHIN_MS, down: () => pg.freeze(), up: () => pg.thaw() },
    { name: 'the connection cut (the TCP proxy closed), then restored', withinMs: GONE_WITHIN_MS, down: () => proxy.cut(), up: () => proxy.restore() },
  ];

  for (const [index, outage] of outages.entries()) {
    test(outage.name, { timeout: 240_000 }, async () => {
      const booking = held[index]!;
      const phone = await openOnPhone(booking);
      let down = false;
      try {
        const before = await snapshot(jobIds);
        // A job created just before: pending or running when the database goes.
        const caught = await createJob(service, key, requests.restaurant({ restaurant_name: `Caught Cantina ${index}` }));
        jobIds.push(caught);
        const logsFrom = logs.text().length;

        down = true;
        await outage.down();
        await surfacesWhileDown(outage, booking.jobId, booking.handoffUrl);
        // The person's live view, opened before, is still there.
        assert.equal(await phone.page.getAttribute('[data-live-view]', 'data-state'), 'live', 'the person\'s live view stays open');
        down = false;
        await outage.up();

        // Back by itself: the same key works again, without a restart.
        await until('the service answers again once the database is back', async () => (await api('GET', `/api/v1/execution-jobs/${booking.jobId}`)).status === 200, BACK_WITHIN_MS, 200);
        assert.equal((await call(service.url, 'GET', '/readyz')).status, 200);
        // The job caught by the outage is not left stuck: it reaches a final or held state (awaited below).
        const settling = waitForJob(service, key, caught, { until: TERMINAL, timeoutMs: SETTLED_WITHIN_MS, intervalMs: 500 });
        settling.catch(() => {});

        // Nothing written before the outage was lost or changed.
        const afterOutage = await snapshot([...before.keys()]);
        for (const [id, was] of before) assert.deepEqual(afterOutage.get(id), was, `job ${id} is as it was before the outage`);

        // What the service logged meanwhile names no SQL and carries no stack.
        for (const line of logs.text().slice(logsFrom).split('\n').filter(Boolean)) {
          assert.doesNotMatch(line, /"stack"|\\n\s+at /, 'a log line without a stack');
        }

        // The booking held before the outage is paid on the live view that stayed open.
        const code = String(4000 + index * 111);
        const at = await pointOnView(phone.page, phone.tab, '#tb-cvc');
        await phone.page.touchscreen.tap(at.x, at.y);
        await phone.tab.waitForFunction(() => document.activeElement?.id === 'tb-cvc');
        await phone.page.keyboard.insertText(code);
        await phone.tab.waitForFunction((c) => (document.querySelector('#tb-cvc') as HTMLInputElement).value === c, code);
        await phone.page.keyboard.press('Enter');
        const shown = await (await phone.page.waitForSelector('[data-outcome] [data-confirmation-code]', { timeout: 30_000 })).getAttribute('data-confirmation-code');
        const paid = await waitForJob(service, key, booking.jobId, { until: ['completed', 'error'] });
        assert.equal(paid.status, 'completed', paid.summary);
        assert.equal(paid.confirmationCode, shown);

        const settled = await settling;
        assert.ok(TERMINAL.includes(settled.status), settled.status);
        if (settled.status === 'paused_payment') assert.equal((await api('POST', `/api/v1/execution-jobs/${caught}/cancel`)).status, 200);
      } finally {
        // A failed check must not leave the database gone for the next case.
        if (down) await outage.up();
        await phone.context.close();
      }
    });
  }

  test('after all three: no job is left pending or running, and none was created while the database was gone', async () => {
    const rows = await service.services.db.selectFrom('jobs').select(['id', 'status']).execute();
    assert.deepEqual(rows.map((r) => r.id).sort(), [...jobIds].sort(), 'exactly the jobs created while the database was up');
    for (const row of rows) assert.ok(TERMINAL.includes(row.status), `job ${row.id} is ${row.status}`);
  });
});
