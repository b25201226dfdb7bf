import { sql, type Kysely } from 'kysely';

/** Runs a migration's statements one by one: PGlite's extended protocol takes one per query. */
export async function runStatements(db: Kysely<unknown>, script: string): Promise<void> {
  const statements = script.split(/;\s*(?:\n|$)/).map((s) => s.trim()).filter(Boolean);
  for (const statement of statements) await sql.raw(statement).execute(db);
}
