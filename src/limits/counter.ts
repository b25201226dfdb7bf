import { sql, type Kysely } from 'kysely';
import type { DB } from '../db/schema.ts';
import { sha256 } from '../security/secrets.ts';

// Fixed-window counters in the database, shared by every node: N nodes grant one allowance.
// One statement counts a hit and reads the result (insert … on conflict do update … returning),
// which PostgreSQL runs atomically per key (concurrent hits on one key queue on its row) and
// PGlite runs one at a time anyway: no interleaving lets more than `max` through. Windows are
// measured on the database's clock, so nodes with drifting clocks still agree.

export interface Limit {
  /** What is counted, e.g. 'oauth.register'; the first part of every key. */
  name: string;
  /** Hits allowed per window. */
  max: number;
  windowSeconds: number;
}

export interface Verdict {
  allowed: boolean;
  /** Hits counted in this window, this one included. */
  count: number;
  /** Hits left in this window (0 when refused). */
  remaining: number;
  /** Seconds until the window ends and the count starts again (at least 1). */
  resetSeconds: number;
}

/** Expired counters are deleted by the hourly purge (src/oauth/purge-schedule.ts), a bounded batch at a time. */
const PURGE_BATCH = 1000;

/** Counts one hit on `limit` for `subject` (an address, a client id, a key id) and says whether it is within the limit. */
export async function hit(db: Kysely<DB>, limit: Limit, subject: string): Promise<Verdict> {
  // The subject hashed: any string fits (a client id may hold a NUL, which text columns refuse), and
  // the table holds no address or client id in the clear.
  const key = `${limit.name}:${sha256(subject)}`;
  const { rows } = await sql<{ count: number; reset_seconds: number }>`
    insert into rate_limits as r (key, count, window_ends)
    values (${key}, 1, now() + make_interval(secs => ${limit.windowSeconds}))
    on conflict (key) do update set
      count = case when r.window_ends <= now() then 1 else r.count + 1 end,
      window_ends = case when r.window_ends <= now() then excluded.window_ends else r.window_ends end
    returning count, ceil(extract(epoch from (window_ends - now())))::int as reset_seconds`.execute(db);
  const row = rows[0]!;
  const count = Number(row.count);
  return { allowed: count <= limit.max, count, remaining: Math.max(0, limit.max - count), resetSeconds: Math.max(1, Number(row.reset_seconds)) };
}

/**
 * Deletes the counters whose window has ended (a fresh hit starts them again at 1), in batches so no
 * statement holds many rows at once. Runs in the hourly purge, never in a request. Returns how many.
 */
export async function purgeExpired(db: Kysely<DB>): Promise<number> {
  let total = 0;
  for (;;) {
    const { numAffectedRows } = await sql`
      delete from rate_limits where key in (select key from rate_limits where window_ends < now() limit ${PURGE_BATCH})`.execute(db);
    const deleted = Number(numAffectedRows ?? 0);
    total += deleted;
    if (deleted < PURGE_BATCH) return total;
  }
}
