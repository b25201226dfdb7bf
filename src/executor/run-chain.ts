import type { Scenario } from '../jobs/types.ts';
import { driverFor, loadProviders, providerChain, type ProviderMode } from '../providers/registry.ts';
import type { Driver } from '../providers/types.ts';
import type { Run } from './run-job.ts';

// The providers a run will try, in order: the registry as it is now (a provider added or removed
// since the last job counts from this one), narrowed by the person's consent and the job's mode,
// each with its driver. The chain, and what was skipped and why, is the run's first audit event.

export interface RunChain {
  links: Array<{ driver: Driver; startUrl: string }>;
  /** Every registered provider's name by id, for the run's summaries. */
  names: Record<string, string>;
}

/** The run's provider chain, recorded; null when no provider is left (the job has then failed as no_providers). */
export async function openChain(run: Run, scenario: Scenario, mode: ProviderMode | null): Promise<RunChain | null> {
  const { deps, plan, recorder } = run;
  const providers = await loadProviders(deps.db, { builtIns: deps.settings.builtInProviders });
  const names: Record<string, string> = Object.fromEntries(providers.map((p) => [p.id, p.name]));
  const chain = providerChain(providers, scenario, plan.consent, mode);
  const links: RunChain['links'] = [];
  for (const provider of chain.providers) {
    try {
      links.push(driverFor(provider, deps.settings.providerUrlTemplate));
    } catch (error) {
      chain.skipped.push({ id: provider.id, reason: `its driver could not be started: ${(error as Error).message.split('\n')[0]}` });
    }
  }
  const skipped = chain.skipped.map((s) => `${names[s.id] ?? s.id} skipped (${s.reason})`);
  await recorder.record({
    type: 'step_started',
    message: links.length
      ? `Provider chain for this ${scenario}: ${links.map((l) => l.driver.name).join(', then ')}.${skipped.length ? ` ${skipped.join('; ')}.` : ''}`
      : `No provider is left for this ${scenario}: ${skipped.join('; ')}.`,
    // The names are recorded with the ids, so a registered provider removed later keeps its name in this job's history.
    data: { step: 'plan', providers: links.map((l) => l.driver.id), names: Object.fromEntries(links.map((l) => [l.driver.id, l.driver.name])), skipped: chain.skipped },
  });
  if (links.length > 0) return { links, names };
  const message = mode && chain.skipped.some((s) => s.reason.includes(' mode'))
    ? `consent.allowedProviders, consent.blockedProviders and the job's ${mode} mode leave no provider for this scenario`
    : chain.skipped.some((s) => s.reason.startsWith('its driver'))
      ? 'no provider of this scenario could be started'
      : 'consent.allowedProviders and consent.blockedProviders leave no provider for this scenario';
  await run.fail('error', { type: 'job_failed', message: `Not booked: ${message}.`, data: { reason: 'no_providers' } }, { reason: 'no_providers', step: 'plan', provider: null, url: null, message }, `Not booked: ${message}.`);
  return null;
}
