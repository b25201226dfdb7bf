import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import * as oauth from 'oauth4webapi';
import type { Browser, BrowserContext } from 'playwright-core';
import { BACKENDS, startTestService, type TestService } from '../helpers/service.ts';
import { approvedCode, assertOnlyConsentScript, authorizationUrl, discover, launchChromium, openConsent, postForm, REDIRECT_URI, registerClient, signedInContext, type RegisteredClient } from '../helpers/oauth.ts';
import { authenticateBearer } from '../../src/auth/resource-server.ts';
import { AuthError } from '../../src/auth/bearer.ts';
import { sha256 } from '../../src/security/secrets.ts';

// The attack checklist: each test is one thing an attacker (or a sloppy client) tries.

const N = 10;

for (const backend of BACKENDS) {
  describe(`OAuth attack checklist on ${backend.name}`, () => {
    let service: TestService;
    let browser: Browser;
    let ada: BrowserContext;
    let as: oauth.AuthorizationServer;
    let app: RegisteredClient;
    let other: RegisteredClient;
    const basic = (c: RegisteredClient): [string, string] => [c.client.client_id, c.clientSecret!];
    const token = (form: Record<string, string>, options: Parameters<typeof postForm>[2] = {}) => postForm(`${service.url}/oauth/token`, form, options);
    const redeem = (c: RegisteredClient, code: string, verifier: string, extra: Record<string, string> = {}) =>
      token({ grant_type: 'authorization_code', code, redirect_uri: REDIRECT_URI, code_verifier: verifier, ...extra }, { basic: basic(c) });
    const refresh = (c: RegisteredClient, refreshToken: string) => token({ grant_type: 'refresh_token', refresh_token: refreshToken }, { basic: basic(c) });
    const bearer = (t: string) => authenticateBearer(service.services.db, `Bearer ${t}`, `${service.config.BASE_URL}/api/mcp`);
    const assertDead = (t: string) => assert.rejects(bearer(t), (e: AuthError) => e.code === 'invalid_token');
    const pair = async (c: RegisteredClient = app) => {
      const { code, codeVerifier } = await approvedCode(service, ada, c);
      const reply = await redeem(c, code, codeVerifier);
      assert.equal(reply.status, 200);
      return reply.body as { access_token: string; refresh_token: string };
    };
    /** GET /oauth/authorize without following redirects. */
    const authorize = async (params: Record<string, string>, raw?: string) => {
      const url = raw ?? `${service.url}/oauth/authorize?${new URLSearchParams(params)}`;
      const response = await fetch(url, { redirect: 'manual' });
      return { status: response.status, location: response.headers.get('location'), text: await response.text() };
    };
    const validParams = async (overrides: Record<string, string> = {}) => {
      const { url } = await authorizationUrl(service, app, { extraParams: { state: 'st-123', ...overrides } });
      return Object.fromEntries(url.searchParams);
    };

    before(async () => {
      service = await startTestService(backend.url);
      browser = await launchChromium();
      ada = await signedInContext(service, browser, 'ada@example.com');
      as = await discover(service);
      app = await registerClient(as, { client_name: 'Honest App' });
      other = await registerClient(as, { client_name: 'Other App' });
    });
    after(async () => {
      await browser?.close();
      await service?.close();
    });

    describe('open redirect attempts on authorize', () => {
      test('an unknown client_id gets an error page, never a redirect', async () => {
        const reply = await authorize({ ...(await validParams()), client_id: 'dcr_nobody', redirect_uri: 'https://evil.example/cb' });
        assert.equal(reply.status, 400);
        assert.equal(reply.location, null);
        assert.doesNotMatch(reply.text, /evil\.example/);
      });

      test('a missing or repeated redirect_uri gets an error page, never a redirect', async () => {
        const params = await validParams();
        delete params.redirect_uri;
        assert.equal((await authorize(params)).location, null);
        const repeated = `${service.url}/oauth/authorize?${new URLSearchParams(await validParams())}&redirect_uri=${encodeURIComponent('https://evil.example/cb')}`;
        const reply = await authorize({}, repeated);
        assert.equal(reply.status, 400);
        assert.equal(reply.location, null);
      });

      test('errors found after the client and redirect URI are verified go back to it with state and iss', async () => {
        const reply = await authorize(await validParams({ response_type: 'token' }));
        assert.equal(reply.status, 303);
        const location = new URL(reply.location!);
        assert.equal(`${location.origin}${location.pathname}`, REDIRECT_URI);
        assert.equal(location.searchParams.get('error'), 'unsupported_response_type');
        assert.equal(location.searchParams.get('state'), 'st-123');
        assert.equal(location.searchParams.get('iss'), service.config.BASE_URL);
      });
    });

    test('redirect mismatch variants are refused with an error page and no redirect', async () => {
      const variants = [
        'http://127.0.0.1:8976/callback/',
        'http://127.0.0.1:8976/callback/../evil',
        'http://127.0.0.1:8976/callbacK',
        'http://127.0.0.1:8976/callback?x=1',
        'http://127.0.0.1:8976/callback#frag',
        'http://127.0.0.1:8977/callback',
        'http://127.0.0.1/callback',
        'http://localhost:8976/callback',
        'https://127.0.0.1:8976/callback',
        'http://127.0.0.1:8976@evil.example/callback',
        'http://evil.example/?http://127.0.0.1:8976/callback',
        'http://127.0.0.1:8976%2fcallback',
        'HTTP://127.0.0.1:8976/callback',
        ' http://127.0.0.1:8976/callback',
        'http://127.0.0.1:8976/%63allback',
      ];
      for (const redirect of variants) {
        const reply = await authorize(await validParams({ redirect_uri: redirect }));
        assert.equal(reply.status, 400, redirect);
        assert.equal(reply.location, null, redirect);
      }
    });

    describe('repeated parameters and prompt on authorize', () => {
      const storedRequests = async () => Number((await service.services.db.selectFrom('oauth_authorization_requests').select(({ fn }) => fn.countAll<number>().as('n')).executeTakeFirstOrThrow()).n);

      test('a parameter given twice (RFC 6749 §3.1), even with the same value, is invalid_request back to the client with iss, and nothing is stored', async () => {
        // A repeated scope read as "none given" would be widened to the client's whole scope, a
        // repeated state dropped, a repeated resource ignored: each is refused instead.
        const twice: Record<string, [string, string]> = {
          response_type: ['code', 'code'],
          scope: ['read', 'book'],
          state: ['st-123', 'st-123'],
          code_challenge: ['', ''],
          code_challenge_method: ['S256', 'S256'],
          resource: [`${service.config.BASE_URL}/api/mcp`, `${service.config.BASE_URL}/api/mcp`],
          prompt: ['consent', 'consent'],
        };
        const before = await storedRequests();
        for (const [name, values] of Object.entries(twice)) {
          const params = new URLSearchParams(await validParams());
          if (name === 'code_challenge') values[0] = values[1] = params.get('code_challenge')!;
          params.delete(name);
          for (const value of values) params.append(name, value);
          const reply = await authorize({}, `${service.url}/oauth/authorize?${params}`);
          assert.equal(reply.status, 303, name);
          const location = new URL(reply.location!);
          assert.equal(`${location.origin}${location.pathname}`, REDIRECT_URI, name);
          assert.equal(location.searchParams.get('error'), 'invalid_request', name);
          assert.equal(location.searchParams.get('error_description'), `${name} must not be repeated`, name);
          assert.equal(location.searchParams.get('iss'), service.config.BASE_URL, name);
          assert.equal(location.searchParams.has('code'), false, name);
        }
        assert.equal(await storedRequests(), before);
      });

      test('prompt=none is answered at once (login_required without a session, consent_required with one), with state and iss, and stores nothing', async () => {
        const before = await storedRequests();
        const anonymous = await authorize(await validParams({ prompt: 'none' }));
        assert.equal(anonymous.status, 303);
        const first = new URL(anonymous.location!);
        assert.equal(`${first.origin}${first.pathname}`, REDIRECT_URI);
        assert.equal(first.searchParams.get('error'), 'login_required');
        assert.equal(first.searchParams.get('state'), 'st-123');
        assert.equal(first.searchParams.get('iss'), service.config.BASE_URL);
        const url = `${service.url}/oauth/authorize?${new URLSearchParams(await validParams({ prompt: 'none' }))}`;
        const signedIn = await ada.request.get(url, { maxRedirects: 0 });
        assert.equal(signedIn.status(), 303);
        const second = new URL(signedIn.headers().location!);
        assert.equal(`${second.origin}${second.pathname}`, REDIRECT_URI);
        assert.equal(second.searchParams.get('error'), 'consent_required');
        assert.equal(second.searchParams.get('state'), 'st-123');
        assert.equal(second.searchParams.get('iss'), service.config.BASE_URL);
        const mixed = new URL((await authorize(await validParams({ prompt: 'none consent' }))).location!);
        assert.equal(mixed.searchParams.get('error'), 'invalid_request');
        assert.equal(await storedRequests(), before);
      });

      test('prompt=consent (what MCP clients send with offline_access) and prompt=login go on to the consent page as usual', async () => {
        for (const prompt of ['consent', 'login', 'select_account']) {
          const reply = await authorize(await validParams({ prompt }));
          assert.equal(reply.status, 303, prompt);
          assert.match(reply.location!, /^\/oauth\/consent\?request=/, prompt);
        }
      });
    });

    describe('redirect URIs with a query of their own', () => {
      // RFC 6749 §3.1.2: the registered query is kept as it is; the response's parameters follow it.
      const registered = 'http://127.0.0.1:8976/callback?flag&x=a%20b~c';
      const appended = (location: string) => {
        assert.ok(location.startsWith(`${registered}&`), location);
        return new URLSearchParams(location.slice(registered.length + 1));
      };

      test('an error goes back to the registered URI byte for byte, with the parameters appended', async () => {
        const client = await registerClient(as, { client_name: 'Query App', redirect_uris: [registered] });
        const { url } = await authorizationUrl(service, client, { extraParams: { redirect_uri: registered, response_type: 'token', state: 'st-q' } });
        const reply = await authorize({}, url.href);
        assert.equal(reply.status, 303);
        const added = appended(reply.location!);
        assert.equal(added.get('error'), 'unsupported_response_type');
        assert.equal(added.get('state'), 'st-q');
        assert.equal(added.get('iss'), service.config.BASE_URL);
      });

      test('Approve sends the code to the registered URI byte for byte, and the code redeems with that redirect_uri', async () => {
        const client = await registerClient(as, { client_name: 'Query App', redirect_uris: [registered] });
        const consent = await openConsent(service, ada, client, { extraParams: { redirect_uri: registered } });
        const response = await ada.request.post(`${service.url}/oauth/consent`, { form: { request: consent.requestId, decision: 'approve', csrf: consent.csrf }, headers: { origin: service.url }, maxRedirects: 0 });
        await consent.page.close();
        assert.equal(response.status(), 303);
        const added = appended(response.headers().location!);
        assert.equal(added.get('state'), consent.state);
        assert.equal(added.get('iss'), service.config.BASE_URL);
        const reply = await token({ grant_type: 'authorization_code', code: added.get('code')!, redirect_uri: registered, code_verifier: consent.codeVerifier }, { basic: basic(client) });
        assert.equal(reply.status, 200);
      });

      test('a registered URI ending in "?" gets the parameters straight after it', async () => {
        const bare = 'http://127.0.0.1:8976/callback?';
        const client = await registerClient(as, { client_name: 'Query App', redirect_uris: [bare] });
        const { url } = await authorizationUrl(service, client, { extraParams: { redirect_uri: bare, response_type: 'token', state: 'st-b' } });
        const location = (await authorize({}, url.href)).location!;
        assert.ok(location.startsWith(`${bare}error=unsupported_response_type&`), location);
      });
    });

    describe('loopback redirect URIs without a path', () => {
      // What VS Code registers: the port and nothing after it. The response's parameters follow
      // "?" straight after the port; a browser reads that as the same URI with the path "/".
      const pathless = 'http://127.0.0.1:33418';

      test('an error goes back to it with "?" right after the port', async () => {
        const client = await registerClient(as, { client_name: 'Pathless App', redirect_uris: [pathless, 'http://localhost'] });
        const { url } = await authorizationUrl(service, client, { extraParams: { redirect_uri: pathless, response_type: 'token', state: 'st-p' } });
        const location = (await authorize({}, url.href)).location!;
        assert.ok(location.startsWith(`${pathless}?error=unsupported_response_type&`), location);
        assert.equal(new URL(location).searchParams.get('state'), 'st-p');
      });

      test('Approve in a real browser delivers the code to "/" on that port, and it redeems with the URI as registered', async () => {
        const client = await registerClient(as, { client_name: 'Pathless App', redirect_uris: [pathless], token_endpoint_auth_method: 'none' });
        const direct = await openConsent(service, ada, client, { extraParams: { redirect_uri: pathless } });
        const response = await ada.request.post(`${service.url}/oauth/consent`, { form: { request: direct.requestId, decision: 'approve', csrf: direct.csrf }, headers: { origin: service.url }, maxRedirects: 0 });
        await direct.page.close();
        assert.ok(response.headers().location!.startsWith(`${pathless}?code=`), response.headers().location);

        const consent = await openConsent(service, ada, client, { extraParams: { redirect_uri: pathless } });
        await consent.page.click('button[name=decision][value=approve]');
        const callbackUrl = await consent.callback;
        await consent.page.close();
        assert.equal(`${callbackUrl.origin}${callbackUrl.pathname}`, `${pathless}/`);
        const params = oauth.validateAuthResponse(as, client.client, callbackUrl, consent.state);
        const reply = await token({ grant_type: 'authorization_code', client_id: client.client.client_id, code: params.get('code')!, redirect_uri: pathless, code_verifier: consent.codeVerifier });
        assert.equal(reply.status, 200);
      });
    });

    describe('PKCE downgrade', () => {
      test('code_challenge_method=plain is refused', async () => {
        // A well-formed plain challenge (the verifier itself, 43 base64url characters): only the method is wrong.
        const verifier = oauth.generateRandomCodeVerifier();
        assert.match(verifier, /^[A-Za-z0-9_-]{43}$/);
        const reply = await authorize(await validParams({ code_challenge_method: 'plain', code_challenge: verifier }));
        const location = new URL(reply.location!);
        assert.equal(location.searchParams.get('error'), 'invalid_request');
        assert.match(location.searchParams.get('error_description') ?? '', /code_challenge_method must be S256/);
        assert.equal(location.searchParams.has('code'), false);
        assert.equal(reply.location!.startsWith(REDIRECT_URI), true);
      });

      test('a missing code_challenge (or method) is refused: no code exists for a bare verifier to redeem', async () => {
        for (const drop of ['code_challenge', 'code_challenge_method']) {
          const params = await validParams();
          delete params[drop];
          const location = new URL((await authorize(params)).location!);
          assert.equal(location.searchParams.get('error'), 'invalid_request', drop);
        }
        const malformed = new URL((await authorize(await validParams({ code_challenge: 'short' }))).location!);
        assert.equal(malformed.searchParams.get('error'), 'invalid_request');
      });

      test('a verifier of the wrong length or alphabet is invalid_request; a wrong one is invalid_grant; neither burns the code', async () => {
        const { code, codeVerifier } = await approvedCode(service, ada, app);
        for (const bad of ['a'.repeat(42), 'a'.repeat(129), `${'a'.repeat(42)}!`]) {
          const reply = await redeem(app, code, bad);
          assert.equal(reply.status, 400);
          assert.equal(reply.body.error, 'invalid_request');
        }
        const missing = await token({ grant_type: 'authorization_code', code, redirect_uri: REDIRECT_URI }, { basic: basic(app) });
        assert.equal(missing.body.error, 'invalid_request');
        const wrong = await redeem(app, code, oauth.generateRandomCodeVerifier());
        assert.equal(wrong.status, 400);
        assert.equal(wrong.body.error, 'invalid_grant');
        // The challenge itself is not the verifier.
        const challenge = await oauth.calculatePKCECodeChallenge(codeVerifier);
        assert.equal((await redeem(app, code, challenge)).body.error, 'invalid_grant');
        assert.equal((await redeem(app, code, codeVerifier)).status, 200);
      });
    });

    describe('code replay', () => {
      test('a code redeemed twice is invalid_grant and revokes every token issued from it', async () => {
        const { code, codeVerifier } = await approvedCode(service, ada, app);
        const first = await redeem(app, code, codeVerifier);
        assert.equal(first.status, 200);
        await bearer(first.body.access_token);
        const again = await redeem(app, code, codeVerifier);
        assert.equal(again.status, 400);
        assert.equal(again.body.error, 'invalid_grant');
        await assertDead(first.body.access_token);
        assert.equal((await refresh(app, first.body.refresh_token)).body.error, 'invalid_grant');
      });

      test('a replay that could not have redeemed the code (other client, wrong verifier or redirect) revokes nothing', async () => {
        const { code, codeVerifier } = await approvedCode(service, ada, app);
        const first = await redeem(app, code, codeVerifier);
        assert.equal((await redeem(other, code, codeVerifier)).body.error, 'invalid_grant');
        assert.equal((await redeem(app, code, oauth.generateRandomCodeVerifier())).body.error, 'invalid_grant');
        assert.equal((await redeem(app, code, codeVerifier, { redirect_uri: 'http://127.0.0.1:8976/other' })).body.error, 'invalid_grant');
        assert.equal((await bearer(first.body.access_token)).kind, 'oauth');
      });

      test('a code is bound to its client and redirect_uri', async () => {
        const { code, codeVerifier } = await approvedCode(service, ada, app);
        const stolen = await redeem(other, code, codeVerifier);
        assert.equal(stolen.body.error, 'invalid_grant');
        const elsewhere = await redeem(app, code, codeVerifier, { redirect_uri: `${REDIRECT_URI}/` });
        assert.equal(elsewhere.body.error, 'invalid_grant');
        assert.equal((await redeem(app, code, codeVerifier)).status, 200);
      });

      test('an expired code is invalid_grant', async () => {
        const { code, codeVerifier } = await approvedCode(service, ada, app);
        await service.services.db.updateTable('oauth_codes').set({ expires_at: new Date(Date.now() - 1000) }).where('redeemed_at', 'is', null).execute();
        assert.equal((await redeem(app, code, codeVerifier)).body.error, 'invalid_grant');
      });
    });

    describe('parallel redemption', () => {
      test(`${N} parallel redemptions of one code give exactly one 200`, async () => {
        const { code, codeVerifier } = await approvedCode(service, ada, app);
        const replies = await Promise.all(Array.from({ length: N }, () => redeem(app, code, codeVerifier)));
        assert.equal(replies.filter((r) => r.status === 200).length, 1);
        assert.ok(replies.filter((r) => r.status !== 200).every((r) => r.status === 400 && r.body.error === 'invalid_grant'));
      });

      test(`${N} parallel refreshes of one token give exactly one 200, and the losers' reuse revokes the winner's pair too`, async () => {
        const tokens = await pair();
        const replies = await Promise.all(Array.from({ length: N }, () => refresh(app, tokens.refresh_token)));
        const winners = replies.filter((r) => r.status === 200);
        assert.equal(winners.length, 1);
        assert.ok(replies.filter((r) => r.status !== 200).every((r) => r.status === 400 && r.body.error === 'invalid_grant'));
        // Decided (docs/oauth.md): a rotated token presented again revokes its family (RFC 9700
        // §4.14.2), and the server cannot tell a parallel retry from a thief. So the pair the winner
        // received is dead as well: a client must not refresh one token in parallel.
        const won = winners[0]!.body as { access_token: string; refresh_token: string };
        await assertDead(won.access_token);
        assert.equal((await refresh(app, won.refresh_token)).body.error, 'invalid_grant');
        await assertDead(tokens.access_token);
      });
    });

    describe('refresh reuse', () => {
      test('a rotated refresh token presented again is invalid_grant and revokes its whole family', async () => {
        const tokens = await pair();
        const rotated = await refresh(app, tokens.refresh_token);
        assert.equal(rotated.status, 200);
        const reuse = await refresh(app, tokens.refresh_token);
        assert.equal(reuse.body.error, 'invalid_grant');
        assert.equal((await refresh(app, rotated.body.refresh_token)).body.error, 'invalid_grant');
        await assertDead(rotated.body.access_token);
        await assertDead(tokens.access_token);
      });

      test('another client\'s refresh token is invalid_grant and stays usable by its owner', async () => {
        const tokens = await pair();
        assert.equal((await refresh(other, tokens.refresh_token)).body.error, 'invalid_grant');
        assert.equal((await refresh(app, tokens.refresh_token)).status, 200);
      });

      test('a malformed scope on refresh is invalid_scope, rotates nothing, and the token still works', async () => {
        const tokens = await pair();
        let current = tokens.refresh_token;
        // Each once produced a token: "book,read" and "{}" answered 200 with scope "" (pasted into
        // an array literal), a lone quote a 500.
        for (const scope of ['book,read', '{}', '{book,read}', '"', '\\', 'read,', 'book\tread', 'book+read', 'read admin', ' ', 'book  read', ' read', 'read ']) {
          const reply = await token({ grant_type: 'refresh_token', refresh_token: current, scope }, { basic: basic(app) });
          assert.equal(reply.status, 400, JSON.stringify(scope));
          assert.equal(reply.body.error, 'invalid_scope', JSON.stringify(scope));
          const next = await refresh(app, current);
          assert.equal(next.status, 200, `after ${JSON.stringify(scope)}`);
          assert.equal(next.body.scope, 'book read');
          current = next.body.refresh_token;
        }
        // The client is authenticated before the request is judged.
        const stranger = await token({ grant_type: 'refresh_token', refresh_token: current, scope: '{}' }, { basic: [app.client.client_id, 'wrong'] });
        assert.equal(stranger.status, 401);
        // Well-formed narrower scopes still work (RFC 6749 §3.3: separated by single spaces; a repeat is harmless).
        const narrowed = await token({ grant_type: 'refresh_token', refresh_token: current, scope: 'read read' }, { basic: basic(app) });
        assert.equal(narrowed.status, 200);
        assert.equal(narrowed.body.scope, 'read');
      });

      test('an expired refresh token is invalid_grant', async () => {
        const tokens = await pair();
        await service.services.db.updateTable('oauth_refresh_tokens').set({ expires_at: new Date(Date.now() - 1000) }).where('rotated_at', 'is', null).execute();
        assert.equal((await refresh(app, tokens.refresh_token)).body.error, 'invalid_grant');
      });
    });

    describe('consent CSRF and framing', () => {
      test('the consent page forbids framing, caching and referrers', async () => {
        const consent = await openConsent(service, ada, app);
        const response = await consent.page.reload();
        const headers = response!.headers();
        assert.match(headers['content-security-policy']!, /frame-ancestors 'none'/);
        assert.equal(headers['x-frame-options'], 'DENY');
        assert.equal(headers['cache-control'], 'no-store');
        assert.equal(headers['referrer-policy'], 'no-referrer');
        await consent.page.close();
      });

      test('a consent POST without the CSRF token, with another session\'s token, or from another origin is 403 and issues nothing', async () => {
        // A second real user's token: genuine, but bound to his session, not Ada's.
        const bob = await signedInContext(service, browser, 'bob@example.com');
        const bobPage = await bob.newPage();
        await bobPage.goto(`${service.url}/developers/connected-apps`);
        const bobCsrf = (await bobPage.locator('input[name=csrf]').first().getAttribute('value'))!;
        await bob.close();
        const consent = await openConsent(service, ada, app);
        assert.ok(bobCsrf.length > 20 && bobCsrf !== consent.csrf);
        const url = `${service.url}/oauth/consent`;
        const attempts: Array<{ form: Record<string, string>; headers: Record<string, string> }> = [
          { form: { request: consent.requestId, decision: 'approve' }, headers: { origin: service.url } },
          { form: { request: consent.requestId, decision: 'approve', csrf: bobCsrf }, headers: { origin: service.url } },
          { form: { request: consent.requestId, decision: 'approve', csrf: bobCsrf }, headers: {} },
          { form: { request: consent.requestId, decision: 'approve', csrf: consent.csrf }, headers: { origin: 'https://evil.example' } },
          { form: { request: consent.requestId, decision: 'approve', csrf: consent.csrf }, headers: { origin: 'null', 'sec-fetch-site': 'cross-site' } },
        ];
        for (const attempt of attempts) {
          const response = await ada.request.post(url, { form: attempt.form, headers: attempt.headers, maxRedirects: 0 });
          assert.equal(response.status(), 403, JSON.stringify(attempt));
        }
        // Without a session nothing happens at all, even with a token copied from Ada's page.
        const anonymous = await browser.newContext();
        const response = await anonymous.request.post(url, { form: { request: consent.requestId, decision: 'approve', csrf: consent.csrf }, maxRedirects: 0 });
        assert.equal(response.status(), 403);
        await anonymous.close();
        const stored = await service.services.db.selectFrom('oauth_authorization_requests').select('decided_at').where('id_hash', '=', sha256(consent.requestId)).executeTakeFirstOrThrow();
        assert.equal(stored.decided_at, null);
        // The genuine answer still works afterwards.
        await consent.page.click('button[name=decision][value=approve]');
        const callback = await consent.callback;
        assert.ok(callback.searchParams.get('code'));
        await consent.page.close();
      });

      test('a replayed consent POST is 403 and issues no second code', async () => {
        const consent = await openConsent(service, ada, app);
        const post = () => ada.request.post(`${service.url}/oauth/consent`, { form: { request: consent.requestId, decision: 'approve', csrf: consent.csrf }, headers: { origin: service.url }, maxRedirects: 0 });
        const before = await service.services.db.selectFrom('oauth_codes').select(({ fn }) => fn.countAll<number>().as('n')).executeTakeFirstOrThrow();
        const first = await post();
        assert.equal(first.status(), 303);
        const second = await post();
        assert.equal(second.status(), 403);
        const afterCount = await service.services.db.selectFrom('oauth_codes').select(({ fn }) => fn.countAll<number>().as('n')).executeTakeFirstOrThrow();
        assert.equal(Number(afterCount.n), Number(before.n) + 1);
        await consent.page.close();
      });

      test('double-clickjacking: Approve answers only once the page has been shown and focused for a moment, so a click meant for another page cannot land on it', async () => {
        const consent = await openConsent(service, ada, app);
        // As the server sends it (and as it stays without scripts): Approve off, Deny on; the page may run only this origin's own scripts.
        const served = await ada.request.get(consent.page.url());
        assert.match(await served.text(), /<button class="primary" type="submit" name="decision" value="approve" data-approve disabled>Approve<\/button>/);
        assert.match(served.headers()['content-security-policy']!, /^default-src 'none'; script-src 'self'; /);
        await consent.page.waitForFunction(() => !(document.querySelector('[data-approve]') as HTMLButtonElement).disabled);
        // The window gets the focus back (a popup that covered it closed under the person's double-click): the second click lands on Approve.
        const landed = await consent.page.evaluate(() => {
          const approve = document.querySelector('[data-approve]') as HTMLButtonElement;
          (window as unknown as { settledFrom: number }).settledFrom = performance.now();
          window.dispatchEvent(new Event('focus'));
          const disabled = approve.disabled;
          approve.click();
          return disabled;
        });
        assert.equal(landed, true, 'Approve was off as the focus came back');
        const waited = await consent.page.evaluate(() => new Promise<number>((resolve) => {
          const approve = document.querySelector('[data-approve]') as HTMLButtonElement;
          const check = () => (approve.disabled ? setTimeout(check, 20) : resolve(performance.now() - (window as unknown as { settledFrom: number }).settledFrom));
          check();
        }));
        assert.ok(waited >= 690, `Approve came back after ${Math.round(waited)} ms, longer than a double-click`);
        assert.equal(new URL(consent.page.url()).pathname, '/oauth/consent', 'the click that landed submitted nothing');
        const stored = await service.services.db.selectFrom('oauth_authorization_requests').select('decided_at').where('id_hash', '=', sha256(consent.requestId)).executeTakeFirstOrThrow();
        assert.equal(stored.decided_at, null, 'nothing was granted');
        // The person's own click, once the page has settled, approves as usual.
        await consent.page.click('button[name=decision][value=approve]');
        assert.ok((await consent.callback).searchParams.get('code'));
        await consent.page.close();
      });

      test('consent acts on the stored request, not on values re-posted by the browser', async () => {
        const consent = await openConsent(service, ada, app, { scope: 'read' });
        const response = await ada.request.post(`${service.url}/oauth/consent`, {
          form: { request: consent.requestId, decision: 'approve', csrf: consent.csrf, redirect_uri: 'https://evil.example/cb', scope: 'book read', client_id: other.client.client_id, state: 'forged' },
          headers: { origin: service.url },
          maxRedirects: 0,
        });
        assert.equal(response.status(), 303);
        const location = new URL(response.headers().location!);
        assert.equal(`${location.origin}${location.pathname}`, REDIRECT_URI);
        assert.equal(location.searchParams.get('state'), consent.state);
        const reply = await redeem(app, location.searchParams.get('code')!, consent.codeVerifier);
        assert.equal(reply.body.scope, 'read');
        await consent.page.close();
      });
    });

    test('HTML in client_name is shown as text on the consent page, never run', async () => {
      const name = '<img src=x onerror="document.title=1"><script>document.title="owned"</script>Évil & "Co"';
      const hostile = await registerClient(as, { client_name: name });
      const consent = await openConsent(service, ada, hostile);
      await assertOnlyConsentScript(consent.page);
      assert.equal(await consent.page.locator('main img').count(), 0);
      assert.equal(await consent.page.locator('h1').innerText(), `${name} wants to use your Concierge account`);
      assert.notEqual(await consent.page.title(), 'owned');
      await consent.page.close();
    });

    describe('secret in the query string', () => {
      test('the token and revocation endpoints refuse a secret in the URL, and act on nothing', async () => {
        // Everything else is right: a real token in the body, the client id in the body, the secret in the query.
        const tokens = await pair();
        const secretInQuery = `client_secret=${encodeURIComponent(app.clientSecret!)}`;
        const reply = await postForm(`${service.url}/oauth/token?${secretInQuery}`, { grant_type: 'refresh_token', refresh_token: tokens.refresh_token, client_id: app.client.client_id });
        assert.equal(reply.status, 400);
        assert.equal(reply.body.error, 'invalid_request');
        const revoke = await postForm(`${service.url}/oauth/revoke?${secretInQuery}`, { token: tokens.access_token, client_id: app.client.client_id });
        assert.equal(revoke.status, 400);
        assert.equal(revoke.body.error, 'invalid_request');
        // Neither rotated nor revoked anything.
        assert.equal((await bearer(tokens.access_token)).kind, 'oauth');
        assert.equal((await refresh(app, tokens.refresh_token)).status, 200);
      });

      test('a client_secret sent to the authorization endpoint is refused', async () => {
        const reply = await authorize(await validParams({ client_secret: app.clientSecret! }));
        assert.equal(new URL(reply.location!).searchParams.get('error'), 'invalid_request');
      });
    });

    describe('client authentication mix-ups', () => {
      test('Basic and client_secret_post together are invalid_request', async () => {
        const reply = await token({ grant_type: 'refresh_token', refresh_token: 'x', client_id: app.client.client_id, client_secret: app.clientSecret! }, { basic: basic(app) });
        assert.equal(reply.status, 400);
        assert.equal(reply.body.error, 'invalid_request');
      });

      test('a body client_id that disagrees with Basic is invalid_request', async () => {
        const reply = await token({ grant_type: 'refresh_token', refresh_token: 'x', client_id: other.client.client_id }, { basic: basic(app) });
        assert.equal(reply.body.error, 'invalid_request');
      });

      test('a wrong secret is 401 invalid_client, with a Basic challenge when Basic was used', async () => {
        const viaBasic = await token({ grant_type: 'refresh_token', refresh_token: 'x' }, { basic: [app.client.client_id, 'wrong'] });
        assert.equal(viaBasic.status, 401);
        assert.equal(viaBasic.body.error, 'invalid_client');
        const metadata = `Bearer resource_metadata="${service.config.BASE_URL}/.well-known/oauth-protected-resource"`;
        // The Basic challenge, and the resource metadata the contract puts on every 401.
        assert.equal(viaBasic.headers.get('www-authenticate'), `Basic realm="concierge", charset="UTF-8", ${metadata}`);
        const viaBody = await token({ grant_type: 'refresh_token', refresh_token: 'x', client_id: app.client.client_id, client_secret: other.clientSecret! });
        assert.equal(viaBody.status, 401);
        assert.equal(viaBody.headers.get('www-authenticate'), metadata);
        assert.equal(viaBody.body.error, 'invalid_client');
        const unknown = await token({ grant_type: 'refresh_token', refresh_token: 'x' }, { basic: ['dcr_nobody', 'x'] });
        assert.equal(unknown.status, 401);
        const none = await token({ grant_type: 'refresh_token', refresh_token: 'x' });
        assert.equal(none.status, 401);
        const malformed = await token({ grant_type: 'refresh_token', refresh_token: 'x' }, { headers: { authorization: 'Basic !!!' } });
        assert.equal(malformed.status, 401);
      });

      test('a confidential client without its secret, or a public client with one, is invalid_client', async () => {
        const withoutSecret = await token({ grant_type: 'refresh_token', refresh_token: 'x', client_id: app.client.client_id });
        assert.equal(withoutSecret.status, 401);
        const pub = await registerClient(as, { token_endpoint_auth_method: 'none' });
        const withSecret = await token({ grant_type: 'refresh_token', refresh_token: 'x' }, { basic: [pub.client.client_id, 'anything'] });
        assert.equal(withSecret.status, 401);
      });

      test('repeated client authentication failures are answered 429 with Retry-After, but the right secret is still accepted', async () => {
        const target = await registerClient(as);
        let last;
        for (let i = 0; i < 11; i++) last = await token({ grant_type: 'refresh_token', refresh_token: 'x' }, { basic: [target.client.client_id, `wrong-${i}`] });
        assert.equal(last!.status, 429);
        assert.ok(Number(last!.headers.get('retry-after')) > 0);
        // Nobody can lock a client out: its own secret still authenticates (the refresh token is
        // unknown, so the grant itself fails, after the client has authenticated).
        const right = await token({ grant_type: 'refresh_token', refresh_token: 'x' }, { basic: basic(target) });
        assert.equal(right.status, 400);
        assert.equal(right.body.error, 'invalid_grant');
      });

      test('token and revocation answers, errors included, are never cached (Cache-Control: no-store, Pragma: no-cache)', async () => {
        const tokens = await pair();
        const replies = {
          'token 200': await refresh(app, tokens.refresh_token),
          'token 400 invalid_grant': await refresh(app, 'crt_unknown'),
          'token 401 invalid_client': await token({ grant_type: 'refresh_token', refresh_token: 'x' }, { basic: [app.client.client_id, 'wrong'] }),
          'token 400 unsupported_grant_type': await token({ grant_type: 'password' }, { basic: basic(app) }),
          'revoke 200': await postForm(`${service.url}/oauth/revoke`, { token: tokens.access_token }, { basic: basic(app) }),
          'revoke 400 invalid_request': await postForm(`${service.url}/oauth/revoke`, {}, { basic: basic(app) }),
        };
        for (const [name, reply] of Object.entries(replies)) {
          assert.equal(reply.headers.get('cache-control'), 'no-store', name);
          assert.equal(reply.headers.get('pragma'), 'no-cache', name);
          if (reply.status >= 400) {
            assert.deepEqual(Object.keys(reply.body).sort(), ['error', 'error_description'], name);
            assert.match(reply.headers.get('content-type') ?? '', /^application\/json/, name);
          }
        }
      });

      test('error_description keeps to RFC 6749\'s character set (printable ASCII without \'"\' and \'\\\\\'), even when it echoes the request', async () => {
        const allowed = /^[\x20\x21\x23-\x5b\x5d-\x7e]+$/;
        const readOnly = await approvedCode(service, ada, app, { scope: 'read' });
        const tokens = (await redeem(app, readOnly.code, readOnly.codeVerifier)).body as { refresh_token: string };
        const narrow = await registerClient(as, { client_name: 'Narrow App', scope: 'read' });
        const { url } = await authorizationUrl(service, narrow, { scope: 'book' });
        const descriptions: Record<string, string | null | undefined> = {
          'unsupported grant_type, echoed': (await token({ grant_type: 'pass"word\\\u00e9\u202e' }, { basic: basic(app) })).body.error_description,
          'malformed refresh scope': (await token({ grant_type: 'refresh_token', refresh_token: tokens.refresh_token, scope: '{}' }, { basic: basic(app) })).body.error_description,
          'wider refresh scope': (await token({ grant_type: 'refresh_token', refresh_token: tokens.refresh_token, scope: 'book' }, { basic: basic(app) })).body.error_description,
          'authorize invalid_scope': new URL((await authorize({}, url.href)).location!).searchParams.get('error_description'),
        };
        for (const [name, description] of Object.entries(descriptions)) assert.match(description ?? '', allowed, `${name}: ${description}`);
      });

      test('unsupported, missing or repeated parameters and non-form bodies are refused', async () => {
        assert.equal((await token({ grant_type: 'password', username: 'a', password: 'b' }, { basic: basic(app) })).body.error, 'unsupported_grant_type');
        assert.equal((await token({ grant_type: 'client_credentials' }, { basic: basic(app) })).body.error, 'unsupported_grant_type');
        assert.equal((await token({}, { basic: basic(app) })).body.error, 'invalid_request');
        const repeated = await fetch(`${service.url}/oauth/token`, {
          method: 'POST',
          headers: { 'content-type': 'application/x-www-form-urlencoded', authorization: `Basic ${Buffer.from(basic(app).join(':')).toString('base64')}` },
          body: 'grant_type=refresh_token&refresh_token=a&refresh_token=b',
        });
        assert.equal((await repeated.json()).error, 'invalid_request');
        const json = await fetch(`${service.url}/oauth/token`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ grant_type: 'refresh_token' }) });
        assert.equal(json.status, 400);
        assert.equal((await json.json()).error, 'invalid_request');
      });
    });

    describe('revocation', () => {
      const revoke = (c: RegisteredClient, form: Record<string, string>) => postForm(`${service.url}/oauth/revoke`, form, { basic: basic(c) });

      test('token_type_hint only orders the search (RFC 7009 §2.1): a wrong, unknown or missing hint still revokes the token, and only that one', async () => {
        for (const hint of ['access_token', 'unknown_kind', undefined]) {
          const tokens = await pair();
          const reply = await revoke(app, { token: tokens.refresh_token, ...(hint ? { token_type_hint: hint } : {}) });
          assert.equal(reply.status, 200, String(hint));
          assert.equal((await refresh(app, tokens.refresh_token)).body.error, 'invalid_grant', String(hint));
          assert.equal((await bearer(tokens.access_token)).kind, 'oauth', String(hint));
        }
        for (const hint of ['refresh_token', 'unknown_kind']) {
          const tokens = await pair();
          assert.equal((await revoke(app, { token: tokens.access_token, token_type_hint: hint })).status, 200, hint);
          await assertDead(tokens.access_token);
          assert.equal((await refresh(app, tokens.refresh_token)).status, 200, hint);
        }
      });

      test('another client\'s token is not revoked (and the answer is still 200)', async () => {
        const tokens = await pair();
        for (const t of [tokens.access_token, tokens.refresh_token]) {
          const reply = await postForm(`${service.url}/oauth/revoke`, { token: t }, { basic: basic(other) });
          assert.equal(reply.status, 200);
        }
        assert.equal((await bearer(tokens.access_token)).kind, 'oauth');
        assert.equal((await refresh(app, tokens.refresh_token)).status, 200);
      });

      test('revocation requires client authentication', async () => {
        const tokens = await pair();
        const reply = await postForm(`${service.url}/oauth/revoke`, { token: tokens.access_token });
        assert.equal(reply.status, 401);
        assert.equal(reply.body.error, 'invalid_client');
        assert.equal((await bearer(tokens.access_token)).kind, 'oauth');
      });
    });
  });
}

describe('authorization request flooding', () => {
  let service: TestService;
  before(async () => {
    service = await startTestService(BACKENDS[0]!.url);
  });
  after(() => service?.close());

  test('authorization requests beyond the per-address allowance are 429 with Retry-After, and store nothing', async () => {
    const as = await discover(service);
    const client = await registerClient(as, { client_name: 'Flooder' });
    const { url } = await authorizationUrl(service, client);
    const stored = async () => Number((await service.services.db.selectFrom('oauth_authorization_requests').select(({ fn }) => fn.countAll<number>().as('n')).executeTakeFirstOrThrow()).n);
    const before = await stored();
    const allowance = service.config.OAUTH_AUTHORIZE_RATE_LIMIT;
    const statuses = new Map<number, number>();
    for (let i = 0; i < allowance; i++) {
      const { status } = await fetch(url, { redirect: 'manual' });
      statuses.set(status, (statuses.get(status) ?? 0) + 1);
    }
    assert.deepEqual([...statuses], [[303, allowance]]);
    assert.equal(await stored(), before + allowance);
    const limited = await fetch(url, { redirect: 'manual' });
    assert.equal(limited.status, 429);
    assert.equal(limited.headers.get('location'), null);
    assert.ok(Number(limited.headers.get('retry-after')) > 0);
    assert.match(limited.headers.get('content-type') ?? '', /^text\/html/);
    assert.equal(await stored(), before + allowance);
  });

  test('HEAD on the authorization endpoint is answered like any method the path lacks (404), and stores nothing', async () => {
    const as = await discover(service);
    const client = await registerClient(as, { client_name: 'Header Reader' });
    const { url } = await authorizationUrl(service, client);
    const stored = async () => Number((await service.services.db.selectFrom('oauth_authorization_requests').select(({ fn }) => fn.countAll<number>().as('n')).executeTakeFirstOrThrow()).n);
    const before = await stored();
    for (const method of ['HEAD', 'POST']) {
      const reply = await fetch(url, { method, redirect: 'manual' });
      assert.equal(reply.status, 404, method);
      assert.equal(reply.headers.get('location'), null, method);
    }
    assert.equal(await stored(), before);
  });
});
