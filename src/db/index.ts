import { randomUUID } from 'node:crypto';
import { mkdirSync, existsSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { Kysely, PostgresDialect, sql } from 'kysely';
import pg from 'pg';
import type { PGlite } from '@electric-sql/pglite';
import type { Config } from '../config.ts';
import type { DB } from './schema.ts';
import { PGliteDialect } from './pglite-driver.ts';
import { withPreparedStatements } from './prepared-statements.ts';
import { SERVER_TIMEOUTS } from './query-timeout.ts';
import { acquireDataDirLock, socketPathFor, type DataDirLock } from './lock.ts';
import { ExclusiveSocketServer } from './pglite-socket.ts';
import { initialisedDataDir } from './pglite-initdb.ts';

// int8 counts and ids fit in a double; numeric stays a string (exact money).
pg.types.setTypeParser(20, (v) => Number(v));

export type Backend = 'pglite' | 'postgres';

export interface Database {
  db: Kysely<DB>;
  backend: Backend;
  /** How pg-boss reaches the same database. */
  boss: { backend: Backend; pglite?: PGlite; connectionString?: string; schema: string };
  schema: string;
  ping(): Promise<void>;
  close(): Promise<void>;
  /**
   * Listens to a notification channel. onDown is called whenever notifications may be missed, onUp
   * when they will be delivered again. PostgreSQL: a dedicated connection, reconnected with
   * backoff; up only while its own heartbeat notifications come back (payloads starting with
   * HEARTBEAT_PREFIX, which never reach onNotify), down otherwise.
   * PGlite: in-process notifications are always delivered, but a process on the shared socket (the
   * CLI) cannot notify the service, so it is down while such a process is connected. Absent on a
   * database reached through another process's socket. Returns a stop function.
   */
  listen?(channel: string, handlers: ListenHandlers): () => Promise<void>;
}

export interface ListenHandlers {
  onNotify(payload: string): void;
  onUp(): void;
  onDown(): void;
}

/** How long a PostgreSQL connection is idle before the kernel probes it: one whose server vanished is
 *  found out in seconds rather than after the system default of two hours. pg-boss's pool uses it too. */
export const KEEPALIVE_INITIAL_DELAY_MS = 5_000;

/**
 * How often the LISTEN connection proves that notifications reach it, and how long one may take
 * to come back. TCP keepalive does not catch a server that stopped answering while its host's
 * kernel still acknowledges, nor a proxy on the way that stopped forwarding; and a connection that
 * answers queries may still not receive notifications (behind PgBouncer in transaction mode, LISTEN
 * is lost with the server connection it ran on). Only a notification sent on the channel and
 * received proves the path: otherwise the API-key cache would stay on while no revocation can arrive.
 */
const LISTEN_HEARTBEAT_MS = 2_500;

/** Notifications with this payload prefix are listeners' heartbeats (see listenOn), not messages. */
export const HEARTBEAT_PREFIX = 'heartbeat:';

export class DataDirInUseError extends Error {
  override name = 'DataDirInUseError';
}

export interface OpenOptions {
  /** The service shares its embedded database with CLI processes over a local socket. */
  shareSocket?: boolean;
  /** An in-memory PGlite starts from this data directory dump (skips initdb and migrations). */
  loadDataDir?: Blob;
  /**
   * A connection to PostgreSQL failed (reset, closed by the server, timed out). The query it was
   * running, if any, has already failed on its own; this is for the log.
   */
  onConnectionError?: (error: Error) => void;
}

/** The schema pg-boss keeps its queue in, beside the service's own `schema`. */
function queueSchemaOf(schema: string): string {
  return schema === 'public' ? 'pgboss' : `${schema}_pgboss`;
}

/** Drops a PostgreSQL schema the service used and its queue's schema: how a test or benchmark run
 *  that worked in a schema of its own cleans up. */
export async function dropSchemas(url: string, schema: string): Promise<void> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    await client.query(`drop schema if exists "${schema}" cascade; drop schema if exists "${queueSchemaOf(schema)}" cascade`);
  } finally {
    await client.end();
  }
}

export async function openDatabase(config: Pick<Config, 'DATABASE_URL' | 'DATABASE_SCHEMA'>, options: OpenOptions = {}): Promise<Database> {
  const schema = config.DATABASE_SCHEMA;
  const bossSchema = queueSchemaOf(schema);
  const url = config.DATABASE_URL;
  if (url.startsWith('pglite:')) {
    const location = url.slice('pglite:'.length) || './data';
    if (location !== 'memory:') {
      const dir = resolve(location);
      mkdirSync(dir, { recursive: true });
      const lock = acquireDataDirLock(dir);
      if (!lock) {
        // Another process owns the directory: reach its database over the socket it shares.
        const socketDir = dir;
        if (!existsSync(socketPathFor(dir))) {
          throw new DataDirInUseError(`the data directory ${dir} is in use by another process that does not share it`);
        }
        // The socket serves one client at a time, each for its whole session (./pglite-socket.ts):
        // one connection (a second would wait for the first), no notifications (they would not
        // reach the service) and no named statements.
        return openPostgres({ host: socketDir, user: 'postgres', database: 'postgres' }, schema, bossSchema, `postgres://postgres@${encodeURIComponent(socketDir)}/postgres`, options, false);
      }
      return openPGlite(dir, lock, schema, bossSchema, options);
    }
    return openPGlite(undefined, null, schema, bossSchema, options);
  }
  return openPostgres({ connectionString: url }, schema, bossSchema, url, options);
}

/**
 * PGlite's buffer cache. The postgresql.conf its initdb writes asks for PostgreSQL's 128 MB, and
 * PGlite's WebAssembly memory holds all of it from the start (and never gives memory back): about
 * 100 MB of the serve process's resident memory went to a cache of a database that is tens of
 * megabytes. 32 MB keeps the service's working set (its tables and indexes, the queue's) cached;
 * what does not fit is read from the data directory through the OS page cache. Only the cache's
 * size changes: durability and results do not depend on it. (16 MB saved 20 MB more, but a large
 * query then spiked far above both.)
 */
const PGLITE_SHARED_BUFFERS = '32MB';

async function openPGlite(dir: string | undefined, lock: DataDirLock | null, schema: string, bossSchema: string, options: OpenOptions): Promise<Database> {
  const { PGlite } = await import('@electric-sql/pglite');
  const parsers = { 20: (v: string) => Number(v) };
  const startParams = [...PGlite.defaultStartParams, '-c', `shared_buffers=${PGLITE_SHARED_BUFFERS}`];
  // A new directory is loaded from a cached initdb rather than initialised afresh (./pglite-initdb.ts).
  const initialised = dir && !existsSync(join(dir, 'PG_VERSION')) ? await initialisedDataDir(PGlite) : undefined;
  const pglite = await PGlite.create(dir ? { dataDir: dir, parsers, startParams, loadDataDir: initialised } : { parsers, startParams, loadDataDir: options.loadDataDir });
  if (schema !== 'public') {
    await pglite.exec(`create schema if not exists "${schema}"; set search_path to "${schema}"`);
  }
  let socketServer: ExclusiveSocketServer | null = null;
  if (dir && options.shareSocket) {
    // Each client has the one session to itself and leaves it as it found it (./pglite-socket.ts).
    const setup = schema === 'public' ? [] : [`SET search_path TO "${schema}"`];
    const server = new ExclusiveSocketServer(pglite, socketPathFor(dir), { sessionSetup: () => setup });
    await server.start();
    socketServer = server;
  }
  const db = new Kysely<DB>({ dialect: new PGliteDialect(pglite) });
  const listeners = new Set<ListenHandlers>();
  return {
    db,
    backend: 'pglite',
    boss: { backend: 'pglite', pglite, schema: bossSchema },
    schema,
    async ping() {
      await sql`select 1`.execute(db);
    },
    listen(channel, handlers) {
      listeners.add(handlers);
      const stop = listenOnPGlite(pglite, socketServer, channel, handlers);
      return async () => {
        listeners.delete(handlers);
        await stop();
      };
    },
    async close() {
      // Once closed, nothing is delivered: say so before anything else can ask.
      for (const handlers of listeners) handlers.onDown();
      await socketServer?.stop();
      await pglite.close();
      lock?.release();
    },
  };
}

async function openPostgres(poolConfig: pg.PoolConfig, schema: string, bossSchema: string, connectionString: string, options: OpenOptions, ownSession = true): Promise<Database> {
  const onConnectionError = options.onConnectionError ?? (() => {});
  const pool = new pg.Pool({
    ...poolConfig,
    // The server ends a statement past the query timeout (./query-timeout.ts). Not over PGlite's
    // socket: its one session is the service's too, and PGlite has no server-side timeouts.
    ...(ownSession ? SERVER_TIMEOUTS : {}),
    max: ownSession ? 20 : 1,
    connectionTimeoutMillis: 5_000,
    // An idle connection whose server went away without a word is found out by the kernel within
    // seconds rather than hours; a busy one by the client's query timeout (withPreparedStatements).
    keepAlive: true,
    keepAliveInitialDelayMillis: KEEPALIVE_INITIAL_DELAY_MS,
    options: schema === 'public' ? undefined : `-c search_path=${schema}`,
  });
  // pg-pool listens for 'error' on a client only while it is idle in the pool, and takes its
  // listener off while the client is lent out. A connection reset under a running query would then
  // emit 'error' with no listener, which ends the process. This listener stays for the client's
  // whole life; the query in flight fails by itself, and the pool drops the broken client when it
  // comes back.
  pool.on('connect', (client) => client.on('error', onConnectionError));
  // The same failure on an idle client, as the pool reports it: already logged by the listener above.
  pool.on('error', () => {});
  if (schema !== 'public') {
    await pool.query(`create schema if not exists "${schema}"`);
  }
  const db = new Kysely<DB>({ dialect: new PostgresDialect({ pool: withPreparedStatements(pool, { prepare: ownSession }) }) });
  return {
    db,
    backend: 'postgres',
    boss: { backend: 'postgres', connectionString, schema: bossSchema },
    schema,
    async ping() {
      await sql`select 1`.execute(db);
    },
    async close() {
      await db.destroy();
    },
    ...(ownSession ? { listen: (channel: string, handlers: ListenHandlers) => listenOn({ ...poolConfig, options: undefined }, channel, handlers, onConnectionError) } : {}),
  };
}

function listenOnPGlite(
  pglite: PGlite,
  socketServer: ExclusiveSocketServer | null,
  channel: string,
  handlers: ListenHandlers,
): () => Promise<void> {
  let unlisten: (() => Promise<void>) | null = null;
  socketServer?.keepListening(channel);
  void pglite
    .listen(channel, (payload) => handlers.onNotify(payload))
    .then((stop) => (unlisten = stop))
    .catch(() => handlers.onDown());
  let watching: NodeJS.Timeout | undefined;
  // The 'connection' event fires before the new client's first query is run: anything cached
  // before it is forgotten in time. While a client is connected nothing is cached; once none is,
  // lookups see whatever it committed.
  const onConnection = () => {
    handlers.onDown();
    watching ??= setInterval(() => {
      if (socketServer!.getStats().activeConnections > 0) return;
      clearInterval(watching);
      watching = undefined;
      handlers.onUp();
    }, 50);
  };
  socketServer?.addEventListener('connection', onConnection);
  handlers.onUp();
  return async () => {
    socketServer?.removeEventListener('connection', onConnection);
    clearInterval(watching);
    handlers.onDown();
    await unlisten?.().catch(() => {});
  };
}

function listenOn(clientConfig: pg.ClientConfig, channel: string, handlers: ListenHandlers, onConnectionError: (error: Error) => void): () => Promise<void> {
  if (!/^[a-z_][a-z0-9_]*$/.test(channel)) throw new Error(`bad channel name ${channel}`);
  let current: pg.Client | null = null;
  let stopped = false;
  let delay = 250;
  let timer: NodeJS.Timeout | undefined;
  let heartbeat: NodeJS.Timeout | undefined;
  const connect = async () => {
    if (stopped) return;
    const client = new pg.Client({
      ...clientConfig,
      connectionTimeoutMillis: 5_000,
      keepAlive: true,
      keepAliveInitialDelayMillis: KEEPALIVE_INITIAL_DELAY_MS,
      query_timeout: LISTEN_HEARTBEAT_MS,
    });
    current = client;
    const lost = () => {
      if (current !== client) return;
      current = null;
      clearTimeout(heartbeat);
      handlers.onDown();
      // A heartbeat that timed out is still in flight: end() then drops the socket at once.
      client.end().catch(() => {});
      if (!stopped) {
        timer = setTimeout(() => void connect(), delay);
        delay = Math.min(delay * 2, 5_000);
      }
    };
    // A nonce sent on the channel must come back within the heartbeat; the first one to come back
    // says this connection is up. Every listener of the channel sees every heartbeat and ignores
    // those that are not its own.
    let expected: string | null = null;
    let proven = false;
    const beat = () => {
      if (current !== client) return;
      expected = `${HEARTBEAT_PREFIX}${randomUUID()}`;
      heartbeat = setTimeout(lost, LISTEN_HEARTBEAT_MS);
      client.query('select pg_notify($1, $2)', [channel, expected]).catch(lost);
    };
    const heard = (payload: string) => {
      if (current !== client || payload !== expected) return;
      expected = null;
      clearTimeout(heartbeat);
      if (!proven) {
        proven = true;
        delay = 250;
        handlers.onUp();
      }
      heartbeat = setTimeout(beat, LISTEN_HEARTBEAT_MS);
    };
    client.on('error', (error) => {
      onConnectionError(error);
      lost();
    });
    client.on('end', lost);
    client.on('notification', (message) => {
      if (message.channel !== channel) return;
      const payload = message.payload ?? '';
      if (payload.startsWith(HEARTBEAT_PREFIX)) heard(payload);
      else handlers.onNotify(payload);
    });
    try {
      await client.connect();
      await client.query(`listen ${channel}`);
      beat();
    } catch {
      lost();
    }
  };
  handlers.onDown();
  void connect();
  return async () => {
    stopped = true;
    clearTimeout(timer);
    clearTimeout(heartbeat);
    const client = current;
    current = null;
    handlers.onDown();
    await client?.end().catch(() => {});
  };
}
