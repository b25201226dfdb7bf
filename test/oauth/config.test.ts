import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { ConfigError, loadConfig } from '../../src/config.ts';
import { BACKENDS, startTestService } from '../helpers/service.ts';
import { call } from '../helpers/http.ts';

describe('sign-in configuration', () => {
  test('production mode refuses to start with the development identity provider', () => {
    assert.throws(() => loadConfig({}, { NODE_ENV: 'production' }), (e: Error) => e instanceof ConfigError && /OIDC_ISSUER/.test(e.message));
    const ok = loadConfig({}, { NODE_ENV: 'production', OIDC_ISSUER: 'https://accounts.google.com', OIDC_CLIENT_ID: 'id', OIDC_CLIENT_SECRET: 'secret', SECRET_KEY: 'k'.repeat(40) });
    assert.equal(ok.OIDC_ISSUER, 'https://accounts.google.com');
  });

  test('an issuer needs its client id and secret; bad values name the variable', () => {
    assert.throws(() => loadConfig({}, { OIDC_ISSUER: 'https://idp.example' }), /OIDC_CLIENT_ID and OIDC_CLIENT_SECRET/);
    assert.throws(() => loadConfig({}, { OIDC_ISSUER: 'not a url', OIDC_CLIENT_ID: 'a', OIDC_CLIENT_SECRET: 'b' }), /OIDC_ISSUER/);
    assert.throws(() => loadConfig({}, { PROTECTED_BRANDS: '=x' }), /PROTECTED_BRANDS/);
    assert.equal(loadConfig({}, { PROTECTED_BRANDS: 'Acme=acme.example|acme.test,Globex' }).PROTECTED_BRANDS, 'Acme=acme.example|acme.test,Globex');
  });

  test('without an issuer outside production, the development provider is mounted and says it is for development', async () => {
    const service = await startTestService(BACKENDS[0]!.url);
    try {
      const discovery = await call(service.url, 'GET', '/dev-idp/.well-known/openid-configuration');
      assert.equal(discovery.status, 200);
      assert.equal(discovery.body.issuer, `${service.config.BASE_URL}/dev-idp`);
      const signin = await fetch(`${service.url}/signin`, { redirect: 'manual' });
      assert.equal(signin.status, 303);
      const authorize = await fetch(signin.headers.get('location')!, { redirect: 'manual' });
      const interaction = await fetch(new URL(authorize.headers.get('location')!, service.url), { redirect: 'manual', headers: { cookie: authorize.headers.getSetCookie().map((c) => c.split(';')[0]).join('; ') } });
      const page = await interaction.text();
      assert.equal(interaction.status, 200);
      assert.match(page, /For development only/);
      assert.match(page, /any email address/);
    } finally {
      await service.close();
    }
  });
});
