import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { dumpEveryTable } from '../helpers/db-dump.ts';
import type { Browser } from 'playwright-core';
import { BACKENDS, startTestService, type TestService } from '../helpers/service.ts';
import { approvedCode, discover, launchChromium, openConsent, postForm, REDIRECT_URI, registerClient, signedInContext } from '../helpers/oauth.ts';

// A stolen database must hold nothing usable: after a full flow, every row of every table the
// service owns (and the queue's) is dumped and searched for every secret the flow produced.

for (const backend of BACKENDS) {
  describe(`database dump on ${backend.name}`, () => {
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

    test('after a full flow, no code, token, client secret, session id or CSRF token appears in any table', async () => {
      const secrets: string[] = [];
      const context = await signedInContext(service, browser, 'dump@example.com');
      const as = await discover(service);
      const confidential = await registerClient(as, { client_name: 'Dump Test' });
      const pub = await registerClient(as, { token_endpoint_auth_method: 'none' });
      secrets.push(confidential.clientSecret!);
      const auth: [string, string] = [confidential.client.client_id, confidential.clientSecret!];

      const first = await approvedCode(service, context, confidential);
      secrets.push(first.code, first.codeVerifier);
      const tokens = (await postForm(as.token_endpoint!, { grant_type: 'authorization_code', code: first.code, redirect_uri: REDIRECT_URI, code_verifier: first.codeVerifier }, { basic: auth })).body;
      secrets.push(tokens.access_token, tokens.refresh_token);
      const refreshed = (await postForm(as.token_endpoint!, { grant_type: 'refresh_token', refresh_token: tokens.refresh_token }, { basic: auth })).body;
      secrets.push(refreshed.access_token, refreshed.refresh_token);
      await postForm(as.revocation_endpoint!, { token: refreshed.access_token }, { basic: auth });

      const second = await approvedCode(service, context, pub);
      secrets.push(second.code);
      const publicTokens = (await postForm(as.token_endpoint!, { grant_type: 'authorization_code', code: second.code, redirect_uri: REDIRECT_URI, code_verifier: second.codeVerifier, client_id: pub.client.client_id })).body;
      secrets.push(publicTokens.access_token, publicTokens.refresh_token);

      // An authorization request left pending, with its id and the page's CSRF token.
      const pending = await openConsent(service, context, confidential);
      secrets.push(pending.requestId, pending.csrf);
      await pending.page.close();
      const session = (await context.cookies()).find((c) => c.name === 'concierge_session');
      assert.ok(session);
      secrets.push(session.value);
      await context.close();
      assert.ok(secrets.every((s) => typeof s === 'string' && s.length >= 43));

      const { tables, text: dump } = await dumpEveryTable(service);
      const names = tables.map((t) => t.split('.').pop());
      for (const expected of ['oauth_clients', 'oauth_codes', 'oauth_access_tokens', 'oauth_refresh_tokens', 'oauth_authorization_requests', 'web_sessions', 'users', 'oauth_grants']) assert.ok(names.includes(expected), expected);
      assert.ok(dump.includes('Dump Test'), 'the dump holds the flow (sanity check)');
      for (const secret of secrets) {
        // The random part alone, too: a prefix-less copy would be as usable.
        const body = secret.replace(/^[a-z]{3}_/, '');
        assert.equal(dump.includes(body), false, `a secret (${secret.slice(0, 8)}…) appears in the database dump`);
      }
    });
  });
}
