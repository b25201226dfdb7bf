import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { ConfigError, loadConfig } from '../../src/config.ts';

// The executor's settings are validated with the rest of the configuration at start.

describe('executor configuration', () => {
  test('defaults: sandbox on in development only, providers on the sandbox port, 15-minute holds', () => {
    const dev = loadConfig({});
    assert.equal(dev.SANDBOX, true);
    assert.equal(dev.PROVIDER_URL_TEMPLATE, 'http://{provider}.localhost:4100');
    assert.equal(dev.HOLD_SECONDS, 900);
    assert.equal(dev.CHROMIUM_PATH, '/usr/bin/chromium');
    assert.equal(loadConfig({ NODE_ENV: 'test' }).SANDBOX, false);
    assert.equal(loadConfig({ SANDBOX_PORT: '4200' }).PROVIDER_URL_TEMPLATE, 'http://{provider}.localhost:4200');
  });

  test('production needs a SECRET_KEY of 32+ characters and refuses the test delay', () => {
    assert.throws(() => loadConfig({ NODE_ENV: 'production' }), (e: unknown) => e instanceof ConfigError && /SECRET_KEY: required in production/.test(e.message));
    assert.throws(() => loadConfig({ NODE_ENV: 'production', SECRET_KEY: 'short' }), /SECRET_KEY: must be at least 32 characters/);
    const key = 'k'.repeat(40);
    const idp = { BASE_URL: 'https://concierge.example.com', OIDC_ISSUER: 'https://idp.example.com', OIDC_CLIENT_ID: 'concierge', OIDC_CLIENT_SECRET: 'secret' };
    assert.equal(loadConfig({ NODE_ENV: 'production', SECRET_KEY: key, ...idp }).SANDBOX, false);
    assert.throws(() => loadConfig({ NODE_ENV: 'production', SECRET_KEY: key, ...idp, EXECUTOR_STEP_DELAY_MS: '10' }), /EXECUTOR_STEP_DELAY_MS/);
  });

  test('production refuses the sandbox sites, reported with every other problem', () => {
    const idp = { BASE_URL: 'https://concierge.example.com', OIDC_ISSUER: 'https://idp.example.com', OIDC_CLIENT_ID: 'concierge', OIDC_CLIENT_SECRET: 'secret' };
    for (const on of ['true', '1']) {
      assert.throws(
        () => loadConfig({ NODE_ENV: 'production', SECRET_KEY: 'k'.repeat(40), ...idp, SANDBOX: on }),
        (e: unknown) => e instanceof ConfigError && /^ {2}SANDBOX: the bundled sandbox provider sites are for development, refused in production/m.test(e.message),
      );
    }
    assert.throws(
      () => loadConfig({ NODE_ENV: 'production', SANDBOX: 'true' }),
      (e: unknown) => e instanceof ConfigError && ['OIDC_ISSUER', 'SECRET_KEY', 'SANDBOX'].every((name) => new RegExp(`^ {2}${name}: `, 'm').test(e.message)),
    );
    assert.equal(loadConfig({ NODE_ENV: 'production', SECRET_KEY: 'k'.repeat(40), ...idp, SANDBOX: 'false' }).SANDBOX, false);
    assert.equal(loadConfig({ SANDBOX: 'true' }).SANDBOX, true, 'development may have it');
  });

  test('bad values name their variable', () => {
    assert.throws(() => loadConfig({ PROVIDER_URL_TEMPLATE: 'http://example.com' }), /PROVIDER_URL_TEMPLATE: must be an http\(s\) URL containing \{provider\}/);
    assert.throws(() => loadConfig({ HOLD_SECONDS: '0' }), /HOLD_SECONDS/);
    // Traveller data is kept 30 days after a job is final unless set otherwise; at least a day.
    assert.equal(loadConfig({}).JOB_PERSONAL_DATA_RETENTION_DAYS, 30);
    assert.equal(loadConfig({ JOB_PERSONAL_DATA_RETENTION_DAYS: '90' }).JOB_PERSONAL_DATA_RETENTION_DAYS, 90);
    for (const bad of ['0', '-1', '1.5', 'forever', '3651']) assert.throws(() => loadConfig({ JOB_PERSONAL_DATA_RETENTION_DAYS: bad }), /JOB_PERSONAL_DATA_RETENTION_DAYS/);
    assert.throws(() => loadConfig({ BROWSER_WS_ENDPOINT: 'ftp://x' }), /BROWSER_WS_ENDPOINT/);
  });
});
