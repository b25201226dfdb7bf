import type { Kysely } from 'kysely';
import type { DB } from '../db/schema.ts';
import { mintApiKey, revokeApiKey, type ApiKeyInfo } from '../auth/api-keys.ts';
import { SCENARIOS, type Scenario } from '../jobs/types.ts';
import { hasControlCharacter, hasFormatCharacter } from '../security/text.ts';
import type { Operator } from './access.ts';
import { recordOperatorAction } from './audit.ts';
import { OperatorInputError } from './errors.ts';

// API keys from the console: the same core as `concierge keys create|revoke` (auth/api-keys.ts),
// with each change on the operator trail.

const MAX_ORG = 200;

export interface KeyForm {
  org?: unknown;
  types?: unknown;
  live?: unknown;
  dailyLimit?: unknown;
}

export interface NewKey {
  organizationName: string;
  allowedJobTypes: Scenario[];
  live: boolean;
  dailyLimit: number | null;
}

/** An organisation name as typed: trimmed, 1 to 200 characters, nothing invisible or controlling. */
export function organizationName(raw: unknown): string {
  const org = typeof raw === 'string' ? raw.trim() : '';
  if (!org || org.length > MAX_ORG || hasControlCharacter(org) || hasFormatCharacter(org)) throw new OperatorInputError(`the organisation must be 1 to ${MAX_ORG} characters, without control or invisible characters`);
  return org;
}

/** Checks the mint form: an organisation, some job types, live or test, an optional daily limit. */
export function checkNewKey(form: KeyForm): NewKey {
  const organization = organizationName(form.org);
  const given = (Array.isArray(form.types) ? form.types : form.types === undefined ? [] : [form.types]).map(String);
  const unknown = given.filter((t) => !(SCENARIOS as readonly string[]).includes(t));
  if (given.length === 0 || unknown.length) throw new OperatorInputError(`choose the job types the key may create, from ${SCENARIOS.join(', ')}`);
  const limitRaw = typeof form.dailyLimit === 'string' ? form.dailyLimit.trim() : '';
  const dailyLimit = limitRaw === '' ? null : /^\d{1,9}$/.test(limitRaw) ? Number(limitRaw) : NaN;
  if (dailyLimit !== null && !(dailyLimit >= 1)) throw new OperatorInputError('the daily limit must be a positive whole number, or empty for none');
  return { organizationName: organization, allowedJobTypes: [...new Set(given)] as Scenario[], live: form.live === 'on' || form.live === 'true', dailyLimit };
}

/** Mints a key; the key and its record commit together. The plaintext is returned once, to be shown once. */
export async function mintKeyAs(db: Kysely<DB>, actor: Operator, form: KeyForm): Promise<{ key: string; info: ApiKeyInfo }> {
  const input = checkNewKey(form);
  return db.transaction().execute(async (trx) => {
    const minted = await mintApiKey(trx, input);
    const { info } = minted;
    await recordOperatorAction(trx, actor, 'api_key.mint', `api key ${info.id} (${info.prefix}…)`, { organizationName: info.organizationName, mode: info.mode, allowedJobTypes: info.allowedJobTypes, dailyLimit: info.dailyLimit });
    return minted;
  });
}

/**
 * Revokes a key and records it. revokeApiKey runs its own transaction (it tells every process's
 * key cache in it, and evicts this process's cache by its database handle), so the record follows
 * the revocation instead of sharing its transaction; a key already revoked records nothing.
 */
export async function revokeKeyAs(db: Kysely<DB>, actor: Operator, id: number): Promise<boolean> {
  if (!Number.isSafeInteger(id) || id < 1) return false;
  const revoked = await revokeApiKey(db, id);
  if (revoked) await recordOperatorAction(db, actor, 'api_key.revoke', `api key ${id}`);
  return revoked;
}
