import type { PgBoss } from 'pg-boss';

// A pg-boss schedule with its queue and, in processes that run workers, its worker: the hourly
// purges (OAuth, evidence, traveller data). Registration is idempotent: every process may call it,
// and pg-boss sends one job per tick whichever process asks.

export async function scheduleJob(boss: PgBoss, queue: string, cron: string, work: (() => Promise<void>) | null): Promise<void> {
  if (!(await boss.getQueue(queue))) {
    await boss.createQueue(queue, { retryLimit: 2, expireInSeconds: 600 }).catch((error: unknown) => {
      // Another process created it between the check and here.
      if (!String((error as Error).message).includes('already exists')) throw error;
    });
  }
  await boss.schedule(queue, cron, {}, { singletonKey: queue });
  if (work) await boss.work(queue, work);
}
