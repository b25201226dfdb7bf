import type { Logger } from 'pino';
import type { Config } from '../config.ts';
import { openDatabase, type Database } from './index.ts';

/** How a service process opens its database: shared with the CLI over PGlite's socket, connection errors logged. */
export function openServiceDatabase(config: Config, log: Logger, loadDataDir?: Blob): Promise<Database> {
  return openDatabase(config, { shareSocket: true, loadDataDir, onConnectionError: (error) => log.warn({ err: error }, 'database connection failed') });
}
