import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { StreamableHTTPError } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { mintApiKey } from '../../src/auth/api-keys.ts';
import { assertApiError, assertChangesNothing } from '../helpers/api-assert.ts';
import { call } from '../helpers/http.ts';
import { withinOneMinuteWindow } from '../helpers/wait.ts';
import { bookingArguments, mcpClient, textOf } from '../helpers/mcp.ts';
import { BACKENDS, restaurantRequest, startTestService, type TestService } from '../helpers/service.ts';

// The limits an API client meets: a key's daily_limit of jobs per UTC day on creation (REST 429
// rate_limited with Retry-After and the IETF RateLimit headers; over MCP a tool error saying when
// to retry), and the per-minute request limit of every key, shared by REST and MCP.

const SECONDS_TO_MIDNIGHT_MAX = 86_400;

for (const backend of BACKENDS) {
  describe(`daily_limit on ${backend.name}`, () => {
    let service: TestService;
    const keyWithLimit = async (dailyLimit: number) => (await mintApiKey(service.services.db, { organizationName: 'Acme Travel', allowedJobTypes: ['restaurant'], live: false, dailyLimit })).key;
    before(async () => {
      service = await startTestService(backend.url);
    });
    after(() => service?.close());

    test('creation beyond the limit is 429 rate_limited with Retry-After and RateLimit headers, and stores nothing; a replay of an earlier job still answers', async () => {
      const key = await keyWithLimit(2);
      const first = await call(service.url, 'POST', '/api/v1/execution-jobs', { key, body: { ...restaurantRequest(), clientMetadata: { idempotencyKey: `daily-1-${backend.name}` } } });
      assert.equal(first.status, 202, first.text);
      assert.equal((await call(service.url, 'POST', '/api/v1/execution-jobs', { key, body: restaurantRequest() })).status, 202);

      const refused = await assertChangesNothing(service, () => call(service.url, 'POST', '/api/v1/execution-jobs', { key, body: restaurantRequest() }));
      assertApiError(refused, 429, 'rate_limited');
      assert.match(refused.body.error.message, /daily limit of 2 jobs/);
      const retryAfter = Number(refused.headers.get('retry-after'));
      assert.ok(retryAfter >= 1 && retryAfter <= SECONDS_TO_MIDNIGHT_MAX, `Retry-After ${retryAfter}`);
      assert.equal(refused.headers.get('ratelimit-policy'), '"jobs.daily";q=2;w=86400');
      assert.equal(refused.headers.get('ratelimit'), `"jobs.daily";r=0;t=${retryAfter}`);

      // A retried request with its idempotencyKey creates nothing, so it is not refused.
      const replay = await call(service.url, 'POST', '/api/v1/execution-jobs', { key, body: { ...restaurantRequest(), clientMetadata: { idempotencyKey: `daily-1-${backend.name}` } } });
      assert.equal(replay.status, 202, replay.text);
      assert.equal(replay.body.jobId, first.body.jobId);
      // Reads are not creations; another key of the organisation has its own allowance.
      assert.equal((await call(service.url, 'GET', `/api/v1/execution-jobs/${first.body.jobId}`, { key })).status, 200);
      assert.equal((await call(service.url, 'POST', '/api/v1/execution-jobs', { key: await keyWithLimit(2), body: restaurantRequest() })).status, 202);
    });

    test('concurrent creations never overshoot the limit', async () => {
      const key = await keyWithLimit(3);
      const replies = await Promise.all(Array.from({ length: 12 }, () => call(service.url, 'POST', '/api/v1/execution-jobs', { key, body: restaurantRequest() })));
      assert.equal(replies.filter((r) => r.status === 202).length, 3, replies.map((r) => r.status).join(' '));
      assert.equal(replies.filter((r) => r.status === 429).length, 9);
    });

    test('over MCP, a booking beyond the limit is a tool error that says when to retry', async () => {
      const key = await keyWithLimit(1);
      const mcp = await mcpClient(service.url, key);
      try {
        const booked = await mcp.client.callTool({ name: 'book_restaurant', arguments: bookingArguments().book_restaurant! });
        assert.equal(booked.isError, undefined, JSON.stringify(booked));
        const refused = await mcp.client.callTool({ name: 'book_restaurant', arguments: bookingArguments().book_restaurant! });
        assert.equal(refused.isError, true);
        const body = textOf(refused as Record<string, unknown>);
        assert.equal(body.error, 'rate_limited');
        assert.match(body.message, /daily limit of 1 job is reached; it resets at midnight UTC, in \d+ s/);
        assert.ok(body.retryAfterSeconds >= 1 && body.retryAfterSeconds <= SECONDS_TO_MIDNIGHT_MAX);
      } finally {
        await mcp.close();
      }
    });
  });
}

describe('the per-minute request limit of an API key, shared by REST and MCP', () => {
  let service: TestService;
  let key: string;
  before(async () => {
    service = await startTestService('pglite:memory:', { API_KEY_RATE_LIMIT: '4' });
    key = await service.mintKey();
  });
  after(() => service?.close());

  test('every answer says what is left; beyond the limit REST is 429 rate_limited and MCP 429 too, with Retry-After; another key is not affected', async () => {
    await withinOneMinuteWindow(20_000);
    const remaining: string[] = [];
    for (let i = 0; i < 3; i++) {
      const reply = await call(service.url, 'GET', '/api/v1/metrics/providers/tablebook', { key });
      assert.equal(reply.status, 200, reply.text);
      assert.equal(reply.headers.get('ratelimit-policy'), '"api.key";q=4;w=60');
      remaining.push(/r=(\d+)/.exec(reply.headers.get('ratelimit') ?? '')?.[1] ?? '');
    }
    assert.deepEqual(remaining, ['3', '2', '1']);
    // The fourth request of the minute, over MCP: the same allowance.
    const mcp = await fetch(`${service.url}/api/mcp`, {
      method: 'POST',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-protocol-version': '2025-06-18' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'ping' }),
    });
    assert.notEqual(mcp.status, 429);
    assert.equal(mcp.headers.get('ratelimit'), '"api.key";r=0;t=' + /t=(\d+)/.exec(mcp.headers.get('ratelimit') ?? '')?.[1]);

    const refused = await call(service.url, 'GET', '/api/v1/metrics/providers/tablebook', { key });
    assertApiError(refused, 429, 'rate_limited');
    assert.ok(Number(refused.headers.get('retry-after')) >= 1);
    assert.match(refused.headers.get('ratelimit') ?? '', /^"api\.key";r=0;t=\d+$/);
    const client = await mcpClient(service.url, key).then(
      () => null,
      (error: unknown) => error,
    );
    assert.ok(client instanceof StreamableHTTPError || client instanceof Error, 'the MCP client cannot start beyond the limit');
    const raw = await fetch(`${service.url}/api/mcp`, {
      method: 'POST',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-protocol-version': '2025-06-18' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'ping' }),
    });
    assert.equal(raw.status, 429);
    assert.equal((await raw.json()).error, 'rate_limited');
    assert.ok(Number(raw.headers.get('retry-after')) >= 1);

    assert.equal((await call(service.url, 'GET', '/api/v1/metrics/providers/tablebook', { key: await service.mintKey('Globex') })).status, 200);
  });
});
