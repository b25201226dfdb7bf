import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import Provider from 'oidc-provider';
import { BACKENDS, freePort, startTestService, type TestService } from '../helpers/service.ts';
import { approvedCode, discover, launchChromium, postForm, REDIRECT_URI, registerClient } from '../helpers/oauth.ts';
import { authenticateBearer } from '../../src/auth/resource-server.ts';
import { csrfTokenFor } from '../../src/identity/sessions.ts';

// Federation: the service signs people in through any OpenID Connect issuer named by OIDC_ISSUER.
// The test starts its own oidc-provider on its own port, with oidc-provider's built-in login and
// consent pages (not the service's development provider), as an external identity provider.

const IDP_SECRET = 'external-secret-for-tests';

/**
 * An oidc-provider on its own port, as an external identity provider for one client whose redirect
 * URI is `${serviceBase}/signin/callback`. The subject is not the email: the service must key people
 * by (issuer, subject).
 */
async function startExternalIssuer(clientId: string, serviceBase: string): Promise<{ issuer: string; idp: Server }> {
  const issuer = `http://127.0.0.1:${await freePort()}`;
  const provider = new Provider(issuer, {
    clients: [{ client_id: clientId, client_secret: IDP_SECRET, redirect_uris: [`${serviceBase}/signin/callback`] }],
    pkce: { required: () => true },
    claims: { openid: ['sub'], email: ['email', 'email_verified'] },
    async findAccount(_ctx: unknown, id: string) {
      // A login starting "unverified" is an account whose address the issuer has not checked.
      return { accountId: id, claims: async () => ({ sub: id, email: `${id}@external.example`, email_verified: !id.startsWith('unverified') }) };
    },
  });
  const idp = createServer(provider.callback());
  await new Promise<void>((resolve) => idp.listen(Number(new URL(issuer).port), '127.0.0.1', resolve));
  return { issuer, idp };
}

describe('sign-in through an external OpenID Connect issuer', () => {
  let idp: Server;
  let issuer: string;
  let service: TestService;
  let browser: Browser;
  let context: BrowserContext;

  before(async () => {
    const servicePort = await freePort();
    ({ issuer, idp } = await startExternalIssuer('concierge-test', `http://127.0.0.1:${servicePort}`));
    service = await startTestService(BACKENDS[0]!.url, {
      PORT: String(servicePort),
      BASE_URL: `http://127.0.0.1:${servicePort}`,
      OIDC_ISSUER: issuer,
      OIDC_CLIENT_ID: 'concierge-test',
      OIDC_CLIENT_SECRET: IDP_SECRET,
      OPERATOR_EMAILS: 'unverified-ops@external.example',
    });
    browser = await launchChromium();
    context = await browser.newContext();
  });
  after(async () => {
    await browser?.close();
    await service?.close();
    await new Promise((resolve) => idp?.close(resolve));
  });

  /** Starts sign-in at the service and signs in at the external issuer as `login`: its login page, then its consent page when it asks. */
  async function signInThroughIssuer(page: Page, returnTo: string, login: string): Promise<void> {
    await page.goto(`${service.url}/signin?return_to=${encodeURIComponent(returnTo)}`);
    assert.equal(new URL(page.url()).origin, issuer);
    await page.fill('input[name=login]', login);
    await page.fill('input[name=password]', 'anything');
    for (let step = 0; step < 3 && new URL(page.url()).origin === issuer; step++) {
      const before = page.url();
      await Promise.all([page.waitForURL((url) => url.href !== before), page.click('button[type=submit]')]);
    }
  }

  test('the development provider is not mounted when an issuer is configured', async () => {
    const reply = await fetch(`${service.url}/dev-idp/.well-known/openid-configuration`);
    assert.equal(reply.status, 404);
  });

  test('sign-in goes to the external issuer and back; the first sign-in creates the user keyed by issuer and subject', async () => {
    const page = await context.newPage();
    await signInThroughIssuer(page, '/developers/connected-apps?from=test', 'kim');
    await page.waitForURL((url) => url.pathname === '/developers/connected-apps');
    assert.equal(new URL(page.url()).search, '?from=test');
    assert.match(await page.content(), /Signed in as kim@external\.example/);
    await page.close();
    const user = await service.services.db.selectFrom('users').selectAll().where('issuer', '=', issuer).where('subject', '=', 'kim').executeTakeFirstOrThrow();
    assert.equal(user.email, 'kim@external.example');
  });

  test('an email the issuer has not verified names nobody: it is not stored, and it does not open the operator console even when listed', async () => {
    const own = await browser.newContext();
    const page = await own.newPage();
    await signInThroughIssuer(page, '/operator', 'unverified-ops');
    await page.waitForURL((url) => url.pathname === '/operator');
    const reply = await page.reload();
    assert.equal(reply?.status(), 403);
    const user = await service.services.db.selectFrom('users').selectAll().where('issuer', '=', issuer).where('subject', '=', 'unverified-ops').executeTakeFirstOrThrow();
    assert.equal(user.email, null);
    await own.close();
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

// Over https the cookies that decide who is signed in are __Host- cookies (Secure, this host only,
// path "/"), which a network attacker answering a plain-http request, or a sibling subdomain,
// cannot plant. The service here is published as https (BASE_URL), reached over http by the test.
describe('sign-in cookies when BASE_URL is https', () => {
  let idp: Server;
  let issuer: string;
  let service: TestService;
  let browser: Browser;
  let base: string;

  before(async () => {
    const servicePort = await freePort();
    base = `https://127.0.0.1:${servicePort}`;
    ({ issuer, idp } = await startExternalIssuer('concierge-tls', base));
    service = await startTestService(BACKENDS[0]!.url, { PORT: String(servicePort), BASE_URL: base, OIDC_ISSUER: issuer, OIDC_CLIENT_ID: 'concierge-tls', OIDC_CLIENT_SECRET: IDP_SECRET });
    browser = await launchChromium();
  });
  after(async () => {
    await browser?.close();
    await service?.close();
    await new Promise((resolve) => idp?.close(resolve));
  });

  const cookieNamed = (response: Response, name: string) => response.headers.getSetCookie().find((c) => c.startsWith(`${name}=`));

  /** Starts a sign-in as `login` and returns its flow cookie and the callback URL the provider sent back, not yet visited. */
  async function signInUpToCallback(login: string): Promise<{ flowCookie: string; callbackUrl: URL }> {
    const start = await fetch(`${service.url}/signin`, { redirect: 'manual' });
    assert.equal(start.status, 303);
    const setCookie = cookieNamed(start, '__Host-concierge_signin');
    assert.ok(setCookie, start.headers.getSetCookie().join('\n'));
    assert.match(setCookie, /; Path=\/(;|$)/);
    assert.match(setCookie, /; Secure(;|$)/);
    assert.match(setCookie, /; HttpOnly(;|$)/);
    const flowCookie = setCookie.split(';')[0]!.slice('__Host-concierge_signin='.length);
    const context = await browser.newContext();
    try {
      let callback: URL | undefined;
      // Nothing answers https there (the browser's request fails); its URL is all that is kept.
      context.on('request', (request) => {
        const url = new URL(request.url());
        if (url.origin === base) callback = url;
      });
      const page = await context.newPage();
      await page.goto(start.headers.get('location')!);
      await page.fill('input[name=login]', login);
      await page.fill('input[name=password]', 'anything');
      for (let step = 0; step < 4 && !callback; step++) {
        await page.click('button[type=submit]', { timeout: 5000 }).catch(() => {});
        for (let i = 0; i < 200 && !callback && new URL(page.url()).origin === issuer; i++) await new Promise((resolve) => setTimeout(resolve, 50));
      }
      assert.ok(callback, 'the provider sent the browser back');
      return { flowCookie, callbackUrl: callback };
    } finally {
      await context.close();
    }
  }

  test('login CSRF: a planted sign-in cookie without the __Host- prefix signs nobody in; the genuine cookie does', async () => {
    // The attacker's own sign-in, stopped before its callback: their seed and their callback URL.
    const { flowCookie, callbackUrl } = await signInUpToCallback('mallory');
    const callback = `${service.url}${callbackUrl.pathname}${callbackUrl.search}`;
    // Planted in the victim's browser under the plain name (all a plain-http answer can set).
    const planted = await fetch(callback, { redirect: 'manual', headers: { cookie: `concierge_signin=${flowCookie}` } });
    assert.equal(planted.status, 400);
    assert.equal(cookieNamed(planted, '__Host-concierge_session'), undefined);
    // The same callback in the browser that started it (the __Host- cookie) signs in: the planted
    // attempt was refused for its cookie alone, and burnt nothing.
    const genuine = await fetch(callback, { redirect: 'manual', headers: { cookie: `__Host-concierge_signin=${flowCookie}` } });
    assert.equal(genuine.status, 303);
    const session = cookieNamed(genuine, '__Host-concierge_session');
    assert.ok(session);
    assert.match(session, /; Path=\/(;|$)/);
    assert.match(session, /; Secure(;|$)/);
    // The flow cookie is cleared with the attributes a browser needs to accept it (Secure, path "/").
    const cleared = cookieNamed(genuine, '__Host-concierge_signin');
    assert.ok(cleared && /; Secure(;|$)/.test(cleared) && /; Path=\/(;|$)/.test(cleared), cleared);
  });

  test('sign-out clears the __Host- session cookie with the attributes a browser needs to accept it', async () => {
    const { flowCookie, callbackUrl } = await signInUpToCallback('sam');
    const signedIn = await fetch(`${service.url}${callbackUrl.pathname}${callbackUrl.search}`, { redirect: 'manual', headers: { cookie: `__Host-concierge_signin=${flowCookie}` } });
    const session = cookieNamed(signedIn, '__Host-concierge_session')!.split(';')[0]!.slice('__Host-concierge_session='.length);
    const out = await fetch(`${service.url}/signout`, {
      method: 'POST',
      redirect: 'manual',
      headers: { cookie: `__Host-concierge_session=${session}`, origin: base, 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ csrf: csrfTokenFor(session) }).toString(),
    });
    assert.equal(out.status, 200);
    const cleared = cookieNamed(out, '__Host-concierge_session');
    assert.ok(cleared && /; Secure(;|$)/.test(cleared) && /; Path=\/(;|$)/.test(cleared), cleared);
  });
});
