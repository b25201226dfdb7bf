import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { Browser } from 'playwright-core';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport, StreamableHTTPError } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { UnauthorizedError, type OAuthClientProvider } from '@modelcontextprotocol/sdk/client/auth.js';
import type { OAuthClientInformationMixed, OAuthClientMetadata, OAuthTokens } from '@modelcontextprotocol/sdk/shared/auth.js';
import { BACKENDS, startTestService, type TestService } from '../helpers/service.ts';
import { bookingArguments, mcpClient, modernRequest, rpc, textOf } from '../helpers/mcp.ts';
import { launchChromium, obtainAccessToken, REDIRECT_URI, signedInContext } from '../helpers/oauth.ts';

/**
 * The SDK client's own OAuth support, as an agent host uses it: it discovers, registers and
 * exchanges the code itself; the test plays the person in a real Chromium (sign-in, Approve).
 */
class TestOAuthProvider implements OAuthClientProvider {
  information: OAuthClientInformationMixed | undefined;
  saved: OAuthTokens | undefined;
  verifier = '';
  authorizationUrl: URL | undefined;
  readonly expectedState = `state-${Math.random().toString(36).slice(2)}`;
  get redirectUrl() {
    return REDIRECT_URI;
  }
  get clientMetadata(): OAuthClientMetadata {
    return { client_name: 'SDK Test Agent', client_uri: 'https://agent.example.com', redirect_uris: [REDIRECT_URI], grant_types: ['authorization_code', 'refresh_token'], response_types: ['code'], token_endpoint_auth_method: 'client_secret_basic' };
  }
  state() {
    return this.expectedState;
  }
  clientInformation() {
    return this.information;
  }
  saveClientInformation(information: OAuthClientInformationMixed) {
    this.information = information;
  }
  tokens() {
    return this.saved;
  }
  saveTokens(tokens: OAuthTokens) {
    this.saved = tokens;
  }
  redirectToAuthorization(url: URL) {
    this.authorizationUrl = url;
  }
  saveCodeVerifier(verifier: string) {
    this.verifier = verifier;
  }
  codeVerifier() {
    return this.verifier;
  }
}

/** Plays the person: opens the authorization URL signed in as `email`, approves, returns the callback. */
async function approveInBrowser(service: TestService, browser: Browser, url: URL, email: string): Promise<URL> {
  const context = await signedInContext(service, browser, email);
  try {
    const page = await context.newPage();
    const callback = new Promise<URL>((resolve) => page.on('request', (r) => r.url().startsWith(`${REDIRECT_URI}?`) && resolve(new URL(r.url()))));
    await page.goto(url.href);
    await page.waitForURL((u) => u.pathname === '/oauth/consent');
    assert.match(await page.content(), /SDK Test Agent/);
    await page.click('button[name=decision][value=approve]');
    return await callback;
  } finally {
    await context.close();
  }
}

for (const backend of BACKENDS) {
  describe(`MCP with OAuth end to end on ${backend.name}`, () => {
    let service: TestService;
    let browser: Browser;
    before(async () => {
      service = await startTestService(backend.url);
      browser = await launchChromium();
    });
    after(async () => {
      await browser?.close();
      await service?.close();
    });

    test('the full path: 401 → resource metadata → AS metadata → registration → PKCE consent in Chromium → token → tools', async () => {
      const seen: string[] = [];
      const recordingFetch = async (url: string | URL, init?: RequestInit) => {
        const response = await fetch(url, init);
        seen.push(`${init?.method ?? 'GET'} ${new URL(url).pathname} ${response.status}`);
        return response;
      };
      const provider = new TestOAuthProvider();
      const mcpUrl = new URL(`${service.url}/api/mcp`);

      const first = new StreamableHTTPClientTransport(mcpUrl, { authProvider: provider, fetch: recordingFetch });
      await assert.rejects(new Client({ name: 'sdk-oauth', version: '1.0.0' }).connect(first), UnauthorizedError);
      assert.ok(provider.authorizationUrl, 'the SDK asked to send the person to the authorization endpoint');
      const authorize = provider.authorizationUrl;
      assert.equal(authorize.origin + authorize.pathname, `${service.config.BASE_URL}/oauth/authorize`);
      assert.equal(authorize.searchParams.get('code_challenge_method'), 'S256');
      assert.equal(authorize.searchParams.get('resource'), `${service.config.BASE_URL}/api/mcp`);
      assert.equal(authorize.searchParams.get('scope'), 'book read');
      assert.deepEqual(seen, [
        'POST /api/mcp 401',
        // the resource_metadata URL our 401 named
        'GET /.well-known/oauth-protected-resource 200',
        'GET /.well-known/oauth-authorization-server 200',
        'POST /oauth/register 201',
      ]);

      const callback = await approveInBrowser(service, browser, authorize, 'ada@example.com');
      assert.equal(callback.searchParams.get('state'), provider.expectedState);
      const code = callback.searchParams.get('code');
      assert.ok(code);
      await first.finishAuth(code);
      assert.equal(seen.at(-1), 'POST /oauth/token 200');
      assert.match(provider.saved!.access_token, /^cat_/);
      assert.equal(provider.saved!.scope, 'book read');

      const transport = new StreamableHTTPClientTransport(mcpUrl, { authProvider: provider, fetch: recordingFetch });
      const client = new Client({ name: 'sdk-oauth', version: '1.0.0' });
      await client.connect(transport);
      try {
        const { tools } = await client.listTools();
        assert.equal(tools.length, 6);
        const jobIds: string[] = [];
        for (const [name, args] of Object.entries(bookingArguments())) {
          const booked = await client.callTool({ name, arguments: args });
          assert.equal((booked.structuredContent as any).status, 'queued', name);
          jobIds.push((booked.structuredContent as any).jobId);
        }
        for (const jobId of jobIds) {
          assert.equal(((await client.callTool({ name: 'get_job_status', arguments: { jobId } })).structuredContent as any).status, 'queued');
          assert.equal(((await client.callTool({ name: 'get_job_audit', arguments: { jobId } })).structuredContent as any).events[0].type, 'job_created');
        }
        // The job belongs to the signed-in person and records the client that created it.
        const row = await service.services.db.selectFrom('jobs').select(['owner_user_id', 'oauth_client_id', 'organization_name']).where('id', '=', jobIds[0]!).executeTakeFirstOrThrow();
        assert.equal(row.oauth_client_id, (provider.information as { client_id: string }).client_id);
        assert.equal(row.organization_name, null);
        const user = await service.services.db.selectFrom('users').select('email').where('id', '=', row.owner_user_id!).executeTakeFirstOrThrow();
        assert.equal(user.email, 'ada@example.com');
      } finally {
        await client.close();
      }
    });

    test('under revision 2026-07-28 too, a read-only token gets 403 insufficient_scope for a booking tool, and nothing is created', async () => {
      const readOnly = await obtainAccessToken(service, { scope: 'read', email: 'modern-reader@example.com', browser });
      const call = modernRequest('tools/call', { name: 'book_restaurant', arguments: bookingArguments().book_restaurant });
      const raw = await rpc(service.url, call.body, { bearer: readOnly.accessToken, headers: call.headers });
      assert.equal(raw.status, 403);
      assert.equal(raw.headers.get('www-authenticate'), 'Bearer realm="service-mcp", error="insufficient_scope", scope="book"');
      assert.deepEqual(raw.body, { error: 'insufficient_scope', message: 'Tool book_restaurant requires book scope; this token has [read].' });
      const listed = modernRequest('tools/list');
      assert.equal((await rpc(service.url, listed.body, { bearer: readOnly.accessToken, headers: listed.headers })).status, 200, 'listing needs no scope');
      const jobs = await service.services.db.selectFrom('jobs as j').innerJoin('users as u', 'u.id', 'j.owner_user_id').select('j.id').where('u.email', '=', 'modern-reader@example.com').execute();
      assert.deepEqual(jobs, []);
    });

    test('a read-only token lists and reads but gets 403 insufficient_scope for a booking tool, exactly as the contract words it', async () => {
      const readOnly = await obtainAccessToken(service, { scope: 'read', email: 'reader@example.com', browser });
      assert.equal(readOnly.scope, 'read');
      const raw = await rpc(service.url, { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'book_restaurant', arguments: bookingArguments().book_restaurant } }, { bearer: readOnly.accessToken });
      assert.equal(raw.status, 403);
      assert.equal(raw.headers.get('www-authenticate'), 'Bearer realm="service-mcp", error="insufficient_scope", scope="book"');
      assert.equal(raw.text, JSON.stringify({ error: 'insufficient_scope', message: 'Tool book_restaurant requires book scope; this token has [read].' }));
      const jobs = await service.services.db.selectFrom('jobs as j').innerJoin('users as u', 'u.id', 'j.owner_user_id').select('j.id').where('u.email', '=', 'reader@example.com').execute();
      assert.deepEqual(jobs, [], 'nothing was created');

      const sdk = await mcpClient(service.url, readOnly.accessToken);
      try {
        assert.equal((await sdk.client.listTools()).tools.length, 6);
        await assert.rejects(sdk.client.callTool({ name: 'book_hotel', arguments: bookingArguments().book_hotel! }), (error: unknown) => {
          assert.ok(error instanceof StreamableHTTPError);
          assert.equal(error.code, 403);
          assert.match(error.message, /Tool book_hotel requires book scope; this token has \[read\]/);
          return true;
        });
        const missing = await sdk.client.callTool({ name: 'get_job_status', arguments: { jobId: '9b2f0c3e-1d1a-4a57-9d7e-5a8f3f1c2b4d' } });
        assert.equal(textOf(missing).error, 'job_not_found');
      } finally {
        await sdk.close();
      }
    });

    test('a book-only token may book but not poll', async () => {
      const bookOnly = await obtainAccessToken(service, { scope: 'book', email: 'booker@example.com', browser });
      const booked = await rpc(service.url, { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'book_restaurant', arguments: bookingArguments().book_restaurant } }, { bearer: bookOnly.accessToken });
      assert.equal(booked.status, 200);
      const { jobId } = booked.body.result.structuredContent;
      const polled = await rpc(service.url, { jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'get_job_status', arguments: { jobId } } }, { bearer: bookOnly.accessToken });
      assert.equal(polled.status, 403);
      assert.equal(polled.headers.get('www-authenticate'), 'Bearer realm="service-mcp", error="insufficient_scope", scope="read"');
      assert.deepEqual(polled.body, { error: 'insufficient_scope', message: 'Tool get_job_status requires read scope; this token has [book].' });
    });

    test('ownership: another person\'s job, and an organisation\'s, read exactly like a missing one; the same person sees theirs from another client', async () => {
      const ada = await obtainAccessToken(service, { email: 'owner@example.com', browser });
      const adaAgain = await obtainAccessToken(service, { email: 'owner@example.com', browser });
      const bob = await obtainAccessToken(service, { email: 'bob@example.com', browser });
      const key = await service.mintKey('Acme Travel');
      const created = await rpc(service.url, { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'book_restaurant', arguments: bookingArguments().book_restaurant } }, { bearer: ada.accessToken });
      const { jobId } = created.body.result.structuredContent;
      const orgJob = await rpc(service.url, { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'book_restaurant', arguments: bookingArguments().book_restaurant } }, { bearer: key });
      const orgJobId = orgJob.body.result.structuredContent.jobId;

      const ask = (bearer: string, id: string, name = 'get_job_status') => rpc(service.url, { jsonrpc: '2.0', id: 3, method: 'tools/call', params: { name, arguments: { jobId: id } } }, { bearer });
      const missing = '9b2f0c3e-1d1a-4a57-9d7e-5a8f3f1c2b4d';
      for (const name of ['get_job_status', 'get_job_audit']) {
        for (const [bearer, id] of [[bob.accessToken, jobId], [key, jobId], [ada.accessToken, orgJobId]] as const) {
          const theirs = await ask(bearer, id, name);
          const none = await ask(bearer, missing, name);
          assert.equal(theirs.body.result.isError, true);
          assert.deepEqual(textOf(theirs.body.result), { ...textOf(none.body.result), message: textOf(none.body.result).message.replace(missing, id) });
        }
      }
      const sameUserOtherClient = await ask(adaAgain.accessToken, jobId);
      assert.notEqual(adaAgain.clientId, ada.clientId);
      assert.equal(sameUserOtherClient.body.result.structuredContent.status, 'queued');
    });

    test('a revoked token is 401 invalid_token with resource_metadata', async () => {
      const tokens = await obtainAccessToken(service, { email: 'revoked@example.com', browser });
      assert.equal((await rpc(service.url, { jsonrpc: '2.0', id: 1, method: 'ping' }, { bearer: tokens.accessToken })).status, 200);
      const revoked = await fetch(`${service.url}/oauth/revoke`, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded', authorization: `Basic ${Buffer.from(`${encodeURIComponent(tokens.clientId)}:${encodeURIComponent(tokens.clientSecret)}`).toString('base64')}` },
        body: new URLSearchParams({ token: tokens.accessToken }).toString(),
      });
      assert.equal(revoked.status, 200);
      const reply = await rpc(service.url, { jsonrpc: '2.0', id: 2, method: 'tools/list' }, { bearer: tokens.accessToken });
      assert.equal(reply.status, 401);
      assert.equal(reply.body.error, 'invalid_token');
      assert.equal(reply.headers.get('www-authenticate'), `Bearer error="invalid_token", resource_metadata="${service.config.BASE_URL}/.well-known/oauth-protected-resource"`);
    });
  });
}
