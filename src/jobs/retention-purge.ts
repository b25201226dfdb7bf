import type { Kysely } from 'kysely';
import type { PgBoss } from 'pg-boss';
import type { Logger } from 'pino';
import type { DB } from '../db/schema.ts';
import { withoutQueryTimeout } from '../db/query-timeout.ts';
import { scheduleJob } from './scheduled.ts';
import { eraseExpiredPersonalData } from './retention.ts';

// Final jobs' traveller data is erased JOB_PERSONAL_DATA_RETENTION_DAYS after they ended (retention.ts),
// on a pg-boss schedule, the same way as the OAuth and evidence purges (oauth/purge-schedule.ts).

export const RETENTION_PURGE_QUEUE = 'personal-data-purge';
/** Every hour at minute 29 (UTC), away from the OAuth purge (17) and the evidence purge (43). */
export const RETENTION_PURGE_CRON = '29 * * * *';

/**
 * Registers the schedule (idempotent: every process may call it; pg-boss sends one job per tick)
 * and, in processes that run workers, the worker that erases.
 */
export async function schedulePersonalDataPurge(boss: PgBoss, db: Kysely<DB>, log: Logger, options: { work: boolean; retentionDays: number }): Promise<void> {
  await scheduleJob(boss, RETENTION_PURGE_QUEUE, RETENTION_PURGE_CRON, options.work ? async () => {
    // A backlog (the first run after an upgrade) may take longer than a request's query timeout.
    const erased = await withoutQueryTimeout(db, (unbounded) => eraseExpiredPersonalData(unbounded, options.retentionDays));
    log.info({ erased, retentionDays: options.retentionDays }, 'traveller data of jobs past retention erased');
  } : null);
}
