import type { Kysely } from 'kysely';
import type { PgBoss } from 'pg-boss';
import type { Logger } from 'pino';
import type { DB } from '../db/schema.ts';
import { withoutQueryTimeout } from '../db/query-timeout.ts';
import { purgeEvidence } from './evidence.ts';

// Failed bookings' evidence is kept EVIDENCE_RETENTION_DAYS, then purged on a pg-boss schedule,
// the same way as the OAuth purge (oauth/purge-schedule.ts).

export const EVIDENCE_PURGE_QUEUE = 'evidence-purge';
/** Every hour at minute 43 (UTC), away from the OAuth purge at minute 17. */
export const EVIDENCE_PURGE_CRON = '43 * * * *';

export async function scheduleEvidencePurge(boss: PgBoss, db: Kysely<DB>, log: Logger, options: { work: boolean; retentionDays: number }): Promise<void> {
  if (!(await boss.getQueue(EVIDENCE_PURGE_QUEUE))) {
    await boss.createQueue(EVIDENCE_PURGE_QUEUE, { retryLimit: 2, expireInSeconds: 600 }).catch((error: unknown) => {
      if (!String((error as Error).message).includes('already exists')) throw error;
    });
  }
  await boss.schedule(EVIDENCE_PURGE_QUEUE, EVIDENCE_PURGE_CRON, {}, { singletonKey: EVIDENCE_PURGE_QUEUE });
  if (options.work) {
    await boss.work(EVIDENCE_PURGE_QUEUE, async () => {
      const purged = await withoutQueryTimeout(db, (unbounded) => purgeEvidence(unbounded, options.retentionDays));
      log.info({ purged }, 'expired booking evidence purged');
    });
  }
}
