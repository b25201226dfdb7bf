import { sql, type Kysely } from 'kysely';
import type { DB } from '../db/schema.ts';
import { digestsEqual, randomSecret, sha256 } from '../security/secrets.ts';
import { SCENARIOS, type Scenario } from '../jobs/types.ts';
import { API_KEY_REVOKED_CHANNEL, apiKeyCacheOf } from './api-key-cache.ts';

export const API_KEY_PATTERN = /^svk_(live|test)_[A-Za-z0-9_-]{16,}$/;

export interface ApiKeyPrincipal {
  kind: 'api_key';
  apiKeyId: number;
  organizationName: string;
  allowedJobTypes: Scenario[];
  mode: 'live' | 'test';
  /** Jobs this key may create per UTC day; null = no limit. */
  dailyLimit: number | null;
}

export interface ApiKeyInfo {
  id: number;
  prefix: string;
  mode: 'live' | 'test';
  organizationName: string;
  allowedJobTypes: Scenario[];
  dailyLimit: number | null;
  createdAt: string;
  lastUsedAt: string | null;
  revokedAt: string | null;
}

/** Mints a key: 256 random bits, shown once; only its SHA-256 is stored. */
export async function mintApiKey(
  db: Kysely<DB>,
  input: { organizationName: string; allowedJobTypes: Scenario[]; live: boolean; dailyLimit: number | null },
): Promise<{ key: string; info: ApiKeyInfo }> {
  const mode = input.live ? 'live' : 'test';
  const key = `svk_${mode}_${randomSecret(32)}`;
  const row = await db
    .insertInto('api_keys')
    .values({
      prefix: key.slice(0, 13),
      key_hash: sha256(key),
      mode,
      organization_name: input.organizationName,
      allowed_job_types: input.allowedJobTypes,
      daily_limit: input.dailyLimit,
    })
    .returningAll()
    .executeTakeFirstOrThrow();
  return { key, info: toInfo(row) };
}

function toInfo(row: { id: number; prefix: string; mode: 'live' | 'test'; organization_name: string; allowed_job_types: string[]; daily_limit: number | null; created_at: Date; last_used_at: Date | null; revoked_at: Date | null }): ApiKeyInfo {
  return {
    id: row.id,
    prefix: row.prefix,
    mode: row.mode,
    organizationName: row.organization_name,
    allowedJobTypes: row.allowed_job_types.filter((t): t is Scenario => (SCENARIOS as readonly string[]).includes(t)),
    dailyLimit: row.daily_limit,
    createdAt: row.created_at.toISOString(),
    lastUsedAt: row.last_used_at?.toISOString() ?? null,
    revokedAt: row.revoked_at?.toISOString() ?? null,
  };
}

/** Every key (never its secret), or one organisation's. */
export async function listApiKeys(db: Kysely<DB>, organizationName?: string): Promise<ApiKeyInfo[]> {
  let query = db.selectFrom('api_keys').selectAll().orderBy('id');
  if (organizationName !== undefined) query = query.where('organization_name', '=', organizationName);
  return (await query.execute()).map(toInfo);
}

/**
 * Revokes a key. The key's hash is announced on API_KEY_REVOKED_CHANNEL in the same transaction,
 * so services that cache verified keys forget it the moment the revocation commits.
 */
export async function revokeApiKey(db: Kysely<DB>, id: number): Promise<boolean> {
  const hash = await db.transaction().execute(async (trx) => {
    const row = await trx
      .updateTable('api_keys')
      .set({ revoked_at: new Date() })
      .where('id', '=', id)
      .where('revoked_at', 'is', null)
      .returning('key_hash')
      .executeTakeFirst();
    if (!row) return undefined;
    await sql`select pg_notify(${API_KEY_REVOKED_CHANNEL}, ${row.key_hash})`.execute(trx);
    return row.key_hash;
  });
  if (hash === undefined) return false;
  // This process's own cache forgets the key now; other processes when the notification arrives.
  apiKeyCacheOf(db)?.evict(hash);
  return true;
}

/** How often last_used_at is written per key: it is advisory, and a write per call would cost. */
const LAST_USED_GRANULARITY_MS = 60_000;

/**
 * Resolves a key that already matched API_KEY_PATTERN. Returns null for an unknown or revoked key;
 * a database failure propagates so that the caller fails closed. When the handle has a cache (see
 * api-key-cache.ts), a key verified in the last few seconds is answered from memory.
 */
export async function verifyApiKey(db: Kysely<DB>, key: string): Promise<ApiKeyPrincipal | null> {
  const hash = sha256(key);
  const cache = apiKeyCacheOf(db);
  const cached = cache?.get(hash);
  if (cached) return cached;
  const generation = cache?.generation ?? 0;
  const row = await db
    .selectFrom('api_keys')
    .select(['id', 'key_hash', 'mode', 'organization_name', 'allowed_job_types', 'daily_limit', 'revoked_at', 'last_used_at'])
    .where('key_hash', '=', hash)
    .executeTakeFirst();
  if (!row || row.revoked_at !== null || !digestsEqual(row.key_hash, hash)) return null;
  if (!row.last_used_at || Date.now() - row.last_used_at.getTime() > LAST_USED_GRANULARITY_MS) {
    // Off the request's path: a failure here must not fail the call.
    void db
      .updateTable('api_keys')
      .set({ last_used_at: sql<Date>`now()` })
      .where('id', '=', row.id)
      .execute()
      .catch(() => {});
  }
  const principal: ApiKeyPrincipal = {
    kind: 'api_key',
    apiKeyId: row.id,
    organizationName: row.organization_name,
    allowedJobTypes: row.allowed_job_types as Scenario[],
    mode: row.mode,
    dailyLimit: row.daily_limit,
  };
  cache?.set(hash, principal, generation);
  return principal;
}
