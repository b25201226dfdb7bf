import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import pg from 'pg';
import { BACKENDS, restaurantRequest, startTestService, type TestService } from '../helpers/service.ts';
import { call, type Reply } from '../helpers/http.ts';
import { assertApiError } from '../helpers/api-assert.ts';
import { HEARTBEAT_PREFIX, openDatabase, type Database } from '../../src/db/index.ts';
import { listApiKeys, revokeApiKey } from '../../src/auth/api-keys.ts';

// The PostgreSQL notification connection (src/db/index.ts listenOn) counts as up only while its
// own heartbeat notifications come back. A connection that answers queries but no longer receives
// notifications (behind PgBouncer in transaction mode LISTEN is lost) is simulated by UNLISTEN on
// the listening connection itself, found by watching which pg clients connect.
const backend = BACKENDS.find((b) => b.name === 'postgres');

/** Every pg client that connects while `record` runs (the service's pool and its listener alike). */
async function connectedClients<T>(record: () => Promise<T>): Promise<{ result: T; clients: pg.Client[] }> {
  const clients: pg.Client[] = [];
  const connect = pg.Client.prototype.connect;
  pg.Client.prototype.connect = function (this: pg.Client, ...args: unknown[]) {
    clients.push(this);
    return (connect as (...a: unknown[]) => unknown).apply(this, args);
  } as typeof connect;
  try {
    return { result: await record(), clients };
  } finally {
    pg.Client.prototype.connect = connect;
  }
}

/** The listening connection: the one client that handles notifications. */
function listenerOf(clients: pg.Client[]): pg.Client {
  const listeners = clients.filter((c) => c.listenerCount('notification') > 0);
  assert.equal(listeners.length, 1, 'one listening connection');
  return listeners[0]!;
}

async function until(what: string, condition: () => boolean, withinMs: number): Promise<void> {
  for (const deadline = Date.now() + withinMs; !condition(); await sleep(20)) {
    if (Date.now() > deadline) throw new Error(`${what}: not within ${withinMs} ms`);
  }
}

/** The heartbeat (2.5 s) and its answer's allowance (2.5 s), with room for a reconnection. */
const DETECTION_MS = 8_000;

if (backend) {
  describe('the notification connection on postgres', () => {
    let database: Database;
    let observer: pg.Client;
    before(async () => {
      observer = new pg.Client({ connectionString: backend.url });
      await observer.connect();
    });
    after(async () => {
      await observer.end();
    });

    test('is up once its heartbeat came back over the channel; heartbeats never reach the handler, other notifications do', { timeout: 30_000 }, async () => {
      const channel = `t_listen_${randomBytes(4).toString('hex')}`;
      const seenByOthers: string[] = [];
      observer.on('notification', (m) => m.channel === channel && seenByOthers.push(m.payload ?? ''));
      await observer.query(`listen ${channel}`);
      database = await openDatabase({ DATABASE_URL: backend.url, DATABASE_SCHEMA: 'public' });
      const events: string[] = [];
      const stop = database.listen!(channel, { onNotify: (p) => events.push(`notify ${p}`), onUp: () => events.push('up'), onDown: () => events.push('down') });
      try {
        await until('up', () => events.includes('up'), DETECTION_MS);
        // What made it up: a heartbeat notification on the channel itself, which every listener sees.
        assert.ok(seenByOthers.some((p) => p.startsWith(HEARTBEAT_PREFIX)), JSON.stringify(seenByOthers));
        await observer.query('select pg_notify($1, $2)', [channel, 'abc123']);
        await until('the notification', () => events.includes('notify abc123'), 2_000);
        await sleep(6_000);
        assert.deepEqual(events, ['down', 'up', 'notify abc123'], 'heartbeats kept it up and were not handed on');
        assert.ok(seenByOthers.filter((p) => p.startsWith(HEARTBEAT_PREFIX)).length >= 3, 'it kept beating');
      } finally {
        await stop();
        await database.close();
        await observer.query(`unlisten ${channel}`);
      }
    });

    test('goes down when its notifications stop arriving although the connection still answers, then up on a new connection', { timeout: 30_000 }, async () => {
      const channel = `t_listen_${randomBytes(4).toString('hex')}`;
      const events: string[] = [];
      const { result: opened, clients } = await connectedClients(async () => {
        const db = await openDatabase({ DATABASE_URL: backend.url, DATABASE_SCHEMA: 'public' });
        const stop = db.listen!(channel, { onNotify: (p) => events.push(`notify ${p}`), onUp: () => events.push('up'), onDown: () => events.push('down') });
        await until('up', () => events.includes('up'), DETECTION_MS);
        return { db, stop };
      });
      try {
        const listener = listenerOf(clients);
        await listener.query(`unlisten ${channel}`);
        await until('down', () => events.filter((e) => e === 'down').length === 2, DETECTION_MS);
        await until('up again', () => events.filter((e) => e === 'up').length === 2, DETECTION_MS);
        // The new connection receives what is sent.
        await observer.query('select pg_notify($1, $2)', [channel, 'after']);
        await until('the notification', () => events.includes('notify after'), 2_000);
      } finally {
        await opened.stop();
        await opened.db.close();
      }
    });
  });

  describe('the API-key cache on postgres when revocations stop arriving', () => {
    let service: TestService;
    let clients: pg.Client[];
    before(async () => {
      ({ result: service, clients } = await connectedClients(() => startTestService(backend.url)));
    });
    after(() => service?.close());

    test('a key revoked by another process is refused at once even after the listening connection lost its LISTEN', { timeout: 60_000 }, async () => {
      const key = await service.mintKey('Acme Travel');
      const created = await call(service.url, 'POST', '/api/v1/execution-jobs', { key, body: restaurantRequest() });
      assert.equal(created.status, 202);
      await listenerOf(clients).query('unlisten *');
      // Long enough for a heartbeat to go missing and the listener to come back on a new connection.
      await sleep(DETECTION_MS);
      // The key is verified, and remembered if the cache is on.
      assert.equal((await call(service.url, 'GET', created.body._links.self, { key })).status, 200);
      const elsewhere = await openDatabase({ DATABASE_URL: backend.url, DATABASE_SCHEMA: service.config.DATABASE_SCHEMA });
      try {
        // As `concierge keys revoke` does, from another process.
        const newest = (await listApiKeys(elsewhere.db)).at(-1)!;
        assert.ok(await revokeApiKey(elsewhere.db, newest.id));
      } finally {
        await elsewhere.close();
      }
      let reply: Reply;
      const until = Date.now() + 1_000;
      do reply = await call(service.url, 'GET', created.body._links.self, { key });
      while (reply.status === 200 && Date.now() < until);
      assertApiError(reply, 401, 'invalid_api_key');
    });
  });
}
