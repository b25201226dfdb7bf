import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import type { Browser, BrowserContext } from 'playwright-core';
import Provider from 'oidc-provider';
import { BACKENDS, freePort, startTestService, type TestService } from '../helpers/service.ts';
import { approvedCode, discover, launchChromium, postForm, REDIRECT_URI, registerClient } from '../helpers/oauth.ts';
import { authenticateBearer } from '../../src/auth/resource-server.ts';

// Federation: the service signs people in through any OpenID Connect issuer named by OIDC_ISSUER.
// The test starts its own oidc-provider on its own port, with oidc-provider's built-in login and
// consent pages (not the service's development provider), as an external identity provider.

describe('sign-in through an external OpenID Connect issuer', () => {
  let idp: Server;
  let issuer: string;
  let service: TestService;
  let browser: Browser;
  let context: BrowserContext;

  before(async () => {
    const idpPort = await freePort();
    issuer = `http://127.0.0.1:${idpPort}`;
    const servicePort = await freePort();
    const provider = new Provider(issuer, {
      clients: [{ client_id: 'concierge-test', client_secret: 'external-secret-for-tests', redirect_uris: [`http://127.0.0.1:${servicePort}/signin/callback`] }],
      pkce: { required: () => true },
      claims: { openid: ['sub'], email: ['email', 'email_verified'] },
      // The subject is not the email: the service must key people by (issuer, subject).
      async findAccount(_ctx: unknown, id: string) {
        return { accountId: id, claims: async () => ({ sub: id, email: `${id}@external.example`, email_verified: true }) };
      },
    });
    idp = createServer(provider.callback());
    await new Promise<void>((resolve) => idp.listen(idpPort, '127.0.0.1', resolve));
    service = await startTestService(BACKENDS[0]!.url, {
      PORT: String(servicePort),
      BASE_URL: `http://127.0.0.1:${servicePort}`,
      OIDC_ISSUER: issuer,
      OIDC_CLIENT_ID: 'concierge-test',
      OIDC_CLIENT_SECRET: 'external-secret-for-tests',
    });
    browser = await launchChromium();
    context = await browser.newContext();
  });
  after(async () => {
    await browser?.close();
    await service?.close();
    await new Promise((resolve) => idp?.close(resolve));
  });

  test('the development provider is not mounted when an issuer is configured', async () => {
    const reply = await fetch(`${service.url}/dev-idp/.well-known/openid-configuration`);
    assert.equal(reply.status, 404);
  });

  test('sign-in goes to the external issuer and back; the first sign-in creates the user keyed by issuer and subject', async () => {
    const page = await context.newPage();
    await page.goto(`${service.url}/signin?return_to=${encodeURIComponent('/developers/connected-apps?from=test')}`);
    assert.equal(new URL(page.url()).origin, issuer);
    await page.fill('input[name=login]', 'kim');
    await page.fill('input[name=password]', 'anything');
    // oidc-provider's login page, then its consent page when it asks.
    for (let step = 0; step < 3 && new URL(page.url()).origin === issuer; step++) {
      const before = page.url();
      await Promise.all([page.waitForURL((url) => url.href !== before), page.click('button[type=submit]')]);
    }
    await page.waitForURL((url) => url.pathname === '/developers/connected-apps');
    assert.equal(new URL(page.url()).search, '?from=test');
    assert.match(await page.content(), /Signed in as kim@external\.example/);
    await page.close();
    const user = await service.services.db.selectFrom('users').selectAll().where('issuer', '=', issuer).executeTakeFirstOrThrow();
    assert.equal(user.subject, 'kim');
    assert.equal(user.email, 'kim@external.example');
  });

  test('a person signed in through the external issuer authorizes an app and its token works', async () => {
    const as = await discover(service);
    const registered = await registerClient(as);
    const { code, codeVerifier } = await approvedCode(service, context, registered);
    const tokens = await postForm(as.token_endpoint!, { grant_type: 'authorization_code', code, redirect_uri: REDIRECT_URI, code_verifier: codeVerifier }, { basic: [registered.client.client_id, registered.clientSecret!] });
    assert.equal(tokens.status, 200);
    const principal = await authenticateBearer(service.services.db, `Bearer ${tokens.body.access_token}`, `${service.config.BASE_URL}/api/mcp`);
    const user = await service.services.db.selectFrom('users').select('id').where('issuer', '=', issuer).executeTakeFirstOrThrow();
    assert.equal(principal.kind === 'oauth' && principal.userId, user.id);
  });

  test('a callback that did not start in this browser is refused and signs nobody in', async () => {
    const stranger = await browser.newContext();
    const page = await stranger.newPage();
    const response = await page.goto(`${service.url}/signin/callback?code=forged&state=forged&iss=${encodeURIComponent(issuer)}`);
    assert.equal(response!.status(), 400);
    assert.equal((await stranger.cookies()).some((c) => c.name === 'concierge_session'), false);
    await stranger.close();
  });
});
