import { z } from 'zod';
import { isStorable } from '../security/text.ts';
import { calendarDate, isCalendarDate, STORABLE, text } from '../scenarios/fields.ts';
import { headcountOf, SCENARIO_SPECS, searchRequestOf } from '../scenarios/index.ts';
import { SCENARIOS, type Scenario } from './types.ts';
import { errorMap, says, toIssues, type Issue } from '../scenarios/validation.ts';

export type { Issue } from '../scenarios/validation.ts';

// One schema per request shape. REST validates with these, MCP derives its tool input schemas from
// them, and the OpenAPI document is generated from them: one source of truth for every surface.
// Messages name the field by its key (see validation.ts); `.describe()` carries the human label
// that the OpenAPI document and the MCP tool schemas show. Each scenario's params schema is in its
// spec (src/scenarios/), built from the fields in scenarios/fields.ts like the profile's here.

export { earliestBookableDate } from '../scenarios/fields.ts';
export { activityParams } from '../scenarios/activity.ts';
export { CABIN_CLASSES, flightParams } from '../scenarios/flight.ts';
export { hotelParams } from '../scenarios/hotel.ts';
export { restaurantParams } from '../scenarios/restaurant.ts';

/** A client's own identifier, kept as sent. */
const identifier = (what: string, { required = false } = {}) => (required ? z.string().min(1) : z.string()).max(200).refine(isStorable, STORABLE).describe(what);

/** Each scenario's params schema, from its spec (src/scenarios/). */
export const paramsByScenario = Object.fromEntries(SCENARIOS.map((s) => [s, SCENARIO_SPECS[s].params])) as { [S in Scenario]: (typeof SCENARIO_SPECS)[S]['params'] };

export type ScenarioParams = { [S in Scenario]: z.infer<(typeof paramsByScenario)[S]> };

/** One person's details. The lead traveller (the profile) gives every contact field; the others may leave email and phone to the lead. */
const personShape = {
  first_name: text('First name', 100),
  last_name: text('Last name', 100),
  email: z.email(says('must be a valid email address')).max(254, says('must be at most 254 characters long')).describe('Email address'),
  phone: z.string().regex(/^\+?[0-9][0-9 ().-]{5,22}$/, says('must be a phone number, e.g. +44 20 7946 0958')).describe('Phone number, international format preferred'),
  dob: calendarDate('Date of birth').refine((v) => !isCalendarDate(v) || v < new Date().toISOString().slice(0, 10), says('must be in the past')).optional(),
  passport_number: z.string().regex(/^[A-Za-z0-9]{5,20}$/, says('must be 5 to 20 letters and digits')).describe('Passport number (flights)').optional(),
  passport_country: z.string().regex(/^[A-Za-z]{2,3}$/, says('must be an ISO 3166 country code, e.g. GB')).transform((v) => v.toUpperCase()).describe('Passport issuing country, ISO 3166 code (flights)').optional(),
  known_traveler_number: text('Known traveler number', 40).optional(),
};

/** A traveller after the lead: the lead's fields, with email and phone optional (the lead is the contact). */
export const additionalTravellerSchema = z
  .object({ ...personShape, email: personShape.email.optional(), phone: personShape.phone.optional() })
  .strict()
  .describe('Another traveller: the same fields as the lead (email and phone optional; the lead is the contact)');

export const MAX_ADDITIONAL_TRAVELLERS = 8;

export const profileSchema = z
  .object({
    ...personShape,
    additional_travellers: z
      .array(additionalTravellerSchema)
      .max(MAX_ADDITIONAL_TRAVELLERS, says(`must have at most ${MAX_ADDITIONAL_TRAVELLERS} items`))
      .optional()
      .describe('The other people travelling (an extension of the contract): a flight for n passengers names n − 1 of them here, each with passport details'),
  })
  .strict();
export type Profile = z.infer<typeof profileSchema>;

export const FLIGHT_PROFILE_FIELDS = ['dob', 'passport_number', 'passport_country'] as const;

export const consentSchema = z
  .object({
    allowTimeAdjustment: z.boolean().default(true).describe('Allow time shifts when the exact time is not bookable'),
    maxTimeAdjustmentMinutes: z.number().int().min(0).max(720).default(90).describe('Upper bound for time shifts, minutes'),
    allowVenueSwitch: z.boolean().default(true).describe('Allow switching to an alternate venue'),
    maxRetries: z.number().int().min(0).max(10).default(3).describe('Retries for transient errors'),
    paymentPolicy: z
      .literal('stop_before_cvc', { error: 'paymentPolicy must be "stop_before_cvc": the service always stops before the card security code' })
     .default('stop_before_cvc').describe('Always stops before card entry'),
    allowedProviders: z.array(text('Provider id', 64)).max(32).nullable().default(null).describe('If set, only these provider ids are used'),
    blockedProviders: z.array(text('Provider id', 64)).max(32).default([]).describe('Provider ids skipped in the fallback chain'),
    maxJobDurationSeconds: z.number().int().min(30).max(3600).default(420).describe('Soft cap on total execution time, seconds: once it passes, the step under way finishes (a hold it reaches is kept) and no new step, retry or provider starts; a run stuck in a step is stopped at twice the cap'),
  })
  .strict();
export type Consent = z.infer<typeof consentSchema>;

export const clientMetadataSchema = z
  .object({
    agentId: identifier('Your agent, for your own correlation').optional(),
    userId: identifier('Your end user, for your own correlation').optional(),
    sessionId: identifier('Your session, for your own correlation').optional(),
    idempotencyKey: identifier('Retry safety: the same key returns the same job', { required: true }).optional(),
  })
  .strict();
export type ClientMetadata = z.infer<typeof clientMetadataSchema>;

export const executionJobRequestSchema = z
  .object({
    request: z.object({ scenario: z.enum(SCENARIOS), params: z.record(z.string(), z.unknown()) }).strict(),
    profile: profileSchema.optional().describe('The traveller, inline (one of profile and profileId)'),
    profileId: z.number().int().positive().optional().describe('A stored profile of your organisation (one of profile and profileId)'),
    consent: consentSchema.optional().describe('What the service may decide on its own; every field has a default'),
    clientMetadata: clientMetadataSchema.optional().describe('Your own identifiers, all strings'),
  })
  .strict();

/** A booking request after validation: params parsed for their scenario, defaults applied. */
export interface BookingRequest {
  scenario: Scenario;
  params: Record<string, unknown>;
  profile?: Profile;
  profileId?: number;
  consent: Consent;
  clientMetadata: ClientMetadata;
}

/**
 * What a profile lacks for this booking. Flights need every traveller's identity documents and one
 * traveller per passenger (the lead and `additional_travellers`): a mismatch is the client's to fix
 * now, not an error after browsing. Elsewhere the booking is in the lead's name, and more travellers
 * than people booked for is a contradiction.
 */
export function profileIssues(scenario: Scenario, params: Record<string, unknown> | undefined, profile: Record<string, unknown> | undefined, prefix: string, { stored = false } = {}): Issue[] {
  if (!profile) return [];
  const others = Array.isArray(profile.additional_travellers) ? (profile.additional_travellers as unknown[]) : [];
  const issues: Issue[] = [];
  // A stored profile is not in the request: its gaps are told as the stored profile's.
  const each = SCENARIO_SPECS[scenario].travellers === 'each';
  const required = (field: string, within = '') => ({ path: `${prefix}.${within.replace(/\[(\d+)\]/g, '.$1')}${field}`, message: stored ? `stored profile lacks ${within}${field}, required for ${scenario}s` : `${field} is required for ${scenario}s` });
  if (each) {
    issues.push(...FLIGHT_PROFILE_FIELDS.filter((f) => profile[f] === undefined).map((f) => required(f)));
    others.forEach((t, i) => {
      if (typeof t !== 'object' || t === null) return;
      for (const f of FLIGHT_PROFILE_FIELDS) if ((t as Record<string, unknown>)[f] === undefined) issues.push(required(f, `additional_travellers[${i}].`));
    });
  }
  const people = params ? headcountOf(searchRequestOf(scenario, params)) : undefined;
  if (people === undefined) return issues;
  const described = 1 + others.length;
  if (each && described !== people) {
    issues.push({
      path: 'request.params.passengers',
      message: `passengers is ${people} but the profile describes ${described} traveller${described === 1 ? '' : 's'} (the lead and ${others.length} in additional_travellers): give one entry in additional_travellers for each passenger after the lead`,
    });
  } else if (!each && described > people) {
    issues.push({ path: `${prefix}.additional_travellers`, message: `additional_travellers names ${others.length} ${others.length === 1 ? 'person' : 'people'}, but the booking is for ${people} including the lead` });
  }
  return issues;
}

/** Validates an ExecutionJobRequest, reporting every problem at once. */
export function parseExecutionJobRequest(body: unknown): { ok: true; value: BookingRequest } | { ok: false; issues: Issue[] } {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) {
    const got = body === undefined ? 'is missing' : `must be a JSON object, not ${body === null ? 'null' : Array.isArray(body) ? 'a list' : `a ${typeof body}`}`;
    return { ok: false, issues: [{ path: '(body)', message: `the request body ${got}` }] };
  }
  const top = executionJobRequestSchema.safeParse(body, { error: errorMap });
  const issues: Issue[] = top.success ? [] : toIssues(top.error);
  const raw = body as Record<string, unknown>;
  const request = raw.request as { scenario?: unknown; params?: unknown } | undefined;
  const scenario = SCENARIOS.find((s) => s === request?.scenario);
  let params: Record<string, unknown> | undefined;
  if (scenario && request && typeof request.params === 'object' && request.params !== null && !Array.isArray(request.params)) {
    const parsed = paramsByScenario[scenario].safeParse(request.params, { error: errorMap });
    if (parsed.success) params = parsed.data;
    else issues.push(...toIssues(parsed.error, ['request', 'params']));
  }
  const hasProfile = raw.profile !== undefined;
  const hasProfileId = raw.profileId !== undefined;
  if (hasProfile && hasProfileId) issues.push({ path: 'profile', message: 'give exactly one of profile and profileId, not both' });
  if (!hasProfile && !hasProfileId) issues.push({ path: 'profile', message: 'profile or profileId is required' });
  if (scenario && hasProfile && typeof raw.profile === 'object' && raw.profile !== null) {
    issues.push(...profileIssues(scenario, params, raw.profile as Record<string, unknown>, 'profile'));
  }
  if (issues.length > 0 || !top.success || !scenario || !params) return { ok: false, issues: dedupe(issues) };
  return {
    ok: true,
    value: {
      scenario,
      params,
      profile: top.data.profile,
      profileId: top.data.profileId,
      consent: top.data.consent ?? consentSchema.parse({}),
      clientMetadata: top.data.clientMetadata ?? {},
    },
  };
}

function dedupe(issues: Issue[]): Issue[] {
  const seen = new Set<string>();
  return issues.filter((i) => {
    const key = `${i.path}\u0000${i.message}`;
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}

export function parseProfile(body: unknown): { ok: true; value: Profile } | { ok: false; issues: Issue[] } {
  const parsed = profileSchema.safeParse(body, { error: errorMap });
  return parsed.success ? { ok: true, value: parsed.data } : { ok: false, issues: toIssues(parsed.error) };
}
