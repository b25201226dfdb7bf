import type { Kysely } from 'kysely';
import type { PgBoss } from 'pg-boss';
import type { Logger } from 'pino';
import type { DB } from '../db/schema.ts';
import { withoutQueryTimeout } from '../db/query-timeout.ts';
import { scheduleJob } from '../jobs/scheduled.ts';
import { purgeUsedCalls } from '../cluster/used-calls.ts';
import { purgeExpired as purgeExpiredLimits } from '../limits/counter.ts';
import { purgeExpired } from './purge.ts';

/** The pg-boss queue and schedule of the OAuth, session, rate-limit and node-call-signature purge. */
export const PURGE_QUEUE = 'oauth-purge';
/** Every hour at minute 17 (UTC): often enough that the tables stay small, rarely enough to be free. */
export const PURGE_CRON = '17 * * * *';

/**
 * Registers the schedule (idempotent: every process may call it; pg-boss sends one job per tick)
 * and, in processes that run workers, the worker that does the purge.
 */
export async function scheduleOAuthPurge(boss: PgBoss, db: Kysely<DB>, log: Logger, options: { work: boolean }): Promise<void> {
  await scheduleJob(boss, PURGE_QUEUE, PURGE_CRON, options.work ? async () => {
    // A backlog may take longer than a request's query timeout; this runs in the background.
    const counts = await withoutQueryTimeout(db, purgeExpired);
    // The shared rate-limit counters whose window has ended go in the same hourly run.
    const rateLimits = await withoutQueryTimeout(db, purgeExpiredLimits);
    // So do the used node-call signatures, kept only while a copy could still be presented.
    const nodeCallSignatures = await withoutQueryTimeout(db, purgeUsedCalls);
    log.info({ purged: { ...counts, rateLimits, nodeCallSignatures } }, 'expired OAuth artefacts, sessions, rate-limit counters and used node-call signatures purged');
  } : null);
}
