import { sql, type Kysely } from 'kysely';
import type { DB } from '../db/schema.ts';
import { isStorable } from '../security/text.ts';
import type { QueryRange } from './clamp.ts';

// Provider metrics are computed from the audit log. The executor ends every provider attempt with
// an event carrying `providerOutcome` (and the provider id):
//   accepted        - the provider held the booking (paused_payment) or confirmed it (completed);
//   failed          - the attempt ended without a booking (no availability, login wall, CAPTCHA,
//                     outage, broken page, exhausted retries); the chain moved on or gave up;
//   manual_override - a held booking that the person cancelled or let expire at the handoff.
// totalAttempts = accepted + failed; successRate = accepted / totalAttempts (0 when no attempts).
// Manual overrides are counted apart: they follow an accepted attempt, they are not attempts.
export interface ProviderMetrics {
  providerId: string;
  successRate: number;
  totalAttempts: number;
  acceptedCount: number;
  manualOverrideCount: number;
  failedCount: number;
  lastEventAt: string | null;
  timeRangeDays: number;
}

/** `timeRangeDays`: a month by default, at most a year. */
export const METRICS_DAYS_DEFAULT = 30;
export const METRICS_DAYS_MAX = 365;
export const METRICS_DAYS: QueryRange = { default: METRICS_DAYS_DEFAULT, min: 1, max: METRICS_DAYS_MAX };

export async function getProviderMetrics(db: Kysely<DB>, providerId: string, timeRangeDays: number): Promise<ProviderMetrics> {
  // No provider id holds what PostgreSQL text cannot, so no event matches one: nothing to count.
  const row = isStorable(providerId) ? await countOutcomes(db, providerId, timeRangeDays) : { accepted: 0, failed: 0, overrides: 0, last: null };
  const total = row.accepted + row.failed;
  return {
    providerId,
    successRate: total === 0 ? 0 : row.accepted / total,
    totalAttempts: total,
    acceptedCount: row.accepted,
    manualOverrideCount: row.overrides,
    failedCount: row.failed,
    lastEventAt: row.last ? new Date(row.last).toISOString() : null,
    timeRangeDays,
  };
}

function countOutcomes(db: Kysely<DB>, providerId: string, timeRangeDays: number) {
  return db
    .selectFrom('audit_events')
    .select([
      sql<number>`count(*) filter (where data->>'providerOutcome' = 'accepted')::int`.as('accepted'),
      sql<number>`count(*) filter (where data->>'providerOutcome' = 'failed')::int`.as('failed'),
      sql<number>`count(*) filter (where data->>'providerOutcome' = 'manual_override')::int`.as('overrides'),
      sql<Date | null>`max(created_at)`.as('last'),
    ])
    .where('provider_id', '=', providerId)
    .where('created_at', '>=', sql<Date>`now() - make_interval(days => ${timeRangeDays})`)
    .where(sql<boolean>`data ? 'providerOutcome'`)
    .executeTakeFirstOrThrow();
}
