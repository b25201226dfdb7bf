import type { z } from 'zod';
import type { Scenario, SearchRequest } from '../driver/types.ts';

// What makes a scenario a scenario, in one place: each src/scenarios/<name>.ts exports one
// ScenarioSpec, and src/scenarios/index.ts collects them in a record the compiler checks complete.
// The surfaces (REST, MCP, the handoff pages) and the executor read a scenario's particulars from
// here; only what is generic (how a choice is made, how a date reads) stays with them.

/** The search request of one scenario. */
export type RequestOf<S extends Scenario> = Extract<SearchRequest, { scenario: S }>;

/** A job's params as stored: validated at creation by the scenario's schema. */
export type Params = Record<string, unknown>;

/**
 * Wishes the sites' search forms cannot express, applied when choosing among options. targetPrice:
 * the ceiling of a flight's fare per passenger; minStars: a hotel's star_rating, a minimum;
 * cuisine, neighborhood: what chooses among the venues a site suggests when the one asked for is missing.
 */
export interface Preferences {
  budgetPerUnit?: number;
  targetFlightNumber?: string;
  targetPrice?: number;
  minStars?: number;
  cuisine?: string;
  neighborhood?: string;
}

/**
 * How the executor chooses among a site's options (executor/decide.ts holds each rule):
 * - `time`: the time asked or the nearest the consent allows, within the budget per unit (a table);
 * - `fare`: the flight number, then the departure time, within the price ceiling per passenger;
 * - `rated`: at least the stars asked, then the preference words, within the budget per unit (a room);
 * - `preference`: the cheapest option matching the preference words, within the budget per unit.
 */
export type ChoiceRule = 'time' | 'fare' | 'rated' | 'preference';

/** What the choice aims at: the time asked (or wished), and the words an option should match. */
export interface Aims {
  time?: string;
  preference?: string;
}

/**
 * How the held booking's date reads on the handoff pages: a day and a time (`day`), a stay from
 * check-in to check-out (`stay`), or a flight's day, departure and arrival (`flight`).
 */
export type HeldDates = 'day' | 'stay' | 'flight';

/** One line of a description: a label and its value, left out when the value is null. */
export type Pair = [label: string, value: string | null];

export interface ScenarioSpec<S extends Scenario = Scenario> {
  scenario: S;
  /** The params' schema: REST validates with it, the MCP tool and the OpenAPI document show it. */
  params: z.ZodObject;
  /** The request a provider is searched for, from validated params (this only reshapes). */
  request(params: Params): RequestOf<S>;
  /** The wishes among the params that a site's search form cannot express. */
  preferences(params: Params): Preferences;
  /**
   * Whose details the booking needs: the lead's alone (`lead`: the booking is in their name, and
   * more travellers than people booked for is a contradiction), or each traveller's with identity
   * documents (`each`: one traveller per person booked for, every one with a passport: a flight).
   */
  travellers: 'lead' | 'each';
  /** How many people the booking is for: the party, the adults, the passengers or the tickets. */
  headcount(request: RequestOf<S>): number;
  /** The request in a few words, for audit messages and summaries. */
  describe(request: RequestOf<S>): string;
  /** What a price is per, in the executor's reasons ("within the budget of 120 per ticket"). */
  unit: string;
  /** How the executor chooses among the options, and what it aims at. */
  choice: ChoiceRule;
  aims(request: RequestOf<S>): Aims;
  /** What was asked, for the person (handoff and booking pages), from the stored params. */
  asked(params: Params): Pair[];
  /** A one-line title for a job ("Casa Azul, Lisbon · 2031-05-16 19:00"), from the stored params. */
  title(params: Params): string;
  /** The held booking's labels on the handoff pages. */
  held: { venue: string; quantity: string; item: string; dates: HeldDates };
  /** The MCP booking tool (book_<scenario>): its title, and what its description says first. */
  tool: { title: string; description: string };
}

/** One spec per scenario, each under its own name. */
export type ScenarioSpecs = { [S in Scenario]: ScenarioSpec<S> };
