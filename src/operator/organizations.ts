import { sql, type Kysely } from 'kysely';
import type { DB } from '../db/schema.ts';

// The organisations the console offers to choose from: those that hold an API key or a webhook
// endpoint (both small tables). Jobs are not read for this: an organisation has jobs only through
// a key, so its name is already here.

export async function knownOrganizations(db: Kysely<DB>): Promise<string[]> {
  const rows = await db
    .selectFrom('api_keys')
    .select('organization_name as name')
    .union(db.selectFrom('webhook_endpoints').select('organization_name as name').where('deleted_at', 'is', null))
    .orderBy(sql`1`)
    .limit(1000)
    .execute();
  return rows.map((r) => r.name);
}
