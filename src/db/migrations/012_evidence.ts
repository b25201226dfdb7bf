import type { Kysely } from 'kysely';
import { runStatements } from './run-sql.ts';

// What the last page looked like when a booking failed (issue 12 §4): a screenshot with every card
// field blanked and the page's accessibility snapshot, one row per job, shown to the job's owner on
// /bookings and purged after EVIDENCE_RETENTION_DAYS (executor/evidence-purge.ts).
export async function up(db: Kysely<unknown>): Promise<void> {
  await runStatements(db, `
    create table job_evidence (
      job_id uuid primary key references jobs (id) on delete cascade,
      provider_id text not null,
      url text not null,
      screenshot bytea not null,
      snapshot text not null,
      created_at timestamptz not null default now()
    );
    create index job_evidence_created_at on job_evidence (created_at);
  `);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await runStatements(db, `
    drop table job_evidence;
  `);
}
