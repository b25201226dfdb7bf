import DataLoader from 'dataloader';
import { sql, type CompiledQuery, type Kysely } from 'kysely';
import { jsonArrayFrom } from 'kysely/helpers/postgres';
import type { DB } from '../db/schema.ts';
import { AUDIT_LIMIT_MAX, auditEventColumns } from './audit.ts';

// Reading a job is what polling clients do all day (REST GET /execution-jobs/{id}, MCP
// get_job_status), so it is the hottest path in the service. Reads that arrive together (in one turn
// of the event loop) go to the database as one statement for all their ids: one round trip and one
// execution instead of one each. Most of a single read's cost is the round trip itself (the socket
// write wakes the database), not the row. Nothing is cached: every read is answered by a statement
// that started after the read arrived.

const MAX_BATCH = 100;

function jobsQuery(db: Kysely<DB>, ids: string[]) {
  return db.selectFrom('jobs').selectAll('jobs').where('jobs.id', '=', sql<string>`any(${ids}::uuid[])`);
}

function jobsWithLogQuery(db: Kysely<DB>, ids: string[]) {
  return jobsQuery(db, ids).select((eb) =>
    jsonArrayFrom(
      eb
        .selectFrom('audit_events')
        .select(auditEventColumns)
        .whereRef('audit_events.job_id', '=', 'jobs.id')
        .orderBy('audit_events.step_index', 'asc')
        .limit(AUDIT_LIMIT_MAX),
    ).as('decision_log'),
  );
}
// Only the message a status line shows: the last entry of the decisionLog above (its first
// AUDIT_LIMIT_MAX events), without reading and aggregating the log. A job's step indexes run
// 0, 1, 2, … (appendAuditEvent is the only writer, and events are never deleted on their own), so
// its first AUDIT_LIMIT_MAX events are those below that index: one step back along the unique index.
function jobsWithLatestMessageQuery(db: Kysely<DB>, ids: string[]) {
  return jobsQuery(db, ids).select((eb) =>
    eb
      .selectFrom('audit_events')
      .select('audit_events.message')
      .whereRef('audit_events.job_id', '=', 'jobs.id')
      .where('audit_events.step_index', '<', sql.lit(AUDIT_LIMIT_MAX))
      .orderBy('audit_events.step_index', 'desc')
      .limit(1)
      .as('latest_message'),
  );
}
export type JobRow = Awaited<ReturnType<ReturnType<typeof jobsQuery>['execute']>>[number];
export type JobWithLogRow = Awaited<ReturnType<ReturnType<typeof jobsWithLogQuery>['execute']>>[number];

// Each statement is built and compiled once per database handle; each batch only binds its ids.
const PLACEHOLDER: string[] = [];

function batchedRead<Row extends { id: string }>(build: (db: Kysely<DB>, ids: string[]) => { compile(): CompiledQuery<Row> }) {
  const loaders = new WeakMap<Kysely<DB>, DataLoader<string, Row | null>>();
  return (db: Kysely<DB>, id: string): Promise<Row | null> => {
    let loader = loaders.get(db);
    if (!loader) {
      const compiled = build(db, PLACEHOLDER).compile();
      const idsAt = compiled.parameters.indexOf(PLACEHOLDER);
      loader = new DataLoader(
        async (ids: readonly string[]) => {
          const parameters = [...compiled.parameters];
          parameters[idsAt] = [...new Set(ids)];
          const { rows } = await db.executeQuery<Row>({ ...compiled, parameters });
          const byId = new Map(rows.map((row) => [row.id, row]));
          return ids.map((one) => byId.get(one) ?? null);
        },
        // No cache: a poll must see the job as it is now. The batch closes after the I/O phase in
        // which its first read arrived, so it gathers the reads that came in with it and delays none.
        { cache: false, maxBatchSize: MAX_BATCH, batchScheduleFn: (run) => setImmediate(run) },
      );
      loaders.set(db, loader);
    }
    return loader.load(id);
  };
}

/** One job's row, or null; `id` must be a lower-case UUID. */
export const loadJob = batchedRead(jobsQuery);

/** One job's row with its decision log (oldest first), or null; `id` must be a lower-case UUID. */
export const loadJobWithLog = batchedRead(jobsWithLogQuery);

/** One job's row with the message its decision log ends on (null without events), or null. */
export const loadJobWithLatestMessage = batchedRead(jobsWithLatestMessageQuery);
