import { sql, type ExpressionBuilder, type Kysely, type Transaction } from 'kysely';
import type { DB } from '../db/schema.ts';
import type { QueryRange } from './clamp.ts';
import type { AuditEvent, AuditEventType } from './types.ts';

/** The audit endpoint's limit: default and most; a job's decisionLog shows up to the most too. */
export const AUDIT_LIMIT_DEFAULT = 500;
export const AUDIT_LIMIT_MAX = 2000;
export const AUDIT_LIMIT: QueryRange = { default: AUDIT_LIMIT_DEFAULT, min: 1, max: AUDIT_LIMIT_MAX };

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

/** An event's columns as the API shows them; the timestamp is formatted by the database, so both
 *  reads of the log (the audit endpoint and a job's decisionLog) give byte-identical times. */
export interface AuditEventRow {
  step_index: number;
  type: string;
  message: string;
  provider_id: string | null;
  data: Record<string, unknown>;
  timestamp: string;
}

export function auditEventColumns(eb: ExpressionBuilder<DB, 'audit_events'>) {
  return [
    'step_index',
    'type',
    'message',
    'provider_id',
    'data',
    sql<string>`to_char(${eb.ref('created_at')} at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')`.as('timestamp'),
  ] as const;
}

export function toAuditEvent(jobId: string, row: AuditEventRow): AuditEvent {
  // The recorded details first: a detail can never pass itself off as the event's own fields.
  return {
    ...row.data,
    jobId,
    stepIndex: row.step_index,
    type: row.type,
    timestamp: row.timestamp,
    message: row.message,
    ...(row.provider_id ? { providerId: row.provider_id } : {}),
  };
}

export async function listAuditEvents(db: Kysely<DB>, jobId: string, limit: number): Promise<AuditEvent[]> {
  const rows = await db
    .selectFrom('audit_events')
    .select(auditEventColumns)
    .where('job_id', '=', jobId)
    .orderBy('step_index', 'asc')
    .limit(limit)
    .execute();
  return rows.map((r) => toAuditEvent(jobId, r));
}

/**
 * A page of a job's audit log, read after a cursor. The cursor is the last returned event's id, opaque
 * to clients: ids grow with every append, and appends to one job are serialised by the job row's lock
 * (appendAuditEvent), so an event appended while a client pages always lands after its cursor: none
 * is lost, none repeated. `nextCursor` is null when the page reached the end of the log as it stood.
 */
export async function listAuditPage(db: Kysely<DB>, jobId: string, limit: number, afterId: string | null): Promise<{ events: AuditEvent[]; nextCursor: string | null }> {
  let query = db
    .selectFrom('audit_events')
    .select((eb) => [...auditEventColumns(eb), sql<string>`${eb.ref('id')}::text`.as('event_id')])
    .where('job_id', '=', jobId);
  if (afterId !== null) query = query.where('id', '>', sql<number>`${afterId}::bigint`);
  const rows = await query.orderBy('id', 'asc').limit(limit + 1).execute();
  const page = rows.slice(0, limit);
  const more = rows.length > limit;
  return { events: page.map((r) => toAuditEvent(jobId, r)), nextCursor: more ? encodeAuditCursor(page[page.length - 1]!.event_id) : null };
}

const CURSOR_PREFIX = 'audit:';

export function encodeAuditCursor(eventId: string): string {
  return Buffer.from(`${CURSOR_PREFIX}${eventId}`).toString('base64url');
}

/** The event id a cursor stands for, or null when it is not one this service wrote. */
export function decodeAuditCursor(cursor: string): string | null {
  if (!/^[A-Za-z0-9_-]{1,64}$/.test(cursor)) return null;
  const text = Buffer.from(cursor, 'base64url').toString('utf8');
  if (!text.startsWith(CURSOR_PREFIX)) return null;
  const id = text.slice(CURSOR_PREFIX.length);
  return /^[1-9][0-9]{0,17}$/.test(id) ? id : null;
}
