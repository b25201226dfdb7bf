import assert from 'node:assert/strict';
import { sql } from 'kysely';
import type { Reply } from './http.ts';
import type { TestService } from './service.ts';

/** What must never reach a client: stack frames, SQL, secrets, internals. */
const LEAKS = [/\bat .+:\d+:\d+/, /\n\s+at /, /\bselect\b.+\bfrom\b/i, /\binsert into\b/i, /\bupdate\b.+\bset\b/i, /svk_(live|test)_/, /\bconstraint\b/i, /\brelation\b/i, /node_modules/, /\.ts:\d+/, /ECONN/, /FST_ERR/];

export function assertNoLeak(reply: Reply): void {
  for (const pattern of LEAKS) assert.doesNotMatch(reply.text, pattern, `the reply leaks ${pattern}: ${reply.text.slice(0, 300)}`);
}

/** A REST v1 error: the status, the envelope {error: {code, message, details?}} and nothing leaked. */
export function assertApiError(reply: Reply, status: number, code: string): void {
  assert.equal(reply.status, status, `expected ${status} ${code}, got ${reply.status}: ${reply.text.slice(0, 500)}`);
  assert.match(reply.headers.get('content-type') ?? '', /^application\/json/);
  assert.equal(typeof reply.body, 'object');
  assert.deepEqual(Object.keys(reply.body), ['error']);
  assert.equal(reply.body.error.code, code, reply.text);
  assert.equal(typeof reply.body.error.message, 'string');
  assert.ok(reply.body.error.message.length > 0);
  for (const key of Object.keys(reply.body.error)) assert.ok(['code', 'message', 'details'].includes(key), `unexpected error field ${key}`);
  assertNoLeak(reply);
}

/** What a refused request must leave as it was: jobs, their audit events and queue entries, stored profiles. */
async function storedState(service: TestService): Promise<Record<string, number>> {
  const { rows } = await sql<{ jobs: number; events: number; profiles: number }>`
    select (select count(*) from jobs)::int as jobs, (select count(*) from audit_events)::int as events, (select count(*) from profiles)::int as profiles`.execute(service.services.db);
  const { queued, active } = await service.services.queue.depth();
  return { ...rows[0]!, queueEntries: queued + active };
}

/** Runs `act` (a refused request) and asserts it stored nothing; returns what `act` returned. */
export async function assertChangesNothing<T>(service: TestService, act: () => Promise<T>): Promise<T> {
  const before = await storedState(service);
  const result = await act();
  assert.deepEqual(await storedState(service), before, 'a refused request changes nothing');
  return result;
}
