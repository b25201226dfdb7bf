import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { ConfigError, loadConfig } from '../../src/config.ts';
import { BACKENDS, startTestService } from '../helpers/service.ts';
import { call } from '../helpers/http.ts';

const PRODUCTION = { NODE_ENV: 'production', BASE_URL: 'https://concierge.example.com', SECRET_KEY: 'k'.repeat(40) } as const;
const IDP = { OIDC_ISSUER: 'https://accounts.google.com', OIDC_CLIENT_ID: 'id', OIDC_CLIENT_SECRET: 'secret' } as const;
/** The configuration error for these settings, or null when they load. */
const refusal = (overrides: Record<string, string>): string | null => {
  try {
    loadConfig({}, overrides);
    return null;
  } catch (error) {
    assert.ok(error instanceof ConfigError, String(error));
    return error.message;
  }
};

describe('BASE_URL, the OAuth issuer', () => {
  test('it is used exactly as written: an origin, without path, trailing slash, query or fragment', () => {
    assert.equal(loadConfig({}, { BASE_URL: 'https://concierge.example.com' }).BASE_URL, 'https://concierge.example.com');
    assert.equal(loadConfig({}, { BASE_URL: 'http://127.0.0.1:3000' }).BASE_URL, 'http://127.0.0.1:3000');
    assert.equal(loadConfig({}, { PORT: '4000' }).BASE_URL, 'http://localhost:4000');
    const refused: Array<[string, RegExp]> = [
      ['https://concierge.example.com/', /must not end with a slash/],
      ['https://concierge.example.com//', /must not have a path/],
      ['https://concierge.example.com/concierge', /must not have a path: discovery is served at the root/],
      ['https://concierge.example.com/concierge/', /must not have a path/],
      ['https://concierge.example.com?tenant=1', /must not have a query/],
      ['https://concierge.example.com/?', /must not have a query/],
      ['https://concierge.example.com#top', /must not have a fragment/],
      ['https://admin:pw@concierge.example.com', /must not contain user information/],
      ['https://Concierge.Example.com', /must be written as the origin https:\/\/concierge\.example\.com/],
      ['https://concierge.example.com:443', /must be written as the origin https:\/\/concierge\.example\.com /],
      ['ftp://concierge.example.com', /BASE_URL/],
      ['concierge.example.com', /BASE_URL/],
    ];
    for (const [value, why] of refused) {
      const message = refusal({ BASE_URL: value });
      assert.match(message ?? 'accepted', /^ {2}BASE_URL: /m, value);
      assert.match(message!, why, value);
    }
  });

  test('production needs an https BASE_URL; http is for development and tests only', () => {
    assert.equal(loadConfig({}, { ...PRODUCTION, ...IDP }).BASE_URL, 'https://concierge.example.com');
    for (const value of ['http://concierge.example.com', 'http://localhost:3000', 'http://127.0.0.1:3000']) {
      assert.match(refusal({ ...PRODUCTION, ...IDP, BASE_URL: value }) ?? 'accepted', /^ {2}BASE_URL: must be https:\/\/ in production/m, value);
    }
    // Unset, it would default to http://localhost:$PORT: refused, naming the variable.
    const { BASE_URL: _unset, ...withoutBaseUrl } = PRODUCTION;
    assert.match(refusal({ ...withoutBaseUrl, ...IDP }) ?? 'accepted', /^ {2}BASE_URL: required in production/m);
    for (const mode of ['development', 'test']) assert.equal(loadConfig({}, { NODE_ENV: mode, BASE_URL: 'http://concierge.test' }).BASE_URL, 'http://concierge.test');
  });
});

describe('sign-in configuration', () => {
  test('production mode refuses to start with the development identity provider', () => {
    assert.throws(() => loadConfig({}, { NODE_ENV: 'production' }), (e: Error) => e instanceof ConfigError && /OIDC_ISSUER/.test(e.message));
    const ok = loadConfig({}, { ...PRODUCTION, OIDC_ISSUER: 'https://accounts.google.com', OIDC_CLIENT_ID: 'id', OIDC_CLIENT_SECRET: 'secret' });
    assert.equal(ok.OIDC_ISSUER, 'https://accounts.google.com');
  });

  test('`concierge serve` in production without OIDC_ISSUER exits non-zero before serving anything, naming the variable', async () => {
    const root = fileURLToPath(new URL('../../', import.meta.url));
    // Everything else a production start needs is set, so the missing identity provider is the one reason.
    const env: NodeJS.ProcessEnv = { PATH: process.env.PATH, ...PRODUCTION, DATABASE_URL: 'pglite:memory:', PORT: '0', LOG_LEVEL: 'info' };
    const child = spawn(process.execPath, ['--disable-warning=ExperimentalWarning', 'src/main.ts', 'serve'], { cwd: root, env, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    const timer = setTimeout(() => child.kill('SIGKILL'), 20_000);
    const code = await new Promise<number | null>((resolve) => child.on('exit', (exitCode) => resolve(exitCode)));
    clearTimeout(timer);
    assert.notEqual(code, 0, 'it exited with an error');
    assert.notEqual(code, null, 'it exited by itself instead of starting to serve');
    assert.match(stderr, /^ {2}OIDC_ISSUER: production mode needs a real identity provider/m);
    assert.deepEqual(stderr.match(/^ {2}[A-Z_]+:/gm), ['  OIDC_ISSUER:'], stderr);
    assert.doesNotMatch(stdout, /listening|dev-idp/i);
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
