import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import * as oauth from 'oauth4webapi';
import type { Browser, BrowserContext } from 'playwright-core';
import { sql } from 'kysely';
import { BACKENDS, startTestService, type TestService } from '../helpers/service.ts';
import { discover, insecure, launchChromium, openConsent, postForm, REDIRECT_URI, signedInContext, type RegisteredClient } from '../helpers/oauth.ts';
import { rpc } from '../helpers/mcp.ts';
import { ClientDocumentError, DOCUMENT_LIMITS, documentPolicy, resolveDocumentClient, type DocumentPolicy } from '../../src/oauth/client-documents.ts';

// Client ID Metadata Documents: a client whose client_id is the URL of its metadata document,
// served here by a loopback server (development allows loopback; production does not, tested on
// the core function with the production policy). The cache is a row in oauth_clients, so every
// test runs on both backends but the one that drives sign-in and consent in Chromium (PGlite).

interface Served {
  status?: number;
  headers?: Record<string, string>;
  body?: string;
  /** Never answer (a slow host). */
  hang?: boolean;
}

for (const backend of BACKENDS) {
  describe(`Client ID Metadata Documents on ${backend.name}`, () => {
    let service: TestService;
    let browser: Browser;
    let ada: BrowserContext;
    let as: oauth.AuthorizationServer;
    let documents: Server;
    let origin: string;
    const routes = new Map<string, Served>();
    const fetches = new Map<string, number>();

    const document = (path: string, fields: Record<string, unknown> = {}) => ({
      client_id: `${origin}${path}`,
      client_name: 'Itinerary Bot',
      client_uri: 'https://itinerary.example',
      redirect_uris: [REDIRECT_URI],
      token_endpoint_auth_method: 'none',
      ...fields,
    });
    const serve = (path: string, served: Served) => routes.set(path, served);
    const serveDocument = (path: string, fields: Record<string, unknown> = {}, headers: Record<string, string> = {}) =>
      serve(path, { body: JSON.stringify(document(path, fields)), headers: { 'content-type': 'application/json', ...headers } });
    const policy = (overrides: Partial<DocumentPolicy> = {}): DocumentPolicy => ({ ...DOCUMENT_LIMITS, brands: [], allowPrivate: true, allowHttpLoopback: true, ...overrides });
    const clientOf = (clientId: string): RegisteredClient => ({ client: { client_id: clientId, token_endpoint_auth_method: 'none' }, clientSecret: undefined, clientAuth: oauth.None() });

    /** GET /oauth/authorize for `clientId` without a browser: the error page (or the redirect to consent). */
    const authorize = async (clientId: string) => {
      const url = new URL(`${service.url}/oauth/authorize`);
      url.search = new URLSearchParams({ response_type: 'code', client_id: clientId, redirect_uri: REDIRECT_URI, code_challenge: 'x'.repeat(43), code_challenge_method: 'S256', state: 's' }).toString();
      const response = await fetch(url, { redirect: 'manual' });
      return { status: response.status, location: response.headers.get('location'), text: await response.text() };
    };

    before(async () => {
      documents = createServer((request, response) => {
        const path = request.url ?? '/';
        fetches.set(path, (fetches.get(path) ?? 0) + 1);
        const served = routes.get(path);
        if (!served) return void response.writeHead(404).end();
        if (served.hang) return; // answers nothing, ever
        response.writeHead(served.status ?? 200, served.headers ?? {}).end(served.body ?? '');
      });
      await new Promise<void>((resolve) => documents.listen(0, '127.0.0.1', resolve));
      origin = `http://127.0.0.1:${(documents.address() as AddressInfo).port}`;
      service = await startTestService(backend.url);
      as = await discover(service);
    });
    after(async () => {
      documents.closeAllConnections();
      documents.close();
      await browser?.close();
      await service?.close();
    });

    test('a client known only by its document URL: sign-in, consent naming it and its origin, code, tokens, MCP', { skip: backend.name !== 'pglite' && 'Chromium runs on PGlite only' }, async () => {
      browser = await launchChromium();
      ada = await signedInContext(service, browser, 'ada@example.com');
      assert.equal(as.client_id_metadata_document_supported, true);
      serveDocument('/bot.json', {}, { 'cache-control': 'max-age=300' });
      const registered = clientOf(`${origin}/bot.json`);
      const { page, callback, codeVerifier, state } = await openConsent(service, ada, registered);
      const text = await page.locator('main, body').first().innerText();
      assert.match(text, /Itinerary Bot wants to use your Concierge account/);
      assert.match(text, new RegExp(`describes itself at ${origin.replace(/[.]/g, '\\.')}`));
      await page.click('button[name=decision][value=approve]');
      const callbackUrl = await callback;
      await page.close();
      const params = oauth.validateAuthResponse(as, registered.client, callbackUrl, state);
      const response = await oauth.authorizationCodeGrantRequest(as, registered.client, registered.clientAuth, params, REDIRECT_URI, codeVerifier, insecure);
      const tokens = await oauth.processAuthorizationCodeResponse(as, registered.client, response);
      assert.equal(tokens.scope, 'book read');
      assert.equal(fetches.get('/bot.json'), 1, 'fetched once: authorize and token used the cached copy (max-age=300)');
      const list = await rpc(service.url, { jsonrpc: '2.0', id: 1, method: 'tools/list', params: {} }, { bearer: tokens.access_token, headers: { 'mcp-protocol-version': '2025-06-18' } });
      assert.equal(list.body.result.tools.length, 6);
      const row = await service.services.db.selectFrom('oauth_clients').selectAll().where('client_id', '=', registered.client.client_id).executeTakeFirstOrThrow();
      assert.equal(row.registration, 'metadata_document');
      assert.equal(row.secret_hash, null);

      // Expired: the token endpoint fetches it again; a document that no longer names itself ends the client's tokens.
      await service.services.db.updateTable('oauth_clients').set({ metadata_expires_at: sql<Date>`now() - interval '1 second'` }).where('client_id', '=', row.client_id).execute();
      serveDocument('/bot.json', { client_id: `${origin}/someone-else.json` });
      const refreshed = await postForm(`${service.url}/oauth/token`, { grant_type: 'refresh_token', refresh_token: tokens.refresh_token!, client_id: row.client_id });
      assert.equal(refreshed.status, 401);
      assert.equal(refreshed.body.error, 'invalid_client');
      assert.match(refreshed.body.error_description, /client_id is not the URL/);
      assert.equal(fetches.get('/bot.json'), 2);
    });

    test('documents that are refused at /oauth/authorize, with the reason on the page and no redirect', async () => {
      serveDocument('/mismatch.json', { client_id: 'https://elsewhere.example/doc.json' });
      serveDocument('/secret.json', { token_endpoint_auth_method: 'client_secret_basic' });
      serveDocument('/other-redirect.json', { redirect_uris: ['https://attacker.example/cb'] });
      serveDocument('/brand.json', { client_name: 'Concierge', redirect_uris: ['https://attacker.example/cb'] });
      serve('/big.json', { body: JSON.stringify(document('/big.json', { padding: 'x'.repeat(6000) })), headers: { 'content-type': 'application/json' } });
      serve('/redirect.json', { status: 302, headers: { location: 'http://127.0.0.1:9/doc.json' } });
      serve('/html.json', { body: '<html></html>', headers: { 'content-type': 'text/html' } });
      const cases: Array<[string, RegExp]> = [
        ['/mismatch.json', /client_id is not the URL it was fetched from/],
        ['/secret.json', /token_endpoint_auth_method .none./],
        ['/other-redirect.json', /redirect_uri is not one the application registered/],
        ['/brand.json', /protected brand/],
        ['/big.json', /larger than 5120 bytes/],
        ['/redirect.json', /redirect \(302\)/],
        ['/html.json', /not served as application\/json/],
        ['/missing.json', /answered HTTP 404/],
      ];
      for (const [path, reason] of cases) {
        const reply = await authorize(`${origin}${path}`);
        assert.equal(reply.status, 400, path);
        assert.equal(reply.location, null, `${path}: nothing is sent to a redirect URI`);
        assert.match(reply.text.replace(/&#39;|&quot;/g, "'"), reason, path);
      }
      const notNormal = await authorize(`${origin}/a/../bot.json`);
      assert.match(notNormal.text, /normal form/);
      const stored = await service.services.db.selectFrom('oauth_clients').select('client_id').where('registration', '=', 'metadata_document').where('client_id', 'like', `${origin}/%`).execute();
      // The one valid document among them (only the request's redirect_uri was wrong) is kept.
      assert.deepEqual(stored.map((r) => r.client_id).filter((id) => !id.endsWith('/bot.json')), [`${origin}/other-redirect.json`], 'no refused document is kept');
    });

    test('the production policy: no loopback or private address, a deadline, https only', async () => {
      const { db } = service.services;
      serveDocument('/prod.json');
      const refusal = (clientId: string, overrides: Partial<DocumentPolicy>) =>
        resolveDocumentClient(db, policy(overrides), clientId).then(
          () => assert.fail(`${clientId} was accepted`),
          (error: unknown) => {
            assert.ok(error instanceof ClientDocumentError, String(error));
            return error.message;
          },
        );
      // What NODE_ENV=production configures, and what development does.
      const production = documentPolicy('production', []);
      assert.deepEqual([production.allowPrivate, production.allowHttpLoopback, production.timeoutMs, production.maxBytes], [false, false, 5000, 5120]);
      assert.deepEqual([documentPolicy('development', []).allowPrivate, documentPolicy('development', []).allowHttpLoopback], [true, true]);
      assert.match(await refusal(`${origin}/prod.json`, production), /must use https/);
      assert.match(await refusal(`${origin}/prod.json`, { allowPrivate: false }), /127\.0\.0\.1 is not a public address/);
      assert.match(await refusal('https://localhost/prod.json', { allowPrivate: false }), /loopback/);
      assert.match(await refusal('https://10.1.2.3/prod.json', { allowPrivate: false }), /not a public address/);
      assert.match(await refusal('https://[::1]/prod.json', { allowPrivate: false }), /not a public address/);
      assert.equal(fetches.get('/prod.json'), undefined, 'nothing was fetched');
      serve('/slow.json', { hang: true });
      assert.match(await refusal(`${origin}/slow.json`, { timeoutMs: 200 }), /no complete answer within 200 ms/);
    });

    test('caching follows the document\'s Cache-Control: no-store is fetched every time, max-age is not', async () => {
      serveDocument('/fresh.json', {}, { 'cache-control': 'no-store' });
      serveDocument('/kept.json', {}, { 'cache-control': 'public, max-age=120' });
      for (let i = 0; i < 2; i++) {
        for (const path of ['/fresh.json', '/kept.json']) assert.match((await authorize(`${origin}${path}`)).location ?? '', /\/oauth\/consent\?request=/, path);
      }
      assert.equal(fetches.get('/fresh.json'), 2);
      assert.equal(fetches.get('/kept.json'), 1);
      const kept = await service.services.db.selectFrom('oauth_clients').select('metadata_expires_at').where('client_id', '=', `${origin}/kept.json`).executeTakeFirstOrThrow();
      const seconds = (kept.metadata_expires_at!.getTime() - Date.now()) / 1000;
      assert.ok(seconds > 30 && seconds <= 121, `kept for max-age (${seconds} s left)`);
    });

    test('the token endpoint fetches no document it has not seen at /oauth/authorize: invalid_client, nothing fetched or stored', async () => {
      serveDocument('/never-authorized.json');
      const clientId = `${origin}/never-authorized.json`;
      for (const form of [{ grant_type: 'authorization_code', code: 'c'.repeat(43), redirect_uri: REDIRECT_URI, code_verifier: 'v'.repeat(43) }, { grant_type: 'refresh_token', refresh_token: 'r'.repeat(43) }] as Array<Record<string, string>>) {
        const reply = await postForm(`${service.url}/oauth/token`, { ...form, client_id: clientId });
        assert.equal(reply.status, 401, JSON.stringify(reply.body));
        assert.equal(reply.body.error, 'invalid_client');
      }
      assert.equal(fetches.get('/never-authorized.json'), undefined, 'the service fetched nothing for an unauthenticated caller');
      assert.equal(await service.services.db.selectFrom('oauth_clients').select('client_id').where('client_id', '=', clientId).executeTakeFirst(), undefined);
    });
  });
}
