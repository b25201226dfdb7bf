import type { Kysely } from 'kysely';
import type { DB } from '../db/schema.ts';
import { profileIssues, type Issue, type Profile } from './schemas.ts';
import type { Owner, Scenario } from './types.ts';

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

/**
 * The stored profile a booking names by `profileId`, checked as part of the request's validation.
 * Another organisation's profile reads exactly like a missing one; a flight needs the identity fields
 * of every traveller, and as many travellers as passengers.
 */
export async function storedProfileFor(db: Kysely<DB>, owner: Owner, scenario: Scenario | undefined, profileId: number, params?: Record<string, unknown>): Promise<{ profile: Record<string, unknown> | null; issues: Issue[] }> {
  const stored = owner.kind === 'organization' ? await getProfile(db, owner.organizationName, profileId) : null;
  if (!stored) return { profile: null, issues: [{ path: 'profileId', message: `no stored profile ${profileId} for this organization` }] };
  return { profile: stored.profile, issues: scenario ? profileIssues(scenario, params, stored.profile, 'profileId', { stored: true }) : [] };
}
