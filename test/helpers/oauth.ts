import assert from 'node:assert/strict';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import * as oauth from 'oauth4webapi';
import { launchChromium } from './chromium.ts';
import { cookieHeader } from './http.ts';
import type { TestService } from './service.ts';

// The OAuth flow as a real MCP client runs it: discovery and dynamic registration with
// oauth4webapi (a strict, independent client), sign-in at the development identity provider in a
// real Chromium, consent in Chromium (where the page is the subject) or posted with the browser's
// own session (where what follows is), then the code exchange. Other areas' tests use this to get
// genuine access tokens and signed-in browsers.

export { launchChromium };

/** http://127.0.0.1 issuers need oauth4webapi's explicit opt-in. */
export const insecure = { [oauth.allowInsecureRequests]: true } as const;

/** The client's redirect URI. Nothing listens there: the browser's request to it is observed. */
export const REDIRECT_URI = 'http://127.0.0.1:8976/callback';

export async function discover(service: TestService): Promise<oauth.AuthorizationServer> {
  const issuer = new URL(service.config.BASE_URL);
  return oauth.processDiscoveryResponse(issuer, await oauth.discoveryRequest(issuer, { algorithm: 'oauth2', ...insecure }));
}

export interface RegisteredClient {
  client: oauth.Client;
  clientSecret: string | undefined;
  clientAuth: oauth.ClientAuth;
}

export async function registerClient(as: oauth.AuthorizationServer, metadata: Record<string, unknown> = {}): Promise<RegisteredClient> {
  const response = await oauth.dynamicClientRegistrationRequest(as, { client_name: 'Test Agent', redirect_uris: [REDIRECT_URI], ...metadata }, insecure);
  const registered = await oauth.processDynamicClientRegistrationResponse(response);
  const clientSecret = registered.client_secret as string | undefined;
  const method = registered.token_endpoint_auth_method as string;
  const clientAuth = method === 'none' ? oauth.None() : method === 'client_secret_post' ? oauth.ClientSecretPost(clientSecret!) : oauth.ClientSecretBasic(clientSecret!);
  return { client: registered as oauth.Client, clientSecret, clientAuth };
}

/** Signs in at the development identity provider if the page shows its form. */
async function signInIfAsked(page: Page, email: string): Promise<void> {
  if (!new URL(page.url()).pathname.includes('/dev-idp/interaction/')) return;
  await page.fill('input[name=email]', email);
  await Promise.all([page.waitForURL((url) => !url.pathname.includes('/dev-idp/interaction/')), page.click('button[type=submit].primary')]);
}

/** A browser context signed in to the service as `email` (through the development identity provider). */
export async function signedInContext(service: TestService, browser: Browser, email: string): Promise<BrowserContext> {
  const context = await browser.newContext();
  const page = await context.newPage();
  await page.goto(`${service.url}/signin?return_to=${encodeURIComponent('/developers/connected-apps')}`);
  await signInIfAsked(page, email);
  await page.waitForURL((url) => url.pathname === '/developers/connected-apps');
  await page.close();
  return context;
}

export interface AuthorizationOutcome {
  /** The URL the browser was sent back to (code or error, state, iss). */
  callbackUrl: URL;
  codeVerifier: string;
  state: string;
}

/** An authorization URL with PKCE and state, as a client builds it (`extraParams` override). */
export async function authorizationUrl(service: TestService, registered: RegisteredClient, options: { scope?: string; extraParams?: Record<string, string> } = {}) {
  const codeVerifier = oauth.generateRandomCodeVerifier();
  const state = oauth.generateRandomState();
  const url = new URL(`${service.config.BASE_URL}/oauth/authorize`);
  url.search = new URLSearchParams({
    response_type: 'code',
    client_id: registered.client.client_id,
    redirect_uri: REDIRECT_URI,
    scope: options.scope ?? 'book read',
    state,
    code_challenge: await oauth.calculatePKCECodeChallenge(codeVerifier),
    code_challenge_method: 'S256',
    ...options.extraParams,
  }).toString();
  return { url, codeVerifier, state };
}

/**
 * The next request the page makes to the client's redirect URI, as the browser sends it: a URI
 * without a path ("http://127.0.0.1:33418") is requested at "/".
 */
function callbackFrom(page: Page, redirectUri: string): Promise<URL> {
  const target = new URL(redirectUri);
  return new Promise<URL>((resolve) => {
    page.on('request', (request) => {
      const url = new URL(request.url());
      if (url.origin === target.origin && url.pathname === target.pathname && url.search !== '') resolve(url);
    });
  });
}

/** Opens the consent page for a new authorization request (signing in when asked) without answering it. */
export async function openConsent(service: TestService, context: BrowserContext, registered: RegisteredClient, options: { scope?: string; email?: string; extraParams?: Record<string, string> } = {}) {
  const { url, codeVerifier, state } = await authorizationUrl(service, registered, options);
  const page = await context.newPage();
  const callback = callbackFrom(page, options.extraParams?.redirect_uri ?? REDIRECT_URI);
  await page.goto(url.href);
  await signInIfAsked(page, options.email ?? 'ada@example.com');
  await page.waitForURL((u) => u.pathname === '/oauth/consent');
  const requestId = (await page.locator('input[name=request]').getAttribute('value'))!;
  const csrf = (await page.locator('input[name=csrf]').getAttribute('value'))!;
  return { page, callback, requestId, csrf, codeVerifier, state };
}

/**
 * Drives the authorization request in `context`: sign-in when asked, then Approve or Deny on the
 * consent page. Returns where the browser was sent back to.
 */
export async function authorizeInBrowser(
  service: TestService,
  context: BrowserContext,
  registered: RegisteredClient,
  options: { scope?: string; email?: string; decision?: 'approve' | 'deny'; extraParams?: Record<string, string> } = {},
): Promise<AuthorizationOutcome> {
  const { page, callback, codeVerifier, state } = await openConsent(service, context, registered, options);
  await page.click(`button[name=decision][value=${options.decision ?? 'approve'}]`);
  const callbackUrl = await callback;
  await page.close();
  return { callbackUrl, codeVerifier, state };
}

export interface ObtainedTokens {
  accessToken: string;
  refreshToken: string;
  clientId: string;
  clientSecret: string;
  userEmail: string;
  scope: string;
}

/**
 * A genuine access token through the real flow: dynamic registration, sign-in as `email` at the
 * development identity provider in Chromium, Approve (over HTTP), code exchange with oauth4webapi.
 * Pass `browser` to reuse one Chromium across calls (launching one takes about a second).
 */
export async function obtainAccessToken(service: TestService, opts: { scope?: string; email?: string; browser?: Browser } = {}): Promise<ObtainedTokens> {
  const email = opts.email ?? 'ada@example.com';
  const browser = opts.browser ?? (await launchChromium());
  try {
    const as = await discover(service);
    const registered = await registerClient(as, opts.scope ? { scope: opts.scope } : {});
    const context = await signedInContext(service, browser, email);
    try {
      const outcome = await authorizeOverHttp(service, context, registered, { scope: opts.scope });
      const params = oauth.validateAuthResponse(as, registered.client, outcome.callbackUrl, outcome.state);
      const response = await oauth.authorizationCodeGrantRequest(as, registered.client, registered.clientAuth, params, REDIRECT_URI, outcome.codeVerifier, insecure);
      const tokens = await oauth.processAuthorizationCodeResponse(as, registered.client, response);
      return {
        accessToken: tokens.access_token,
        refreshToken: tokens.refresh_token!,
        clientId: registered.client.client_id,
        clientSecret: registered.clientSecret!,
        userEmail: email,
        scope: tokens.scope ?? '',
      };
    } finally {
      await context.close();
    }
  } finally {
    if (!opts.browser) await browser.close();
  }
}

/** A raw form POST, for requests a well-behaved client library would refuse to send. */
export async function postForm(
  url: string,
  form: Record<string, string>,
  options: { basic?: [string, string]; headers?: Record<string, string> } = {},
): Promise<{ status: number; headers: Headers; body: any }> {
  const headers: Record<string, string> = { 'content-type': 'application/x-www-form-urlencoded', ...options.headers };
  if (options.basic) {
    const [id, secret] = options.basic.map((v) => encodeURIComponent(v));
    headers.authorization = `Basic ${Buffer.from(`${id}:${secret}`).toString('base64')}`;
  }
  const response = await fetch(url, { method: 'POST', headers, body: new URLSearchParams(form).toString() });
  const text = await response.text();
  let body: any;
  try {
    body = text ? JSON.parse(text) : undefined;
  } catch {
    body = text;
  }
  return { status: response.status, headers: response.headers, body };
}

/**
 * Approves on the consent page without rendering it, as the person signed in to `context`: the page's
 * own request and csrf fields posted with that context's cookies, the way a same-origin form goes
 * (no Origin and no Fetch Metadata, which the service accepts with the session's own token). For tests
 * whose subject is what comes after consent; the page itself is driven in Chromium by
 * authorizeInBrowser. A rendered page per approval cost Chromium a renderer's work every time.
 */
export async function authorizeOverHttp(
  service: TestService,
  context: BrowserContext,
  registered: RegisteredClient,
  options: { scope?: string; extraParams?: Record<string, string> } = {},
): Promise<AuthorizationOutcome> {
  const { url, codeVerifier, state } = await authorizationUrl(service, registered, options);
  const cookie = await cookieHeader(context, service.config.BASE_URL);
  const authorize = await fetch(url, { redirect: 'manual', headers: { cookie } });
  const consentUrl = new URL(authorize.headers.get('location') ?? '', url);
  if (authorize.status !== 303 || consentUrl.pathname !== '/oauth/consent') throw new Error(`authorize answered ${authorize.status} to ${consentUrl.href}, not the consent page`);
  const page = await fetch(consentUrl, { redirect: 'manual', headers: { cookie } });
  const html = await page.text();
  const field = (name: string) => html.match(new RegExp(`<input[^>]*name="${name}"[^>]*value="([^"]*)"`))?.[1];
  const [requestId, csrf] = [field('request'), field('csrf')];
  if (page.status !== 200 || !requestId || !csrf) throw new Error(`the consent page (HTTP ${page.status}) has no request and csrf fields: is the context signed in?`);
  const answer = await fetch(new URL('/oauth/consent', url), {
    method: 'POST',
    redirect: 'manual',
    headers: { cookie, 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ request: requestId, csrf, decision: 'approve' }).toString(),
  });
  const location = answer.headers.get('location');
  if (answer.status !== 303 || !location) throw new Error(`the consent answer was HTTP ${answer.status}, not a redirect to the client`);
  return { callbackUrl: new URL(location), codeVerifier, state };
}

/** Approves an authorization in an already signed-in context (over HTTP: see authorizeOverHttp) and returns the code, verifier and client. */
export async function approvedCode(service: TestService, context: BrowserContext, registered: RegisteredClient, options: { scope?: string; extraParams?: Record<string, string> } = {}) {
  const outcome = await authorizeOverHttp(service, context, registered, options);
  const code = outcome.callbackUrl.searchParams.get('code');
  if (!code) throw new Error(`no code in ${outcome.callbackUrl.href}`);
  return { ...outcome, code };
}

/** The consent page runs one script, the service's own consent.js: nothing inline, nothing a client's metadata brought. */
export async function assertOnlyConsentScript(page: Page): Promise<void> {
  assert.deepEqual(await page.locator('script').evaluateAll((els) => els.map((e) => [e.getAttribute('src'), e.textContent])), [['/assets/consent.js', '']]);
}
