import type { Kysely } from 'kysely';
import type { Config } from '../config.ts';
import type { DB } from '../db/schema.ts';
import { SCENARIOS, type Scenario } from '../jobs/types.ts';
import { AddressPolicyError, assertPublicUrl, type AddressPolicy } from '../net/address-policy.ts';
import { BUILT_IN_PROVIDERS, DEFAULT_PRIORITY, DRIVER_IDS, DRIVERS, isBuiltInId, loadProviders, type Provider } from './registry.ts';
import { PROVIDER_MODES, type ProviderMode } from '../driver/registry.ts';

// The operator's side of the registry: add, list and remove registered providers. Everything is
// checked before anything is written, and a refusal names what is wrong.

/** A provider id: a short lower-case slug (2 to 40 characters: letters, digits, hyphens; not starting with a hyphen). */
export const PROVIDER_ID_PATTERN = /^[a-z0-9][a-z0-9-]{1,39}$/;
const MAX_NAME = 100;
const MAX_URL = 2048;
export const MAX_PRIORITY = 1_000_000;

export class ProviderInputError extends Error {
  override name = 'ProviderInputError';
}

export interface NewProvider {
  id: string;
  name: string;
  scenario: string;
  startUrl: string;
  driver?: string;
  priority?: number;
  mode?: string;
}

export interface ProviderView extends Omit<Provider, 'createdAt'> {
  /** When it was registered (null for a built-in). */
  createdAt: string | null;
}

/** Why a start URL cannot be used, or null: http(s), no user information, not too long. */
function startUrlProblem(raw: string): string | null {
  if (raw.length > MAX_URL) return `--url is longer than ${MAX_URL} characters`;
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return `--url ${JSON.stringify(raw)} is not an absolute URL (like https://booking.example.com/)`;
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return `--url must be an http:// or https:// URL, not ${url.protocol}`;
  if (url.username || url.password) return '--url must not carry a user name or password (it is shown by providers list)';
  return null;
}

/** A new provider that passed every check but the one that needs the database (its id is not taken). */
export interface CheckedProvider {
  id: string;
  name: string;
  scenario: Scenario;
  startUrl: string;
  driver: string;
  priority: number;
  mode: ProviderMode;
}

/**
 * Where a start URL may point, by configuration: development and tests book on loopback sites (the
 * sandbox); production only on the public internet, unless PROVIDER_ALLOW_PRIVATE_ADDRESSES=true.
 * The CLI and the operator console both ask here, so they refuse the same URLs.
 */
export function providerAddressPolicy(config: Pick<Config, 'NODE_ENV' | 'PROVIDER_ALLOW_PRIVATE_ADDRESSES'>): AddressPolicy {
  return { allowPrivate: config.NODE_ENV !== 'production' || config.PROVIDER_ALLOW_PRIVATE_ADDRESSES };
}

/**
 * Checks a new provider without the database. The address policy decides whether its start URL may
 * point at a loopback or private address (refused in production unless PROVIDER_ALLOW_PRIVATE_ADDRESSES=true).
 */
export async function checkNewProvider(input: NewProvider, policy: AddressPolicy): Promise<CheckedProvider> {
  const id = input.id.trim();
  if (!PROVIDER_ID_PATTERN.test(id)) throw new ProviderInputError(`--id ${JSON.stringify(input.id)} is not a provider id: 2 to 40 lower-case letters, digits and hyphens, starting with a letter or digit (like acme-tables)`);
  if (isBuiltInId(id)) throw new ProviderInputError(`--id ${id} is a built-in provider's id; choose another`);
  const name = input.name.trim();
  // eslint-disable-next-line no-control-regex
  if (!name || name.length > MAX_NAME || /[\u0000-\u001f\u007f]/.test(name)) throw new ProviderInputError(`--name must be 1 to ${MAX_NAME} characters, without control characters`);
  if (!(SCENARIOS as readonly string[]).includes(input.scenario)) throw new ProviderInputError(`--scenario must be one of ${SCENARIOS.join(', ')} (got ${JSON.stringify(input.scenario)})`);
  const scenario = input.scenario as Scenario;
  const driver = input.driver ?? 'generic';
  if (!(DRIVER_IDS as readonly string[]).includes(driver)) throw new ProviderInputError(`--driver must be generic or a built-in driver (${Object.keys(DRIVERS).join(', ')}); got ${JSON.stringify(driver)}`);
  if (driver !== 'generic' && isBuiltInId(driver) && DRIVERS[driver].scenario !== scenario) {
    throw new ProviderInputError(`--driver ${driver} books ${DRIVERS[driver].scenario} jobs, not ${scenario} jobs`);
  }
  const priority = input.priority ?? DEFAULT_PRIORITY;
  if (!Number.isInteger(priority) || priority < 0 || priority > MAX_PRIORITY) throw new ProviderInputError(`--priority must be a whole number from 0 to ${MAX_PRIORITY} (lower goes first)`);
  const mode = input.mode ?? 'live';
  if (!(PROVIDER_MODES as readonly string[]).includes(mode)) throw new ProviderInputError(`--mode must be test or live (got ${JSON.stringify(mode)})`);
  const problem = startUrlProblem(input.startUrl);
  if (problem) throw new ProviderInputError(problem);
  try {
    await assertPublicUrl(input.startUrl, policy);
  } catch (error) {
    if (!(error instanceof AddressPolicyError)) throw error;
    throw new ProviderInputError(`--url ${error.message}: a provider must be on the public internet (server-side request forgery protection); set PROVIDER_ALLOW_PRIVATE_ADDRESSES=true to allow private addresses`);
  }
  return { id, name, scenario, startUrl: input.startUrl, driver, priority, mode: mode as ProviderMode };
}

/** Registers a checked provider; a taken id is refused (ProviderInputError) and writes nothing. */
export async function insertProvider(db: Kysely<DB>, provider: CheckedProvider): Promise<ProviderView> {
  const { id, name, scenario, startUrl, driver, priority, mode } = provider;
  const row = await db
    .insertInto('providers')
    .values({ id, name, scenario, start_url: startUrl, driver, priority, mode })
    .onConflict((oc) => oc.column('id').doNothing())
    .returningAll()
    .executeTakeFirst();
  if (!row) throw new ProviderInputError(`--id ${id}: a provider ${id} is already registered (providers remove ${id} first to replace it)`);
  return { id: row.id, name: row.name, scenario, driver: row.driver, startUrl: row.start_url, priority: row.priority, mode: row.mode, builtIn: false, createdAt: row.created_at.toISOString() };
}

/** Every provider, built-in and registered, in chain order (each scenario's chain is this list's providers of that scenario). */
/** Checks and registers a provider (checkNewProvider, then insertProvider). */
export async function addProvider(db: Kysely<DB>, input: NewProvider, policy: AddressPolicy): Promise<ProviderView> {
  return insertProvider(db, await checkNewProvider(input, policy));
}

export async function listProviders(db: Kysely<DB>, options: { builtIns: boolean }): Promise<ProviderView[]> {
  return (await loadProviders(db, options)).map((p) => ({ ...p, createdAt: p.createdAt?.toISOString() ?? null }));
}

export type RemoveResult = 'removed' | 'built_in' | 'unknown';

/** Removes a registered provider; jobs already running keep their chain, the next job does without it. */
export async function removeProvider(db: Kysely<DB>, id: string): Promise<RemoveResult> {
  if (BUILT_IN_PROVIDERS.some((p) => p.id === id)) return 'built_in';
  const deleted = await db.deleteFrom('providers').where('id', '=', id).executeTakeFirst();
  return Number(deleted.numDeletedRows) > 0 ? 'removed' : 'unknown';
}
