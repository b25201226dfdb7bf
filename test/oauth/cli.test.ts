import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import * as oauth from 'oauth4webapi';
import type { Browser } from 'playwright-core';
import { startTestService, type TestService } from '../helpers/service.ts';
import { approvedCode, launchChromium, postForm, REDIRECT_URI, signedInContext, type RegisteredClient } from '../helpers/oauth.ts';
import { authenticateBearer } from '../../src/auth/resource-server.ts';
import { AuthError } from '../../src/auth/bearer.ts';
import { dropSchemas } from '../../src/db/index.ts';

// The operator's `concierge clients …` commands, run as separate processes beside a running service:
// on its PGlite data directory (the service shares its embedded database over a local socket), and
// on PostgreSQL.

const MAIN = join(import.meta.dirname, '..', '..', 'src', 'main.ts');

function concierge(env: Record<string, string>, args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      ['--disable-warning=ExperimentalWarning', MAIN, ...args],
      { env: { ...process.env, ...env, LOG_LEVEL: 'silent' }, timeout: 60_000 },
      (error, stdout, stderr) => resolve({ code: error ? Number((error as { code?: number }).code ?? 1) : 0, stdout, stderr }),
    );
  });
}

// On a PGlite data directory, and on PostgreSQL (a schema of the test's own) when TEST_DATABASE_URL is set.
const DATABASES = [{ name: 'a PGlite data directory', pglite: true }, ...(process.env.TEST_DATABASE_URL ? [{ name: 'PostgreSQL', pglite: false }] : [])];

for (const database of DATABASES) describe(`concierge clients create|list|rotate|delete on ${database.name}`, () => {
  let dataDir: string;
  let env: Record<string, string>;
  let service: TestService;
  let browser: Browser;
  before(async () => {
    dataDir = mkdtempSync(join(tmpdir(), 'concierge-clients-'));
    env = database.pglite ? { DATABASE_URL: `pglite:${dataDir}` } : { DATABASE_URL: process.env.TEST_DATABASE_URL!, DATABASE_SCHEMA: `t_cli_${randomBytes(6).toString('hex')}` };
    service = await startTestService(env.DATABASE_URL!, env);
    browser = await launchChromium();
  });
  after(async () => {
    await browser?.close();
    await service?.close();
    rmSync(dataDir, { recursive: true, force: true });
    if (env.DATABASE_SCHEMA) await dropSchemas(env.DATABASE_URL!, env.DATABASE_SCHEMA);
  });

  test('create mints a pre-registered client that completes the flow; rotate replaces its secret; delete ends it and its tokens', async () => {
    const created = await concierge(env, ['clients', 'create', '--name', 'Ops Agent', '--redirect-uri', REDIRECT_URI, '--redirect-uri', 'https://ops.example/cb', '--json']);
    assert.equal(created.code, 0, created.stderr);
    const client = JSON.parse(created.stdout);
    assert.match(client.client_id, /^app_/);
    assert.match(client.client_secret, /^ccs_/);
    assert.equal(client.client_secret_expires_at, 0);
    assert.equal(client.registration, 'operator');
    assert.deepEqual(client.redirect_uris, [REDIRECT_URI, 'https://ops.example/cb']);

    const listed = await concierge(env, ['clients', 'list', '--json']);
    const entry = JSON.parse(listed.stdout).find((c: { client_id: string }) => c.client_id === client.client_id);
    assert.equal(entry.client_name, 'Ops Agent');
    assert.equal(listed.stdout.includes(client.client_secret), false);

    const registered: RegisteredClient = { client: { client_id: client.client_id, token_endpoint_auth_method: 'client_secret_basic' }, clientSecret: client.client_secret, clientAuth: oauth.ClientSecretBasic(client.client_secret) };
    const context = await signedInContext(service, browser, 'ops@example.com');
    const { code, codeVerifier } = await approvedCode(service, context, registered);
    await context.close();
    const tokens = await postForm(`${service.url}/oauth/token`, { grant_type: 'authorization_code', code, redirect_uri: REDIRECT_URI, code_verifier: codeVerifier }, { basic: [client.client_id, client.client_secret] });
    assert.equal(tokens.status, 200);

    const rotated = await concierge(env, ['clients', 'rotate', client.client_id, '--json']);
    assert.equal(rotated.code, 0, rotated.stderr);
    const newSecret = JSON.parse(rotated.stdout).client_secret;
    assert.notEqual(newSecret, client.client_secret);
    const refresh = (secret: string, token: string) => postForm(`${service.url}/oauth/token`, { grant_type: 'refresh_token', refresh_token: token }, { basic: [client.client_id, secret] });
    assert.equal((await refresh(client.client_secret, tokens.body.refresh_token)).status, 401);
    const refreshed = await refresh(newSecret, tokens.body.refresh_token);
    assert.equal(refreshed.status, 200);

    const deleted = await concierge(env, ['clients', 'delete', client.client_id]);
    assert.equal(deleted.code, 0, deleted.stderr);
    await assert.rejects(authenticateBearer(service.services.db, `Bearer ${refreshed.body.access_token}`, `${service.config.BASE_URL}/api/mcp`), (e: AuthError) => e.code === 'invalid_token');
    assert.equal((await refresh(newSecret, refreshed.body.refresh_token)).status, 401);
  });

  test('bad input is a usage error naming the problem; unknown ids exit 1', async () => {
    const badUri = await concierge(env, ['clients', 'create', '--name', 'X', '--redirect-uri', 'http://evil.example/cb']);
    assert.equal(badUri.code, 2);
    assert.match(badUri.stderr, /http:\/\/ is allowed only for localhost/);
    const noName = await concierge(env, ['clients', 'create', '--redirect-uri', 'https://x.example/cb']);
    assert.equal(noName.code, 2);
    assert.equal((await concierge(env, ['clients', 'delete', 'app_nobody'])).code, 1);
    const pub = await concierge(env, ['clients', 'create', '--name', 'Desktop', '--redirect-uri', 'http://localhost:7777/cb', '--public', '--json']);
    assert.equal(JSON.parse(pub.stdout).token_endpoint_auth_method, 'none');
    assert.equal('client_secret' in JSON.parse(pub.stdout), false);
  });
});
