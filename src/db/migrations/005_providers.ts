import type { Kysely } from 'kysely';
import { runStatements } from './run-sql.ts';

// providers: the provider registry (src/providers/registry.ts). The built-in sandbox providers stay
// in code; an operator registers the others with `concierge providers add`. Every process reads
// this table at each job start, so a change applies from the next job on, without a restart.
// jobs.mode: the mode (test | live) of the credential that created the job, fixed at creation; the
// chain keeps only providers of that mode. Null for jobs created before modes existed (no filter).
export async function up(db: Kysely<unknown>): Promise<void> {
  await runStatements(db, `
    create table providers (
      id text primary key,
      name text not null,
      scenario text not null check (scenario in ('restaurant', 'hotel', 'flight', 'activity')),
      start_url text not null,
      driver text not null,
      priority integer not null default 100,
      mode text not null default 'live' check (mode in ('live', 'test')),
      created_at timestamptz not null default now()
    );
    alter table jobs add column mode text check (mode in ('live', 'test'));
  `);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await runStatements(db, `
    alter table jobs drop column mode;
    drop table providers;
  `);
}
