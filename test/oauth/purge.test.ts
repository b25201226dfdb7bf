import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { BACKENDS, startTestService, type TestService } from '../helpers/service.ts';
import { call } from '../helpers/http.ts';
import { until } from '../helpers/wait.ts';
import { purgeExpired } from '../../src/oauth/purge.ts';
import { PURGE_CRON, PURGE_QUEUE } from '../../src/oauth/purge-schedule.ts';
import { insertClient } from '../../src/oauth/clients.ts';
import { upsertUser } from '../../src/identity/users.ts';

const ago = (ms: number) => new Date(Date.now() - ms);
const DAY = 86400_000;

/**
 * Expired and live artefacts of every kind, and four clients: a dynamic one never authorized for 31
 * days (stale), one registered today (fresh), one authorized (used) and an operator's (operator).
 */
async function seed(db: TestService['services']['db']) {
  const base = { redirectUris: ['https://a.example/cb'], clientName: 'x', clientUri: null, scope: 'book read', grantTypes: ['authorization_code', 'refresh_token'], responseTypes: ['code'], authMethod: 'client_secret_basic' as const };
  const stale = (await insertClient(db, { ...base, registration: 'dynamic' })).client.client_id;
  const fresh = (await insertClient(db, { ...base, registration: 'dynamic' })).client.client_id;
  const used = (await insertClient(db, { ...base, registration: 'dynamic' })).client.client_id;
  const operator = (await insertClient(db, { ...base, registration: 'operator' })).client.client_id;
  // A client metadata document fetched at an authorization nobody completed.
  const document = `https://app.example/${randomUUID()}/client.json`;
  await db.insertInto('oauth_clients').values({
    client_id: document, secret_hash: null, token_endpoint_auth_method: 'none', registration: 'metadata_document', redirect_uris: ['https://app.example/cb'],
    client_name: 'Doc', client_uri: null, scope: 'book read', grant_types: ['authorization_code'], response_types: ['code'], metadata_expires_at: new Date(Date.now() + DAY),
  }).execute();
  await db.updateTable('oauth_clients').set({ created_at: ago(31 * DAY) }).where('client_id', 'in', [stale, used, operator, document]).execute();
  await db.updateTable('oauth_clients').set({ first_authorized_at: ago(20 * DAY) }).where('client_id', '=', used).execute();

  const user = await upsertUser(db, { issuer: 'https://idp.example', subject: 'purge', email: null, name: null });
  const grant = await db.insertInto('oauth_grants').values({ user_id: user.id, client_id: used, scope: 'book read' }).returning('id').executeTakeFirstOrThrow();
  const family = randomUUID();
  await db.insertInto('oauth_token_families').values({ id: family, grant_id: grant.id, client_id: used, resource: 'r' }).execute();
  const code = { grant_id: grant.id, client_id: used, redirect_uri: 'https://a.example/cb', code_challenge: 'c', scope: 'read', resource: 'r' };
  await db.insertInto('oauth_codes').values([{ ...code, code_hash: 'code-expired', expires_at: ago(1000) }, { ...code, code_hash: 'code-live', expires_at: new Date(Date.now() + 60_000) }]).execute();
  await db.insertInto('oauth_access_tokens').values([{ token_hash: 'at-expired', family_id: family, scope: 'read', expires_at: ago(1000) }, { token_hash: 'at-live', family_id: family, scope: 'read', expires_at: new Date(Date.now() + 60_000) }]).execute();
  await db.insertInto('oauth_refresh_tokens').values([
    { token_hash: 'rt-expired', family_id: family, scope: 'read', expires_at: ago(1000) },
    { token_hash: 'rt-rotated', family_id: family, scope: 'read', expires_at: new Date(Date.now() + DAY), rotated_at: ago(1000) },
  ]).execute();
  await db.insertInto('oauth_authorization_requests').values([
    { id_hash: 'req-expired', client_id: used, redirect_uri: 'https://a.example/cb', scope: 'read', code_challenge: 'c', resource: 'r', expires_at: ago(1000) },
    { id_hash: 'req-live', client_id: used, redirect_uri: 'https://a.example/cb', scope: 'read', code_challenge: 'c', resource: 'r', expires_at: new Date(Date.now() + 60_000) },
  ]).execute();
  await db.insertInto('web_sessions').values([{ id_hash: 's-expired', user_id: user.id, expires_at: ago(1000) }, { id_hash: 's-live', user_id: user.id, expires_at: new Date(Date.now() + DAY) }]).execute();
  return { stale, fresh, used, operator, document };
}

/** What is left of the seeded rows. */
async function remaining(db: TestService['services']['db']) {
  return {
    codes: (await db.selectFrom('oauth_codes').select('code_hash').orderBy('code_hash').execute()).map((r) => r.code_hash),
    accessTokens: (await db.selectFrom('oauth_access_tokens').select('token_hash').orderBy('token_hash').execute()).map((r) => r.token_hash),
    refreshTokens: (await db.selectFrom('oauth_refresh_tokens').select('token_hash').orderBy('token_hash').execute()).map((r) => r.token_hash),
    requests: (await db.selectFrom('oauth_authorization_requests').select('id_hash').orderBy('id_hash').execute()).map((r) => r.id_hash),
    sessions: (await db.selectFrom('web_sessions').select('id_hash').where('id_hash', 'in', ['s-expired', 's-live']).orderBy('id_hash').execute()).map((r) => r.id_hash),
    clients: (await db.selectFrom('oauth_clients').select('client_id').execute()).map((c) => c.client_id),
  };
}

for (const backend of BACKENDS) {
  describe(`OAuth purge on ${backend.name}`, () => {
    let service: TestService;
    before(async () => {
      service = await startTestService(backend.url);
    });
    after(() => service?.close());

    test('the purge runs on a pg-boss schedule', async () => {
      const schedules = await service.services.queue.boss.getSchedules(PURGE_QUEUE);
      assert.equal(schedules.length, 1);
      assert.equal(schedules[0]!.cron, PURGE_CRON);
    });

    test('expired codes, tokens, requests and sessions go; live ones and rotated-but-unexpired refresh tokens stay; unused dynamic clients go after 30 days', async () => {
      const db = service.services.db;
      const { stale, fresh, used, operator, document } = await seed(db);
      const counts = await purgeExpired(db);
      assert.deepEqual(counts, { authorizationRequests: 1, codes: 1, accessTokens: 1, refreshTokens: 1, families: 0, sessions: 1, unusedClients: 2 });
      const left = await remaining(db);
      assert.deepEqual(left.codes, ['code-live']);
      assert.deepEqual(left.accessTokens, ['at-live']);
      assert.deepEqual(left.refreshTokens, ['rt-rotated']);
      assert.ok(!left.clients.includes(stale));
      assert.ok(!left.clients.includes(document), 'an unused metadata-document client goes too');
      for (const kept of [fresh, used, operator]) assert.ok(left.clients.includes(kept));
      // A second run finds nothing more to do.
      assert.deepEqual(Object.values(await purgeExpired(db)), [0, 0, 0, 0, 0, 0, 0]);
      assert.equal((await call(service.url, 'GET', '/healthz')).status, 200);
    });
  });
}

for (const backend of BACKENDS) {
  describe(`OAuth purge worker on ${backend.name}`, () => {
    let service: TestService;
    before(async () => {
      // A process that runs workers runs the purge job too.
      service = await startTestService(backend.url, { WORKERS: '1' });
    });
    after(() => service?.close());

    test('the worker deletes expired codes, tokens, requests, sessions, rate-limit counters and used node-call signatures, and never-authorized dynamic clients older than 30 days when the job runs', async () => {
      const db = service.services.db;
      const { stale, fresh, used, operator } = await seed(db);
      // A rate-limit counter whose window has ended, and one still counting.
      await db.insertInto('rate_limits').values([
        { key: 'test.purge:ended', count: 3, window_ends: ago(1000) },
        { key: 'test.purge:live', count: 1, window_ends: new Date(Date.now() + 60_000) },
      ]).execute();
      // A used node-call signature no node would accept any more, and one that could still be presented.
      await db.insertInto('node_call_signatures').values([
        { signature: 'test-purge-ended', expires_at: ago(1000) },
        { signature: 'test-purge-live', expires_at: new Date(Date.now() + 60_000) },
      ]).execute();
      // The job the hourly schedule sends, sent now.
      await service.services.queue.boss.send(PURGE_QUEUE, {});
      const staleGone = async () => !(await db.selectFrom('oauth_clients').select('client_id').where('client_id', '=', stale).execute()).length;
      await until('the purge job ran (the stale client is gone)', staleGone, 30_000, 100);
      // Clients are the purge's last delete: read the rest only once it has happened, not while the
      // job is halfway through (reading table by table during the job saw some deletes and not others).
      const left = await remaining(db);
      assert.deepEqual(
        { ...left, clients: undefined },
        { codes: ['code-live'], accessTokens: ['at-live'], refreshTokens: ['rt-rotated'], requests: ['req-live'], sessions: ['s-live'], clients: undefined },
      );
      assert.ok(!left.clients.includes(stale), 'the never-authorized client older than 30 days is gone');
      for (const kept of [fresh, used, operator]) assert.ok(left.clients.includes(kept));
      await until('the ended rate-limit counter is gone', async () => (await db.selectFrom('rate_limits').select('key').where('key', 'like', 'test.purge:%').execute()).length === 1, 10_000, 100);
      assert.deepEqual((await db.selectFrom('rate_limits').select('key').where('key', 'like', 'test.purge:%').execute()).map((r) => r.key), ['test.purge:live']);
      const signatures = async () => (await db.selectFrom('node_call_signatures').select('signature').where('signature', 'like', 'test-purge-%').execute()).map((r) => r.signature);
      await until('the used node-call signature past its window is gone', async () => (await signatures()).length === 1, 10_000, 100);
      assert.deepEqual(await signatures(), ['test-purge-live']);
    });
  });
}
