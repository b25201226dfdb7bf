import type { Kysely } from 'kysely';
import type { DB } from '../db/schema.ts';
import { dinenow } from './dinenow/index.ts';
import { eventgo } from './eventgo/index.ts';
import { genericDriver } from './generic/index.ts';
import { jetdeck } from './jetdeck/index.ts';
import { roomly } from './roomly/index.ts';
import { skyfare } from './skyfare/index.ts';
import { staysearch } from './staysearch/index.ts';
import { tablebook } from './tablebook/index.ts';
import { tixhub } from './tixhub/index.ts';
import { PROVIDER_IDS, type ProviderId } from './ids.ts';
import type { Driver, Scenario } from '../driver/types.ts';
import type { Consent, DriverChain, ProviderMode, ProviderRegistry } from '../driver/registry.ts';

// The provider registry: the built-in sandbox providers (in code, with their scripted drivers, mode
// test) and the providers an operator registered (the `providers` table, `concierge providers add`).
// A job's chain is read from here at each job start, so every process uses a change from the next
// job on. Order: priority ascending (lower goes first); on equal priority built-ins come first,
// then registered providers in the order they were added.


/** `generic` (the standards-based driver) or a built-in scripted driver, run at the provider's start URL. */
export const DRIVER_IDS = ['generic', ...PROVIDER_IDS] as const;

export interface Provider {
  id: string;
  name: string;
  scenario: Scenario;
  /** `generic` or a built-in driver id. */
  driver: string;
  /** Where a booking starts; null for a built-in (its origin from PROVIDER_URL_TEMPLATE, then `/`). */
  startUrl: string | null;
  /** Lower goes first. */
  priority: number;
  mode: ProviderMode;
  builtIn: boolean;
  /** When a registered provider was added; absent for a built-in. */
  createdAt?: Date;
}

export const DRIVERS: Readonly<Record<ProviderId, Driver>> = { tablebook, dinenow, staysearch, roomly, skyfare, jetdeck, tixhub, eventgo };

/** The built-ins' order per scenario: first choice first (a scenario may have no built-in: its providers are registered). */
export const PROVIDER_ORDER: Readonly<Partial<Record<Scenario, readonly ProviderId[]>>> = {
  restaurant: ['tablebook', 'dinenow'],
  hotel: ['staysearch', 'roomly'],
  flight: ['skyfare', 'jetdeck'],
  activity: ['tixhub', 'eventgo'],
};

/** A registered provider's priority when none is given; a built-in first choice ranks the same. */
export const DEFAULT_PRIORITY = 100;

/** Built-ins rank 100 (first choice) and 200 (second): a registered provider at 100 comes after the first choice, at 99 before it. */
export const BUILT_IN_PROVIDERS: readonly Provider[] = Object.freeze(
  (Object.entries(PROVIDER_ORDER) as Array<[Scenario, readonly ProviderId[]]>).flatMap(([scenario, ids]) =>
    ids.map((id, i) => ({ id, name: DRIVERS[id].name, scenario, driver: id, startUrl: null, priority: DEFAULT_PRIORITY * (i + 1), mode: 'test' as const, builtIn: true })),
  ),
);

export function isBuiltInId(id: string): id is ProviderId {
  return Object.hasOwn(DRIVERS, id);
}

// Registered names, as this process last read them: provider names in summaries, /bookings and the
// handoff page come from here without a query per call. A name stays known after its provider is
// removed, so the jobs it booked keep their name.
const registeredNames = new Map<string, string>();
let namesReadAt = 0;
const NAMES_MAX_AGE_MS = 5_000;

/** A provider's name (built-in, or registered as this process last read it; an unknown id as it is), or null without an id. */
export function providerName(id: string | null | undefined): string | null {
  if (!id) return null;
  if (isBuiltInId(id)) return DRIVERS[id].name;
  return registeredNames.get(id) ?? id;
}

function remember(rows: ReadonlyArray<{ id: string; name: string }>): void {
  for (const row of rows) registeredNames.set(row.id, row.name);
  namesReadAt = Date.now();
}

/** Reads the registered names again when this process's copy is more than a few seconds old (before rendering names). */
export async function refreshProviderNames(db: Kysely<DB>): Promise<void> {
  if (Date.now() - namesReadAt < NAMES_MAX_AGE_MS) return;
  remember(await db.selectFrom('providers').select(['id', 'name']).execute());
}

/**
 * Whether the built-in providers exist: they are the bundled sandbox's sites, which production
 * refuses to run, so there a test-key job books only on providers registered with `--mode test`
 * (and the browser is never pointed at a sandbox address).
 */
export function builtInsExist(nodeEnv: string): boolean {
  return nodeEnv !== 'production';
}

/** Every provider, built-in (where they exist: builtInsExist) and registered, in chain order. */
export async function loadProviders(db: Kysely<DB>, options: { builtIns: boolean }): Promise<Provider[]> {
  const rows = await db.selectFrom('providers').selectAll().orderBy('created_at').orderBy('id').execute();
  remember(rows);
  const registered: Provider[] = rows.map((r) => ({ id: r.id, name: r.name, scenario: r.scenario as Scenario, driver: r.driver, startUrl: r.start_url, priority: r.priority, mode: r.mode, builtIn: false, createdAt: r.created_at }));
  // A stable sort: built-ins (listed first) before registered ones of equal priority, those in the order added.
  return [...(options.builtIns ? BUILT_IN_PROVIDERS : []), ...registered].sort((a, b) => a.priority - b.priority);
}


export interface ProviderChain {
  providers: Provider[];
  /** Providers of the scenario left out, and why (for the audit log). */
  skipped: Array<{ id: string; reason: string }>;
}

/**
 * The scenario's providers in order, keeping only those of the job's mode (null: every mode, for a
 * job created before modes), filtered by the consent's allowedProviders / blockedProviders.
 */
export function providerChain(providers: readonly Provider[], scenario: Scenario, consent: Consent, mode: ProviderMode | null): ProviderChain {
  const allowed = consent.allowedProviders ? new Set(consent.allowedProviders.map((p) => p.toLowerCase())) : null;
  const blocked = new Set((consent.blockedProviders ?? []).map((p) => p.toLowerCase()));
  const chain: ProviderChain = { providers: [], skipped: [] };
  for (const provider of providers) {
    if (provider.scenario !== scenario) continue;
    const { id } = provider;
    if (allowed && !allowed.has(id)) chain.skipped.push({ id, reason: 'not in consent.allowedProviders' });
    else if (blocked.has(id)) chain.skipped.push({ id, reason: 'listed in consent.blockedProviders' });
    else if (mode && provider.mode !== mode) chain.skipped.push({ id, reason: `a ${provider.mode} provider, and this job was created in ${mode} mode` });
    else chain.providers.push(provider);
  }
  return chain;
}

/**
 * Why a job of this mode cannot be served, as a request problem ({path, message}), or null. Refused
 * at creation: the scenario has no provider of the mode, or consent.allowedProviders names only
 * providers of the other mode. (A consent that leaves no provider at all, whatever the mode, is
 * reported by the run, as before modes.)
 */
export function modeProblem(providers: readonly Provider[], scenario: Scenario, consent: Consent, mode: ProviderMode): { path: string; message: string } | null {
  const of = providers.filter((p) => p.scenario === scenario);
  // The mode is the API key's (svk_test_ / svk_live_), or for a person's assistant the service's (docs/api.md).
  const rule = `jobs in ${mode} mode book only on ${mode} providers`;
  if (!of.some((p) => p.mode === mode)) return { path: 'request.scenario', message: `no ${mode} provider books ${scenario} jobs: ${rule}` };
  if (consent.allowedProviders) {
    const allowed = new Set(consent.allowedProviders.map((p) => p.toLowerCase()));
    const named = of.filter((p) => allowed.has(p.id));
    if (named.length > 0 && !named.some((p) => p.mode === mode)) {
      const other = mode === 'test' ? 'live' : 'test';
      return { path: 'consent.allowedProviders', message: `names only ${other} providers (${named.map((p) => p.id).join(', ')}): ${rule}` };
    }
  }
  return null;
}

/**
 * The mode of jobs a person creates through an OAuth client (there is no API key to take it from):
 * someone asking an assistant for a booking on a production service expects a real one; on a
 * development or test service there is nothing but the sandbox to book on.
 */
export function modeForPeople(nodeEnv: string): ProviderMode {
  return nodeEnv === 'production' ? 'live' : 'test';
}

/** A provider's origin: PROVIDER_URL_TEMPLATE with {provider} replaced. */
export function providerBaseUrl(template: string, id: ProviderId): string {
  return template.replace('{provider}', id);
}

/**
 * The driver that books at a provider, and where it starts. A built-in books at its origin; a
 * registered provider books at its start URL with the generic driver or the built-in driver it
 * names (under its own id and name). Throws when the driver cannot be made.
 */
export function driverFor(provider: Provider, urlTemplate: string): { driver: Driver; startUrl: string } {
  if (provider.builtIn && isBuiltInId(provider.id)) return { driver: DRIVERS[provider.id], startUrl: `${providerBaseUrl(urlTemplate, provider.id)}/` };
  const startUrl = provider.startUrl!;
  if (provider.driver === 'generic') return { driver: genericDriver({ id: provider.id, name: provider.name, scenario: provider.scenario, startUrl }), startUrl };
  if (isBuiltInId(provider.driver)) return { driver: { ...DRIVERS[provider.driver], id: provider.id, name: provider.name }, startUrl };
  throw new Error(`unknown driver ${provider.driver}`);
}

/**
 * The registry as the executor and job creation use it (driver/registry.ts), built once at start
 * by the composition root: `builtIns` where they exist (builtInsExist), built-ins at `urlTemplate`.
 */
export function providerRegistry(db: Kysely<DB>, options: { builtIns: boolean; urlTemplate: string }): ProviderRegistry {
  return {
    async chain(scenario, consent, mode) {
      const providers = await loadProviders(db, { builtIns: options.builtIns });
      const names: Record<string, string> = Object.fromEntries(providers.map((p) => [p.id, p.name]));
      const { providers: chosen, skipped } = providerChain(providers, scenario, consent, mode);
      const links: DriverChain['links'] = [];
      for (const provider of chosen) {
        try {
          links.push(driverFor(provider, options.urlTemplate));
        } catch (error) {
          skipped.push({ id: provider.id, reason: `its driver could not be started: ${(error as Error).message.split('\n')[0]}` });
        }
      }
      return { links, skipped, names };
    },
    async modeProblem(scenario, consent, mode) {
      return modeProblem(await loadProviders(db, { builtIns: options.builtIns }), scenario, consent, mode);
    },
    name: providerName,
    refreshNames: () => refreshProviderNames(db),
  };
}
