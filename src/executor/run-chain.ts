import type { DriverChain, ProviderMode } from '../driver/registry.ts';
import type { Scenario } from '../driver/types.ts';
import type { Run } from './run-job.ts';

// The providers a run will try, in order: the registry the executor was given (driver/registry.ts)
// as it is now (a provider added or removed since the last job counts from this one), narrowed by
// the person's consent and the job's mode, each with its driver. The chain, and what was skipped and why, is the run's first audit event.

export interface RunChain {
  links: DriverChain['links'];
  /** Every registered provider's name by id, for the run's summaries. */
  names: Record<string, string>;
}

/** The run's provider chain, recorded; null when no provider is left (the job has then failed as no_providers). */
export async function openChain(run: Run, scenario: Scenario, mode: ProviderMode | null): Promise<RunChain | null> {
  const { deps, plan, recorder } = run;
  const chain = await deps.providers.chain(scenario, plan.consent, mode);
  const { links, names } = chain;
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
