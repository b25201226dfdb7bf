import type { Kysely } from 'kysely';
import { runStatements } from './run-sql.ts';

// Signed calls between nodes are single-use (src/cluster/used-calls.ts): every node's internal
// port records each call's signature here as it accepts it, and the primary key refuses a second
// use, on any node. A row is needed only while its signature could still be presented; the hourly
// purge deletes it after that.
export async function up(db: Kysely<unknown>): Promise<void> {
  await runStatements(db, `
    create table node_call_signatures (
      signature text primary key,
      expires_at timestamptz not null
    );
    create index node_call_signatures_expires_at on node_call_signatures (expires_at);
  `);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await runStatements(db, 'drop table node_call_signatures;');
}
