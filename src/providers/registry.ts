import type { Scenario } from '../jobs/types.ts';
import { dinenow } from './dinenow/index.ts';
import { eventgo } from './eventgo/index.ts';
import { jetdeck } from './jetdeck/index.ts';
import { roomly } from './roomly/index.ts';
import { skyfare } from './skyfare/index.ts';
import { staysearch } from './staysearch/index.ts';
import { tablebook } from './tablebook/index.ts';
import { tixhub } from './tixhub/index.ts';
import type { Driver, ProviderId } from './types.ts';

export const DRIVERS: Readonly<Record<ProviderId, Driver>> = { tablebook, dinenow, staysearch, roomly, skyfare, jetdeck, tixhub, eventgo };

/** A provider's name as its site spells it (an unknown id as it is), or null without one. */
export function providerName(id: string | null | undefined): string | null {
  if (!id) return null;
  return Object.hasOwn(DRIVERS, id) ? DRIVERS[id as ProviderId].name : id;
}

/** The configured order per scenario: first choice first. */
export const PROVIDER_ORDER: Readonly<Record<Scenario, readonly ProviderId[]>> = {
  restaurant: ['tablebook', 'dinenow'],
  hotel: ['staysearch', 'roomly'],
  flight: ['skyfare', 'jetdeck'],
  activity: ['tixhub', 'eventgo'],
};

export interface ProviderChain {
  drivers: Driver[];
  /** Providers of the scenario left out, and why (for the audit log). */
  skipped: Array<{ id: ProviderId; reason: string }>;
}

/** The scenario's providers in order, filtered by the consent's allowedProviders / blockedProviders. */
export function providerChain(scenario: Scenario, consent: { allowedProviders?: readonly string[] | null; blockedProviders?: readonly string[] }): ProviderChain {
  const allowed = consent.allowedProviders ? new Set(consent.allowedProviders.map((p) => p.toLowerCase())) : null;
  const blocked = new Set((consent.blockedProviders ?? []).map((p) => p.toLowerCase()));
  const chain: ProviderChain = { drivers: [], skipped: [] };
  for (const id of PROVIDER_ORDER[scenario]) {
    if (allowed && !allowed.has(id)) chain.skipped.push({ id, reason: 'not in consent.allowedProviders' });
    else if (blocked.has(id)) chain.skipped.push({ id, reason: 'listed in consent.blockedProviders' });
    else chain.drivers.push(DRIVERS[id]);
  }
  return chain;
}

/** A provider's origin: PROVIDER_URL_TEMPLATE with {provider} replaced. */
export function providerBaseUrl(template: string, id: ProviderId): string {
  return template.replace('{provider}', id);
}
