import type { Kysely } from 'kysely';
import type { PgBoss } from 'pg-boss';
import type { Logger } from 'pino';
import type { DB } from '../db/schema.ts';
import { withoutQueryTimeout } from '../db/query-timeout.ts';
import { scheduleJob } from '../jobs/scheduled.ts';
import { purgeEvidence } from './evidence.ts';

// Failed bookings' evidence is kept EVIDENCE_RETENTION_DAYS, then purged on a pg-boss schedule,
// the same way as the OAuth purge (oauth/purge-schedule.ts).

export const EVIDENCE_PURGE_QUEUE = 'evidence-purge';
/** Every hour at minute 43 (UTC), away from the OAuth purge at minute 17. */
export const EVIDENCE_PURGE_CRON = '43 * * * *';

export async function scheduleEvidencePurge(boss: PgBoss, db: Kysely<DB>, log: Logger, options: { work: boolean; retentionDays: number }): Promise<void> {
  await scheduleJob(boss, EVIDENCE_PURGE_QUEUE, EVIDENCE_PURGE_CRON, options.work ? async () => {
    const purged = await withoutQueryTimeout(db, (unbounded) => purgeEvidence(unbounded, options.retentionDays));
    log.info({ purged }, 'expired booking evidence purged');
  } : null);
}
