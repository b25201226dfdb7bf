import type { Kysely } from 'kysely';
import type { DB } from '../db/schema.ts';
import { requestCounterOf } from './batched.ts';
import type { Limit, Verdict } from './counter.ts';
import { RateLimited } from './refusal.ts';

// The per-minute request limits of the credentials that call the APIs: each API key (REST and
// MCP), and each OAuth client on /api/mcp (all of its users together). Shared by every node through
// the database, counted in batches off the request's path (batched.ts).

export function apiKeyLimit(perMinute: number): Limit {
  return { name: 'api.key', max: perMinute, windowSeconds: 60 };
}

export function oauthClientLimit(perMinute: number): Limit {
  return { name: 'mcp.client', max: perMinute, windowSeconds: 60 };
}

/** Counts one request of `subject` on `limit`; throws RateLimited beyond it, else returns the verdict (for the RateLimit headers). */
export function countRequest(db: Kysely<DB>, limit: Limit, subject: string, who: string): Verdict {
  const verdict = requestCounterOf(db).count(limit, subject);
  if (!verdict.allowed) throw new RateLimited(limit, verdict, `too many requests for this ${who}: at most ${limit.max} per minute; retry in ${verdict.resetSeconds} s`);
  return verdict;
}
