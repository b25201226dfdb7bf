import type { Kysely } from 'kysely';
import { sql } from 'kysely';
import { DEFAULT_MIGRATION_TABLE, Migrator, type Migration, type MigrationProvider, type MigrationResultSet } from 'kysely/migration';
import { withoutQueryTimeout } from './query-timeout.ts';
import * as core from './migrations/001_core.ts';
import * as oauth from './migrations/002_oauth.ts';
import * as executor from './migrations/003_executor.ts';
import * as paymentSubmitted from './migrations/004_payment_submitted.ts';
import * as providers from './migrations/005_providers.ts';
import * as nodes from './migrations/006_nodes.ts';
import * as mcp from './migrations/008_mcp.ts';
import * as webhooks from './migrations/009_webhooks.ts';
import * as limits from './migrations/011_limits.ts';
import * as evidence from './migrations/012_evidence.ts';
import * as personalDataErasure from './migrations/013_personal_data_erasure.ts';
import * as operatorAudit from './migrations/014_operator_audit.ts';
import * as taskInputAnswers from './migrations/015_task_input_answers.ts';
import * as nodeCallSignatures from './migrations/016_node_call_signatures.ts';
import * as openScenarios from './migrations/017_open_scenarios.ts';

// Migrations are listed here rather than read from a folder, so the set that runs is exactly the
// set that was type-checked. Add new ones at the end; never edit one that has shipped.
const migrations: Record<string, Migration> = {
  '001_core': core,
  '002_oauth': oauth,
  '003_executor': executor,
  '004_payment_submitted': paymentSubmitted,
  '005_providers': providers,
  '006_nodes': nodes,
  // 007 and 010 were numbers held by branches that merged under others; the gaps are harmless
  // (Kysely runs migrations in name order) and renumbering would strand existing databases.
  '008_mcp': mcp,
  '009_webhooks': webhooks,
  '011_limits': limits,
  '012_evidence': evidence,
  '013_personal_data_erasure': personalDataErasure,
  '014_operator_audit': operatorAudit,
  '015_task_input_answers': taskInputAnswers,
  '016_node_call_signatures': nodeCallSignatures,
  '017_open_scenarios': openScenarios,
};

const provider: MigrationProvider = {
  async getMigrations() {
    return migrations;
  },
};

/** How many times a migration run that lost the race below is started again: each loss is a chance meeting with another session's drop, and twenty in a row are not chance. */
const RACE_RETRIES = 20;

// eslint-disable-next-line @typescript-eslint/no-explicit-any
export async function migrateToLatest(db: Kysely<any>, schema: string): Promise<string[]> {
  for (let attempt = 0; ; attempt++) {
    // A migration may rightly outlast the query timeout: rewriting a large table, or waiting for
    // another process that is applying the same migrations.
    const { error, results }: MigrationResultSet = await withoutQueryTimeout(db, async (unbounded) =>
      (await allApplied(unbounded, schema)) ? { results: [] } : new Migrator({ db: unbounded, provider, migrationTableSchema: schema }).migrateToLatest(),
    );
    if (!error) return (results ?? []).filter((r) => r.status === 'Success').map((r) => r.migrationName);
    if (attempt < RACE_RETRIES && lostToAnotherSchemasDrop(error, schema)) continue;
    throw error instanceof Error ? error : new Error(String(error));
  }
}

/**
 * Whether the schema's migration table names exactly the migrations above: then Kysely's migrator
 * would apply nothing, and its run is skipped. That run reads the catalog to find its tables,
 * creates what is missing and takes its lock in a transaction: a quarter of a second or more of a
 * start on PGlite, for the answer every start after the first gets. Anything else (no table yet, a
 * migration missing, one this code does not know) goes to the migrator, which applies or refuses
 * exactly as before, and so does a check that fails. Two plain reads, outside any transaction, on
 * the migrator's own unbounded connection (a lock held on the table by another process's migration
 * is waited for, as the migrator would): a migration applied meanwhile is not seen until it commits
 * with its row, so it is either waited for by the migrator or already complete.
 */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
async function allApplied(db: Kysely<any>, schema: string): Promise<boolean> {
  const table = `"${schema.replaceAll('"', '""')}".${DEFAULT_MIGRATION_TABLE}`;
  let rows: Array<{ name: string }>;
  try {
    const { rows: found } = await sql<{ exists: boolean }>`select to_regclass(${table}) is not null as exists`.execute(db);
    if (!found[0]?.exists) return false;
    ({ rows } = await sql<{ name: string }>`select name from ${sql.table(`${schema}.${DEFAULT_MIGRATION_TABLE}`)}`.execute(db));
  } catch {
    return false;
  }
  const known = Object.keys(migrations);
  const applied = new Set(rows.map((r) => r.name));
  return applied.size === known.length && known.every((name) => applied.has(name));
}

/**
 * Kysely's migrator asks whether its tables exist by reading every schema's tables and looking each
 * schema up by name. A schema another session drops during that read (a database shared with other
 * services, parallel test runs that each work in a schema of their own) fails it with "schema …
 * does not exist", or "relation … does not exist" for its tables, though nothing of ours is amiss.
 * The run is started again: the failed read came before any migration, and each migration is a
 * transaction of its own.
 */
function lostToAnotherSchemasDrop(error: unknown, schema: string): boolean {
  const { code, message } = error as { code?: unknown; message?: unknown };
  return (code === '3F000' || code === '42P01') && typeof message === 'string' && !message.includes(`"${schema}`);
}
