import type { Kysely } from 'kysely';
import { runStatements } from './run-sql.ts';

// Traveller data retention (jobs/retention.ts): a final job's personal data is erased
// JOB_PERSONAL_DATA_RETENTION_DAYS after it ended, and the job says when. The partial index holds
// only the final jobs not yet erased, ordered by when they ended: the hourly purge reads the due
// ones off its start and never scans the erased ones again (they leave the index when erased).
export async function up(db: Kysely<unknown>): Promise<void> {
  await runStatements(db, `
    alter table jobs add column personal_data_erased_at timestamptz;
    create index jobs_personal_data_due on jobs (completed_at)
      where personal_data_erased_at is null and status in ('completed', 'no_availability', 'needs_login', 'captcha', 'error');
  `);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await runStatements(db, `
    drop index jobs_personal_data_due;
    alter table jobs drop column personal_data_erased_at;
  `);
}
