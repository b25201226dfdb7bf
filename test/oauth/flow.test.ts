import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import * as oauth from 'oauth4webapi';
import type { Browser, BrowserContext } from 'playwright-core';
import { BACKENDS, startTestService, type TestService } from '../helpers/service.ts';
import { until } from '../helpers/wait.ts';
import { approvedCode, assertOnlyConsentScript, authorizationUrl, authorizeInBrowser, discover, insecure, launchChromium, obtainAccessToken, openConsent, postForm, REDIRECT_URI, registerClient, signedInContext } from '../helpers/oauth.ts';
import { authenticateBearer } from '../../src/auth/resource-server.ts';
import { AuthError } from '../../src/auth/bearer.ts';
import { sessionUser } from '../../src/identity/sessions.ts';

// The authorization code flow as a strict, independent client (oauth4webapi) runs it, with the
// person's part (sign-in at the development identity provider, consent) in a real Chromium.

for (const backend of BACKENDS) {
  describe(`OAuth flow on ${backend.name}`, () => {
    let service: TestService;
    let browser: Browser;
    let ada: BrowserContext;
    let as: oauth.AuthorizationServer;
    const resource = () => `${service.config.BASE_URL}/api/mcp`;
    const bearer = (token: string) => authenticateBearer(service.services.db, `Bearer ${token}`, resource());

    before(async () => {
      service = await startTestService(backend.url);
      browser = await launchChromium();
      ada = await signedInContext(service, browser, 'ada@example.com');
      as = await discover(service);
    });
    after(async () => {
      await browser?.close();
      await service?.close();
    });

    test('discovery: oauth4webapi accepts both documents (issuer and resource byte-identical)', async () => {
      assert.equal(as.issuer, service.config.BASE_URL);
      assert.equal(as.authorization_response_iss_parameter_supported, true);
      const rs = await oauth.processResourceDiscoveryResponse(new URL(resource()), await oauth.resourceDiscoveryRequest(new URL(resource()), insecure));
      assert.deepEqual(rs.authorization_servers, [service.config.BASE_URL]);
    });

    test('Approve: code, state and iss come back; oauth4webapi validates iss and redeems the code with PKCE', async () => {
      const registered = await registerClient(as, { client_name: 'Trip Planner', client_uri: 'https://planner.example' });
      const outcome = await authorizeInBrowser(service, ada, registered, { scope: 'book read' });
      assert.equal(outcome.callbackUrl.origin + outcome.callbackUrl.pathname, REDIRECT_URI);
      assert.equal(outcome.callbackUrl.searchParams.get('state'), outcome.state);
      assert.equal(outcome.callbackUrl.searchParams.get('iss'), service.config.BASE_URL);
      assert.match(outcome.callbackUrl.searchParams.get('code') ?? '', /^cac_[A-Za-z0-9_-]{43}$/);
      const params = oauth.validateAuthResponse(as, registered.client, outcome.callbackUrl, outcome.state);
      const response = await oauth.authorizationCodeGrantRequest(as, registered.client, registered.clientAuth, params, REDIRECT_URI, outcome.codeVerifier, insecure);
      assert.equal(response.headers.get('cache-control'), 'no-store');
      const tokens = await oauth.processAuthorizationCodeResponse(as, registered.client, response);
      assert.equal(tokens.token_type, 'bearer');
      assert.equal(tokens.expires_in, 3600);
      assert.equal(tokens.scope, 'book read');
      assert.match(tokens.access_token, /^cat_[A-Za-z0-9_-]{43}$/);
      assert.match(tokens.refresh_token ?? '', /^crt_[A-Za-z0-9_-]{43}$/);
      const principal = await bearer(tokens.access_token);
      assert.equal(principal.kind, 'oauth');
      assert.ok(principal.kind === 'oauth' && principal.clientId === registered.client.client_id && principal.clientName === 'Trip Planner');
      assert.deepEqual(principal.kind === 'oauth' && principal.scopes, ['book', 'read']);
    });

    test('Deny: error=access_denied with state and iss, and no code', async () => {
      const registered = await registerClient(as);
      const outcome = await authorizeInBrowser(service, ada, registered, { decision: 'deny' });
      const query = outcome.callbackUrl.searchParams;
      assert.equal(query.get('error'), 'access_denied');
      assert.equal(query.get('state'), outcome.state);
      assert.equal(query.get('iss'), service.config.BASE_URL);
      assert.equal(query.has('code'), false);
      assert.throws(() => oauth.validateAuthResponse(as, registered.client, outcome.callbackUrl, outcome.state), (e: any) => e.error === 'access_denied');
    });

    test('a narrower scope is granted as asked; a scope outside the client\'s is invalid_scope', async () => {
      const registered = await registerClient(as, { scope: 'read' });
      const { code, codeVerifier } = await approvedCode(service, ada, registered, { scope: 'read' });
      const reply = await postForm(as.token_endpoint!, { grant_type: 'authorization_code', code, redirect_uri: REDIRECT_URI, code_verifier: codeVerifier }, { basic: [registered.client.client_id, registered.clientSecret!] });
      assert.equal(reply.status, 200);
      assert.equal(reply.body.scope, 'read');
      // The browser never reaches consent: the error goes straight back to the client, with state and iss.
      for (const scope of ['book', 'read book', 'read+book', 'read admin']) {
        const { url, state } = await authorizationUrl(service, registered, { scope });
        const response = await fetch(url, { redirect: 'manual' });
        assert.equal(response.status, 303, scope);
        const location = new URL(response.headers.get('location')!);
        assert.equal(`${location.origin}${location.pathname}`, REDIRECT_URI, scope);
        assert.equal(location.searchParams.get('error'), 'invalid_scope', scope);
        assert.equal(location.searchParams.get('state'), state, scope);
        assert.equal(location.searchParams.get('iss'), service.config.BASE_URL, scope);
        assert.equal(location.searchParams.has('code'), false, scope);
      }
    });

    test('scopes at authorize may be separated by "+" (sent literally, as %2B) as well as by spaces', async () => {
      const registered = await registerClient(as);
      // URLSearchParams encodes the "+" as %2B, so the server receives a literal plus sign.
      const { code, codeVerifier } = await approvedCode(service, ada, registered, { scope: 'book+read' });
      const reply = await postForm(as.token_endpoint!, { grant_type: 'authorization_code', code, redirect_uri: REDIRECT_URI, code_verifier: codeVerifier }, { basic: [registered.client.client_id, registered.clientSecret!] });
      assert.equal(reply.status, 200);
      assert.equal(reply.body.scope, 'book read');
      const narrow = await approvedCode(service, ada, registered, { scope: 'read+' });
      const narrowed = await postForm(as.token_endpoint!, { grant_type: 'authorization_code', code: narrow.code, redirect_uri: REDIRECT_URI, code_verifier: narrow.codeVerifier }, { basic: [registered.client.client_id, registered.clientSecret!] });
      assert.equal(narrowed.body.scope, 'read');
    });

    test('refresh: the pair rotates, a narrower scope may be asked, a wider one is invalid_scope', async () => {
      const registered = await registerClient(as);
      const { code, codeVerifier, callbackUrl, state } = await approvedCode(service, ada, registered);
      void code;
      const params = oauth.validateAuthResponse(as, registered.client, callbackUrl, state);
      const first = await oauth.processAuthorizationCodeResponse(as, registered.client, await oauth.authorizationCodeGrantRequest(as, registered.client, registered.clientAuth, params, REDIRECT_URI, codeVerifier, insecure));
      const second = await oauth.processRefreshTokenResponse(as, registered.client, await oauth.refreshTokenGrantRequest(as, registered.client, registered.clientAuth, first.refresh_token!, insecure));
      assert.notEqual(second.refresh_token, first.refresh_token);
      assert.notEqual(second.access_token, first.access_token);
      assert.equal(second.expires_in, 3600);
      const narrow = await postForm(as.token_endpoint!, { grant_type: 'refresh_token', refresh_token: second.refresh_token!, scope: 'read' }, { basic: [registered.client.client_id, registered.clientSecret!] });
      assert.equal(narrow.status, 200);
      assert.equal(narrow.body.scope, 'read');
      const principal = await bearer(narrow.body.access_token);
      assert.deepEqual(principal.kind === 'oauth' && principal.scopes, ['read']);
      const wide = await postForm(as.token_endpoint!, { grant_type: 'refresh_token', refresh_token: narrow.body.refresh_token, scope: 'book read admin' }, { basic: [registered.client.client_id, registered.clientSecret!] });
      assert.equal(wide.status, 400);
      assert.equal(wide.body.error, 'invalid_scope');
      // A refused scope changed nothing: the same refresh token still works.
      const again = await postForm(as.token_endpoint!, { grant_type: 'refresh_token', refresh_token: narrow.body.refresh_token }, { basic: [registered.client.client_id, registered.clientSecret!] });
      assert.equal(again.status, 200);
      assert.equal(again.body.scope, 'book read');
    });

    test('revocation: an access token revoked leaves its refresh token alive, and the reverse', async () => {
      const registered = await registerClient(as);
      const { code, codeVerifier } = await approvedCode(service, ada, registered);
      const auth: [string, string] = [registered.client.client_id, registered.clientSecret!];
      const tokens = (await postForm(as.token_endpoint!, { grant_type: 'authorization_code', code, redirect_uri: REDIRECT_URI, code_verifier: codeVerifier }, { basic: auth })).body;
      await oauth.processRevocationResponse(await oauth.revocationRequest(as, registered.client, registered.clientAuth, tokens.access_token, insecure));
      await assert.rejects(bearer(tokens.access_token), (e: AuthError) => e.code === 'invalid_token');
      const refreshed = await postForm(as.token_endpoint!, { grant_type: 'refresh_token', refresh_token: tokens.refresh_token }, { basic: auth });
      assert.equal(refreshed.status, 200);
      await oauth.processRevocationResponse(await oauth.revocationRequest(as, registered.client, registered.clientAuth, refreshed.body.refresh_token, { ...insecure, additionalParameters: { token_type_hint: 'refresh_token' } }));
      assert.equal((await bearer(refreshed.body.access_token)).kind, 'oauth');
      const dead = await postForm(as.token_endpoint!, { grant_type: 'refresh_token', refresh_token: refreshed.body.refresh_token }, { basic: auth });
      assert.equal(dead.status, 400);
      assert.equal(dead.body.error, 'invalid_grant');
      // Unknown and already revoked tokens: 200 all the same.
      for (const token of ['not-a-token', tokens.access_token]) {
        const reply = await postForm(as.revocation_endpoint!, { token }, { basic: auth });
        assert.equal(reply.status, 200);
      }
    });

    test('a public client (token_endpoint_auth_method none) gets no secret and completes the flow with PKCE', async () => {
      const registered = await registerClient(as, { token_endpoint_auth_method: 'none' });
      assert.equal(registered.clientSecret, undefined);
      const { code, codeVerifier } = await approvedCode(service, ada, registered);
      const reply = await postForm(as.token_endpoint!, { grant_type: 'authorization_code', code, redirect_uri: REDIRECT_URI, code_verifier: codeVerifier, client_id: registered.client.client_id });
      assert.equal(reply.status, 200);
      assert.equal((await bearer(reply.body.access_token)).kind, 'oauth');
    });

    test('a client_secret_post client authenticates in the body', async () => {
      const registered = await registerClient(as, { token_endpoint_auth_method: 'client_secret_post' });
      const outcome = await authorizeInBrowser(service, ada, registered);
      const params = oauth.validateAuthResponse(as, registered.client, outcome.callbackUrl, outcome.state);
      const tokens = await oauth.processAuthorizationCodeResponse(as, registered.client, await oauth.authorizationCodeGrantRequest(as, registered.client, registered.clientAuth, params, REDIRECT_URI, outcome.codeVerifier, insecure));
      assert.equal(tokens.scope, 'book read');
    });

    test('HTTP Basic credentials are form-urlencoded before base64 (RFC 6749 §2.3.1): percent-encoded characters authenticate', async () => {
      const registered = await registerClient(as);
      const id = registered.client.client_id;
      const secret = registered.clientSecret!;
      assert.match(id, /_/);
      const basicHeader = (user: string, password: string) => ({ authorization: `Basic ${Buffer.from(`${user}:${password}`).toString('base64')}` });
      const percentEncoded = (value: string) => [...Buffer.from(value)].map((b) => `%${b.toString(16).toUpperCase().padStart(2, '0')}`).join('');
      const { code, codeVerifier } = await approvedCode(service, ada, registered);
      // The id with "_" as %5F, and every character of the secret percent-encoded.
      const reply = await postForm(as.token_endpoint!, { grant_type: 'authorization_code', code, redirect_uri: REDIRECT_URI, code_verifier: codeVerifier }, { headers: basicHeader(id.replace(/_/g, '%5F'), percentEncoded(secret)) });
      assert.equal(reply.status, 200);
      const refreshed = await postForm(as.token_endpoint!, { grant_type: 'refresh_token', refresh_token: reply.body.refresh_token }, { headers: basicHeader(id, secret.replace(/_/g, '%5F')) });
      assert.equal(refreshed.status, 200);
      // Decoded exactly once: a secret encoded twice is another secret.
      const twice = await postForm(as.token_endpoint!, { grant_type: 'refresh_token', refresh_token: refreshed.body.refresh_token }, { headers: basicHeader(id, secret.replace(/_/g, '%255F')) });
      assert.equal(twice.status, 401);
      assert.equal(twice.body.error, 'invalid_client');
    });

    test('connected apps: shows when the app was granted and when it was last used; last used moves when a token is used', async () => {
      const context = await signedInContext(service, browser, 'tim@example.com');
      try {
        const registered = await registerClient(as, { client_name: 'Time Keeper' });
        const { code, codeVerifier } = await approvedCode(service, context, registered);
        const tokens = (await postForm(as.token_endpoint!, { grant_type: 'authorization_code', code, redirect_uri: REDIRECT_URI, code_verifier: codeVerifier }, { basic: [registered.client.client_id, registered.clientSecret!] })).body;
        const db = service.services.db;
        const grant = () => db.selectFrom('oauth_grants').select(['id', 'created_at', 'last_used_at']).where('client_id', '=', registered.client.client_id).executeTakeFirstOrThrow();
        const shown = (date: Date) => `${date.toISOString().slice(0, 16).replace('T', ' ')} UTC`;
        const page = await context.newPage();
        const cells = async () => {
          await page.goto(`${service.url}/developers/connected-apps`);
          const row = page.locator('tbody tr', { hasText: 'Time Keeper' });
          // Columns: App, Access, Granted, Last used.
          return { granted: await row.locator('td').nth(2).innerText(), lastUsed: await row.locator('td').nth(3).innerText() };
        };
        /** The grant once its last use is later than `than` (it is recorded off the request's path). */
        const usedAfter = async (than: number) => {
          let row!: Awaited<ReturnType<typeof grant>>;
          await until('last_used_at was recorded', async () => ((row = await grant()).last_used_at?.getTime() ?? 0) > than, 10_000, 100);
          return row;
        };

        const granted = await grant();
        assert.ok(Math.abs(Date.now() - granted.created_at.getTime()) < 10 * 60_000);
        assert.deepEqual(await cells(), { granted: shown(granted.created_at), lastUsed: 'never' });

        await bearer(tokens.access_token);
        const firstUse = await usedAfter(0);
        assert.deepEqual(await cells(), { granted: shown(granted.created_at), lastUsed: shown(firstUse.last_used_at!) });

        // Uses are recorded at most once a minute: pretend the last one was an hour ago.
        const anHourAgo = new Date(Date.now() - 3600_000);
        await db.updateTable('oauth_grants').set({ last_used_at: anHourAgo }).where('id', '=', granted.id).execute();
        assert.equal((await cells()).lastUsed, shown(anHourAgo));
        await bearer(tokens.access_token);
        const secondUse = await usedAfter(anHourAgo.getTime());
        assert.ok(secondUse.last_used_at!.getTime() > anHourAgo.getTime() + 30 * 60_000);
        assert.deepEqual(await cells(), { granted: shown(granted.created_at), lastUsed: shown(secondUse.last_used_at!) });
        await page.close();
      } finally {
        await context.close();
      }
    });

    test('sign-in always starts a fresh session: a session id planted in the browser is not the one signed in, and it ends', async () => {
      // The attacker's own valid session, planted in the person's browser before they sign in.
      const mallory = await signedInContext(service, browser, 'mallory@example.com');
      const planted = (await mallory.cookies()).find((c) => c.name === 'concierge_session')!.value;
      await mallory.close();
      const context = await browser.newContext();
      try {
        await context.addCookies([{ name: 'concierge_session', value: planted, url: service.url }]);
        const page = await context.newPage();
        await page.goto(`${service.url}/signin?return_to=${encodeURIComponent('/developers/connected-apps')}`);
        await page.fill('input[name=email]', 'victim@example.com');
        await Promise.all([page.waitForURL((url) => url.pathname === '/developers/connected-apps'), page.click('button[type=submit].primary')]);
        await page.close();
        const fresh = (await context.cookies()).find((c) => c.name === 'concierge_session')!.value;
        assert.notEqual(fresh, planted);
        assert.equal((await sessionUser(service.services.db, fresh))?.email, 'victim@example.com');
        assert.equal(await sessionUser(service.services.db, planted), null);
      } finally {
        await context.close();
      }
    });

    test('obtainAccessToken (the helper other areas use) signs in a new user and returns a working pair', async () => {
      const tokens = await obtainAccessToken(service, { email: 'grace@example.com', scope: 'read', browser });
      assert.equal(tokens.userEmail, 'grace@example.com');
      assert.equal(tokens.scope, 'read');
      const principal = await bearer(tokens.accessToken);
      assert.equal(principal.kind, 'oauth');
      const user = await service.services.db.selectFrom('users').selectAll().where('id', '=', principal.kind === 'oauth' ? principal.userId : -1).executeTakeFirstOrThrow();
      // No account beforehand: the first sign-in created it, keyed by the provider's issuer and subject.
      assert.equal(user.email, 'grace@example.com');
      assert.equal(user.issuer, `${service.config.BASE_URL}/dev-idp`);
      assert.equal(user.subject, 'grace@example.com');
    });

    test('connected apps: lists the app with its scopes; Revoke ends the grant and every token at once', async () => {
      const context = await signedInContext(service, browser, 'lin@example.com');
      try {
        const registered = await registerClient(as, { client_name: 'Calendar Sync' });
        const auth: [string, string] = [registered.client.client_id, registered.clientSecret!];
        const first = await approvedCode(service, context, registered);
        const a = (await postForm(as.token_endpoint!, { grant_type: 'authorization_code', code: first.code, redirect_uri: REDIRECT_URI, code_verifier: first.codeVerifier }, { basic: auth })).body;
        const second = await approvedCode(service, context, registered, { scope: 'read' });
        const b = (await postForm(as.token_endpoint!, { grant_type: 'authorization_code', code: second.code, redirect_uri: REDIRECT_URI, code_verifier: second.codeVerifier }, { basic: auth })).body;
        await bearer(a.access_token);
        const page = await context.newPage();
        await page.goto(`${service.url}/developers/connected-apps`);
        const rows = page.locator('tbody tr');
        assert.equal(await rows.count(), 1);
        const row = await rows.first().innerText();
        assert.match(row, /Calendar Sync/);
        assert.match(row, /book, read/);
        await Promise.all([page.waitForURL(`${service.url}/developers/connected-apps`), rows.first().locator('button', { hasText: 'Revoke' }).click()]);
        assert.match(await page.content(), /No app has access/);
        await page.close();
        for (const token of [a.access_token, b.access_token]) await assert.rejects(bearer(token), (e: AuthError) => e.code === 'invalid_token');
        for (const token of [a.refresh_token, b.refresh_token]) {
          const reply = await postForm(as.token_endpoint!, { grant_type: 'refresh_token', refresh_token: token }, { basic: auth });
          assert.equal(reply.body.error, 'invalid_grant');
        }
      } finally {
        await context.close();
      }
    });

    test('the consent page shows the app\'s name and website, where the browser goes and the scopes in plain words, all as text', async () => {
      const name = 'Trip <b>Planner</b> & "Co" <script>document.title="owned"</script>';
      const clientUri = 'https://planner.example/about?a=1&b="><script>document.title=\'owned\'</script>';
      const registered = await registerClient(as, { client_name: name, client_uri: clientUri, redirect_uris: [REDIRECT_URI, 'https://planner.example/oauth/cb'] });
      const consent = await openConsent(service, ada, registered, { scope: 'read', extraParams: { redirect_uri: 'https://planner.example/oauth/cb' } });
      const page = consent.page;
      try {
        const main = page.locator('main');
        assert.equal(await page.locator('h1').innerText(), `${name} wants to use your Concierge account`);
        const text = await main.innerText();
        assert.ok(text.includes(`The app's website: ${clientUri}`), text);
        assert.ok(text.includes('After you answer, your browser goes to planner.example.'), text);
        // The scope it asked for, in plain words, and nothing it did not ask for.
        assert.deepEqual(await page.locator('ul.scopes li').allInnerTexts(), ['read: See the status and decision log of bookings it started for you.']);
        assert.doesNotMatch(text, /Start bookings/);
        // Shown, never run or parsed as markup.
        await assertOnlyConsentScript(page);
        assert.equal(await main.locator('b').count(), 0);
        assert.notEqual(await page.title(), 'owned');
        assert.equal(await page.locator('.warning').count(), 0);
      } finally {
        await page.close();
      }
      // Both scopes, each in plain words; an app without a name is called so, with a warning.
      const unnamed = await registerClient(as, { client_name: undefined });
      const both = await openConsent(service, ada, unnamed, { scope: 'book read' });
      try {
        assert.equal(await both.page.locator('h1').innerText(), 'An unnamed app wants to use your Concierge account');
        assert.deepEqual(await both.page.locator('ul.scopes li').allInnerTexts(), [
          'book: Start bookings for you (restaurants, hotels, flights, activities). You still confirm every payment yourself.',
          'read: See the status and decision log of bookings it started for you.',
        ]);
        assert.match(await both.page.locator('.warning').innerText(), /did not give a name/);
        assert.ok((await both.page.locator('main').innerText()).includes('your browser goes to 127.0.0.1:8976.'));
        assert.doesNotMatch(await both.page.locator('main').innerText(), /The app's website/);
      } finally {
        await both.page.close();
      }
    });

    test('connected apps: Revoke and Sign out without the CSRF token, with a wrong one or from another origin are 403 and change nothing', async () => {
      const context = await signedInContext(service, browser, 'kim@example.com');
      try {
        const registered = await registerClient(as, { client_name: 'Guarded App' });
        const { code, codeVerifier } = await approvedCode(service, context, registered);
        const tokens = (await postForm(as.token_endpoint!, { grant_type: 'authorization_code', code, redirect_uri: REDIRECT_URI, code_verifier: codeVerifier }, { basic: [registered.client.client_id, registered.clientSecret!] })).body;
        const db = service.services.db;
        const grant = await db.selectFrom('oauth_grants').select('id').where('client_id', '=', registered.client.client_id).executeTakeFirstOrThrow();
        const page = await context.newPage();
        await page.goto(`${service.url}/developers/connected-apps`);
        const csrf = (await page.locator('input[name=csrf]').first().getAttribute('value'))!;
        const attempts: Array<{ form: Record<string, string>; headers: Record<string, string> }> = [
          { form: {}, headers: { origin: service.url } },
          { form: { csrf: '' }, headers: { origin: service.url } },
          { form: { csrf: `${csrf.slice(0, -1)}${csrf.endsWith('A') ? 'B' : 'A'}` }, headers: { origin: service.url } },
          { form: { csrf }, headers: { origin: 'https://evil.example' } },
          { form: { csrf }, headers: { origin: 'null', 'sec-fetch-site': 'cross-site' } },
          { form: { csrf }, headers: { 'sec-fetch-site': 'same-site' } },
        ];
        for (const path of [`/developers/connected-apps/${grant.id}/revoke`, '/signout']) {
          for (const attempt of attempts) {
            const response = await context.request.post(`${service.url}${path}`, { form: attempt.form, headers: attempt.headers, maxRedirects: 0 });
            assert.equal(response.status(), 403, `${path} ${JSON.stringify(attempt)}`);
          }
        }
        // Nothing changed: the grant and its token work, and the person is still signed in.
        const still = await db.selectFrom('oauth_grants').select('revoked_at').where('id', '=', grant.id).executeTakeFirstOrThrow();
        assert.equal(still.revoked_at, null);
        assert.equal((await bearer(tokens.access_token)).kind, 'oauth');
        const again = await page.goto(`${service.url}/developers/connected-apps`);
        assert.equal(new URL(again!.url()).pathname, '/developers/connected-apps');
        assert.match(await page.locator('tbody').innerText(), /Guarded App/);
        // The genuine form does both.
        await Promise.all([page.waitForURL(`${service.url}/developers/connected-apps`), page.locator('tbody tr', { hasText: 'Guarded App' }).locator('button', { hasText: 'Revoke' }).click()]);
        await assert.rejects(bearer(tokens.access_token), (e: AuthError) => e.code === 'invalid_token');
        await page.locator('button', { hasText: 'Sign out' }).click();
        await page.waitForLoadState();
        assert.match(await page.locator('h1').innerText(), /signed out/i);
        const after = await context.request.get(`${service.url}/developers/connected-apps`, { maxRedirects: 0 });
        assert.equal(after.status(), 303, 'signed out for real');
        await page.close();
      } finally {
        await context.close();
      }
    });

    test('a code redeemed after its grant was revoked in connected apps is invalid_grant', async () => {
      const context = await signedInContext(service, browser, 'max@example.com');
      try {
        const registered = await registerClient(as, { client_name: 'Late Redeemer' });
        const { code, codeVerifier } = await approvedCode(service, context, registered);
        const page = await context.newPage();
        await page.goto(`${service.url}/developers/connected-apps`);
        await Promise.all([page.waitForURL(`${service.url}/developers/connected-apps`), page.locator('tbody tr', { hasText: 'Late Redeemer' }).locator('button', { hasText: 'Revoke' }).click()]);
        assert.match(await page.content(), /No app has access/);
        await page.close();
        const reply = await postForm(as.token_endpoint!, { grant_type: 'authorization_code', code, redirect_uri: REDIRECT_URI, code_verifier: codeVerifier }, { basic: [registered.client.client_id, registered.clientSecret!] });
        assert.equal(reply.status, 400);
        assert.equal(reply.body.error, 'invalid_grant');
        assert.equal(reply.body.access_token, undefined);
      } finally {
        await context.close();
      }
    });

    test('another person cannot see or revoke someone else\'s connected app', async () => {
      const registered = await registerClient(as, { client_name: 'Ada Only' });
      await approvedCode(service, ada, registered);
      const other = await signedInContext(service, browser, 'eve@example.com');
      try {
        const page = await other.newPage();
        await page.goto(`${service.url}/developers/connected-apps`);
        assert.doesNotMatch(await page.content(), /Ada Only/);
        await page.close();
        const grant = await service.services.db.selectFrom('oauth_grants').select('id').where('client_id', '=', registered.client.client_id).executeTakeFirstOrThrow();
        // Eve's own CSRF token, Ada's grant id: nothing happens.
        const eveCsrf = await (async () => {
          const p = await other.newPage();
          await p.goto(`${service.url}/developers/connected-apps`);
          const value = await p.locator('input[name=csrf]').first().getAttribute('value');
          await p.close();
          return value!;
        })();
        const response = await other.request.post(`${service.url}/developers/connected-apps/${grant.id}/revoke`, { form: { csrf: eveCsrf }, headers: { origin: service.url }, maxRedirects: 0 });
        assert.equal(response.status(), 303);
        const still = await service.services.db.selectFrom('oauth_grants').select('revoked_at').where('id', '=', grant.id).executeTakeFirstOrThrow();
        assert.equal(still.revoked_at, null);
      } finally {
        await other.close();
      }
    });
  });
}
