import { sql, type Kysely } from 'kysely';
import type { DB } from './schema.ts';

/**
 * The service can read its own tables: more than a ping, which answers even when the session has
 * lost its schema (a search_path that no longer names it) or the tables are gone.
 */
export async function readsOwnTables(db: Kysely<DB>): Promise<void> {
  await sql`select 1 from jobs limit 1`.execute(db);
  await sql`select 1 from api_keys limit 1`.execute(db);
}
