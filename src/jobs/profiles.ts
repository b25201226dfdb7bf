import type { Kysely } from 'kysely';
import type { DB } from '../db/schema.ts';
import type { Profile } from './schemas.ts';

// An organisation's saved traveller profiles, referenced from a booking by `profileId`.
export interface StoredProfile {
  id: number;
  organizationName: string;
  profile: Record<string, unknown>;
  createdAt: string;
}

function toStored(row: { id: number; organization_name: string; data: Record<string, unknown>; created_at: Date }): StoredProfile {
  return { id: row.id, organizationName: row.organization_name, profile: row.data, createdAt: row.created_at.toISOString() };
}

export async function createProfile(db: Kysely<DB>, organizationName: string, profile: Profile): Promise<StoredProfile> {
  const row = await db
    .insertInto('profiles')
    .values({ organization_name: organizationName, data: JSON.stringify(profile) })
    .returningAll()
    .executeTakeFirstOrThrow();
  return toStored(row);
}

export async function listProfiles(db: Kysely<DB>, organizationName: string): Promise<StoredProfile[]> {
  const rows = await db.selectFrom('profiles').selectAll().where('organization_name', '=', organizationName).orderBy('id').execute();
  return rows.map(toStored);
}

export async function getProfile(db: Kysely<DB>, organizationName: string, id: number): Promise<StoredProfile | null> {
  const row = await db.selectFrom('profiles').selectAll().where('id', '=', id).where('organization_name', '=', organizationName).executeTakeFirst();
  return row ? toStored(row) : null;
}

export async function deleteProfile(db: Kysely<DB>, organizationName: string, id: number): Promise<boolean> {
  const result = await db.deleteFrom('profiles').where('id', '=', id).where('organization_name', '=', organizationName).executeTakeFirst();
  return result.numDeletedRows > 0n;
}
