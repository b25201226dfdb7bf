import { z } from 'zod';
import { says } from './validation.ts';
import { isStorable } from '../security/text.ts';

// The fields requests are made of, for the scenarios' params and the profile (jobs/schemas.ts).
// Messages name the field by its key (see validation.ts); `.describe()` carries the human label
// that the OpenAPI document and the MCP tool schemas show.

const DATE = /^\d{4}-\d{2}-\d{2}$/;
const TIME = /^([01]\d|2[0-3]):[0-5]\d$/;

export function isCalendarDate(value: string): boolean {
  if (!DATE.test(value)) return false;
  const d = new Date(`${value}T00:00:00Z`);
  return !Number.isNaN(d.getTime()) && d.toISOString().slice(0, 10) === value;
}

/** The earliest date that is still today somewhere on Earth (UTC−12): anything before is past. */
export function earliestBookableDate(now: Date = new Date()): string {
  return new Date(now.getTime() - 12 * 3600_000).toISOString().slice(0, 10);
}

export const calendarDate = (what: string) =>
  z
    .string()
    .regex(DATE, says('must be a date as YYYY-MM-DD'))
    // Each check reports only its own problem: a value that is not YYYY-MM-DD gets one message.
    .refine((v) => !DATE.test(v) || isCalendarDate(v), says('is not a real calendar date'))
    // `format` reaches the generated JSON Schemas (MCP tools, OpenAPI) beside the pattern.
    .meta({ description: `${what}, YYYY-MM-DD`, format: 'date' });

export const futureDate = (what: string) => calendarDate(what).refine((v) => !isCalendarDate(v) || v >= earliestBookableDate(), says('is in the past'));

/**
 * PostgreSQL stores neither U+0000 nor an unpaired UTF-16 surrogate (in text or in jsonb): free text
 * carrying one is refused here, as the client's mistake, rather than failing the write later as a
 * 500 that a retry can never cure. The fields with a pattern cannot carry either.
 */
export const STORABLE = says('must not contain the character U+0000 or an unpaired UTF-16 surrogate');

export const time24 = (what: string) => z.string().regex(TIME, says('must be a 24-hour time as HH:MM')).describe(`${what}, HH:MM (24 h)`);
export const count = (what: string, max: number) =>
  z.number().int(says('must be a whole number')).min(1, says('must be at least 1')).max(max, says(`must be at most ${max}`)).describe(`${what} (1 to ${max})`);
export const text = (what: string, max = 200) =>
  z.string().trim().min(1, says('must not be empty')).max(max, says(`must be at most ${max} characters long`)).refine(isStorable, STORABLE).describe(what);
export const money = (what: string) =>
  z.number().positive(says('must be greater than 0')).max(1_000_000, says('must be at most 1000000')).describe(`${what}, in the provider's currency`);
export const airport = (what: string) =>
  z
    .string()
    .regex(/^[A-Za-z]{3}$/, says('must be a three-letter IATA airport code, e.g. LHR'))
    .transform((v) => v.toUpperCase())
    .describe(`${what}: three-letter IATA airport code, e.g. LHR`);

/**
 * A cross-field rule runs when the fields it compares are valid, even if others are not, so that a
 * client learns about every problem in one reply.
 */
export const fieldsValid =
  (...keys: string[]) =>
  (payload: z.core.ParsePayload): boolean =>
    typeof payload.value === 'object' &&
    payload.value !== null &&
    !payload.issues.some((i) => i.path === undefined || i.path.length === 0 || keys.includes(String(i.path[0])));

// Reading stored params, which were validated at creation: these only reshape.

/** A non-empty string, trimmed; otherwise undefined. */
export const str = (v: unknown): string | undefined => (typeof v === 'string' && v.trim() !== '' ? v.trim() : undefined);
/** A finite number; otherwise undefined. */
export const num = (v: unknown): number | undefined => (typeof v === 'number' && Number.isFinite(v) ? v : undefined);
/** A value as the person reads it: a non-empty string trimmed, a finite number in digits; otherwise null. */
export function shown(value: unknown): string | null {
  if (typeof value === 'string' && value.trim() !== '') return value.trim();
  if (typeof value === 'number' && Number.isFinite(value)) return String(value);
  return null;
}
/** "2 people", "1 adult": null when there is no count to show. */
export function plural(n: unknown, one: string, many: string): string | null {
  const s = shown(n);
  return s === null ? null : `${s} ${s === '1' ? one : many}`;
}
