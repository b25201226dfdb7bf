import { sql, type Kysely, type Transaction } from 'kysely';
import type { DB } from '../db/schema.ts';
import type { JobStatus } from './types.ts';
import { jobRowIn } from './rows.ts';

// The job events webhooks carry, recorded in the very transaction that changes the job's status
// (transition.ts): a status change is never committed without its deliveries, or the reverse.
// One delivery row per enabled endpoint of the job's organisation; another part of the service
// (webhooks/deliver.ts) gives each its pg-boss entry and sends it.

/** The statuses that make an event: the pause for payment and every final status. */
const EVENT_OF: Partial<Record<JobStatus, string>> = {
  paused_payment: 'job.paused_payment',
  completed: 'job.completed',
  no_availability: 'job.no_availability',
  needs_login: 'job.needs_login',
  captcha: 'job.captcha',
  error: 'job.error',
};

/** What a delivery says about the job: the job as it was when its status changed. */
export interface JobEvent {
  jobId: string;
  status: JobStatus;
  scenario: string;
  summary: string;
  confirmationCode?: string;
  error?: Record<string, unknown>;
  /** The end of the hold, for paused_payment (and the receipt link of a held booking that ended). */
  holdExpiresAt?: string;
  updatedAt: string;
  completedAt: string | null;
  clientMetadata: Record<string, unknown>;
  /** A held booking recorded as ended (error) that the provider confirmed afterwards. */
  late?: true;
}

/**
 * Records the webhook deliveries of a status change, in the caller's transaction (the job row is
 * locked by it). Jobs of no organisation (created through OAuth) have no endpoints.
 */
export async function recordWebhookEvents(trx: Transaction<DB> | Kysely<DB>, jobId: string, options: { late?: boolean } = {}): Promise<number> {
  const job = await jobRowIn(trx, jobId);
  const type = job ? EVENT_OF[job.status as JobStatus] : undefined;
  if (!job || !type || job.organization_name === null) return 0;
  const event: JobEvent = {
    jobId: job.id,
    status: job.status as JobStatus,
    scenario: job.scenario,
    summary: job.summary,
    ...(job.confirmation_code ? { confirmationCode: job.confirmation_code } : {}),
    ...(job.status === 'error' ? { error: job.error ?? { reason: 'unknown' } } : {}),
    ...(job.hold_expires_at ? { holdExpiresAt: job.hold_expires_at.toISOString() } : {}),
    updatedAt: job.updated_at.toISOString(),
    completedAt: job.completed_at?.toISOString() ?? null,
    clientMetadata: job.client_metadata,
    ...(options.late ? { late: true as const } : {}),
  };
  const inserted = await trx
    .insertInto('webhook_deliveries')
    .columns(['id', 'endpoint_id', 'job_id', 'event_type', 'event'])
    .expression((eb) =>
      eb
        .selectFrom('webhook_endpoints')
        .select([
          sql<string>`'msg_' || replace(gen_random_uuid()::text, '-', '')`.as('id'),
          'id as endpoint_id',
          sql<string>`${jobId}::uuid`.as('job_id'),
          sql<string>`${type}`.as('event_type'),
          sql<string>`${JSON.stringify(event)}::jsonb`.as('event'),
        ])
        .where('organization_name', '=', job.organization_name!)
        .where('deleted_at', 'is', null)
        .where('disabled_at', 'is', null),
    )
    .executeTakeFirst();
  return Number(inserted.numInsertedOrUpdatedRows ?? 0);
}
