import type { Kysely } from 'kysely';
import { runStatements } from './run-sql.ts';

// Webhooks (src/webhooks). An organisation's endpoints, each with its Standard Webhooks signing secret
// kept encrypted (AES-256-GCM under a key derived from SECRET_KEY: the service must sign with it, so a
// hash would not do), and the previous secret during a rotation's overlap. One delivery per endpoint
// and job event: its id is the `webhook-id` a receiver dedupes on (stable across retries), the event
// as it was when the status changed, and the last attempt's outcome for the delivery log.
// queued_at: the delivery has its pg-boss entry (written by the process that moves new deliveries to
// the queue; a delivery is recorded in the job's own transaction, where there is no queue client).
export async function up(db: Kysely<unknown>): Promise<void> {
  await runStatements(db, `
    create table webhook_endpoints (
      id uuid primary key,
      organization_name text not null,
      url text not null,
      secret_ciphertext text not null,
      previous_secret_ciphertext text,
      previous_secret_expires_at timestamptz,
      secret_rotated_at timestamptz,
      created_at timestamptz not null default now(),
      failing_since timestamptz,
      disabled_at timestamptz,
      disabled_reason text,
      deleted_at timestamptz
    );
    create index webhook_endpoints_organization on webhook_endpoints (organization_name) where deleted_at is null;
    create table webhook_deliveries (
      id text primary key,
      endpoint_id uuid not null references webhook_endpoints (id) on delete cascade,
      job_id uuid references jobs (id) on delete set null,
      event_type text not null,
      event jsonb not null,
      status text not null default 'pending',
      attempts integer not null default 0,
      created_at timestamptz not null default clock_timestamp(),
      queued_at timestamptz,
      next_attempt_at timestamptz,
      last_attempt_at timestamptz,
      last_response_code integer,
      last_latency_ms integer,
      last_error text,
      delivered_at timestamptz
    );
    create index webhook_deliveries_endpoint on webhook_deliveries (endpoint_id, created_at desc);
    create index webhook_deliveries_unqueued on webhook_deliveries (created_at) where queued_at is null;
  `);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await runStatements(db, 'drop table webhook_deliveries; drop table webhook_endpoints;');
}
