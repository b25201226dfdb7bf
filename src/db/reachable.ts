import type { Database } from './index.ts';

/** Seconds a client should wait before retrying when the database is unreachable. */
export const DATABASE_RETRY_AFTER_SECONDS = 5;

/**
 * Whether the database answers a ping within a second. Surfaces ask after a request failed with a
 * server error, so that a database gone away is answered as the documented 503 (fail closed), not
 * as a 500 that invites no retry.
 */
export async function databaseAnswers(database: Database, withinMs = 1_000): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined;
  try {
    await Promise.race([database.ping(), new Promise((_, reject) => (timer = setTimeout(() => reject(new Error('ping timed out')), withinMs)))]);
    return true;
  } catch {
    return false;
  } finally {
    clearTimeout(timer);
  }
}
