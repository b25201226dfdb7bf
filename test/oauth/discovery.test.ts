import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { BACKENDS, startTestService, type TestService } from '../helpers/service.ts';
import { call } from '../helpers/http.ts';

// The two discovery documents, exactly as the contract lists them. They touch no storage, so one
// backend is enough.

describe('discovery documents', () => {
  let service: TestService;
  let base: string;
  before(async () => {
    service = await startTestService(BACKENDS[0]!.url);
    base = service.config.BASE_URL;
  });
  after(() => service?.close());

  test('GET /.well-known/oauth-authorization-server lists the contract fields, issuer byte-identical to BASE_URL', async () => {
    const reply = await call(service.url, 'GET', '/.well-known/oauth-authorization-server');
    assert.equal(reply.status, 200);
    assert.match(reply.headers.get('content-type') ?? '', /^application\/json/);
    const m = reply.body;
    assert.equal(m.issuer, base);
    assert.equal(m.authorization_endpoint, `${base}/oauth/authorize`);
    assert.equal(m.token_endpoint, `${base}/oauth/token`);
    assert.equal(m.revocation_endpoint, `${base}/oauth/revoke`);
    assert.equal(m.registration_endpoint, `${base}/oauth/register`);
    assert.deepEqual(m.scopes_supported, ['book', 'read']);
    assert.deepEqual(m.response_types_supported, ['code']);
    assert.deepEqual(m.grant_types_supported, ['authorization_code', 'refresh_token']);
    assert.deepEqual(m.code_challenge_methods_supported, ['S256']);
    assert.deepEqual(m.token_endpoint_auth_methods_supported, ['client_secret_basic', 'client_secret_post', 'none']);
    assert.equal(m.authorization_response_iss_parameter_supported, true);
    assert.equal(m.client_id_metadata_document_supported, true);
    // Exactly these keys: the contract's table plus the extras docs/oauth.md lists and explains.
    assert.deepEqual(Object.keys(m).sort(), [
      'authorization_endpoint',
      'authorization_response_iss_parameter_supported',
      'client_id_metadata_document_supported',
      'code_challenge_methods_supported',
      'grant_types_supported',
      'issuer',
      'registration_endpoint',
      'response_modes_supported',
      'response_types_supported',
      'revocation_endpoint',
      'revocation_endpoint_auth_methods_supported',
      'scopes_supported',
      'token_endpoint',
      'token_endpoint_auth_methods_supported',
    ]);
    assert.deepEqual(m.response_modes_supported, ['query']);
    assert.deepEqual(m.revocation_endpoint_auth_methods_supported, ['client_secret_basic', 'client_secret_post', 'none']);
  });

  test('GET /.well-known/oauth-protected-resource, also at the path-inserted location for /api/mcp', async () => {
    for (const path of ['/.well-known/oauth-protected-resource', '/.well-known/oauth-protected-resource/api/mcp']) {
      const reply = await call(service.url, 'GET', path);
      assert.equal(reply.status, 200, path);
      assert.equal(reply.body.resource, `${base}/api/mcp`);
      assert.deepEqual(reply.body.authorization_servers, [base]);
      assert.deepEqual(reply.body.bearer_methods_supported, ['header']);
      assert.deepEqual(reply.body.scopes_supported, ['book', 'read']);
      assert.equal(reply.body.resource_name, 'Concierge MCP tools');
      // Exactly these keys: the contract's four plus resource_name (docs/oauth.md says why).
      assert.deepEqual(Object.keys(reply.body).sort(), ['authorization_servers', 'bearer_methods_supported', 'resource', 'resource_name', 'scopes_supported'], path);
    }
  });

  test('both are public JSON with CORS for any origin and a short cache lifetime', async () => {
    for (const path of ['/.well-known/oauth-authorization-server', '/.well-known/oauth-protected-resource', '/.well-known/oauth-protected-resource/api/mcp']) {
      const reply = await call(service.url, 'GET', path, { headers: { origin: 'https://somewhere.example' } });
      assert.equal(reply.headers.get('access-control-allow-origin'), '*');
      const maxAge = Number(/max-age=(\d+)/.exec(reply.headers.get('cache-control') ?? '')?.[1]);
      assert.ok(maxAge > 0 && maxAge <= 3600, path);
      const preflight = await fetch(`${service.url}${path}`, { method: 'OPTIONS', headers: { origin: 'https://somewhere.example', 'access-control-request-method': 'GET' } });
      assert.equal(preflight.status, 204);
      assert.equal(preflight.headers.get('access-control-allow-origin'), '*');
    }
  });

  test('the issuer follows BASE_URL exactly', async () => {
    const other = await startTestService(BACKENDS[0]!.url, { BASE_URL: 'https://concierge.example' });
    try {
      const reply = await call(other.url, 'GET', '/.well-known/oauth-authorization-server');
      assert.equal(reply.body.issuer, 'https://concierge.example');
      assert.equal(reply.body.token_endpoint, 'https://concierge.example/oauth/token');
      const resource = await call(other.url, 'GET', '/.well-known/oauth-protected-resource');
      assert.deepEqual(resource.body.authorization_servers, ['https://concierge.example']);
    } finally {
      await other.close();
    }
  });
});
