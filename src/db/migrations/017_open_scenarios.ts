import type { Kysely } from 'kysely';
import { runStatements } from './run-sql.ts';

// A scenario is one module in src/scenarios/ (and a line in SCENARIO_SPECS): the providers table
// no longer lists the scenarios in a check of its own, which made every new scenario a migration
// too. Every write to the table validates the scenario first (providers/store.ts, against SCENARIOS).
export async function up(db: Kysely<unknown>): Promise<void> {
  await runStatements(db, 'alter table providers drop constraint if exists providers_scenario_check;');
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await runStatements(db, `alter table providers add constraint providers_scenario_check check (scenario in ('restaurant', 'hotel', 'flight', 'activity'));`);
}
