import { sql, type Kysely } from 'kysely';
import type { DB } from '../db/schema.ts';
import type { Limit } from '../limits/counter.ts';
import { RateLimited } from '../limits/refusal.ts';

// An API key's daily_limit: the jobs it may create per UTC day (a calendar day, so a client can
// tell when its allowance comes back). Counted from the jobs themselves, inside the transaction
// that inserts the next one, with the key's row locked: concurrent creations on any node queue on
// that lock, so the limit is never overshot, and a replayed idempotencyKey (which creates nothing)
// never counts.

export const DAILY_LIMIT_NAME = 'jobs.daily';

/** Throws RateLimited when the key has created `limit` jobs since the last UTC midnight. Run inside the creating transaction. */
export async function withinDailyLimit(trx: Kysely<DB>, apiKeyId: number, limit: number): Promise<void> {
  await trx.selectFrom('api_keys').select('id').where('id', '=', apiKeyId).forUpdate().executeTakeFirst();
  const { rows } = await sql<{ count: number; reset_seconds: number }>`
    select
      (select count(*) from jobs where api_key_id = ${apiKeyId} and created_at >= date_trunc('day', now(), 'UTC'))::int as count,
      ceil(extract(epoch from (date_trunc('day', now(), 'UTC') + interval '1 day' - now())))::int as reset_seconds`.execute(trx);
  const { count, reset_seconds: resetSeconds } = rows[0]!;
  if (count < limit) return;
  const policy: Limit = { name: DAILY_LIMIT_NAME, max: limit, windowSeconds: 86_400 };
  throw new RateLimited(
    policy,
    { allowed: false, count: count + 1, remaining: 0, resetSeconds: Math.max(1, resetSeconds) },
    `this API key's daily limit of ${limit} ${limit === 1 ? 'job' : 'jobs'} is reached; it resets at midnight UTC, in ${Math.max(1, resetSeconds)} s`,
  );
}
