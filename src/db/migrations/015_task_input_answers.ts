import type { Kysely } from 'kysely';
import { runStatements } from './run-sql.ts';

// MCP tasks (issue 14 §2): a booking job is a task, and a held one asks the client, through
// tasks/get, to send the person to the payment page (a URL-mode elicitation under a key). The
// client's answers (tasks/update) are kept here, so that every node shows the task the same way
// after the answer and no key is asked twice. One row per answered key; the first answer wins.
export async function up(db: Kysely<unknown>): Promise<void> {
  await runStatements(db, `
    create table task_input_answers (
      job_id uuid not null references jobs (id) on delete cascade,
      input_key text not null,
      action text not null check (action in ('accept', 'decline', 'cancel')),
      answered_at timestamptz not null default now(),
      primary key (job_id, input_key)
    );
  `);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await runStatements(db, 'drop table task_input_answers;');
}
