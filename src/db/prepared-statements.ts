import { createHash } from 'node:crypto';
import type pg from 'pg';
import type { PostgresPool, PostgresPoolClient } from 'kysely';
import { isQueryTimeout, queryTimeoutNow } from './query-timeout.ts';

// Kysely sends every query unnamed, so PostgreSQL parses and plans it on each call; for the short
// indexed reads that clients poll, planning costs more than executing (about 0.1 ms against 0.06 ms
// for a job read with its log). Here the pool hands Kysely clients whose data statements become
// named prepared statements: planned once per connection, then only bound and executed.
//
// - The name is a digest of the SQL text, so the same query shape reuses its statement.
// - Only SELECT/INSERT/UPDATE/DELETE/WITH are prepared; utility statements (BEGIN, DDL) are not.
// - At most MAX_PER_CONNECTION statements per connection; beyond, queries run unnamed.
// - A schema change under a prepared statement ("cached plan must not change result type", as a
//   migration adding a column to a table read with `select *` causes) is retried unnamed and the
//   statement is renamed, so the next call prepares it afresh.
//
// - A statement that starts with PLAN_PER_CALL runs unnamed: planned for each call's values. For a
//   statement over a batch of items (arrays unnested) the right plan depends on the batch and the
//   tables as they are now; a generic plan cached while a table was small can scan the whole table
//   on every call once it has grown (bench/oauth-token: the refresh batch's generic plan seq-scanned
//   the refresh tokens, and throughput fell by half within a minute as the table grew).
//
// The same clients give every query the client's own time limit for a silent server
// (./query-timeout.ts), prepared or not; the server enforces the ordinary one.

const MAX_PER_CONNECTION = 256;
const PREPARABLE = /^\s*(select|insert|update|delete|with)\b/i;

/** Starts a statement that must be planned on each call (see above); PostgreSQL reads it as a comment. */
export const PLAN_PER_CALL = '/* planned per call */';

let generation = 0;
// Query texts are few (one per query shape), so their digests are remembered rather than recomputed.
const digests = new Map<string, string>();

function statementName(text: string): string {
  let digest = digests.get(text);
  if (digest === undefined) {
    digest = createHash('sha1').update(text).digest('base64url').slice(0, 22);
    if (digests.size < 4 * MAX_PER_CONNECTION) digests.set(text, digest);
  }
  return `k${generation}_${digest}`;
}

function isStalePlan(error: unknown): boolean {
  const e = error as { code?: string; message?: string };
  return e.code === '0A000' && /cached plan must not change result type/.test(e.message ?? '');
}

/** pg takes a per-query timeout in the query's config; its types do not list it. */
type TimedQuery = pg.QueryConfig & { query_timeout?: number };

function preparing(client: pg.PoolClient, prepare: boolean): PostgresPoolClient {
  const prepared = new Set<string>();
  let abandoned: Error | null = null;
  // A query past the client's timeout leaves the connection waiting for an answer that may never
  // come. It is ended (pg destroys the socket of a connection with a query in flight): a ROLLBACK
  // queued behind fails at once rather than waiting as long, and the pool drops the client when it
  // comes back. Kysely then throws the failed ROLLBACK's error instead of the timeout, so whatever
  // fails on the ended connection carries the timeout as its cause, for the log.
  const abandonOnTimeout = (error: unknown): never => {
    if (isQueryTimeout(error)) {
      abandoned ??= error as Error;
      client.end().catch(() => {});
    } else if (abandoned && error instanceof Error && error !== abandoned && error.cause === undefined) {
      error.cause = abandoned;
    }
    throw error;
  };
  const run = (query: TimedQuery) => client.query(query).catch(abandonOnTimeout);
  const wrapper = {
    query(text: unknown, values?: readonly unknown[]) {
      // Kysely also passes cursor objects; those go through untouched.
      if (typeof text !== 'string') return client.query(text as string, values as unknown[]);
      const query_timeout = queryTimeoutNow();
      const unnamed = { text, values: values as unknown[], query_timeout };
      if (!prepare || !PREPARABLE.test(text) || text.startsWith(PLAN_PER_CALL)) return run(unnamed);
      const name = statementName(text);
      if (!prepared.has(name) && prepared.size >= MAX_PER_CONNECTION) return run(unnamed);
      prepared.add(name);
      return client.query({ name, text, values: values as unknown[], query_timeout } as TimedQuery).catch((error: unknown) => {
        if (!isStalePlan(error)) return abandonOnTimeout(error);
        prepared.delete(name);
        generation++;
        return run(unnamed);
      });
    },
    release(error?: boolean | Error) {
      client.release(error);
    },
    get processID() {
      return (client as unknown as { processID?: number }).processID;
    },
  };
  return wrapper as unknown as PostgresPoolClient;
}

/**
 * A Kysely pool over `pool` whose clients bound every query by the query timeout and, unless
 * `prepare` is false, prepare their data statements (see above). Not preparing is for a session
 * shared with other processes (PGlite's socket), where statement names would collide.
 */
export function withPreparedStatements(pool: pg.Pool, { prepare = true }: { prepare?: boolean } = {}): PostgresPool {
  const wrappers = new WeakMap<pg.PoolClient, PostgresPoolClient>();
  return {
    async connect() {
      const client = await pool.connect();
      let wrapper = wrappers.get(client);
      if (!wrapper) {
        wrapper = preparing(client, prepare);
        wrappers.set(client, wrapper);
      }
      return wrapper;
    },
    end: () => pool.end(),
    // Kysely reads these to open a control connection when it cancels a query.
    get options() {
      return pool.options;
    },
    get Client() {
      return (pool as unknown as { Client: unknown }).Client;
    },
  } as PostgresPool;
}
