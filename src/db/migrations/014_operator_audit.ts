import type { Kysely } from 'kysely';
import { runStatements } from './run-sql.ts';

// The operator console (issue 15 §4): every change an operator makes there (a key minted or
// revoked, a provider added or removed, an OAuth client deleted) is recorded with who made it.
// audit_events belongs to jobs (a job id is required); these actions concern no job, so they get a
// trail of their own. The actor's email is copied, not only referenced: the trail must still say
// who acted after the person's email changes at their identity provider.
//
// jobs_created_at serves the console's jobs overview, newest first and paged by (created_at, id),
// without sorting the whole table when no filter narrows it.
export async function up(db: Kysely<unknown>): Promise<void> {
  await runStatements(db, `
    create table operator_audit (
      id bigserial primary key,
      actor_user_id bigint references users (id) on delete set null,
      actor_email text not null,
      action text not null,
      target text not null,
      detail jsonb not null default '{}',
      created_at timestamptz not null default now()
    );
    create index jobs_created_at on jobs (created_at desc, id desc);
  `);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await runStatements(db, `
    drop index jobs_created_at;
    drop table operator_audit;
  `);
}
