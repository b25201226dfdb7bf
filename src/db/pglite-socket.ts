import { chmodSync } from 'node:fs';
import { createServer, type Server, type Socket } from 'node:net';
import type { PGlite } from '@electric-sql/pglite';

/**
 * Shares the embedded database over a Unix socket so that the CLI (and pg_dump, psql) work while
 * the service runs. PGlite is one PostgreSQL session, and @electric-sql/pglite-socket interleaves
 * its clients' messages with each other's and with the service's own statements in that session:
 * a client's `set_config('search_path', '', false)` (pg_dump's first statement) broke every later
 * call of the service, and one side's statements ran inside the other's transaction.
 *
 * Here a client has the session to itself, from its first byte to its last: it holds PGlite's
 * transaction lock (the one every `query`, `exec` and `transaction` of the service takes first), so
 * the service's statements wait and never run inside the client's transaction, nor the client's
 * inside the service's. Clients are served one after another. When a client leaves, everything
 * it may have changed in the session is undone before anyone else runs (`resetSession`): an open
 * transaction, settings (`RESET ALL` with `search_path`), prepared statements, cursors, temporary
 * tables, advisory locks, `LISTEN`s; then the service's own session settings are applied again.
 *
 * Because the service waits while a client holds the session, a client is cut off when it sends
 * nothing for IDLE_MS, or holds the session longer than MAX_SESSION_MS, with a FATAL error it shows.
 */
export interface ExclusiveSocketOptions {
  /** Statements that set up the service's own session (e.g. its search_path), run after every client. */
  sessionSetup?: () => string[];
  idleMs?: number;
  maxSessionMs?: number;
  maxConnections?: number;
}

export const IDLE_MS = 5_000;
export const MAX_SESSION_MS = 60_000;
/** A client message larger than this ends the client (PostgreSQL's own limit on a query is 1 GB). */
const MAX_MESSAGE_BYTES = 64 * 1024 * 1024;

const SSL_REQUEST = 80877103;
const GSSENC_REQUEST = 80877104;
const CANCEL_REQUEST = 80877102;

/** The statements that give the session back as a new connection would find it (DISCARD ALL, which
 *  cannot run in a transaction block, after ending any transaction the client left open). */
const RESET_STATEMENTS = ['ROLLBACK', 'DISCARD ALL'];

export class ExclusiveSocketServer extends EventTarget {
  readonly #pglite: PGlite;
  readonly #path: string;
  readonly #options: Required<Omit<ExclusiveSocketOptions, 'sessionSetup'>> & Pick<ExclusiveSocketOptions, 'sessionSetup'>;
  readonly #clients = new Set<Client>();
  readonly #channels = new Set<string>();
  #server: Server | null = null;

  constructor(pglite: PGlite, path: string, options: ExclusiveSocketOptions = {}) {
    super();
    this.#pglite = pglite;
    this.#path = path;
    this.#options = { idleMs: IDLE_MS, maxSessionMs: MAX_SESSION_MS, maxConnections: 8, ...options };
  }

  /** A channel the service listens on: `DISCARD ALL` unlistens it, so it is listened to again. */
  keepListening(channel: string): void {
    this.#channels.add(channel);
  }

  getStats(): { activeConnections: number } {
    return { activeConnections: this.#clients.size };
  }

  async start(): Promise<void> {
    const server = createServer((socket) => this.#accept(socket));
    server.maxConnections = this.#options.maxConnections;
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      // Owner only, from the moment the socket exists: the umask is the process's, so it is
      // restored in the same tick (listen on a path binds synchronously); chmod makes sure.
      const umask = process.umask(0o177);
      try {
        server.listen(this.#path, () => resolve());
      } finally {
        process.umask(umask);
      }
    });
    chmodSync(this.#path, 0o600);
    this.#server = server;
  }

  async stop(): Promise<void> {
    const server = this.#server;
    this.#server = null;
    const ended = [...this.#clients].map((client) => client.end());
    await Promise.all(ended);
    if (server) await new Promise<void>((resolve) => server.close(() => resolve()));
  }

  #accept(socket: Socket): void {
    if (!this.#server) {
      socket.destroy();
      return;
    }
    const client = new Client(socket, this.#pglite, this.#options, () => this.#afterSession());
    this.#clients.add(client);
    void client.done.then(() => this.#clients.delete(client));
    // Before the client's first statement runs (it waits for the session): anything cached in the
    // meantime by the listener of ./index.ts is forgotten in time.
    this.dispatchEvent(new Event('connection'));
  }

  #afterSession(): string[] {
    return [...RESET_STATEMENTS, ...(this.#options.sessionSetup?.() ?? []), ...[...this.#channels].map((channel) => `LISTEN "${channel}"`)];
  }
}

class Client {
  readonly done: Promise<void>;
  readonly #socket: Socket;
  readonly #pglite: PGlite;
  readonly #options: { idleMs: number; maxSessionMs: number };
  readonly #afterSession: () => string[];
  #buffer = Buffer.alloc(0);
  #started = false;
  #ending = false;
  #wake: (() => void) | null = null;
  #idle: NodeJS.Timeout | undefined;
  #limit: NodeJS.Timeout | undefined;

  constructor(socket: Socket, pglite: PGlite, options: { idleMs: number; maxSessionMs: number }, afterSession: () => string[]) {
    this.#socket = socket;
    this.#pglite = pglite;
    this.#options = options;
    this.#afterSession = afterSession;
    socket.setNoDelay(true);
    socket.on('data', (chunk) => {
      if (this.#buffer.length + chunk.length > MAX_MESSAGE_BYTES + 5) return this.#fail('08P01', 'message too long');
      this.#buffer = Buffer.concat([this.#buffer, chunk]);
      this.#wake?.();
    });
    socket.on('error', () => this.#close());
    socket.on('close', () => this.#close());
    // The whole session runs while the transaction lock is held; the service's statements queue behind it.
    this.done = pglite._runExclusiveTransaction(() => this.#serve()).catch(() => {});
  }

  /** Ends the client (the service is stopping). */
  end(): Promise<void> {
    this.#close();
    return this.done;
  }

  async #serve(): Promise<void> {
    if (this.#ending) return;
    this.#armIdle();
    this.#limit = setTimeout(() => this.#fail('57P05', 'the embedded database serves one client at a time: this session held it too long'), this.#options.maxSessionMs);
    try {
      while (!this.#ending) {
        const message = this.#next();
        if (message === null) {
          if (this.#ending) break;
          await new Promise<void>((resolve) => (this.#wake = resolve));
          this.#wake = null;
          continue;
        }
        if (message.length === 0) continue;
        // Idle means waiting for the client: time spent running its statement does not count (the
        // session's whole length is bounded by maxSessionMs anyway).
        clearTimeout(this.#idle);
        await this.#pglite.runExclusive(() =>
          this.#pglite.execProtocolRawStream(message, {
            onRawData: (data) => {
              if (!this.#socket.destroyed) this.#socket.write(data);
            },
          }),
        );
        this.#armIdle();
      }
    } catch {
      this.#close();
    } finally {
      clearTimeout(this.#idle);
      clearTimeout(this.#limit);
      await this.#resetSession();
    }
  }

  /** The next complete message to run, an empty array for one handled here, or null for none yet. */
  #next(): Uint8Array | null {
    const buffer = this.#buffer;
    if (!this.#started) {
      if (buffer.length < 8) return null;
      const length = buffer.readInt32BE(0);
      if (length < 8 || length > 10_000) return this.#refuse('08P01', 'invalid startup packet');
      if (buffer.length < length) return null;
      const code = buffer.readInt32BE(4);
      this.#buffer = buffer.subarray(length);
      if (code === SSL_REQUEST || code === GSSENC_REQUEST) {
        this.#socket.write('N');
        return new Uint8Array(0);
      }
      if (code === CANCEL_REQUEST) return this.#refuse(null, '');
      this.#started = true;
      return new Uint8Array(buffer.subarray(0, length));
    }
    if (buffer.length < 5) return null;
    const length = buffer.readInt32BE(1);
    if (length < 4 || length > MAX_MESSAGE_BYTES) return this.#refuse('08P01', 'invalid message length');
    if (buffer.length < length + 1) return null;
    this.#buffer = buffer.subarray(length + 1);
    // Terminate: PGlite's single-user backend is the service's session and must not be told to end.
    if (buffer[0] === 0x58) return this.#refuse(null, '');
    return new Uint8Array(buffer.subarray(0, length + 1));
  }

  #refuse(code: string | null, message: string): null {
    if (code) this.#fail(code, message);
    else this.#close();
    return null;
  }

  #armIdle(): void {
    clearTimeout(this.#idle);
    this.#idle = setTimeout(() => this.#fail('57P05', 'the embedded database serves one client at a time: this session was idle too long'), this.#options.idleMs);
  }

  /** Tells the client why, as PostgreSQL would (a FATAL ErrorResponse), and ends it. */
  #fail(code: string, message: string): void {
    if (!this.#socket.destroyed && this.#socket.writable) this.#socket.write(errorResponse(code, message));
    this.#close();
  }

  #close(): void {
    if (this.#ending) return;
    this.#ending = true;
    this.#socket.end();
    this.#socket.destroy();
    this.#wake?.();
  }

  /**
   * Gives the session back as the service left it. A message the client left half-way (an
   * extended-protocol batch without its Sync) is closed by a Sync first.
   */
  async #resetSession(): Promise<void> {
    await this.#pglite.runExclusive(async () => {
      await this.#pglite.execProtocolRaw(Buffer.from([0x53, 0, 0, 0, 4])).catch(() => {});
      for (const statement of this.#afterSession()) {
        await this.#pglite.execProtocolRaw(simpleQuery(statement)).catch(() => {});
      }
    });
  }
}

function simpleQuery(text: string): Uint8Array {
  const body = Buffer.from(`${text}\0`, 'utf8');
  const message = Buffer.alloc(5 + body.length);
  message[0] = 0x51;
  message.writeInt32BE(4 + body.length, 1);
  body.copy(message, 5);
  return message;
}

function errorResponse(code: string, message: string): Buffer {
  const fields = Buffer.from(`SFATAL\0VFATAL\0C${code}\0M${message}\0\0`, 'utf8');
  const out = Buffer.alloc(5 + fields.length);
  out[0] = 0x45;
  out.writeInt32BE(4 + fields.length, 1);
  fields.copy(out, 5);
  return out;
}
