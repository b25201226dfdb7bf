import { sql, type Kysely, type Transaction } from 'kysely';
import type { DB } from '../db/schema.ts';
import type { AuditEvent, AuditEventType } from './types.ts';

export interface NewAuditEvent {
  type: AuditEventType;
  message: string;
  providerId?: string;
  /** Extra fields shown on the event: fromTime/toTime, handoffUrl, providerOutcome, … */
  data?: Record<string, unknown>;
}

/**
 * Appends one event in the caller's transaction. The job row must already be locked by the caller
 * (transition() does it), which serialises step indexes per job.
 */
export async function appendAuditEvent(trx: Transaction<DB> | Kysely<DB>, jobId: string, event: NewAuditEvent): Promise<number> {
  const row = await trx
    .insertInto('audit_events')
    .values({
      job_id: jobId,
      step_index: sql<number>`(select coalesce(max(step_index) + 1, 0) from audit_events where job_id = ${jobId})`,
      type: event.type,
      message: event.message,
      provider_id: event.providerId ?? null,
      data: JSON.stringify(event.data ?? {}),
      created_at: sql<Date>`clock_timestamp()`,
    })
    .returning('step_index')
    .executeTakeFirstOrThrow();
  return row.step_index;
}

export async function listAuditEvents(db: Kysely<DB>, jobId: string, limit: number): Promise<AuditEvent[]> {
  const rows = await db
    .selectFrom('audit_events')
    .select(['step_index', 'type', 'message', 'provider_id', 'data', 'created_at'])
    .where('job_id', '=', jobId)
    .orderBy('step_index', 'asc')
    .limit(limit)
    .execute();
  return rows.map((r) => ({
    jobId,
    stepIndex: r.step_index,
    type: r.type,
    timestamp: r.created_at.toISOString(),
    message: r.message,
    ...(r.provider_id ? { providerId: r.provider_id } : {}),
    ...r.data,
  }));
}
