import { AsyncLocalStorage } from 'node:async_hooks';
import { sql, type Kysely } from 'kysely';

// How long a query of the service's own PostgreSQL pool may take, and who enforces it.
//
// The server does (statement_timeout, lock_timeout: SERVER_TIMEOUTS, set on every connection of the
// pool when it opens). Past the limit PostgreSQL cancels the statement itself, so nothing of it
// stays behind: a statement waiting for a row lock is not left to commit once the lock is released
// while its caller already got an error (a refresh token rotated for a client that was told the
// refresh failed, whose retry then looks like reuse and revokes the family), and the connection
// stays usable instead of being dropped while its backend keeps running (an orphan per timeout,
// and a pool opening replacements until the server has no connections left).
//
// The client keeps a longer limit of its own (SILENT_SERVER_TIMEOUT_MS, pg's query_timeout) for a
// server that stopped answering without closing the connection (a partition, a frozen host, a
// firewall that forgets the connection), which cannot cancel anything. Past it the query fails and
// its connection is ended: it may never answer again, and a ROLLBACK queued behind the query would
// wait as long.
//
// What the caller sees: under /api/v1, a credential that could not be checked in time is 503
// auth_backend_unavailable (fail closed); any other query past its limit is 500 (internal_error,
// job_create_failed), or 503 when the database then does not answer a ping within a second (a
// server gone silent); the OAuth endpoints answer 500 server_error. The requests' queries take
// milliseconds, so the limit is far from cutting honest work. Work that may rightly take longer runs
// inside withoutQueryTimeout: migrations, which may also wait for another process's migration lock,
// and the purge. pg-boss has its own pool and is not concerned.
//
// PGlite has none of this: it runs in the process (it cannot go silent), has one session, and no
// other session can hold a lock against the service.

/** The server's limit on one statement of the service's pool. */
export const QUERY_TIMEOUT_MS = 5_000;

/**
 * The server's limit on one wait for a lock, inside the statement's. Shorter, so that a statement
 * held up by another session's lock (a migration, a transaction left open) fails as a lock timeout
 * (SQLSTATE 55P03), which says where to look, rather than as a slow statement (57014).
 */
export const LOCK_TIMEOUT_MS = QUERY_TIMEOUT_MS - 1_000;

/** The client's own limit, for a server that no longer answers at all (see above). */
export const SILENT_SERVER_TIMEOUT_MS = 10_000;

/** pg connection settings that make the server enforce the limits (sent when a connection opens). */
export const SERVER_TIMEOUTS = { statement_timeout: QUERY_TIMEOUT_MS, lock_timeout: LOCK_TIMEOUT_MS } as const;

const unbounded = new AsyncLocalStorage<true>();

/**
 * Runs `work` on a connection of its own with no limit: the server's timeouts are lifted for that
 * session (set back to the pool's when it is done) and no query it issues, however deep, gets the
 * client's limit. `work` must use the handle it is given.
 */
export function withoutQueryTimeout<DB, T>(db: Kysely<DB>, work: (db: Kysely<DB>) => Promise<T>): Promise<T> {
  return db.connection().execute((connection) =>
    unbounded.run(true, async () => {
      await sql`select set_config('statement_timeout', '0', false), set_config('lock_timeout', '0', false)`.execute(connection);
      let failed = false;
      try {
        return await work(connection);
      } catch (error) {
        failed = true;
        throw error;
      } finally {
        // Back to the values the session opened with, before the connection returns to the pool.
        // When `work` failed its error is the one to report; a connection that cannot even reset
        // is broken, and the pool drops it.
        await sql`reset statement_timeout`
          .execute(connection)
          .then(() => sql`reset lock_timeout`.execute(connection))
          .catch((error: unknown) => {
            if (!failed) throw error;
          });
      }
    }),
  );
}

/** The client's timeout for a query issued now: undefined inside withoutQueryTimeout. */
export function queryTimeoutNow(): number | undefined {
  return unbounded.getStore() ? undefined : SILENT_SERVER_TIMEOUT_MS;
}

/** Whether `error` is pg's report of a query that outlived its client-side query_timeout. */
export function isQueryTimeout(error: unknown): boolean {
  return error instanceof Error && error.message === 'Query read timeout';
}
