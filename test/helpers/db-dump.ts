import { sql } from 'kysely';
import type { TestService } from './service.ts';

// What a stolen database would hold: tests search it for secrets and card codes that must not be there.

/** Every row of every table of this service (its schema and its queue's schema), as JSON text. */
export async function dumpEveryTable(service: TestService): Promise<{ tables: string[]; text: string }> {
  const { db, database } = service.services;
  const schemas = [database.schema, database.boss.schema];
  const tables = await sql<{ table_schema: string; table_name: string }>`
    select table_schema, table_name from information_schema.tables
    where table_type = 'BASE TABLE' and table_schema in (${sql.join(schemas)})
    order by 1, 2`.execute(db);
  const parts: string[] = [];
  for (const t of tables.rows) {
    const rows = await sql<{ row: string }>`select row_to_json(x)::text as row from ${sql.table(`${t.table_schema}.${t.table_name}`)} x`.execute(db);
    parts.push(`${t.table_schema}.${t.table_name}: ${rows.rows.map((r) => r.row).join('\n')}`);
  }
  return { tables: tables.rows.map((t) => `${t.table_schema}.${t.table_name}`), text: parts.join('\n') };
}
