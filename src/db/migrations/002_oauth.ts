import type { Kysely } from 'kysely';
import { runStatements } from './run-sql.ts';

// People who sign in (keyed by their identity provider's issuer and subject), their web sessions,
// and the OAuth 2.0 authorization server's state. Every code, token, secret and session id is
// stored as a SHA-256 hex digest only: a dump of these tables holds nothing usable.
export async function up(db: Kysely<unknown>): Promise<void> {
  await runStatements(db, `
    create table users (
      id bigserial primary key,
      issuer text not null,
      subject text not null,
      email text,
      name text,
      created_at timestamptz not null default now(),
      last_sign_in_at timestamptz,
      unique (issuer, subject)
    );
    create table web_sessions (
      id_hash text primary key,
      user_id bigint not null references users (id) on delete cascade,
      created_at timestamptz not null default now(),
      expires_at timestamptz not null
    );
    create index web_sessions_expiry on web_sessions (expires_at);
    create table oauth_clients (
      client_id text primary key,
      secret_hash text,
      token_endpoint_auth_method text not null check (token_endpoint_auth_method in ('client_secret_basic', 'client_secret_post', 'none')),
      redirect_uris text[] not null,
      client_name text,
      client_uri text,
      scope text not null,
      grant_types text[] not null,
      response_types text[] not null,
      registration text not null check (registration in ('dynamic', 'operator')),
      created_at timestamptz not null default now(),
      secret_rotated_at timestamptz,
      first_authorized_at timestamptz,
      check ((secret_hash is null) = (token_endpoint_auth_method = 'none'))
    );
    create index oauth_clients_unused on oauth_clients (created_at) where registration = 'dynamic' and first_authorized_at is null;
    create table oauth_authorization_requests (
      id_hash text primary key,
      client_id text not null references oauth_clients (client_id) on delete cascade,
      redirect_uri text not null,
      scope text not null,
      state text,
      code_challenge text not null,
      resource text not null,
      created_at timestamptz not null default now(),
      expires_at timestamptz not null,
      decided_at timestamptz
    );
    create index oauth_authorization_requests_expiry on oauth_authorization_requests (expires_at);
    create table oauth_grants (
      id bigserial primary key,
      user_id bigint not null references users (id) on delete cascade,
      client_id text not null references oauth_clients (client_id) on delete cascade,
      scope text not null,
      created_at timestamptz not null default now(),
      last_used_at timestamptz,
      revoked_at timestamptz
    );
    create unique index oauth_grants_active on oauth_grants (user_id, client_id) where revoked_at is null;
    create table oauth_codes (
      code_hash text primary key,
      grant_id bigint not null references oauth_grants (id) on delete cascade,
      client_id text not null,
      redirect_uri text not null,
      code_challenge text not null,
      scope text not null,
      resource text not null,
      created_at timestamptz not null default now(),
      expires_at timestamptz not null,
      redeemed_at timestamptz,
      family_id uuid
    );
    create index oauth_codes_expiry on oauth_codes (expires_at);
    create table oauth_token_families (
      id uuid primary key,
      grant_id bigint not null references oauth_grants (id) on delete cascade,
      client_id text not null,
      resource text not null,
      created_at timestamptz not null default now(),
      revoked_at timestamptz
    );
    create index oauth_token_families_grant on oauth_token_families (grant_id);
    create table oauth_access_tokens (
      token_hash text primary key,
      family_id uuid not null references oauth_token_families (id) on delete cascade,
      scope text not null,
      created_at timestamptz not null default now(),
      expires_at timestamptz not null,
      revoked_at timestamptz
    );
    create index oauth_access_tokens_family on oauth_access_tokens (family_id);
    create index oauth_access_tokens_expiry on oauth_access_tokens (expires_at);
    create table oauth_refresh_tokens (
      token_hash text primary key,
      family_id uuid not null references oauth_token_families (id) on delete cascade,
      scope text not null,
      created_at timestamptz not null default now(),
      expires_at timestamptz not null,
      rotated_at timestamptz,
      revoked_at timestamptz
    );
    create index oauth_refresh_tokens_family on oauth_refresh_tokens (family_id);
    create index oauth_refresh_tokens_expiry on oauth_refresh_tokens (expires_at);
  `);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await runStatements(db, `
    drop table oauth_refresh_tokens; drop table oauth_access_tokens; drop table oauth_token_families;
    drop table oauth_codes; drop table oauth_grants; drop table oauth_authorization_requests;
    drop table oauth_clients; drop table web_sessions; drop table users;
  `);
}
