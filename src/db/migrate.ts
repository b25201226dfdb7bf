import type { Kysely } from 'kysely';
import { Migrator, type Migration, type MigrationProvider } from 'kysely/migration';
import { withoutQueryTimeout } from './query-timeout.ts';
import * as core from './migrations/001_core.ts';
import * as oauth from './migrations/002_oauth.ts';
import * as executor from './migrations/003_executor.ts';

// Migrations are listed here rather than read from a folder, so the set that runs is exactly the
// set that was type-checked. Add new ones at the end; never edit one that has shipped.
const migrations: Record<string, Migration> = {
  '001_core': core,
  '002_oauth': oauth,
  '003_executor': executor,
};

const provider: MigrationProvider = {
  async getMigrations() {
    return migrations;
  },
};

// eslint-disable-next-line @typescript-eslint/no-explicit-any
export async function migrateToLatest(db: Kysely<any>, schema: string): Promise<string[]> {
  // A migration may rightly outlast the query timeout: rewriting a large table, or waiting for
  // another process that is applying the same migrations.
  const { error, results } = await withoutQueryTimeout(db, (unbounded) => new Migrator({ db: unbounded, provider, migrationTableSchema: schema }).migrateToLatest());
  if (error) throw error instanceof Error ? error : new Error(String(error));
  return (results ?? []).filter((r) => r.status === 'Success').map((r) => r.migrationName);
}
