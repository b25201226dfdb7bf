import type { Logger } from 'pino';
import type { Config } from '../config.ts';
import { openDatabase, type Database } from './index.ts';
import { waitForDatabase } from './wait.ts';

/**
 * How a service process opens its database: shared with the CLI over PGlite's socket, connection
 * errors logged; a PostgreSQL not reachable yet is waited for (./wait.ts). `signal`: the start was
 * given up otherwise, stop waiting.
 */
export function openServiceDatabase(config: Config, log: Logger, loadDataDir?: Blob, signal?: AbortSignal): Promise<Database> {
  const open = () => openDatabase(config, { shareSocket: true, loadDataDir, onConnectionError: (error) => log.warn({ err: error }, 'database connection failed') });
  // PGlite runs in the process: nothing to wait for, and its failures are not a server's.
  if (!config.DATABASE_URL.startsWith('postgres')) return open();
  return waitForDatabase(open, { url: config.DATABASE_URL, waitSeconds: config.DATABASE_WAIT_SECONDS, log, signal });
}
