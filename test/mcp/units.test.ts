import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { isJsonContentType, responseModeFor } from '../../src/mcp/negotiate.ts';
import { MCP_STATUSES, mcpStatus, nextPollSeconds } from '../../src/mcp/status.ts';
import { allowedOrigins } from '../../src/mcp/origin.ts';
import { JOB_STATUSES } from '../../src/jobs/types.ts';
import { ConfigError, loadConfig } from '../../src/config.ts';

describe('MCP request negotiation', () => {
  test('Accept picks JSON or SSE by preference, JSON on a tie, nothing when neither is acceptable', () => {
    const cases: Array<[string | undefined, 'json' | 'sse' | null]> = [
      ['application/json, text/event-stream', 'json'],
      ['text/event-stream, application/json', 'json'],
      ['application/json', 'json'],
      ['text/event-stream', 'sse'],
      ['*/*', 'json'],
      ['text/*', 'sse'],
      ['application/*;q=0.5, text/event-stream;q=0.4', 'json'],
      ['application/json;q=0.1, text/event-stream', 'sse'],
      ['application/json;q=0, */*', 'sse'],
      ['TEXT/EVENT-STREAM', 'sse'],
      ['text/html', null],
      ['application/json;q=0', null],
      ['', null],
      [undefined, null],
    ];
    for (const [accept, expected] of cases) assert.equal(responseModeFor(accept), expected, String(accept));
  });

  test('Content-Type must be application/json, parameters allowed', () => {
    assert.ok(isJsonContentType('application/json'));
    assert.ok(isJsonContentType('Application/JSON; charset=utf-8'));
    for (const type of [undefined, '', 'text/json', 'application/jsonl', 'application/json-rpc', 'multipart/form-data']) assert.ok(!isJsonContentType(type), String(type));
  });
});

describe('MCP status vocabulary', () => {
  test('every core status maps onto the tool endpoint\'s vocabulary', () => {
    assert.deepEqual(
      Object.fromEntries(JOB_STATUSES.map((s) => [s, mcpStatus(s)])),
      { pending: 'queued', running: 'running', paused_payment: 'paused_payment', completed: 'done', no_availability: 'error', needs_login: 'needs_login', captcha: 'captcha', error: 'error' },
    );
    assert.deepEqual(
      Object.fromEntries(MCP_STATUSES.map((s) => [s, nextPollSeconds(s)])),
      { queued: 15, running: 15, done: null, error: null, paused_payment: 30, captcha: null, needs_login: null },
    );
  });
});

describe('MCP_ALLOWED_ORIGINS', () => {
  test('allowed origins are BASE_URL\'s own and the configured ones, normalised', () => {
    const config = loadConfig({}, { BASE_URL: 'https://concierge.example.com', MCP_ALLOWED_ORIGINS: ' https://App.Example.com , http://localhost:6274 ' });
    assert.deepEqual(config.MCP_ALLOWED_ORIGINS, ['https://app.example.com', 'http://localhost:6274']);
    assert.deepEqual([...allowedOrigins(config)], ['https://concierge.example.com', 'https://app.example.com', 'http://localhost:6274']);
    assert.deepEqual(loadConfig({}, {}).MCP_ALLOWED_ORIGINS, []);
  });

  test('anything but an origin stops the configuration, naming the variable', () => {
    for (const bad of ['app.example.com', 'https://app.example.com/path', 'ftp://files.example.com', 'https://a.example.com,*']) {
      assert.throws(() => loadConfig({}, { MCP_ALLOWED_ORIGINS: bad }), (error: unknown) => error instanceof ConfigError && /MCP_ALLOWED_ORIGINS/.test(error.message), bad);
    }
  });
});
