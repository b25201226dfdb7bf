import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { METHODS } from 'node:http';
import { BACKENDS, restaurantRequest, startTestService, type TestService } from '../helpers/service.ts';
import { call, rawCall, rawRequest } from '../helpers/http.ts';
import { assertApiError, assertChangesNothing } from '../helpers/api-assert.ts';
import { revokeApiKey } from '../../src/auth/api-keys.ts';
import { connect } from 'node:net';
import { once } from 'node:events';
import { createSession } from '../../src/identity/sessions.ts';
import { createLogger } from '../../src/observability/logger.ts';
import { captureLogs, type LogCapture } from '../helpers/log-capture.ts';
import { until } from '../helpers/wait.ts';

// Authentication and the error envelope of /api/v1: every 401 code, and every routing and body
// failure (404, 405, 413, 415, invalid_json, missing ids) answered as {error: {code, message}}.
for (const backend of BACKENDS) {
  describe(`/api/v1 authentication and error envelope on ${backend.name}`, () => {
    let service: TestService;
    let key: string;
    let jobPath: string;
    before(async () => {
      service = await startTestService(backend.url);
      key = await service.mintKey('Acme Travel');
      const created = await call(service.url, 'POST', '/api/v1/execution-jobs', { key, body: restaurantRequest() });
      assert.equal(created.status, 202);
      jobPath = created.body._links.self;
    });
    after(() => service.close());

    describe('the five 401 codes', () => {
      test('no Authorization header is missing_authorization, with a Bearer challenge', async () => {
        const reply = await call(service.url, 'GET', jobPath);
        assertApiError(reply, 401, 'missing_authorization');
        // The contract: every 401 names the protected resource metadata.
        assert.equal(reply.headers.get('www-authenticate'), `Bearer realm="concierge-api", resource_metadata="${service.config.BASE_URL}/.well-known/oauth-protected-resource"`);
      });

      test('a blank Authorization header is missing_authorization', async () => {
        assertApiError(await rawCall(service.url, 'GET', jobPath, { authorization: '   ' }), 401, 'missing_authorization');
      });

      for (const header of ['Basic dXNlcjpwYXNz', 'Token svk_test_abcdefghijklmnop', 'svk_test_abcdefghijklmnopqrstu', 'Bearer-svk_test_abcdefghijklmnop']) {
        test(`"${header}" is invalid_auth_scheme`, async () => {
          const reply = await call(service.url, 'GET', jobPath, { headers: { authorization: header } });
          assertApiError(reply, 401, 'invalid_auth_scheme');
          assert.equal(reply.headers.get('www-authenticate'), `Bearer realm="concierge-api", error="invalid_token", resource_metadata="${service.config.BASE_URL}/.well-known/oauth-protected-resource"`);
        });
      }

      for (const header of ['Bearer', 'Bearer ', 'bearer    ']) {
        test(`"${header}" is empty_api_key`, async () => {
          assertApiError(await rawCall(service.url, 'GET', jobPath, { authorization: header }), 401, 'empty_api_key');
        });
      }

      for (const token of ['abc', 'svk_prod_abcdefghijklmnopqrstuv', 'svk_test_short', 'svk_test_has space inside it', 'svk_test_abcdefghijklmnop!', 'SVK_TEST_ABCDEFGHIJKLMNOPQR']) {
        test(`"${token}" is malformed_api_key`, async () => {
          assertApiError(await call(service.url, 'GET', jobPath, { headers: { authorization: `Bearer ${token}` } }), 401, 'malformed_api_key');
        });
      }

      test('an unknown key of the right format is invalid_api_key', async () => {
        assertApiError(await call(service.url, 'GET', jobPath, { key: 'svk_test_AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA' }), 401, 'invalid_api_key');
        assertApiError(await call(service.url, 'GET', jobPath, { key: 'svk_live_AAAAAAAAAAAAAAAA' }), 401, 'invalid_api_key');
      });

      test('a revoked key is invalid_api_key at once, even right after it was used (and cached)', async () => {
        const doomed = await service.mintKey('Acme Travel');
        assert.equal((await call(service.url, 'GET', jobPath, { key: doomed })).status, 200);
        assert.equal((await call(service.url, 'GET', jobPath, { key: doomed })).status, 200);
        const [row] = await service.services.db.selectFrom('api_keys').select('id').orderBy('id', 'desc').limit(1).execute();
        assert.equal(await revokeApiKey(service.services.db, row!.id), true);
        assertApiError(await call(service.url, 'GET', jobPath, { key: doomed }), 401, 'invalid_api_key');
        assert.equal(await revokeApiKey(service.services.db, row!.id), false, 'revoking twice reports that nothing changed');
      });

      test('the scheme is case-insensitive and extra spaces are tolerated', async () => {
        assert.equal((await call(service.url, 'GET', jobPath, { headers: { authorization: `bearer   ${key}` } })).status, 200);
        assert.equal((await call(service.url, 'GET', jobPath, { headers: { authorization: `BEARER ${key}` } })).status, 200);
      });

      test('authentication comes before routing: an unknown route without a key is 401, not 404', async () => {
        assertApiError(await call(service.url, 'GET', '/api/v1/no-such-thing'), 401, 'missing_authorization');
      });
    });

    describe('routing', () => {
      test('an unknown route is 404 not_found in the envelope', async () => {
        for (const path of ['/api/v1/nope', '/api/v1/execution-jobs/x/y', '/api/v1/metrics', '/api/v1/', '/api/v1']) {
          const reply = await call(service.url, 'GET', path, { key });
          assertApiError(reply, 404, 'not_found');
        }
      });

      test('a known path with another method is 405 with an Allow header', async () => {
        const cases: Array<[string, string, string]> = [
          ['PUT', '/api/v1/execution-jobs', 'POST, GET, HEAD, OPTIONS'],
          ['DELETE', '/api/v1/execution-jobs', 'POST, GET, HEAD, OPTIONS'],
          ['POST', jobPath, 'GET, HEAD, OPTIONS'],
          ['PATCH', `${jobPath}/audit`, 'GET, HEAD, OPTIONS'],
          ['DELETE', '/api/v1/metrics/providers/resy', 'GET, HEAD, OPTIONS'],
          ['PUT', '/api/v1/profiles/1', 'GET, DELETE, HEAD, OPTIONS'],
          ['DELETE', '/api/v1/profiles', 'POST, GET, HEAD, OPTIONS'],
        ];
        for (const [method, path, allow] of cases) {
          const reply = await assertChangesNothing(service, () => call(service.url, method, path, { key, body: restaurantRequest() }));
          assertApiError(reply, 405, 'method_not_allowed');
          assert.equal(reply.headers.get('allow'), allow, `${method} ${path}`);
        }
      });

      test('every other method Node can parse is 405 too, not 404 (TRACE, QUERY, WebDAV\'s, LINK…)', async () => {
        const paths: Array<[string, string]> = [
          ['/api/v1/execution-jobs', 'POST, GET, HEAD, OPTIONS'],
          [jobPath, 'GET, HEAD, OPTIONS'],
          ['/api/v1/profiles/1', 'GET, DELETE, HEAD, OPTIONS'],
        ];
        // CONNECT opens a tunnel and never reaches a route; HEAD and OPTIONS are answered above.
        const methods = METHODS.filter((m) => !['CONNECT', 'HEAD', 'OPTIONS', 'GET', 'POST', 'DELETE'].includes(m));
        assert.ok(['TRACE', 'QUERY', 'PROPFIND', 'SEARCH', 'LINK', 'MKCOL', 'M-SEARCH'].every((m) => methods.includes(m)));
        for (const [path, allow] of paths) {
          for (const method of methods) {
            const reply = await rawCall(service.url, method, path, { authorization: `Bearer ${key}` });
            assertApiError(reply, 405, 'method_not_allowed');
            assert.equal(reply.headers.get('allow'), allow, `${method} ${path}`);
          }
        }
        // Whatever the body: the method is what is wrong.
        const withBody = await rawCall(service.url, 'PUT', jobPath, { authorization: `Bearer ${key}`, 'content-type': 'text/plain' }, 'hello');
        assertApiError(withBody, 405, 'method_not_allowed');
        // Authentication still comes first.
        assertApiError(await rawCall(service.url, 'PROPFIND', jobPath, {}), 401, 'missing_authorization');
      });

      test('OPTIONS answers 204 with the Allow header', async () => {
        const reply = await call(service.url, 'OPTIONS', '/api/v1/execution-jobs', { key });
        assert.equal(reply.status, 204);
        assert.equal(reply.headers.get('allow'), 'POST, GET, HEAD, OPTIONS');
      });

      test('HEAD on a job answers like GET without a body', async () => {
        const reply = await call(service.url, 'HEAD', jobPath, { key });
        assert.equal(reply.status, 200);
        assert.equal(reply.text, '');
      });

      test('a job id missing from the path is 400 missing_job_id', async () => {
        for (const path of ['/api/v1/execution-jobs/', '/api/v1/execution-jobs//audit', '/api/v1/execution-jobs/%20', '/api/v1/execution-jobs/%20/audit']) {
          assertApiError(await call(service.url, 'GET', path, { key }), 400, 'missing_job_id');
        }
        assertApiError(await call(service.url, 'GET', '/api/v1/execution-jobs', { key }), 400, 'missing_job_id');
      });

      test('a provider id missing from the path is 400 missing_provider_id', async () => {
        for (const path of ['/api/v1/metrics/providers/', '/api/v1/metrics/providers', '/api/v1/metrics/providers/%20']) {
          assertApiError(await call(service.url, 'GET', path, { key }), 400, 'missing_provider_id');
        }
      });

      test('a URL that cannot be decoded is 400 bad_request in the envelope', async () => {
        assertApiError(await call(service.url, 'GET', '/api/v1/execution-jobs/%E0%A4%A', { key }), 400, 'bad_request');
        assertApiError(await call(service.url, 'GET', `/api/v1/execution-jobs/${'a'.repeat(300)}`, { key }), 400, 'bad_request');
      });

      test('a request the HTTP parser refuses is answered in the envelope of its path', async () => {
        const badLength = (path: string) => `POST ${path} HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer ${key}\r\nContent-Type: application/json\r\nContent-Length: abc\r\n\r\n{}`;
        const rest = await assertChangesNothing(service, () => rawRequest(service.url, badLength('/api/v1/execution-jobs')));
        assertApiError(rest, 400, 'bad_request');
        assert.match(rest.headers.get('x-request-id') ?? '', /^[0-9a-f-]{36}$/);
        const bigHeaders = `GET ${jobPath} HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer ${key}\r\nX-Padding: ${'a'.repeat(20_000)}\r\n\r\n`;
        assertApiError(await rawRequest(service.url, bigHeaders), 431, 'headers_too_large');
        // Outside /api/v1, and when no path can be read at all: the app-wide {error, message}.
        for (const request of [badLength('/oauth/token'), 'NOT HTTP AT ALL\r\n\r\n']) {
          const reply = await rawRequest(service.url, request);
          assert.equal(reply.status, 400);
          assert.match(reply.headers.get('content-type') ?? '', /^application\/json/);
          assert.deepEqual(Object.keys(reply.body), ['error', 'message']);
          assert.equal(reply.body.error, 'bad_request');
        }
      });

      test('malformed and unknown job ids are 404 job_not_found', async () => {
        for (const id of ['not-a-uuid', '00000000-0000-0000-0000-000000000000', "1' or '1'='1", 'audit']) {
          const reply = await call(service.url, 'GET', `/api/v1/execution-jobs/${encodeURIComponent(id)}`, { key });
          assertApiError(reply, 404, 'job_not_found');
          assertApiError(await call(service.url, 'GET', `/api/v1/execution-jobs/${encodeURIComponent(id)}/audit`, { key }), 404, 'job_not_found');
        }
      });

      test('the request id is echoed when given and generated otherwise', async () => {
        const given = await call(service.url, 'GET', jobPath, { key, headers: { 'x-request-id': 'trace-123' } });
        assert.equal(given.headers.get('x-request-id'), 'trace-123');
        const generated = await call(service.url, 'GET', jobPath, { key, headers: { 'x-request-id': 'bad id with spaces' } });
        assert.match(generated.headers.get('x-request-id') ?? '', /^[0-9a-f-]{36}$/);
      });
    });

    describe('request bodies', () => {
      const post = (headers: Record<string, string>, body?: string | Buffer) => rawCall(service.url, 'POST', '/api/v1/execution-jobs', { authorization: `Bearer ${key}`, ...headers }, body);
      /** A body the service must refuse: it stores nothing. */
      const refused = (headers: Record<string, string>, body?: string | Buffer) => assertChangesNothing(service, () => post(headers, body));

      test('a body without a Content-Type is 415 unsupported_media_type', async () => {
        assertApiError(await refused({}, JSON.stringify(restaurantRequest())), 415, 'unsupported_media_type');
      });

      test('text/plain, form and other types are 415 unsupported_media_type', async () => {
        const body = JSON.stringify(restaurantRequest());
        for (const type of ['text/plain', 'text/plain; charset=utf-8', 'application/x-www-form-urlencoded', 'application/xml', 'multipart/form-data; boundary=x', 'nonsense']) {
          assertApiError(await refused({ 'content-type': type }, body), 415, 'unsupported_media_type');
        }
      });

      test('application/json with a charset is accepted', async () => {
        const reply = await post({ 'content-type': 'application/json; charset=utf-8' }, JSON.stringify(restaurantRequest({ restaurant_name: 'Charset' })));
        assert.equal(reply.status, 202, reply.text);
      });

      test('a body that is not JSON is 400 invalid_json', async () => {
        for (const body of ['{', '{"request": }', 'undefined', "{'a': 1}", '{"a":1}}']) {
          assertApiError(await refused({ 'content-type': 'application/json' }, body), 400, 'invalid_json');
        }
      });

      test('an empty body declared as JSON is 400 invalid_json', async () => {
        assertApiError(await refused({ 'content-type': 'application/json', 'content-length': '0' }, ''), 400, 'invalid_json');
      });

      test('no body at all is 400 invalid_request saying the body is missing', async () => {
        const reply = await refused({});
        assertApiError(reply, 400, 'invalid_request');
        assert.deepEqual(reply.body.error.details, [{ path: '(body)', message: 'the request body is missing' }]);
      });

      test('JSON that is not an object is 400 invalid_request', async () => {
        for (const [body, what] of [['null', 'null'], ['[]', 'a list'], ['"x"', 'a string'], ['42', 'a number']]) {
          const reply = await refused({ 'content-type': 'application/json' }, body);
          assertApiError(reply, 400, 'invalid_request');
          assert.deepEqual(reply.body.error.details, [{ path: '(body)', message: `the request body must be a JSON object, not ${what}` }]);
        }
      });

      test('a body over 1 MiB is 413 payload_too_large', async () => {
        const big = JSON.stringify({ ...restaurantRequest(), clientMetadata: { agentId: 'x'.repeat(1024 * 1024) } });
        assertApiError(await refused({ 'content-type': 'application/json' }, big), 413, 'payload_too_large');
      });

      test('a body just under 1 MiB is read (and then fails validation, not the size check)', async () => {
        const body = JSON.stringify({ ...restaurantRequest(), clientMetadata: { agentId: 'x'.repeat(1024 * 1024 - 400) } });
        assert.ok(Buffer.byteLength(body) < 1024 * 1024);
        const reply = await refused({ 'content-type': 'application/json' }, body);
        assertApiError(reply, 400, 'invalid_request');
        assert.deepEqual(reply.body.error.details, [{ path: 'clientMetadata.agentId', message: 'agentId must be at most 200 characters long' }]);
      });

      test('prototype-poisoning keys are refused as invalid JSON', async () => {
        assertApiError(await refused({ 'content-type': 'application/json' }, '{"__proto__": {"x": 1}}'), 400, 'invalid_json');
      });
    });
  });
}

// Requests Node's HTTP parser refuses are answered by hand (src/api/v1/errors.ts clientErrorReply).
// Not storage-related: one backend.
describe('requests the HTTP parser refuses', () => {
  let service: TestService;
  let logs: LogCapture;
  before(async () => {
    logs = captureLogs();
    service = await startTestService(BACKENDS[0]!.url, {}, { log: createLogger('debug', logs) });
  });
  after(() => service?.close());

  test('are logged at debug, not info: they are the client\'s mistake', async () => {
    const reply = await rawRequest(service.url, 'POST /oauth/token HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: abc\r\n\r\n');
    assert.equal(reply.status, 400);
    const lines = logs.lines().filter((l) => l.msg === 'request could not be read');
    assert.equal(lines.length, 1);
    assert.equal(lines[0]!.level, 20);
  });

  test('a malformed request pipelined behind a streaming response writes nothing into that response', async () => {
    const { id } = await service.services.db.insertInto('users').values({ issuer: 'https://idp.test', subject: 'pipelining', email: 'pipe@example.com' }).returning('id').executeTakeFirstOrThrow();
    const session = await createSession(service.services.db, id);
    const { hostname, port } = new URL(service.url);
    const socket = connect(Number(port), hostname);
    const chunks: Buffer[] = [];
    socket.on('data', (c: Buffer) => chunks.push(c));
    const closed = once(socket, 'close');
    await once(socket, 'connect');
    // The bookings event stream sends its headers and stays open.
    socket.write(`GET /bookings/events HTTP/1.1\r\nHost: ${hostname}\r\nCookie: concierge_session=${session}\r\n\r\n`);
    await until('the event stream sent its first lines', () => Buffer.concat(chunks).toString('latin1').includes('retry: 2000'), 10_000);
    assert.match(Buffer.concat(chunks).toString('latin1'), /^HTTP\/1\.1 200 /);
    socket.write('POST /api/v1/execution-jobs HTTP/1.1\r\nHost: x\r\nContent-Length: abc\r\n\r\n');
    await closed;
    const received = Buffer.concat(chunks).toString('latin1');
    assert.equal(received.match(/HTTP\/1\.1 /g)?.length, 1, received);
    assert.doesNotMatch(received, /bad_request/);
  });
});
