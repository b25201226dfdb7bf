import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { isJsonContentType, responseModeFor } from '../../src/mcp/negotiate.ts';
import { MCP_STATUSES, mcpStatus, nextPollSeconds } from '../../src/mcp/status.ts';
import { allowedHostnames, allowedOrigins } from '../../src/mcp/origin.ts';
import { parseHost } from '../../src/security/host.ts';
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

describe('MCP_ALLOWED_HOSTS', () => {
  test('allowed host names are BASE_URL\'s, the loopback names and the configured ones, normalised', () => {
    const config = loadConfig({}, { BASE_URL: 'https://concierge.example.com', MCP_ALLOWED_HOSTS: ' Concierge.Internal , 10.0.0.7,[::2], bücher.example. ' });
    assert.deepEqual(config.MCP_ALLOWED_HOSTS, ['concierge.internal', '10.0.0.7', '[::2]', 'xn--bcher-kva.example']);
    assert.deepEqual([...allowedHostnames(config)], ['concierge.example.com', 'localhost', '127.0.0.1', '[::1]', 'concierge.internal', '10.0.0.7', '[::2]', 'xn--bcher-kva.example']);
    assert.deepEqual(loadConfig({}, {}).MCP_ALLOWED_HOSTS, []);
  });

  test('anything but a bare host name stops the configuration, naming the variable', () => {
    for (const bad of ['concierge.internal:3000', 'https://concierge.internal', 'concierge.internal/api', '*', '::1', '[::1]:80', 'a b', 'user@host']) {
      assert.throws(() => loadConfig({}, { MCP_ALLOWED_HOSTS: bad }), (error: unknown) => error instanceof ConfigError && /MCP_ALLOWED_HOSTS/.test(error.message), bad);
    }
  });

  test('a Host header is read as a host name and whether a port came with it; anything else is not one', () => {
    assert.deepEqual(parseHost('LOCALHOST:3000'), { hostname: 'localhost', hasPort: true });
    assert.deepEqual(parseHost('[::1]:80'), { hostname: '[::1]', hasPort: true });
    assert.deepEqual(parseHost('[::1]'), { hostname: '[::1]', hasPort: false });
    assert.deepEqual(parseHost('example.com.'), { hostname: 'example.com', hasPort: false });
    for (const bad of [undefined, '', ' ', 'evil.example/x', 'a@b', 'a?b', 'a#b', 'a\\b', '::1', 'ex ample', '*']) assert.equal(parseHost(bad), null, String(bad));
  });
});
