import type { Driver, Scenario } from './types.ts';

// The providers as the executor and job creation see them. The registry (providers/registry.ts)
// implements it; the composition root (server.ts) builds it once and hands it to both, so neither
// imports a driver.

export const PROVIDER_MODES = ['test', 'live'] as const;
export type ProviderMode = (typeof PROVIDER_MODES)[number];

/** The person's say over which providers a job may use. */
export interface Consent {
  allowedProviders?: readonly string[] | null;
  blockedProviders?: readonly string[];
}

/** The providers a run will try, in order, each with its driver and where it starts. */
export interface DriverChain {
  links: Array<{ driver: Driver; startUrl: string }>;
  /** Providers of the scenario left out, and why (for the audit log). */
  skipped: Array<{ id: string; reason: string }>;
  /** Every provider's name by id, for the run's summaries. */
  names: Record<string, string>;
}

export interface ProviderRegistry {
  /**
   * The scenario's providers as the registry holds them now (a provider added or removed since the
   * last job counts from this one), narrowed by consent and the job's mode (null: every mode).
   */
  chain(scenario: Scenario, consent: Consent, mode: ProviderMode | null): Promise<DriverChain>;
  /** Why a job of this mode cannot be served, as a request problem, or null (checked at creation). */
  modeProblem(scenario: Scenario, consent: Consent, mode: ProviderMode): Promise<{ path: string; message: string } | null>;
  /** A provider's name by id, from the registry as last read (refreshNames); null when unknown. */
  name(id: string | null | undefined): string | null;
  /** Reads the registered providers' names again. */
  refreshNames(): Promise<void>;
}
