import type { Kysely } from 'kysely';
import type { DB } from '../db/schema.ts';
import type { Operator } from './access.ts';

// The operator console's trail (table operator_audit, migration 014): one row per change an
// operator made, with who made it. Read back on the console's Audit page, newest first.

export const OPERATOR_ACTIONS = ['api_key.mint', 'api_key.revoke', 'provider.add', 'provider.remove', 'oauth_client.delete'] as const;
export type OperatorAction = (typeof OPERATOR_ACTIONS)[number];

export interface OperatorAuditEntry {
  id: number;
  actorEmail: string;
  action: string;
  target: string;
  detail: Record<string, unknown>;
  createdAt: string;
}

/** Records one change, in the caller's transaction when it passes one (the change and its record commit together). */
export async function recordOperatorAction(db: Kysely<DB>, actor: Operator, action: OperatorAction, target: string, detail: Record<string, unknown> = {}): Promise<void> {
  await db
    .insertInto('operator_audit')
    .values({ actor_user_id: actor.userId, actor_email: actor.email, action, target, detail: JSON.stringify(detail) })
    .execute();
}

/** Most entries one page shows. */
export const AUDIT_PAGE_SIZE = 100;

/** A page of the trail, newest first; `before` (an entry id) continues from where the last page ended. */
export async function listOperatorActions(db: Kysely<DB>, before: number | null): Promise<{ entries: OperatorAuditEntry[]; nextBefore: number | null }> {
  let query = db.selectFrom('operator_audit').selectAll().orderBy('id', 'desc').limit(AUDIT_PAGE_SIZE + 1);
  if (before !== null) query = query.where('id', '<', before);
  const rows = await query.execute();
  const entries = rows.slice(0, AUDIT_PAGE_SIZE).map((r) => ({
    id: Number(r.id),
    actorEmail: r.actor_email,
    action: r.action,
    target: r.target,
    detail: r.detail,
    createdAt: r.created_at.toISOString(),
  }));
  return { entries, nextBefore: rows.length > AUDIT_PAGE_SIZE ? entries.at(-1)!.id : null };
}
