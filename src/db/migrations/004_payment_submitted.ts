import type { Kysely } from 'kysely';
import { runStatements } from './run-sql.ts';

// payment_submitted_at: the person submitted a payment from a held booking's tab (executor/holds.ts).
// Written by the process holding the tab, read by the others: a hold they end (a sweep after its
// holder died, a cancel that reached them) is then worded as uncertain ("check with the provider
// whether the card was charged"), never as "nothing was booked".
export async function up(db: Kysely<unknown>): Promise<void> {
  await runStatements(db, `
    alter table jobs add column payment_submitted_at timestamptz;
  `);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await runStatements(db, `
    alter table jobs drop column payment_submitted_at;
  `);
}
