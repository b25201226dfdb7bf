import { sql, type Kysely } from 'kysely';
import type { DB } from '../db/schema.ts';
import { JOB_STATUSES, type JobStatus } from './types.ts';

/** How many jobs are in each status, every status listed (0 when none), as the metrics show them. */
export async function countJobsByStatus(db: Kysely<DB>): Promise<Record<JobStatus, number>> {
  const rows = await db.selectFrom('jobs').select(['status', sql<number>`count(*)::int`.as('n')]).groupBy('status').execute();
  const counts = Object.fromEntries(JOB_STATUSES.map((status) => [status, 0])) as Record<JobStatus, number>;
  for (const row of rows) counts[row.status as JobStatus] = row.n;
  return counts;
}
