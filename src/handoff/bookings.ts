import type { Kysely } from 'kysely';
import type { DB } from '../db/schema.ts';
import { AUDIT_LIMIT_MAX, listAuditEvents } from '../jobs/audit.ts';
import { toJob } from '../jobs/service.ts';
import { JOB_ID_PATTERN, type AuditEvent, type Job } from '../jobs/types.ts';
import { jobRowOfUser, jobRowsOfUser } from '../jobs/rows.ts';

// A signed-in person's bookings: the jobs created for them through an OAuth client, newest first,
// each with its audit trail. Another user's job is simply not found.

export interface Booking {
  job: Job;
  events: AuditEvent[];
}

/** How many bookings the page lists (the newest). */
export const BOOKINGS_PAGE_SIZE = 50;

export async function listBookings(db: Kysely<DB>, userId: number, limit = BOOKINGS_PAGE_SIZE): Promise<Booking[]> {
  const rows = await jobRowsOfUser(db, userId, limit);
  return Promise.all(rows.map(async (row) => ({ job: toJob(row), events: await listAuditEvents(db, row.id, AUDIT_LIMIT_MAX) })));
}

export async function getBooking(db: Kysely<DB>, userId: number, jobId: string): Promise<Booking | null> {
  if (!JOB_ID_PATTERN.test(jobId)) return null;
  const row = await jobRowOfUser(db, userId, jobId);
  return row ? { job: toJob(row), events: await listAuditEvents(db, row.id, AUDIT_LIMIT_MAX) } : null;
}
