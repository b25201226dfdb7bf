import type { Kysely } from 'kysely';
import { loadConfig, type Config } from '../config.ts';
import { openDatabase } from '../db/index.ts';
import { migrateToLatest } from '../db/migrate.ts';
import type { DB } from '../db/schema.ts';

/**
 * Runs an operator command against the configured database. With the embedded backend and a
 * running service, the service owns the data directory and shares it over a local socket.
 */
export async function withDatabase<T>(fn: (db: Kysely<DB>, config: Config) => Promise<T>): Promise<T> {
  const config = loadConfig();
  const database = await openDatabase(config);
  try {
    await migrateToLatest(database.db, database.schema);
    return await fn(database.db, config);
  } finally {
    await database.close();
  }
}
