import type { Kysely } from 'kysely';
import { runStatements } from './run-sql.ts';

// The executor's state beside the job row:
// - run_id fences a run: a worker whose job was taken over (its heartbeat went silent) can no longer
//   write to the job, so two workers never both act on it;
// - hold_instance / hold_seen_at say which process holds a paused booking's browser session and when
//   it last said so, so a hold whose process died is released rather than left paused forever;
// - settings keeps the generated SECRET_KEY of development and test installations.
export async function up(db: Kysely<unknown>): Promise<void> {
  await runStatements(db, `
    create table settings (
      name text primary key,
      value text not null,
      created_at timestamptz not null default now()
    );
    alter table jobs add column run_id text;
    alter table jobs add column hold_instance text;
    alter table jobs add column hold_seen_at timestamptz;
    create index jobs_paused_holds on jobs (hold_seen_at) where status = 'paused_payment';
  `);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await runStatements(db, `
    drop index jobs_paused_holds;
    alter table jobs drop column hold_seen_at;
    alter table jobs drop column hold_instance;
    alter table jobs drop column run_id;
    drop table settings;
  `);
}
