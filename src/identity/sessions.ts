import { createHmac } from 'node:crypto';
import { sql, type Kysely } from 'kysely';
import type { DB } from '../db/schema.ts';
import { randomSecret, sha256 } from '../security/secrets.ts';

// Web sessions: the cookie holds 256 random bits; the table holds only their SHA-256, so neither
// a database dump nor a log can be replayed as a session, and no signing secret is needed.

export const SESSION_TTL_SECONDS = 7 * 24 * 3600;

export interface SessionUser {
  id: number;
  email: string | null;
  name: string | null;
}

/** Starts a session for a user who just signed in; returns the cookie value (shown to no one else). */
export async function createSession(db: Kysely<DB>, userId: number): Promise<string> {
  const value = randomSecret(32);
  await db
    .insertInto('web_sessions')
    .values({ id_hash: sha256(value), user_id: userId, expires_at: new Date(Date.now() + SESSION_TTL_SECONDS * 1000) })
    .execute();
  return value;
}

export async function sessionUser(db: Kysely<DB>, value: string): Promise<SessionUser | null> {
  if (value.length !== 43) return null;
  const row = await db
    .selectFrom('web_sessions as s')
    .innerJoin('users as u', 'u.id', 's.user_id')
    .select(['u.id', 'u.email', 'u.name'])
    .where('s.id_hash', '=', sha256(value))
    .where('s.expires_at', '>', sql<Date>`now()`)
    .executeTakeFirst();
  return row ?? null;
}

export async function endSession(db: Kysely<DB>, value: string): Promise<void> {
  await db.deleteFrom('web_sessions').where('id_hash', '=', sha256(value)).execute();
}

/**
 * The CSRF token of a session: derived from the session's own secret, so it is bound to it,
 * unguessable without it, and needs no storage.
 */
export function csrfTokenFor(sessionValue: string): string {
  return createHmac('sha256', sessionValue).update('concierge csrf v1').digest('base64url');
}
