// What of a job is the traveller's personal data, and the job's texts without it. Pure functions;
// jobs/retention.ts applies them to the job row, its audit events and its webhook deliveries.
//
// Personal: the inline profile (a copy of a stored one, too) whole; wherever the job quotes the
// traveller (a provider's review page may show the guest's name, and it reaches the summary, the
// audit events and the webhook events), the profile's values; the card on file a provider showed
// (the payer's card, e.g. "Visa •••• 4242"); the one free-text wish about the person rather than
// the booking (`room_preference`); and the client's identifiers of its end user (`clientMetadata`
// `userId` and `sessionId`). Kept: what was booked (venue, city, dates, party size), the outcome, the
// provider's confirmation code (the booking's reference, naming nobody), the consent, the client's
// `agentId` and `idempotencyKey` (a replay still answers with the same job).

/** What an erased value reads as. */
export const ERASED = '[erased]';

/**
 * Profile fields distinctive enough to be found and erased wherever the job quotes them (a country
 * code is not). Names are looked for as the sites were given them, first and last apart: splitting
 * them further would erase particles ("de", "van") from venue names too.
 */
const QUOTED_FIELDS = ['first_name', 'last_name', 'email', 'phone', 'dob', 'passport_number', 'known_traveler_number'] as const;
/** Shorter values would erase ordinary words ("A worker took the job"). */
const MIN_LENGTH = 2;

/** Request params that describe the person's wishes, not what is booked. */
export const PERSONAL_PARAMS = ['room_preference'] as const;
/** clientMetadata fields that identify the client's end user. */
export const PERSONAL_CLIENT_METADATA = ['userId', 'sessionId'] as const;

/** The traveller's values to look for in the job's texts: the profile's, and `extra` (the cards on file shown). */
export function personalValues(profile: Record<string, unknown>, extra: readonly unknown[] = []): string[] {
  const values = new Set<string>();
  const add = (value: unknown) => {
    if (typeof value === 'string' && value.trim().length >= MIN_LENGTH) values.add(value.trim());
  };
  // The lead and every other traveller of the profile (additional_travellers) alike.
  const people = [profile, ...(Array.isArray(profile.additional_travellers) ? profile.additional_travellers : [])].filter((p): p is Record<string, unknown> => typeof p === 'object' && p !== null);
  for (const person of people) {
    for (const field of QUOTED_FIELDS) add(person[field]);
    // A site may echo a phone number without its spaces and brackets ("+442079460958").
    if (typeof person.phone === 'string') {
      const compact = person.phone.replace(/[^+\d]/g, '');
      add(compact);
      add(compact.replace(/^\+/, ''));
    }
  }
  extra.forEach(add);
  // Longest first: "Ada Lovelace" goes whole before "Ada" could leave "[erased] Lovelace" half-read.
  return [...values].sort((a, b) => b.length - a.length);
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

/**
 * A function that returns a JSON value with every occurrence of `values` in its strings replaced by
 * ERASED (whole words only, ignoring case; object keys are left alone). Erring on the side of
 * erasing: a traveller named King also takes the word from "King Room".
 */
export function scrubber(values: readonly string[]): <T>(value: T) => T {
  if (values.length === 0) return (value) => value;
  // Not inside a longer word or number: "Ada" is not erased from "Adagio", nor a phone's digits from a longer number.
  const pattern = new RegExp(`(?<![\\p{L}\\p{N}])(?:${values.map(escapeRegExp).join('|')})(?![\\p{L}\\p{N}])`, 'giu');
  const scrub = (value: unknown): unknown => {
    if (typeof value === 'string') return value.replace(pattern, ERASED);
    if (Array.isArray(value)) return value.map(scrub);
    if (value !== null && typeof value === 'object') return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, scrub(v)]));
    return value;
  };
  return <T>(value: T) => scrub(value) as T;
}

/** `record` without `fields`. */
export function without(record: Record<string, unknown>, fields: readonly string[]): Record<string, unknown> {
  return Object.fromEntries(Object.entries(record).filter(([k]) => !fields.includes(k)));
}

/** The card on file a held booking showed (recorded as `held.cardOnFile` on an audit event's data), or undefined. */
export function cardOnFileOf(data: Record<string, unknown>): string | undefined {
  const held = data.held as { cardOnFile?: unknown } | null | undefined;
  return typeof held?.cardOnFile === 'string' ? held.cardOnFile : undefined;
}

/** An audit event's data without the card on file (the rest of what was held stays). */
export function withoutCardOnFile(data: Record<string, unknown>): Record<string, unknown> {
  const held = data.held;
  if (held === null || typeof held !== 'object' || Array.isArray(held) || !('cardOnFile' in held)) return data;
  return { ...data, held: { ...held, cardOnFile: null } };
}
