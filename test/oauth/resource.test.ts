import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import * as oauth from 'oauth4webapi';
import type { Browser, BrowserContext } from 'playwright-core';
import { BACKENDS, startTestService, type TestService } from '../helpers/service.ts';
import { approvedCode, authorizationUrl, discover, launchChromium, postForm, REDIRECT_URI, registerClient, signedInContext, type RegisteredClient } from '../helpers/oauth.ts';
import { rpc } from '../helpers/mcp.ts';
import { sha256 } from '../../src/security/secrets.ts';

// RFC 8707 resource indicators (every grant is bound to {BASE_URL}/api/mcp) and what /api/mcp
// refuses: a token bound to another audience, an expired token.

for (const backend of BACKENDS) {
  describe(`resource indicators and token checks at /api/mcp on ${backend.name}`, () => {
    let service: TestService;
    let browser: Browser;
    let ada: BrowserContext;
    let as: oauth.AuthorizationServer;
    let app: RegisteredClient;
    const db = () => service.services.db;
    const resource = () => `${service.config.BASE_URL}/api/mcp`;
    const others = () => ['https://evil.example/api/mcp', `${resource()}/`, `${service.config.BASE_URL}/api`, service.config.BASE_URL, `${resource()}?x=1`, ''];
    const basic = (): [string, string] => [app.client.client_id, app.clientSecret!];
    const redeem = (code: string, verifier: string, extra: Record<string, string> = {}) =>
      postForm(`${service.url}/oauth/token`, { grant_type: 'authorization_code', code, redirect_uri: REDIRECT_URI, code_verifier: verifier, ...extra }, { basic: basic() });
    const refresh = (token: string, extra: Record<string, string> = {}) => postForm(`${service.url}/oauth/token`, { grant_type: 'refresh_token', refresh_token: token, ...extra }, { basic: basic() });
    const listTools = (token: string) => rpc(service.url, { jsonrpc: '2.0', id: 1, method: 'tools/list' }, { bearer: token });
    const assertInvalidToken = (reply: Awaited<ReturnType<typeof listTools>>) => {
      assert.equal(reply.status, 401);
      assert.equal(reply.body.error, 'invalid_token');
      assert.equal(reply.headers.get('www-authenticate'), `Bearer error="invalid_token", resource_metadata="${service.config.BASE_URL}/.well-known/oauth-protected-resource"`);
    };
    const pair = async () => {
      const { code, codeVerifier } = await approvedCode(service, ada, app);
      const reply = await redeem(code, codeVerifier);
      assert.equal(reply.status, 200);
      return reply.body as { access_token: string; refresh_token: string };
    };

    before(async () => {
      service = await startTestService(backend.url);
      browser = await launchChromium();
      ada = await signedInContext(service, browser, 'ada@example.com');
      as = await discover(service);
      app = await registerClient(as, { client_name: 'Resource App' });
    });
    after(async () => {
      await browser?.close();
      await service?.close();
    });

    test('authorize: a resource other than {BASE_URL}/api/mcp is an invalid_target redirect with state and iss; the right one goes on to consent', async () => {
      for (const other of others()) {
        const { url, state } = await authorizationUrl(service, app, { extraParams: { resource: other } });
        const response = await fetch(url, { redirect: 'manual' });
        assert.equal(response.status, 303, other);
        const location = new URL(response.headers.get('location')!);
        assert.equal(`${location.origin}${location.pathname}`, REDIRECT_URI, other);
        assert.equal(location.searchParams.get('error'), 'invalid_target', other);
        assert.equal(location.searchParams.get('state'), state, other);
        assert.equal(location.searchParams.get('iss'), service.config.BASE_URL, other);
      }
      const { url } = await authorizationUrl(service, app, { extraParams: { resource: resource() } });
      const response = await fetch(url, { redirect: 'manual' });
      assert.equal(response.status, 303);
      assert.match(response.headers.get('location')!, /^\/oauth\/consent\?request=/);
    });

    test('token endpoint, authorization_code: resource must be the one the code is bound to; another is invalid_target and does not burn the code', async () => {
      const { code, codeVerifier } = await approvedCode(service, ada, app, { extraParams: { resource: resource() } });
      for (const other of others()) {
        const reply = await redeem(code, codeVerifier, { resource: other });
        assert.equal(reply.status, 400, other);
        assert.equal(reply.body.error, 'invalid_target', other);
      }
      const reply = await redeem(code, codeVerifier, { resource: resource() });
      assert.equal(reply.status, 200);
      assert.equal((await listTools(reply.body.access_token)).status, 200);
      // A code asked for without a resource is bound to /api/mcp all the same.
      const unnamed = await approvedCode(service, ada, app);
      assert.equal((await redeem(unnamed.code, unnamed.codeVerifier, { resource: 'https://evil.example/api/mcp' })).body.error, 'invalid_target');
      assert.equal((await redeem(unnamed.code, unnamed.codeVerifier, { resource: resource() })).status, 200);
    });

    test('token endpoint, refresh_token: another resource is invalid_target and rotates nothing; the bound one rotates', async () => {
      const tokens = await pair();
      for (const other of others()) {
        const reply = await refresh(tokens.refresh_token, { resource: other });
        assert.equal(reply.status, 400, other);
        assert.equal(reply.body.error, 'invalid_target', other);
      }
      const rotated = await db().selectFrom('oauth_refresh_tokens').select('rotated_at').where('token_hash', '=', sha256(tokens.refresh_token)).executeTakeFirstOrThrow();
      assert.equal(rotated.rotated_at, null);
      const reply = await refresh(tokens.refresh_token, { resource: resource() });
      assert.equal(reply.status, 200);
      assert.equal((await listTools(reply.body.access_token)).status, 200);
      // Without a resource the refresh keeps the family's binding.
      assert.equal((await refresh(reply.body.refresh_token)).status, 200);
    });

    test('/api/mcp refuses a token bound to another audience: 401 invalid_token with WWW-Authenticate', async () => {
      const tokens = await pair();
      assert.equal((await listTools(tokens.access_token)).status, 200);
      const family = await db().selectFrom('oauth_access_tokens').select('family_id').where('token_hash', '=', sha256(tokens.access_token)).executeTakeFirstOrThrow();
      await db().updateTable('oauth_token_families').set({ resource: 'https://other.example/api/mcp' }).where('id', '=', family.family_id).execute();
      assertInvalidToken(await listTools(tokens.access_token));
    });

    test('/api/mcp refuses an expired access token: 401 invalid_token with WWW-Authenticate', async () => {
      const tokens = await pair();
      assert.equal((await listTools(tokens.access_token)).status, 200);
      await db().updateTable('oauth_access_tokens').set({ expires_at: new Date(Date.now() - 1000) }).where('token_hash', '=', sha256(tokens.access_token)).execute();
      assertInvalidToken(await listTools(tokens.access_token));
      // Its refresh token is still good: the client gets a fresh access token the ordinary way.
      const refreshed = await refresh(tokens.refresh_token);
      assert.equal((await listTools(refreshed.body.access_token)).status, 200);
    });
  });
}
