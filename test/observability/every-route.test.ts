import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { request as httpRequest } from 'node:http';
import type { PGlite } from '@electric-sql/pglite';
import { startTestService, type TestService } from '../helpers/service.ts';
import { assertEnvelope, type Answer } from '../helpers/envelope.ts';

// Every route the app serves, walked with a broken database (the service's tables gone from its
// schema: every query fails with a PostgreSQL error) and with bodies of a media type no route
// takes. Whatever the route, the answer is in its surface's envelope, and no database error text,
// SQLSTATE, stack or Fastify internals reach it.

interface Route {
  path: string;
  methods: string[];
}

/** Fastify's route tree (printRoutes) as full paths with their methods. */
function routesOf(tree: string): Route[] {
  const routes: Route[] = [];
  const stack: string[] = [];
  for (const line of tree.split('\n')) {
    const at = line.indexOf('── ');
    if (at < 0) continue;
    const depth = Math.floor(at / 4);
    const match = /^(.*?) \(([^)]*)\)$/.exec(line.slice(at + 3).trim());
    if (!match) continue;
    stack.length = depth;
    stack[depth] = match[1]!;
    let path = '';
    for (const segment of stack) path += path.endsWith('/') || segment.startsWith('/') || path === '' ? segment : `/${segment}`;
    routes.push({ path, methods: match[2]!.split(', ') });
  }
  return routes;
}

const TOKEN = 'A'.repeat(43);
const UUID = '0b1f2c3d-4e5f-4a6b-8c7d-9e0f1a2b3c4d';
const PARAMS: Record<string, string> = { ':token': TOKEN, ':jobId': UUID, ':uid': 'some-interaction', ':grantId': '1', ':profileId': '1', ':providerId': 'resy', '*': 'nowhere' };
const METHODS = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'];

function concrete(path: string): string {
  return path.replace(/:[A-Za-z]+|\*/g, (name) => PARAMS[name] ?? 'x');
}

async function send(url: string, method: string, body?: { type: string; data: string }, headers: Record<string, string> = {}): Promise<Answer> {
  const response = await fetch(url, {
    method,
    redirect: 'manual',
    headers: {
      authorization: `Bearer svk_test_${'B'.repeat(43)}`,
      cookie: `concierge_session=${'C'.repeat(43)}; __Host-concierge_session=${'C'.repeat(43)}`,
      ...(body ? { 'content-type': body.type } : {}),
      ...headers,
    },
    body: body?.data,
  });
  return { status: response.status, type: response.headers.get('content-type') ?? '', text: await response.text() };
}

/** A WebSocket handshake (Node's fetch cannot send one): the status and body of a refusal. */
function upgrade(url: string, origin: string): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(url, {
      agent: false,
      headers: { connection: 'Upgrade', upgrade: 'websocket', 'sec-websocket-version': '13', 'sec-websocket-key': 'dGhlIHNhbXBsZSBub25jZQ==', origin },
    });
    req.on('upgrade', (_res, socket) => {
      socket.destroy();
      resolve({ status: 101, type: '', text: '' });
    });
    req.on('response', (res) => {
      let text = '';
      res.on('data', (chunk) => (text += chunk));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, type: String(res.headers['content-type'] ?? ''), text }));
    });
    req.on('error', reject);
    req.end();
  });
}

describe('every route answers in its envelope, and nothing of the database or the framework leaks', () => {
  let service: TestService;
  let routes: Route[];
  let pglite: PGlite;

  before(async () => {
    service = await startTestService('pglite:memory:');
    routes = routesOf(service.app.printRoutes({ commonPrefix: false }));
    pglite = service.services.database.boss.pglite!;
  });
  after(() => service?.close());

  test('the walk covers the surfaces', () => {
    const paths = routes.map((r) => r.path);
    for (const expected of ['/handoff/:token/status', '/watch/:jobId/:token', '/dev-idp/*', '/oauth/token', '/api/mcp', '/api/v1/execution-jobs/:jobId', '/bookings/events', '/signin/callback']) {
      assert.ok(paths.includes(expected), `${expected} in ${paths.join(' ')}`);
    }
  });

  test('with unsupported media types, and at unknown paths (404 not_found whatever the body; REST authenticates first)', async () => {
    const weird = { type: 'application/x-weird', data: 'a=1' };
    for (const route of routes) {
      for (const method of route.methods.filter((m) => m !== 'GET' && m !== 'HEAD' && METHODS.includes(m))) {
        const path = concrete(route.path);
        const answer = await send(`${service.url}${path}`, method, weird);
        assertEnvelope(`${method} ${route.path} (x-weird body)`, path, answer);
        if (answer.status === 415) assert.match(answer.text, /unsupported_media_type|invalid_request|invalid_client_metadata|Content-Type/i);
      }
    }
    for (const path of ['/nowhere', '/handoff', '/oauth/nowhere', '/dev-idp-nope']) {
      for (const method of ['POST', 'PUT', 'DELETE']) {
        const answer = await send(`${service.url}${path}`, method, weird);
        assert.equal(answer.status, 404, `${method} ${path}: ${answer.text}`);
        assert.equal(JSON.parse(answer.text).error, 'not_found');
      }
    }
    // The REST surface authenticates before it routes (envelope.test.ts has the keyed 404): with
    // an unknown key, an unknown path is the key's 401, in the REST envelope, whatever the body.
    const rest = await send(`${service.url}/api/v1/nowhere`, 'POST', weird);
    assert.equal(rest.status, 401, rest.text);
    assert.equal(JSON.parse(rest.text).error.code, 'invalid_api_key');
    // The development IdP's own unknown pages.
    const idp = await send(`${service.url}/dev-idp/nowhere`, 'GET');
    assert.equal(idp.status, 404);
    assertEnvelope('GET /dev-idp/nowhere', '/dev-idp/nowhere', idp);
  });

  test('WebSocket paths refuse a handshake in the envelope', async () => {
    for (const route of routes.filter((r) => r.path.endsWith('/live'))) {
      const path = concrete(route.path);
      for (const origin of ['https://evil.example', new URL(service.url).origin]) {
        const answer = await upgrade(`${service.url}${path}`, origin);
        assert.ok(answer.status >= 400, `${route.path} from ${origin}: ${answer.status}`);
        assertEnvelope(`upgrade ${route.path} from ${origin}`, path, answer);
      }
    }
  });

  test('with a broken database', async () => {
    // The service's tables vanish from its schema: every query of the service fails in PostgreSQL.
    await pglite.exec('alter schema public rename to broken_public; create schema public;');
    try {
      for (const route of routes) {
        const path = concrete(route.path);
        for (const method of route.methods.filter((m) => METHODS.includes(m))) {
          const body = method === 'GET' || method === 'DELETE' ? undefined : route.path.startsWith('/oauth/') && route.path !== '/oauth/register'
            ? { type: 'application/x-www-form-urlencoded', data: 'grant_type=refresh_token&refresh_token=x&client_id=c&token=t' }
            : { type: 'application/json', data: '{"jsonrpc":"2.0","id":1,"method":"tools/list"}' };
          for (const accept of ['application/json', 'text/html']) {
            const answer = await send(`${service.url}${path}`, method, body, { accept: route.path === '/api/mcp' ? 'application/json, text/event-stream' : accept });
            assertEnvelope(`${method} ${route.path} (broken database, accept ${accept})`, path, answer);
          }
        }
      }
      const status = await send(`${service.url}/handoff/${TOKEN}/status`, 'GET');
      assert.ok(status.status >= 500, `the handoff status cannot be read: ${status.status}`);
      assert.equal(JSON.parse(status.text).error, 'internal_error');
      assert.equal((await send(`${service.url}/readyz`, 'GET')).status, 503);
    } finally {
      await pglite.exec('drop schema public cascade; alter schema broken_public rename to public;');
    }
    assert.equal((await send(`${service.url}/readyz`, 'GET')).status, 200);
  });
});
