import { AsyncLocalStorage } from 'node:async_hooks';

// A PostgreSQL server that stops answering without closing the connection (a partition, a frozen
// host, a firewall that forgets the connection) would otherwise leave a request waiting for as long
// as the kernel keeps the socket: minutes. Every query of the service's Kysely pool is given this
// long; past it the query fails (the request answers 503, see api/v1), and its connection is ended,
// since it may never answer again and a ROLLBACK queued behind the query would wait just as long.
//
// The requests' queries take milliseconds, so this is far from cutting honest work. Work that may
// rightly take longer runs inside withoutQueryTimeout: migrations, which may also wait for another
// process's migration lock. pg-boss has its own pool and is not concerned.

export const QUERY_TIMEOUT_MS = 5_000;

const unbounded = new AsyncLocalStorage<true>();

/** Runs `work` with no query timeout on any query it issues, however deep. */
export function withoutQueryTimeout<T>(work: () => Promise<T>): Promise<T> {
  return unbounded.run(true, work);
}

/** The timeout for a query issued now: undefined inside withoutQueryTimeout. */
export function queryTimeoutNow(): number | undefined {
  return unbounded.getStore() ? undefined : QUERY_TIMEOUT_MS;
}

/** Whether `error` is pg's report of a query that outlived its query_timeout. */
export function isQueryTimeout(error: unknown): boolean {
  return error instanceof Error && error.message === 'Query read timeout';
}
