import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import * as oauth from 'oauth4webapi';
import { BACKENDS, startTestService, type TestService } from '../helpers/service.ts';
import { call } from '../helpers/http.ts';
import { withinOneMinuteWindow } from '../helpers/wait.ts';
import { discover, insecure, launchChromium, obtainAccessToken, postForm, registerClient, type RegisteredClient } from '../helpers/oauth.ts';
import { requestCounterOf } from '../../src/limits/batched.ts';
import { hit, purgeExpired } from '../../src/limits/counter.ts';
import { dropSchemas } from '../../src/db/index.ts';
import { sql } from 'kysely';

// Limits counted in the database (src/limits/): atomic under concurrency, shared by every node,
// and the client-authentication lockout that never refuses a client its own correct secret.

const basic = (c: RegisteredClient): [string, string] => [c.client.client_id, c.clientSecret!];

for (const backend of BACKENDS) {
  describe(`limits on ${backend.name}`, () => {
    let service: TestService;
    before(async () => {
      service = await startTestService(backend.url);
    });
    after(() => service?.close());

    test('a counter allows `max` hits per window, says how many remain, and starts again when its window ends', async () => {
      const limit = { name: `test.${randomBytes(4).toString('hex')}`, max: 2, windowSeconds: 60 };
      const verdicts = [await hit(service.services.db, limit, 'a'), await hit(service.services.db, limit, 'a'), await hit(service.services.db, limit, 'a')];
      assert.deepEqual(verdicts.map((v) => [v.allowed, v.count, v.remaining]), [[true, 1, 1], [true, 2, 0], [false, 3, 0]]);
      assert.ok(verdicts[2]!.resetSeconds > 0 && verdicts[2]!.resetSeconds <= 60);
      // Another subject has its own count.
      assert.equal((await hit(service.services.db, limit, 'b')).allowed, true);
      // The window ends (moved into the past rather than waited for): the count starts again, and the purge removes it.
      await sql`update rate_limits set window_ends = now() - interval '1 second' where key like ${`${limit.name}%`}`.execute(service.services.db);
      assert.deepEqual(await hit(service.services.db, limit, 'a').then((v) => [v.allowed, v.count]), [true, 1]);
      assert.ok((await purgeExpired(service.services.db)) >= 1);
      const left = await service.services.db.selectFrom('rate_limits').select('key').where('key', 'like', `${limit.name}%`).execute();
      assert.equal(left.length, 1);
    });

    test('200 concurrent wrong-secret requests get at most 10 401s, the rest 429 with Retry-After; the right secret still authenticates', async () => {
      const as = await discover(service);
      const target = await registerClient(as);
      const replies = await Promise.all(
        Array.from({ length: 200 }, (_, i) => postForm(`${service.url}/oauth/revoke`, { token: 'x' }, { basic: [target.client.client_id, `wrong-${i}`] })),
      );
      const statuses = replies.map((r) => r.status);
      assert.equal(statuses.filter((s) => s === 401).length, 10, String(statuses));
      assert.equal(statuses.filter((s) => s === 429).length, 190);
      const limited = replies.find((r) => r.status === 429)!;
      assert.equal(limited.body.error, 'invalid_client');
      assert.ok(Number(limited.headers.get('retry-after')) > 0);
      // Locked out for guessers, not for the holder: revocation with the right secret is answered 200.
      assert.equal((await postForm(`${service.url}/oauth/revoke`, { token: 'x' }, { basic: basic(target) })).status, 200);
    });

    test('made-up client ids are refused 401 and counted nowhere: no limit row per invented id', async () => {
      const rows = async () => (await service.services.db.selectFrom('rate_limits').select('key').execute()).length;
      const before = await rows();
      const replies = await Promise.all(
        Array.from({ length: 30 }, (_, i) => postForm(`${service.url}/oauth/revoke`, { token: 'x' }, { basic: [`made-up-${randomBytes(6).toString('hex')}-${i}`, 'secret'] })),
      );
      assert.deepEqual([...new Set(replies.map((r) => r.status))], [401]);
      assert.equal(replies[0]!.body.error, 'invalid_client');
      assert.equal(await rows(), before);
    });
  });
}

describe('the lockout cannot be turned against a client (PGlite, Chromium)', () => {
  let service: TestService;
  before(async () => {
    service = await startTestService(BACKENDS[0]!.url);
  });
  after(() => service?.close());

  test('during a lockout the correct secret still gets tokens', async () => {
    const browser = await launchChromium();
    let tokens;
    try {
      tokens = await obtainAccessToken(service, { browser });
    } finally {
      await browser.close();
    }
    const statuses = [];
    for (let i = 0; i < 12; i++) statuses.push((await postForm(`${service.url}/oauth/token`, { grant_type: 'refresh_token', refresh_token: tokens.refreshToken }, { basic: [tokens.clientId, `wrong-${i}`] })).status);
    assert.deepEqual(statuses.slice(9), [401, 429, 429]);
    const as = await discover(service);
    const client = { client_id: tokens.clientId };
    const response = await oauth.refreshTokenGrantRequest(as, client, oauth.ClientSecretBasic(tokens.clientSecret), tokens.refreshToken, insecure);
    const refreshed = await oauth.processRefreshTokenResponse(as, client, response);
    assert.match(refreshed.access_token, /\S/);
  });
});

const postgres = BACKENDS.find((b) => b.name === 'postgres');
describe('two nodes on one PostgreSQL schema grant one allowance', { skip: postgres ? false : 'needs TEST_DATABASE_URL' }, () => {
  const schema = `t_${randomBytes(6).toString('hex')}`;
  let nodes: TestService[] = [];
  let target: RegisteredClient;
  before(async () => {
    const env = { DATABASE_SCHEMA: schema, OAUTH_REGISTER_RATE_LIMIT: '3', API_KEY_RATE_LIMIT: '6' };
    // One after the other: the first creates the schema and runs the migrations.
    nodes.push(await startTestService(postgres!.url, env));
    nodes.push(await startTestService(postgres!.url, env));
    // Uses one of the three registrations this address has.
    target = await registerClient(await discover(nodes[0]!));
  });
  after(async () => {
    await Promise.all(nodes.map((n) => n.close()));
    nodes = [];
    await dropSchemas(postgres!.url, schema);
  });

  test('registrations: 3 per address in all, whichever node is asked', async () => {
    const statuses = [];
    for (let i = 0; i < 5; i++) {
      const reply = await fetch(`${nodes[i % 2]!.url}/oauth/register`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ client_name: `Node test ${i}`, redirect_uris: ['http://127.0.0.1:8976/callback'] }),
      });
      statuses.push(reply.status);
      if (reply.status === 429) {
        assert.ok(Number(reply.headers.get('retry-after')) > 0);
        assert.match(reply.headers.get('ratelimit-policy') ?? '', /^"oauth\.register";q=3;w=60$/);
        assert.match(reply.headers.get('ratelimit') ?? '', /^"oauth\.register";r=0;t=\d+$/);
      }
    }
    // The first of the three went to the client registered before.
    assert.deepEqual(statuses, [201, 201, 429, 429, 429]);
  });

  test('an API key\'s requests: 6 a minute in all, whichever node is asked', async () => {
    const key = await nodes[0]!.mintKey();
    await withinOneMinuteWindow(20_000);
    const statuses: number[] = [];
    for (let i = 0; i < 12; i++) {
      statuses.push((await call(nodes[i % 2]!.url, 'GET', '/api/v1/metrics/providers/tablebook', { key })).status);
      // Each node adds its counts to the shared row and reads back the total every 250 ms while it
      // is asked; done here at once (twice round: every node adds, then every node reads the sum),
      // as a client's requests a moment apart find it.
      for (const node of [...nodes, ...nodes]) await requestCounterOf(node.services.db).flush();
    }
    assert.deepEqual(statuses, [200, 200, 200, 200, 200, 200, 429, 429, 429, 429, 429, 429]);
  });

  test('client-authentication failures: 10 in all across both nodes', async () => {
    const replies = await Promise.all(
      Array.from({ length: 40 }, (_, i) => postForm(`${nodes[i % 2]!.url}/oauth/revoke`, { token: 'x' }, { basic: [target.client.client_id, `wrong-${i}`] })),
    );
    assert.equal(replies.filter((r) => r.status === 401).length, 10);
    assert.equal(replies.filter((r) => r.status === 429).length, 30);
  });
});
