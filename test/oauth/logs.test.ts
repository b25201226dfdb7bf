import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { Browser } from 'playwright-core';
import { BACKENDS, startTestService, type TestService } from '../helpers/service.ts';
import { discover, launchChromium, openConsent, postForm, REDIRECT_URI, registerClient } from '../helpers/oauth.ts';
import { captureLogs, type LogCapture } from '../helpers/log-capture.ts';

// Every credential of a whole OAuth flow, looked for in everything the service logged. Logging
// does not depend on the storage backend, so one is enough.

describe('the OAuth flow logs no credential', () => {
  let service: TestService;
  let logs: LogCapture;
  let browser: Browser;
  before(async () => {
    logs = captureLogs();
    service = await startTestService(BACKENDS[0]!.url, {}, { logDestination: logs });
    browser = await launchChromium();
  });
  after(async () => {
    await browser?.close();
    await service?.close();
  });

  test('sign-in callback, consent, token, refresh, revoke: no code, token, secret, verifier or state value is logged', async () => {
    const secrets: Array<[string, string]> = [];
    const keep = (name: string, value: string | null | undefined) => {
      assert.ok(value && value.length >= 16, `${name} was captured`);
      secrets.push([name, value]);
    };
    const as = await discover(service);
    const registered = await registerClient(as, { client_name: 'Log Probe' });
    keep('client_secret', registered.clientSecret);
    const basic: [string, string] = [registered.client.client_id, registered.clientSecret!];

    const context = await browser.newContext();
    const visited: URL[] = [];
    context.on('request', (request) => visited.push(new URL(request.url())));
    try {
      const consent = await openConsent(service, context, registered, { email: 'logs@example.com' });
      keep('state', consent.state);
      keep('code_verifier', consent.codeVerifier);
      keep('consent request id', consent.requestId);
      keep('csrf token', consent.csrf);
      const signInCallback = visited.find((url) => url.pathname === '/signin/callback');
      keep('sign-in code', signInCallback?.searchParams.get('code'));
      keep('sign-in state', signInCallback?.searchParams.get('state'));
      keep('session cookie', (await context.cookies()).find((c) => /concierge_session$/.test(c.name))?.value);
      await consent.page.click('button[name=decision][value=approve]');
      const callback = await consent.callback;
      keep('authorization code', callback.searchParams.get('code'));

      const code = callback.searchParams.get('code')!;
      const tokens = await postForm(as.token_endpoint!, { grant_type: 'authorization_code', code, redirect_uri: REDIRECT_URI, code_verifier: consent.codeVerifier }, { basic });
      assert.equal(tokens.status, 200);
      keep('access token', tokens.body.access_token);
      keep('refresh token', tokens.body.refresh_token);
      const refreshed = await postForm(as.token_endpoint!, { grant_type: 'refresh_token', refresh_token: tokens.body.refresh_token }, { basic });
      assert.equal(refreshed.status, 200);
      keep('refreshed access token', refreshed.body.access_token);
      keep('refreshed refresh token', refreshed.body.refresh_token);
      // Failures are logged too: a replayed code and a reused refresh token.
      assert.equal((await postForm(as.token_endpoint!, { grant_type: 'authorization_code', code, redirect_uri: REDIRECT_URI, code_verifier: consent.codeVerifier }, { basic })).status, 400);
      assert.equal((await postForm(as.token_endpoint!, { grant_type: 'refresh_token', refresh_token: tokens.body.refresh_token }, { basic })).status, 400);
      for (const token of [refreshed.body.access_token, refreshed.body.refresh_token]) {
        assert.equal((await postForm(as.revocation_endpoint!, { token }, { basic })).status, 200);
      }
      await consent.page.close();
    } finally {
      await context.close();
    }

    // The requests were logged (so the search below looks at something), by path only.
    const urls = logs.lines().map((line) => (line.req as { url?: string } | undefined)?.url?.split('?')[0]);
    for (const path of ['/signin/callback', '/oauth/authorize', '/oauth/consent', '/oauth/token', '/oauth/revoke']) assert.ok(urls.includes(path), `${path} was logged`);
    const text = logs.text();
    for (const [name, value] of secrets) assert.equal(text.includes(value), false, `${name} appears in the logs`);
  });
});
