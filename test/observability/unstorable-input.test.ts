import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { startTestService, type TestService } from '../helpers/service.ts';
import { bookingArguments, rpc } from '../helpers/mcp.ts';
import { REDIRECT_URI } from '../helpers/oauth.ts';
import { assertEnvelope, type Answer } from '../helpers/envelope.ts';

// Text PostgreSQL cannot store (U+0000, an unpaired UTF-16 surrogate) in every parameter of the
// OAuth, identity, handoff and MCP surfaces: a clear 400 in the surface's envelope (an MCP tool
// answers an isError result), never a database error. The REST API's own fuzzing is in
// test/api/validation.test.ts.

const NUL = '\u0000';
const LONE = '\ud800';
const TOKEN = 'A'.repeat(43);
const UUID = '0b1f2c3d-4e5f-4a6b-8c7d-9e0f1a2b3c4d';

async function send(url: string, init: RequestInit & { headers?: Record<string, string> } = {}): Promise<Answer> {
  const response = await fetch(url, { redirect: 'manual', ...init, headers: { accept: 'application/json', ...init.headers } });
  return { status: response.status, type: response.headers.get('content-type') ?? '', text: await response.text() };
}

/** A query or form string with `name` set to `bad` (percent-encoded as a form would). */
function form(params: Record<string, string>, name: string, bad: string): string {
  return Object.entries({ ...params, [name]: bad })
    .map(([k, v]) => `${encodeURIComponent(k)}=${v === bad ? '%00' : encodeURIComponent(v)}`)
    .join('&');
}

function basic(id: string, secret: string): string {
  return `Basic ${Buffer.from(`${id}:${secret}`).toString('base64')}`;
}

describe('text PostgreSQL cannot store, in every parameter, is refused as the client\'s mistake', () => {
  let service: TestService;
  let key: string;
  let clientId: string;
  let clientSecret: string;

  before(async () => {
    service = await startTestService('pglite:memory:');
    key = await service.mintKey();
    const registered = await send(`${service.url}/oauth/register`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ client_name: 'Fuzz Agent', redirect_uris: [REDIRECT_URI] }) });
    assert.equal(registered.status, 201, registered.text);
    ({ client_id: clientId, client_secret: clientSecret } = JSON.parse(registered.text));
  });
  after(() => service?.close());

  const refused = (what: string, path: string, answer: Answer) => {
    assert.equal(answer.status, 400, `${what}: ${answer.status} ${answer.text.slice(0, 300)}`);
    assertEnvelope(what, path, answer);
    assert.match(answer.text, /U\+0000|surrogate|could not be read/, `${what}: the reason is said: ${answer.text.slice(0, 300)}`);
  };

  test('OAuth: authorize, token (form and HTTP Basic), revoke, register', async () => {
    const authorize = { response_type: 'code', client_id: clientId, redirect_uri: REDIRECT_URI, scope: 'read', state: 's', code_challenge: 'x'.repeat(43), code_challenge_method: 'S256', resource: `${service.url}/api/mcp` };
    for (const name of Object.keys(authorize)) {
      refused(`authorize ${name}`, '/oauth/authorize', await send(`${service.url}/oauth/authorize?${form(authorize, name, NUL)}`));
    }
    const grants: Array<Record<string, string>> = [
      { grant_type: 'authorization_code', code: 'c', redirect_uri: REDIRECT_URI, client_id: clientId, client_secret: clientSecret, code_verifier: 'v'.repeat(43), resource: `${service.url}/api/mcp` },
      { grant_type: 'refresh_token', refresh_token: 'r', scope: 'read', client_id: clientId, client_secret: clientSecret },
    ];
    for (const grant of grants) {
      for (const name of Object.keys(grant)) {
        refused(`token ${grant.grant_type} ${name}`, '/oauth/token', await send(`${service.url}/oauth/token`, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: form(grant, name, NUL) }));
      }
    }
    const revoke = { token: 't', token_type_hint: 'refresh_token', client_id: clientId, client_secret: clientSecret };
    for (const name of Object.keys(revoke)) {
      refused(`revoke ${name}`, '/oauth/revoke', await send(`${service.url}/oauth/revoke`, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: form(revoke, name, NUL) }));
    }
    for (const path of ['/oauth/token', '/oauth/revoke']) {
      const body = path === '/oauth/token' ? 'grant_type=refresh_token&refresh_token=r' : 'token=t';
      for (const [id, secret] of [[`${clientId}%00`, clientSecret], [`%00`, clientSecret], [clientId, `${clientSecret}%00`]] as const) {
        refused(`${path} Basic ${id === clientId ? 'secret' : 'client id'}`, path, await send(`${service.url}${path}`, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded', authorization: basic(id, secret) }, body }));
      }
    }
    const metadata: Record<string, unknown> = { client_name: 'Fuzz', redirect_uris: [REDIRECT_URI], client_uri: 'https://fuzz.example', scope: 'read', token_endpoint_auth_method: 'client_secret_basic', grant_types: ['authorization_code'], response_types: ['code'], software_id: 'fuzz', logo_uri: 'https://fuzz.example/logo.png' };
    for (const name of Object.keys(metadata)) {
      for (const bad of [NUL, LONE]) {
        const value = Array.isArray(metadata[name]) ? [`${(metadata[name] as string[])[0]}${bad}`] : `${metadata[name] as string}${bad}`;
        refused(`register ${name}`, '/oauth/register', await send(`${service.url}/oauth/register`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ ...metadata, [name]: value }) }));
      }
    }
    refused('register: a key', '/oauth/register', await send(`${service.url}/oauth/register`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ ...metadata, [`x${NUL}`]: 1 }) }));
  });

  test('identity: sign-in, its callback, sign-out, the development IdP\'s pages, connected apps', async () => {
    const cases: Array<[string, string, RequestInit?]> = [
      ['GET', '/signin?return_to=%2F%00'],
      ['GET', '/signin/callback?code=%00&state=s'],
      ['GET', '/signin/callback?code=c&state=%00'],
      ['POST', '/signout', { body: 'csrf=%00', headers: { 'content-type': 'application/x-www-form-urlencoded' } }],
      ['POST', '/dev-idp/interaction/%00/login', { body: 'email=a%40example.com', headers: { 'content-type': 'application/x-www-form-urlencoded' } }],
      ['POST', '/dev-idp/interaction/uid/login', { body: 'email=a%00%40example.com', headers: { 'content-type': 'application/x-www-form-urlencoded' } }],
      ['GET', '/dev-idp/interaction/%00'],
      ['POST', '/developers/connected-apps/%00/revoke', { body: 'csrf=c', headers: { 'content-type': 'application/x-www-form-urlencoded' } }],
    ];
    for (const [method, path, init] of cases) {
      refused(`${method} ${path}`, path, await send(`${service.url}${path}`, { method, ...init } as RequestInit & { headers?: Record<string, string> }));
    }
  });

  test('handoff, watch and bookings', async () => {
    const cases: Array<[string, string]> = [
      ['GET', `/handoff/${TOKEN}%00`],
      ['GET', `/handoff/%00${TOKEN}/status`],
      ['POST', `/handoff/${TOKEN}%00/cancel`],
      ['GET', `/handoff/${TOKEN}?screen=%00`],
      ['GET', `/watch/${UUID}%00/${TOKEN}`],
      ['GET', `/watch/${UUID}/${TOKEN}%00`],
      ['GET', `/bookings/${UUID}%00/item`],
      ['GET', '/bookings?cursor=%00'],
    ];
    for (const [method, path] of cases) refused(`${method} ${path}`, path, await send(`${service.url}${path}`, { method }));
  });

  test('MCP: every string argument of every tool', async () => {
    const calls: Array<[string, Record<string, unknown>]> = [];
    for (const bad of [NUL, LONE]) {
      calls.push(['get_job_status', { jobId: `${UUID}${bad}` }], ['get_job_audit', { jobId: `${UUID}${bad}` }]);
      for (const [tool, args] of Object.entries(bookingArguments())) {
        for (const [name, value] of Object.entries(args)) {
          if (typeof value === 'string') calls.push([tool, { ...args, [name]: `${value}${bad}` }]);
          if (value && typeof value === 'object') {
            for (const [field, inner] of Object.entries(value)) if (typeof inner === 'string') calls.push([tool, { ...args, [name]: { ...value, [field]: `${inner}${bad}` } }]);
          }
        }
        calls.push([tool, { ...args, idempotencyKey: `k${bad}` }]);
      }
    }
    for (const [i, [tool, args]] of calls.entries()) {
      const reply = await rpc(service.url, { jsonrpc: '2.0', id: i, method: 'tools/call', params: { name: tool, arguments: args } }, { bearer: key });
      const what = `${tool} ${JSON.stringify(args).slice(0, 120)}`;
      assertEnvelope(what, '/api/mcp', { status: reply.status, type: reply.headers.get('content-type') ?? '', text: reply.text });
      assert.equal(reply.status, 200, `${what}: ${reply.text.slice(0, 300)}`);
      assert.equal(reply.body?.result?.isError, true, `${what}: ${reply.text.slice(0, 300)}`);
      assert.match(reply.body.result.content[0].text, /invalid_arguments|job_not_found/, `${what}: ${reply.text.slice(0, 300)}`);
    }
  });
});
