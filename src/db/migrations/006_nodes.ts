import type { Kysely } from 'kysely';
import { runStatements } from './run-sql.ts';

// nodes: the processes that hold browser sessions (a `serve` with workers, a `concierge worker`),
// each with the internal address other nodes relay a held booking's page to, and a heartbeat
// (src/cluster/nodes.ts). A job names the node running it (run_instance, for the `sessionUrl`
// watch view) as it already names the node holding its paused tab (hold_instance).
export async function up(db: Kysely<unknown>): Promise<void> {
  await runStatements(db, `
    create table nodes (
      id text primary key,
      internal_url text not null,
      role text not null,
      draining boolean not null default false,
      started_at timestamptz not null default now(),
      heartbeat_at timestamptz not null default now()
    );
    alter table jobs add column run_instance text;
  `);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await runStatements(db, `
    alter table jobs drop column run_instance;
    drop table nodes;
  `);
}
