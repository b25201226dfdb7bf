import type { Kysely } from 'kysely';
import { runStatements } from './run-sql.ts';

// Rate-limit and lockout counters (src/limits/): one row per key and window, shared by every node,
// so N nodes grant one allowance. A key is the limit's name and a SHA-256 of what it counts (an address, a client id, a key id).
export async function up(db: Kysely<unknown>): Promise<void> {
  await runStatements(db, `
    create table rate_limits (
      key text primary key,
      count integer not null,
      window_ends timestamptz not null
    );
    create index rate_limits_window_ends on rate_limits (window_ends);
  `);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await runStatements(db, `
    drop table rate_limits;
  `);
}
