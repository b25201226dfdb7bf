import { after, before, describe, test } from 'node:test';
import { apiKeyCacheOf } from '../../src/auth/api-key-cache.ts';
import assert from 'node:assert/strict';
import { METHODS } from 'node:http';
import { rawCall, rawRequest } from '../helpers/http.ts';
import { sql } from 'kysely';
import { BACKENDS, startTestService, type TestService } from '../helpers/service.ts';
import { bookingArguments, INITIALIZE, rpc, textOf, within, type RpcReply } from '../helpers/mcp.ts';
import { revokeApiKey } from '../../src/auth/api-keys.ts';

const LIST = { jsonrpc: '2.0', id: 2, method: 'tools/list', params: {} };
const PING = { jsonrpc: '2.0', id: 3, method: 'ping' };
const APP_ORIGIN = 'https://agent.example.com';
/** The name a reverse proxy forwards in Host (MCP_ALLOWED_HOSTS). */
const PROXIED_HOST = 'concierge.internal';

for (const backend of BACKENDS) {
  describe(`POST /api/mcp over raw HTTP on ${backend.name}`, () => {
    let service: TestService;
    let key: string;
    let base: string;
    before(async () => {
      service = await startTestService(backend.url, { MCP_ALLOWED_ORIGINS: `${APP_ORIGIN}, http://127.0.0.1:9`, MCP_ALLOWED_HOSTS: PROXIED_HOST });
      key = await service.mintKey('Acme Travel');
      base = service.services.config.BASE_URL;
    });
    after(() => service.close());

    // First in the suite: the process's MCP server has numbered few requests yet, so the ids it
    // gives these calls are the small ones a stray (the SDK client cancels with its own ids when it
    // times out) or hostile notifications/cancelled would name.
    test("one client's notifications/cancelled cannot cancel another client's request in flight", async () => {
      const otherKey = await service.mintKey('Globex');
      const { db } = service.services;
      // Keys verified in the last seconds are answered from memory: both are verified now, so the
      // requests below reach the MCP server while the database is held.
      // Counted from before the first: the older of the two entries is the one that lapses first.
      const verifiedAt = Date.now();
      for (const bearer of [key, otherKey]) assert.equal((await rpc(service.url, PING, { bearer })).status, 200);
      const cache = apiKeyCacheOf(db);
      assert.ok(cache?.enabled, 'the API-key cache is up');
      // On PGlite the held transaction is the only connection: a wave sent after the keys fell out of
      // the cache would wait for the database, and the database for the wave. Stop well before.
      const sendUntil = verifiedAt + Math.min(1000, cache.ttlMs / 2);
      let calls!: Promise<RpcReply[]>;
      const cancels: RpcReply[] = [];
      // One transaction holds the jobs table: the calls wait inside their tool (in flight in the
      // MCP server) for as long as the cancellations keep coming, naming every small id.
      await db.transaction().execute(async (trx) => {
        await sql`lock table jobs in exclusive mode`.execute(trx);
        calls = Promise.all(
          Array.from({ length: 8 }, (_, i) =>
            rpc(service.url, { jsonrpc: '2.0', id: `call-${i}`, method: 'tools/call', params: { name: 'book_restaurant', arguments: bookingArguments().book_restaurant } }, { bearer: otherKey }),
          ),
        );
        while (Date.now() < sendUntil) {
          const wave = Array.from({ length: 20 }, (_, i) => rpc(service.url, { jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: i + 1, reason: 'timed out' } }, { bearer: key }));
          cancels.push(...(await Promise.all(wave)));
        }
      });
      const replies = await within(calls, 15_000);
      replies.forEach((reply, i) => {
        assert.equal(reply.status, 200);
        assert.equal(reply.body.id, `call-${i}`);
        assert.equal(textOf(reply.body.result).status, 'queued');
      });
      for (const cancel of cancels) assert.equal(cancel.status, 202);
    });

    test('concurrent clients using the same JSON-RPC id each get their own answer, under their own credential', async () => {
      const otherKey = await service.mintKey('Globex');
      const create = async (bearer: string) => {
        const reply = await rpc(service.url, { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'book_restaurant', arguments: bookingArguments().book_restaurant } }, { bearer });
        return textOf(reply.body.result).jobId as string;
      };
      const acmeJob = await create(key);
      const globexJob = await create(otherKey);
      const status = (jobId: string, bearer: string, id: number | string) =>
        rpc(service.url, { jsonrpc: '2.0', id, method: 'tools/call', params: { name: 'get_job_status', arguments: { jobId } } }, { bearer });
      const calls: Array<[string, string, number | string, boolean]> = [];
      for (let i = 0; i < 10; i++) {
        calls.push([acmeJob, key, 7, true], [globexJob, otherKey, 7, true], [globexJob, key, 7, false], [acmeJob, otherKey, 'seven', false]);
      }
      const replies = await Promise.all(calls.map(([jobId, bearer, id]) => status(jobId, bearer, id)));
      replies.forEach((reply, i) => {
        const [jobId, , id, visible] = calls[i]!;
        assert.equal(reply.status, 200);
        assert.equal(reply.body.id, id, 'the reply carries the id its own client sent');
        const result = textOf(reply.body.result);
        if (visible) assert.equal(result.jobId, jobId);
        else assert.equal(result.error, 'job_not_found');
      });
    });

    test('no credential is 401 missing_authorization with resource_metadata', async () => {
      const reply = await rpc(service.url, INITIALIZE());
      assert.equal(reply.status, 401);
      assert.deepEqual(Object.keys(reply.body), ['error', 'message']);
      assert.equal(reply.body.error, 'missing_authorization');
      assert.equal(reply.headers.get('www-authenticate'), `Bearer resource_metadata="${base}/.well-known/oauth-protected-resource"`);
    });

    test('a bad, unknown or revoked credential is 401 invalid_token with resource_metadata', async () => {
      const revocable = await service.mintKey('Acme Travel');
      const [row] = await service.services.db.selectFrom('api_keys').select('id').orderBy('id', 'desc').limit(1).execute();
      assert.ok(await revokeApiKey(service.services.db, row!.id));
      const cases: Array<Record<string, string>> = [
        { authorization: 'Bearer not-a-token' },
        { authorization: 'Bearer svk_test_AAAAAAAAAAAAAAAAAAAAAAAAAAAA' },
        { authorization: `Bearer ${revocable}` },
        { authorization: `Basic ${Buffer.from('a:b').toString('base64')}` },
        { authorization: 'Bearer ' },
      ];
      for (const headers of cases) {
        const reply = await rpc(service.url, LIST, { headers });
        assert.equal(reply.status, 401, headers.authorization);
        assert.equal(reply.body.error, 'invalid_token');
        assert.equal(typeof reply.body.message, 'string');
        assert.equal(reply.headers.get('www-authenticate'), `Bearer error="invalid_token", resource_metadata="${base}/.well-known/oauth-protected-resource"`);
      }
    });

    test('initialize negotiates 2025-06-18, and newer revisions the SDK knows when asked', async () => {
      for (const version of ['2025-06-18', '2025-11-25']) {
        const reply = await rpc(service.url, INITIALIZE(version), { bearer: key });
        assert.equal(reply.status, 200);
        assert.equal(reply.headers.get('content-type'), 'application/json');
        assert.equal(reply.body.result.protocolVersion, version);
        assert.equal(reply.body.result.serverInfo.name, 'concierge');
        assert.equal(reply.body.result.serverInfo.version, reply.headers.get('concierge-version'), 'serverInfo.version is the release version the header shows');
        assert.deepEqual(reply.body.result.capabilities, { tools: { listChanged: false } });
        assert.equal(reply.headers.get('mcp-session-id'), null, 'stateless: no session');
      }
    });

    test('ping and tools/list need a credential but no scope; the answer follows Accept', async () => {
      assert.deepEqual((await rpc(service.url, PING, { bearer: key })).body, { jsonrpc: '2.0', id: 3, result: {} });
      const json = await rpc(service.url, LIST, { bearer: key, headers: { accept: '*/*', 'mcp-protocol-version': '2025-06-18' } });
      assert.equal(json.headers.get('content-type'), 'application/json');
      assert.equal(json.body.result.tools.length, 6);
      const onlyJson = await rpc(service.url, LIST, { bearer: key, headers: { accept: 'application/json' } });
      assert.equal(onlyJson.headers.get('content-type'), 'application/json');
      const sse = await rpc(service.url, LIST, { bearer: key, headers: { accept: 'text/event-stream' } });
      assert.equal(sse.status, 200);
      assert.equal(sse.headers.get('content-type'), 'text/event-stream');
      assert.match(sse.text, /^event: message\ndata: /);
      assert.equal(sse.body.result.tools.length, 6);
      const preferred = await rpc(service.url, LIST, { bearer: key, headers: { accept: 'application/json;q=0.4, text/event-stream;q=0.9' } });
      assert.equal(preferred.headers.get('content-type'), 'text/event-stream');
    });

    test('a notification or a response is accepted with 202 and no body', async () => {
      for (const message of [{ jsonrpc: '2.0', method: 'notifications/initialized' }, { jsonrpc: '2.0', id: 4, result: {} }, { jsonrpc: '2.0', id: 4, error: { code: -32601, message: 'no' } }]) {
        const reply = await rpc(service.url, message, { bearer: key });
        assert.equal(reply.status, 202, JSON.stringify(message));
        assert.equal(reply.text, '');
      }
    });

    test('GET and DELETE are 405 with Allow: POST', async () => {
      for (const [method, headers] of [
        ['GET', { accept: 'text/event-stream' }],
        ['DELETE', {}],
        ['DELETE', { 'content-type': 'application/json' }],
      ] as const) {
        const reply = await rpc(service.url, undefined, { method, bearer: key, headers });
        assert.equal(reply.status, 405, method);
        assert.equal(reply.headers.get('allow'), 'POST');
        assert.equal(reply.body.error, 'method_not_allowed');
        assert.equal(typeof reply.body.message, 'string');
      }
    });

    test('every other method Node can parse is 405 with Allow: POST too, not 404 (PUT, TRACE, PROPFIND, QUERY…)', async () => {
      const methods = METHODS.filter((m) => !['CONNECT', 'HEAD', 'OPTIONS', 'GET', 'POST', 'DELETE'].includes(m));
      assert.ok(['PUT', 'PATCH', 'TRACE', 'QUERY', 'PROPFIND', 'LINK'].every((m) => methods.includes(m)));
      for (const method of methods) {
        const reply = await rawCall(service.url, method, '/api/mcp', { authorization: `Bearer ${key}` });
        assert.equal(reply.status, 405, method);
        assert.equal(reply.headers.get('allow'), 'POST', method);
        assert.equal(reply.body.error, 'method_not_allowed', method);
      }
    });

    test('a wrong Accept is 406 and a wrong Content-Type 415, in the {error, message} envelope', async () => {
      for (const accept of ['text/html', 'application/json;q=0, text/event-stream;q=0', '']) {
        const reply = await rpc(service.url, LIST, { bearer: key, headers: { accept } });
        assert.equal(reply.status, 406, accept);
        assert.equal(reply.body.error, 'not_acceptable');
      }
      for (const type of ['text/plain', 'application/x-www-form-urlencoded', 'application/jsonx']) {
        const reply = await rpc(service.url, LIST, { bearer: key, headers: { 'content-type': type } });
        assert.equal(reply.status, 415, type);
        assert.deepEqual(Object.keys(reply.body), ['error', 'message']);
        assert.equal(reply.body.error, 'unsupported_media_type');
      }
      const charset = await rpc(service.url, PING, { bearer: key, headers: { 'content-type': 'application/json; charset=utf-8' } });
      assert.equal(charset.status, 200);
    });

    test('a body over 1 MiB is 413 payload_too_large in the {error, message} envelope; one just under is read', async () => {
      const padded = (size: number) => {
        const message = JSON.stringify({ ...PING, params: { _meta: { pad: '' } } });
        return message.replace('"pad":""', `"pad":"${'x'.repeat(size - message.length)}"`);
      };
      const over = await rpc(service.url, undefined, { bearer: key, raw: padded(1024 * 1024 + 1), headers: { 'content-type': 'application/json' } });
      assert.equal(over.status, 413);
      assert.deepEqual(over.body, { error: 'payload_too_large', message: 'the request body is larger than 1 MiB' });
      const under = await rpc(service.url, undefined, { bearer: key, raw: padded(1024 * 1024), headers: { 'content-type': 'application/json' } });
      assert.equal(under.status, 200, under.text.slice(0, 200));
      assert.deepEqual(under.body, { jsonrpc: '2.0', id: 3, result: {} });
    });

    test('an unsupported MCP-Protocol-Version header is 400', async () => {
      const reply = await rpc(service.url, LIST, { bearer: key, headers: { 'mcp-protocol-version': '2023-01-01' } });
      assert.equal(reply.status, 400);
      assert.equal(reply.body.error, 'unsupported_protocol_version');
      assert.match(reply.body.message, /2025-06-18/);
      // initialize negotiates in its body; a stray header there does not block it.
      const init = await rpc(service.url, INITIALIZE(), { bearer: key, headers: { 'mcp-protocol-version': '2023-01-01' } });
      assert.equal(init.status, 200);
    });

    test('a batch, a body that is not JSON, and one that is not JSON-RPC are JSON-RPC errors', async () => {
      const batch = await rpc(service.url, [PING, LIST], { bearer: key });
      assert.equal(batch.status, 400);
      assert.equal(batch.body.jsonrpc, '2.0');
      assert.equal(batch.body.id, null);
      assert.equal(batch.body.error.code, -32600);
      assert.match(batch.body.error.message, /batch/i);

      const garbage = await rpc(service.url, undefined, { bearer: key, raw: '{"jsonrpc": "2.0", ' });
      assert.equal(garbage.status, 400);
      assert.equal(garbage.body.error.code, -32700);

      for (const body of [{ hello: 'world' }, 'ping', 42, { jsonrpc: '1.0', id: 1, method: 'ping' }, { jsonrpc: '2.0', id: null, method: 'ping' }, { jsonrpc: '2.0', id: [1], method: 'ping' }]) {
        const reply = await rpc(service.url, body, { bearer: key });
        assert.equal(reply.status, 400, JSON.stringify(body));
        assert.equal(reply.body.error.code, -32600);
      }
    });

    test("a message the SDK's schema refuses is 400 -32600, with its id when that is a valid id, and the next request is answered", async () => {
      const cases: Array<[Record<string, unknown>, string | number | null]> = [
        [{ jsonrpc: '2.0', id: 7, method: 'ping', params: null }, 7],
        [{ jsonrpc: '2.0', id: 'seven', method: 'tools/list', params: [1] }, 'seven'],
        [{ jsonrpc: '2.0', id: 7, method: 'ping', extra: true }, 7],
        [{ jsonrpc: '2.0', id: 7, method: 'ping', result: {} }, 7],
        [{ jsonrpc: '2.0', id: 1.5, method: 'ping' }, null],
        [{ jsonrpc: '2.0', id: 7, method: 'tools/call', params: { name: 'get_job_status', _meta: 5 } }, 7],
        [{ jsonrpc: '2.0', method: 'notifications/initialized', params: null }, null],
        [{ jsonrpc: '2.0', id: 7, result: {}, error: { code: -32601, message: 'no' } }, 7],
      ];
      for (const [message, id] of cases) {
        const reply = await within(rpc(service.url, message, { bearer: key }));
        assert.equal(reply.status, 400, JSON.stringify(message));
        assert.equal(reply.headers.get('content-type'), 'application/json; charset=utf-8');
        assert.deepEqual(Object.keys(reply.body), ['jsonrpc', 'id', 'error']);
        assert.equal(reply.body.jsonrpc, '2.0');
        assert.equal(reply.body.id, id, JSON.stringify(message));
        assert.equal(reply.body.error.code, -32600, JSON.stringify(message));
        assert.match(reply.body.error.message, /^Invalid Request/);
        assert.deepEqual((await within(rpc(service.url, PING, { bearer: key }))).body, { jsonrpc: '2.0', id: 3, result: {} }, 'the endpoint still answers');
      }
    });

    test('an unknown tool or malformed tools/call params are -32602, an unknown method -32601', async () => {
      const tool = await rpc(service.url, { jsonrpc: '2.0', id: 9, method: 'tools/call', params: { name: 'nope', arguments: {} } }, { bearer: key });
      assert.equal(tool.status, 200);
      assert.equal(tool.body.id, 9);
      assert.equal(tool.body.error.code, -32602);
      for (const params of [{ name: 'get_job_status', arguments: 'x' }, { arguments: {} }, { name: 5 }]) {
        const malformed = await rpc(service.url, { jsonrpc: '2.0', id: 11, method: 'tools/call', params }, { bearer: key });
        assert.equal(malformed.body.error.code, -32602, JSON.stringify(params));
      }
      const method = await rpc(service.url, { jsonrpc: '2.0', id: 10, method: 'resources/list' }, { bearer: key });
      assert.equal(method.body.error.code, -32601);
    });

    test('a browser Origin that is not allowed is 403, before anything else', async () => {
      for (const origin of ['https://evil.example', 'null', 'http://localhost:1']) {
        const reply = await rpc(service.url, LIST, { headers: { origin } });
        assert.equal(reply.status, 403, origin);
        assert.equal(reply.body.error, 'origin_not_allowed');
        assert.equal(reply.headers.get('access-control-allow-origin'), null);
        const preflight = await rpc(service.url, undefined, { method: 'OPTIONS', headers: { origin, 'access-control-request-method': 'POST' } });
        assert.equal(preflight.status, 403);
      }
    });

    // DNS rebinding: a page on a name the attacker points at this service reaches it with that name
    // in Host (and, from a browser, as its Origin too). fetch sets Host itself: node:http sends it as given.
    test('a Host that is not BASE_URL\'s, a loopback name or MCP_ALLOWED_HOSTS is 403 host_not_allowed, before anything else', async () => {
      const { port } = new URL(service.url);
      const body = JSON.stringify(LIST);
      const post = (host: string, headers: Record<string, string> = {}) =>
        rawCall(service.url, 'POST', '/api/mcp', { host, authorization: `Bearer ${key}`, 'content-type': 'application/json', accept: 'application/json, text/event-stream', ...headers }, body);
      for (const host of [`rebind.attacker.example:${port}`, 'rebind.attacker.example', `127.0.0.1.attacker.example:${port}`, `localhost.attacker.example:${port}`, `${PROXIED_HOST}.attacker.example`]) {
        for (const reply of [await post(host), await post(host, { origin: `http://${host}` })]) {
          assert.equal(reply.status, 403, host);
          assert.deepEqual(Object.keys(reply.body), ['error', 'message'], host);
          assert.equal(reply.body.error, 'host_not_allowed', host);
          assert.match(reply.body.message, /MCP_ALLOWED_HOSTS/);
          assert.equal(reply.headers.get('access-control-allow-origin'), null);
        }
        // Also without a credential (not 401), on the preflight and on the methods that are 405.
        assert.equal((await rawCall(service.url, 'POST', '/api/mcp', { host, 'content-type': 'application/json' }, body)).body.error, 'host_not_allowed');
        assert.equal((await rawCall(service.url, 'OPTIONS', '/api/mcp', { host, origin: `http://${host}`, 'access-control-request-method': 'POST' })).status, 403);
        assert.equal((await rawCall(service.url, 'GET', '/api/mcp', { host })).body.error, 'host_not_allowed');
      }
      // An HTTP/1.0 request may come without Host at all: refused too.
      const bare = await rawRequest(service.url, `POST /api/mcp HTTP/1.0\r\nAuthorization: Bearer ${key}\r\nContent-Type: application/json\r\nAccept: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`);
      assert.equal(bare.status, 403);
      assert.equal(bare.body.error, 'host_not_allowed');
      // The check is /api/mcp's own: the rest of the service answers whatever Host it is reached by.
      assert.equal((await rawCall(service.url, 'GET', '/healthz', { host: 'rebind.attacker.example' })).status, 200);
    });

    test('BASE_URL\'s host, the loopback names and MCP_ALLOWED_HOSTS are answered, on any port and in any case', async () => {
      const { port } = new URL(service.url);
      assert.equal(new URL(base).host, `127.0.0.1:${port}`, 'the test service\'s BASE_URL');
      for (const host of [`127.0.0.1:${port}`, '127.0.0.1', `localhost:${port}`, 'LocalHost', '[::1]:8080', `${PROXIED_HOST}:${port}`, 'Concierge.Internal', `${PROXIED_HOST}.`]) {
        const reply = await rawCall(service.url, 'POST', '/api/mcp', { host, authorization: `Bearer ${key}`, 'content-type': 'application/json', accept: 'application/json, text/event-stream' }, JSON.stringify(PING));
        assert.equal(reply.status, 200, host);
        assert.deepEqual(reply.body, { jsonrpc: '2.0', id: 3, result: {} }, host);
      }
    });

    test('CORS for allowed origins: preflight, exposed WWW-Authenticate and Mcp-Session-Id', async () => {
      for (const origin of [new URL(base).origin, APP_ORIGIN]) {
        const preflight = await rpc(service.url, undefined, {
          method: 'OPTIONS',
          headers: {
            origin,
            'access-control-request-method': 'POST',
            'access-control-request-headers': 'authorization, content-type, mcp-protocol-version',
            'content-type': 'application/json',
          },
        });
        assert.equal(preflight.status, 204);
        assert.equal(preflight.headers.get('access-control-allow-origin'), origin);
        assert.equal(preflight.headers.get('access-control-allow-methods'), 'POST');
        const allowed = (preflight.headers.get('access-control-allow-headers') ?? '').toLowerCase();
        for (const header of ['authorization', 'content-type', 'mcp-protocol-version']) assert.ok(allowed.includes(header), header);

        const unauthenticated = await rpc(service.url, LIST, { headers: { origin } });
        assert.equal(unauthenticated.status, 401);
        assert.equal(unauthenticated.headers.get('access-control-allow-origin'), origin);
        const exposed = (unauthenticated.headers.get('access-control-expose-headers') ?? '').toLowerCase();
        assert.ok(exposed.includes('www-authenticate') && exposed.includes('mcp-session-id'), exposed);

        const ok = await rpc(service.url, LIST, { bearer: key, headers: { origin } });
        assert.equal(ok.status, 200);
        assert.equal(ok.headers.get('access-control-allow-origin'), origin);
        assert.equal(ok.headers.get('vary'), 'Origin');
      }
    });

    test('every reply carries the request id, also the ones the MCP transport writes', async () => {
      const reply = await rpc(service.url, PING, { bearer: key, headers: { 'x-request-id': 'trace-mcp-1' } });
      assert.equal(reply.headers.get('x-request-id'), 'trace-mcp-1');
    });

    // Last: it takes the key store away (and puts it back).
    test('an unreachable credential store is 503 auth_backend_unavailable with Retry-After (fails closed)', async () => {
      const { db } = service.services;
      // A renamed table stands in for a lost store; keys verified in the last seconds would still
      // be answered from the API-key cache, which a real outage empties (its listener drops).
      apiKeyCacheOf(db)?.disable();
      await sql`alter table api_keys rename to api_keys_unavailable`.execute(db);
      await sql`alter table oauth_access_tokens rename to oauth_access_tokens_unavailable`.execute(db);
      try {
        for (const bearer of [key, `cat_${'A'.repeat(43)}`]) {
          const reply = await rpc(service.url, LIST, { bearer });
          assert.equal(reply.status, 503, bearer);
          assert.deepEqual(Object.keys(reply.body), ['error', 'message']);
          assert.equal(reply.body.error, 'auth_backend_unavailable');
          assert.ok(Number(reply.headers.get('retry-after')) > 0);
        }
      } finally {
        await sql`alter table api_keys_unavailable rename to api_keys`.execute(db);
        await sql`alter table oauth_access_tokens_unavailable rename to oauth_access_tokens`.execute(db);
      }
      assert.equal((await rpc(service.url, PING, { bearer: key })).status, 200);
    });
  });
}
