import type { Scenario, SearchRequest } from '../driver/types.ts';
import { activity } from './activity.ts';
import { flight } from './flight.ts';
import { hotel } from './hotel.ts';
import { restaurant } from './restaurant.ts';
import type { Params, Preferences, ScenarioSpec, ScenarioSpecs } from './spec.ts';

// Every scenario's spec, by name. Adding a scenario is its module (src/scenarios/<name>.ts: its spec
// and its SearchRequests entry) and one line here; SCENARIOS follows from this record, and the
// compiler checks the record complete.

export const SCENARIO_SPECS = {
  restaurant,
  hotel,
  flight,
  activity,
} as const satisfies ScenarioSpecs;

/** Every scenario, in the order the API lists them. */
export const SCENARIOS = Object.keys(SCENARIO_SPECS) as [Scenario, ...Scenario[]];

export type { Aims, ChoiceRule, HeldDates, Pair, Params, Preferences, RequestOf, ScenarioSpec, ScenarioSpecs } from './spec.ts';

/** The scenario's spec, for a value known only as one of the scenarios. */
export function specOf(scenario: Scenario): ScenarioSpec {
  // Each spec takes its own scenario's request: the caller passes the request of that scenario.
  return SCENARIO_SPECS[scenario] as unknown as ScenarioSpec;
}

/** The request a provider is searched for. Stored params were validated at creation; this only reshapes. */
export function searchRequestOf(scenario: Scenario, params: Params): SearchRequest {
  return specOf(scenario).request(params);
}

/** The wishes among the params that the sites' search forms cannot express. */
export function preferencesOf(scenario: Scenario, params: Params): Preferences {
  return specOf(scenario).preferences(params);
}

/** How many people the request is for: the party, the adults, the passengers or the tickets. */
export function headcountOf(request: SearchRequest): number {
  return specOf(request.scenario).headcount(request);
}

/** The request in a few words, for audit messages and summaries. */
export function describeRequest(request: SearchRequest): string {
  return specOf(request.scenario).describe(request);
}
