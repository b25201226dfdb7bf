import type { Kysely } from 'kysely';
import { runStatements } from './run-sql.ts';

// The core of the service: API keys, stored traveller profiles, booking jobs and their audit log.
export async function up(db: Kysely<unknown>): Promise<void> {
  await runStatements(db, `
    create table api_keys (
      id bigserial primary key,
      prefix text not null,
      key_hash text not null unique,
      mode text not null check (mode in ('live', 'test')),
      organization_name text not null,
      allowed_job_types text[] not null,
      daily_limit integer,
      created_at timestamptz not null default now(),
      last_used_at timestamptz,
      revoked_at timestamptz
    );
    create table profiles (
      id bigserial primary key,
      organization_name text not null,
      data jsonb not null,
      created_at timestamptz not null default now()
    );
    create index profiles_org on profiles (organization_name, id);
    create table jobs (
      id uuid primary key,
      scenario text not null,
      status text not null,
      owner_key text not null,
      organization_name text,
      api_key_id bigint references api_keys (id),
      owner_user_id bigint,
      oauth_client_id text,
      params jsonb not null,
      profile jsonb not null,
      profile_id bigint,
      consent jsonb not null,
      client_metadata jsonb not null default '{}',
      idempotency_key text,
      request_hash text not null,
      summary text not null default '',
      attempt_count integer not null default 0,
      used_fallback boolean not null default false,
      provider_id text,
      confirmation_code text,
      error jsonb,
      handoff_token_hash text unique,
      hold_expires_at timestamptz,
      created_at timestamptz not null default now(),
      updated_at timestamptz not null default now(),
      started_at timestamptz,
      completed_at timestamptz
    );
    create unique index jobs_idempotency on jobs (owner_key, idempotency_key) where idempotency_key is not null;
    create index jobs_owner on jobs (owner_key, created_at desc);
    create index jobs_status on jobs (status);
    create table audit_events (
      id bigserial primary key,
      job_id uuid not null references jobs (id) on delete cascade,
      step_index integer not null,
      type text not null,
      message text not null,
      provider_id text,
      data jsonb not null default '{}',
      created_at timestamptz not null default now(),
      unique (job_id, step_index)
    );
    create index audit_events_provider on audit_events (provider_id, created_at) where provider_id is not null;
  `);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await runStatements(db, 'drop table audit_events; drop table jobs; drop table profiles; drop table api_keys;');
}
