import { sql, type Kysely } from 'kysely';
import type { DB } from '../db/schema.ts';
import { JOB_STATUSES, ownerKey, type JobStatus } from './types.ts';

// Every job at a glance, for the operator console: newest first, narrowed by status, organisation
// and provider, a bounded page at a time. Pages are keyed by (created_at, id), not by an offset:
// a page is read off the index where the last one ended, however deep, and jobs created meanwhile
// neither shift nor repeat what follows. No traveller data is read (no profile, no summary).

export const OVERVIEW_PAGE_SIZE = 50;

export interface JobFilter {
  status?: JobStatus;
  organizationName?: string;
  providerId?: string;
}

export interface JobOverviewRow {
  jobId: string;
  status: JobStatus;
  scenario: string;
  /** The organisation of an API-key job; null for a person's job (through an OAuth client). */
  organizationName: string | null;
  providerId: string | null;
  attemptCount: number;
  usedFallback: boolean;
  createdAt: string;
  updatedAt: string;
}

/** Reads a filter from query text; anything unknown or empty is no filter. */
export function jobFilterOf(query: { status?: unknown; org?: unknown; provider?: unknown }): JobFilter {
  const text = (v: unknown) => (typeof v === 'string' && v.trim() !== '' && v.length <= 200 ? v.trim() : undefined);
  const status = text(query.status);
  return {
    ...((JOB_STATUSES as readonly string[]).includes(status ?? '') ? { status: status as JobStatus } : {}),
    ...(text(query.org) ? { organizationName: text(query.org) } : {}),
    ...(text(query.provider) ? { providerId: text(query.provider) } : {}),
  };
}

/** A page cursor: the last row's creation time (to the microsecond, as stored) and id. */
const CURSOR = /^(\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}Z)_([0-9a-f-]{36})$/;

export async function listJobsOverview(db: Kysely<DB>, filter: JobFilter, cursor: string | null): Promise<{ jobs: JobOverviewRow[]; nextCursor: string | null }> {
  let query = db
    .selectFrom('jobs')
    .select([
      'id',
      'status',
      'scenario',
      'organization_name',
      'provider_id',
      'attempt_count',
      'used_fallback',
      'created_at',
      'updated_at',
      sql<string>`to_char(created_at at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"') || '_' || id`.as('cursor'),
    ])
    .orderBy('created_at', 'desc')
    .orderBy('id', 'desc')
    .limit(OVERVIEW_PAGE_SIZE + 1);
  if (filter.status) query = query.where('status', '=', filter.status);
  // By owner key, which the jobs_owner index leads with (an organisation's jobs are owned by `org:NAME`).
  if (filter.organizationName) query = query.where('owner_key', '=', ownerKey({ kind: 'organization', organizationName: filter.organizationName }));
  if (filter.providerId) query = query.where('provider_id', '=', filter.providerId);
  const at = cursor ? CURSOR.exec(cursor) : null;
  if (at) query = query.where(sql<boolean>`(created_at, id) < (${at[1]}::timestamptz, ${at[2]}::uuid)`);
  const rows = await query.execute();
  const jobs = rows.slice(0, OVERVIEW_PAGE_SIZE).map((r) => ({
    jobId: r.id,
    status: r.status as JobStatus,
    scenario: r.scenario,
    organizationName: r.organization_name,
    providerId: r.provider_id,
    attemptCount: r.attempt_count,
    usedFallback: r.used_fallback,
    createdAt: r.created_at.toISOString(),
    updatedAt: r.updated_at.toISOString(),
  }));
  return { jobs, nextCursor: rows.length > OVERVIEW_PAGE_SIZE ? rows[OVERVIEW_PAGE_SIZE - 1]!.cursor : null };
}
