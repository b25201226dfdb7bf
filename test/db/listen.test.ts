import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { BACKENDS, restaurantRequest, startTestService, type TestService } from '../helpers/service.ts';
import { call } from '../helpers/http.ts';
import { assertRefusedOnceRevokedElsewhere } from '../helpers/revocation.ts';
import { until } from '../helpers/wait.ts';
import { apiKeyCacheOf } from '../../src/auth/api-key-cache.ts';
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

/** The up/down transitions only, which alternate from the first `down` (no up twice, no down twice). */
function assertAlternates(events: string[]): void {
  const transitions = events.filter((e) => e === 'up' || e === 'down');
  assert.deepEqual(transitions, transitions.map((_, i) => (i % 2 === 0 ? 'down' : 'up')), JSON.stringify(events));
}

/** The heartbeat (2.5 s) and its answer's allowance (2.5 s), with room for a reconnection on a loaded machine. */
const DETECTION_MS = 20_000;

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

    test('is up once its heartbeat came back over the channel; heartbeats keep it up and never reach the handler, other notifications do', { timeout: 60_000 }, async () => {
      const channel = `t_listen_${randomBytes(4).toString('hex')}`;
      const seenByOthers: string[] = [];
      // The listener's events and the heartbeats another listener sees, in one timeline.
      const timeline: string[] = [];
      observer.on('notification', (m) => {
        if (m.channel !== channel) return;
        seenByOthers.push(m.payload ?? '');
        if (m.payload?.startsWith(HEARTBEAT_PREFIX)) timeline.push('beat');
      });
      await observer.query(`listen ${channel}`);
      database = await openDatabase({ DATABASE_URL: backend.url, DATABASE_SCHEMA: 'public' });
      const events: string[] = [];
      const record = (event: string) => (events.push(event), timeline.push(event));
      const stop = database.listen!(channel, { onNotify: (p) => record(`notify ${p}`), onUp: () => record('up'), onDown: () => record('down') });
      try {
        await until('up', () => events.includes('up'), DETECTION_MS);
        // What made it up: a heartbeat notification on the channel itself, which every listener sees
        // (the observer's copy comes over its own connection, so it may arrive a moment later).
        await until('the heartbeat, seen by another listener', () => seenByOthers.some((p) => p.startsWith(HEARTBEAT_PREFIX)), 10_000);
        await observer.query('select pg_notify($1, $2)', [channel, 'abc123']);
        await until('the notification', () => events.includes('notify abc123'), 10_000);
        // Heartbeats answered keep it up: it stays up across three of them (the first may be the one
        // that made it up). Not an exact event list after a fixed sleep: a heartbeat answered late on
        // a loaded database takes it down and up once more, which is what it is for.
        const beatsSinceUp = () => {
          const lastUp = timeline.lastIndexOf('up');
          return lastUp > timeline.lastIndexOf('down') ? timeline.slice(lastUp).filter((e) => e === 'beat').length : 0;
        };
        await until('up across three heartbeats', () => beatsSinceUp() >= 3, 20_000);
        assertAlternates(events);
        assert.deepEqual(events.filter((e) => e.startsWith('notify')), ['notify abc123'], 'heartbeats are not handed on; the notification once');
      } finally {
        await stop();
        await database.close();
        await observer.query(`unlisten ${channel}`);
      }
    });

    test('goes down when its notifications stop arriving although the connection still answers, then up on a new connection', { timeout: 90_000 }, async () => {
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
        // Counted from here: a late heartbeat may already have added a down/up pair.
        const before = events.length;
        await listener.query(`unlisten ${channel}`);
        await until('down', () => events.indexOf('down', before) >= 0, DETECTION_MS);
        await until('up again', () => events.indexOf('up', events.indexOf('down', before)) >= 0, DETECTION_MS);
        assertAlternates(events);
        // The new connection receives what is sent.
        await observer.query('select pg_notify($1, $2)', [channel, 'after']);
        await until('the notification', () => events.includes('notify after'), 10_000);
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
      const cache = apiKeyCacheOf(service.services.db)!;
      await until('the cache on (the listener up)', () => cache.enabled, DETECTION_MS);
      const generation = cache.generation;
      await listenerOf(clients).query('unlisten *');
      // A heartbeat goes missing: the cache is emptied and turned off (its generation moves), then
      // on again once the listener is back on a new connection. Waited for, not slept for.
      await until('the listener down', () => cache.generation !== generation, DETECTION_MS);
      await until('the listener up again', () => cache.enabled, DETECTION_MS);
      const elsewhere = await openDatabase({ DATABASE_URL: backend.url, DATABASE_SCHEMA: service.config.DATABASE_SCHEMA });
      try {
        const newest = (await listApiKeys(elsewhere.db)).at(-1)!;
        // The key is verified, and remembered (the cache is on); revoked as `concierge keys revoke`
        // does, from another process, it is refused as soon as the notification reaches the new connection.
        await assertRefusedOnceRevokedElsewhere(service, created.body._links.self, key, async () => {
          assert.ok(await revokeApiKey(elsewhere.db, newest.id));
        });
      } finally {
        await elsewhere.close();
      }
    });
  });
}
