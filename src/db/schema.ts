import type { ColumnType, Generated, JSONColumnType } from 'kysely';

// Table types for Kysely. One interface per table; columns in snake_case as in SQL.
type Timestamp = ColumnType<Date, Date | string | undefined, Date | string>;
type NullableTimestamp = ColumnType<Date | null, Date | string | null | undefined, Date | string | null>;

export interface ApiKeysTable {
  id: Generated<number>;
  prefix: string;
  key_hash: string;
  mode: 'live' | 'test';
  organization_name: string;
  allowed_job_types: string[];
  daily_limit: number | null;
  created_at: Generated<Date>;
  last_used_at: NullableTimestamp;
  revoked_at: NullableTimestamp;
}

export interface ProfilesTable {
  id: Generated<number>;
  organization_name: string;
  data: JSONColumnType<Record<string, unknown>>;
  created_at: Generated<Date>;
}

export interface JobsTable {
  id: string;
  scenario: string;
  status: string;
  owner_key: string;
  organization_name: string | null;
  api_key_id: number | null;
  owner_user_id: number | null;
  oauth_client_id: string | null;
  params: JSONColumnType<Record<string, unknown>>;
  profile: JSONColumnType<Record<string, unknown>>;
  profile_id: number | null;
  consent: JSONColumnType<Record<string, unknown>>;
  client_metadata: JSONColumnType<Record<string, unknown>>;
  idempotency_key: string | null;
  request_hash: string;
  summary: Generated<string>;
  attempt_count: Generated<number>;
  used_fallback: Generated<boolean>;
  provider_id: string | null;
  confirmation_code: string | null;
  error: ColumnType<Record<string, unknown> | null, string | null | undefined, string | null>;
  handoff_token_hash: string | null;
  hold_expires_at: NullableTimestamp;
  created_at: Generated<Date>;
  updated_at: Generated<Date>;
  started_at: NullableTimestamp;
  completed_at: NullableTimestamp;
  /** The executor run allowed to write to this job (fencing; see migrations/003_executor.ts). */
  run_id: string | null;
  /** The process holding a paused booking's browser session, and when it last confirmed it. */
  hold_instance: string | null;
  hold_seen_at: NullableTimestamp;
  /** The person submitted a payment from the held tab (an ending without the provider's confirmation is uncertain). */
  payment_submitted_at: NullableTimestamp;
  /** The mode of the credential that created the job: the chain keeps providers of this mode (null: created before modes). */
  mode: 'live' | 'test' | null;
  /** The node running the job (its `sessionUrl` watch view is relayed there; see src/cluster/nodes.ts). */
  run_instance: string | null;
  /** When the traveller's personal data was erased from the job (jobs/retention.ts); null: still kept. */
  personal_data_erased_at: NullableTimestamp;
}

/** A registered provider (src/providers/registry.ts); the built-in sandbox ones stay in code. */
export interface ProvidersTable {
  id: string;
  name: string;
  scenario: string;
  start_url: string;
  /** 'generic' or a built-in driver id. */
  driver: string;
  priority: number;
  mode: 'live' | 'test';
  created_at: Generated<Date>;
}

/** A process holding browser sessions, and the internal address other nodes reach it at (src/cluster/nodes.ts). */
export interface NodesTable {
  id: string;
  internal_url: string;
  role: string;
  draining: Generated<boolean>;
  started_at: Generated<Date>;
  heartbeat_at: Generated<Date>;
}

export interface AuditEventsTable {
  id: Generated<number>;
  job_id: string;
  step_index: number;
  type: string;
  message: string;
  provider_id: string | null;
  data: ColumnType<Record<string, unknown>, string | undefined, string>;
  created_at: Timestamp;
}

export interface UsersTable {
  id: Generated<number>;
  issuer: string;
  subject: string;
  email: string | null;
  name: string | null;
  created_at: Generated<Date>;
  last_sign_in_at: NullableTimestamp;
}

export interface WebSessionsTable {
  id_hash: string;
  user_id: number;
  created_at: Generated<Date>;
  expires_at: Timestamp;
}

export interface OAuthClientsTable {
  client_id: string;
  secret_hash: string | null;
  token_endpoint_auth_method: 'client_secret_basic' | 'client_secret_post' | 'none';
  redirect_uris: string[];
  client_name: string | null;
  client_uri: string | null;
  scope: string;
  grant_types: string[];
  response_types: string[];
  /** metadata_document: the client_id is the URL of its Client ID Metadata Document (oauth/client-documents.ts). */
  registration: 'dynamic' | 'operator' | 'metadata_document';
  created_at: Generated<Date>;
  secret_rotated_at: NullableTimestamp;
  first_authorized_at: NullableTimestamp;
  /** A metadata document client: until when the fetched document may be used (its HTTP caching lifetime). */
  metadata_expires_at: NullableTimestamp;
}

export interface OAuthAuthorizationRequestsTable {
  id_hash: string;
  client_id: string;
  redirect_uri: string;
  scope: string;
  state: string | null;
  code_challenge: string;
  resource: string;
  created_at: Generated<Date>;
  expires_at: Timestamp;
  decided_at: NullableTimestamp;
}

export interface OAuthGrantsTable {
  id: Generated<number>;
  user_id: number;
  client_id: string;
  scope: string;
  created_at: Generated<Date>;
  last_used_at: NullableTimestamp;
  revoked_at: NullableTimestamp;
}

export interface OAuthCodesTable {
  code_hash: string;
  grant_id: number;
  client_id: string;
  redirect_uri: string;
  code_challenge: string;
  scope: string;
  resource: string;
  created_at: Generated<Date>;
  expires_at: Timestamp;
  redeemed_at: NullableTimestamp;
  family_id: string | null;
}

export interface OAuthTokenFamiliesTable {
  id: string;
  grant_id: number;
  client_id: string;
  resource: string;
  created_at: Generated<Date>;
  revoked_at: NullableTimestamp;
}

export interface OAuthAccessTokensTable {
  token_hash: string;
  family_id: string;
  scope: string;
  created_at: Generated<Date>;
  expires_at: Timestamp;
  revoked_at: NullableTimestamp;
}

export interface OAuthRefreshTokensTable {
  token_hash: string;
  family_id: string;
  scope: string;
  created_at: Generated<Date>;
  expires_at: Timestamp;
  rotated_at: NullableTimestamp;
  revoked_at: NullableTimestamp;
}

export interface SettingsTable {
  name: string;
  value: string;
  created_at: Generated<Date>;
}

/** A failed booking's last page (migration 012_evidence). */
export interface JobEvidenceTable {
  job_id: string;
  provider_id: string;
  url: string;
  screenshot: Uint8Array;
  snapshot: string;
  created_at: Generated<Date>;
}

export interface WebhookEndpointsTable {
  id: string;
  organization_name: string;
  url: string;
  /** The Standard Webhooks signing secret, encrypted (webhooks/secrets.ts): the service signs with it. */
  secret_ciphertext: string;
  /** The secret before the last rotation, still signed with until previous_secret_expires_at. */
  previous_secret_ciphertext: string | null;
  previous_secret_expires_at: NullableTimestamp;
  secret_rotated_at: NullableTimestamp;
  created_at: Generated<Date>;
  /** The first failed attempt since the last success; an endpoint failing long enough is disabled. */
  failing_since: NullableTimestamp;
  disabled_at: NullableTimestamp;
  disabled_reason: string | null;
  deleted_at: NullableTimestamp;
}

export interface WebhookDeliveriesTable {
  /** The webhook-id header (msg_…): stable across retries and replays, for the receiver's dedupe. */
  id: string;
  endpoint_id: string;
  job_id: string | null;
  event_type: string;
  event: ColumnType<Record<string, unknown>, string, string>;
  status: Generated<string>;
  attempts: Generated<number>;
  created_at: Generated<Date>;
  queued_at: NullableTimestamp;
  next_attempt_at: NullableTimestamp;
  last_attempt_at: NullableTimestamp;
  last_response_code: number | null;
  last_latency_ms: number | null;
  last_error: string | null;
  delivered_at: NullableTimestamp;
}

export interface DB {
  job_evidence: JobEvidenceTable;
  api_keys: ApiKeysTable;
  profiles: ProfilesTable;
  jobs: JobsTable;
  audit_events: AuditEventsTable;
  providers: ProvidersTable;
  users: UsersTable;
  web_sessions: WebSessionsTable;
  oauth_clients: OAuthClientsTable;
  oauth_authorization_requests: OAuthAuthorizationRequestsTable;
  oauth_grants: OAuthGrantsTable;
  oauth_codes: OAuthCodesTable;
  oauth_token_families: OAuthTokenFamiliesTable;
  oauth_access_tokens: OAuthAccessTokensTable;
  oauth_refresh_tokens: OAuthRefreshTokensTable;
  settings: SettingsTable;
  rate_limits: RateLimitsTable;
  webhook_endpoints: WebhookEndpointsTable;
  webhook_deliveries: WebhookDeliveriesTable;
  nodes: NodesTable;
  operator_audit: OperatorAuditTable;
  task_input_answers: TaskInputAnswersTable;
  node_call_signatures: NodeCallSignaturesTable;
}

/** A client's answer to one input request of an MCP task (src/mcp/tasks.ts). */
export interface TaskInputAnswersTable {
  job_id: string;
  input_key: string;
  action: 'accept' | 'decline' | 'cancel';
  answered_at: Generated<Date>;
}

/** One change an operator made in the console (src/operator/audit.ts), with who made it. */
export interface OperatorAuditTable {
  id: Generated<number>;
  actor_user_id: number | null;
  actor_email: string;
  action: string;
  target: string;
  detail: JSONColumnType<Record<string, unknown>>;
  created_at: Generated<Date>;
}

/** A fixed-window counter (src/limits/): `count` hits in the window that ends at `window_ends`. */
export interface RateLimitsTable {
  key: string;
  count: number;
  window_ends: Timestamp;
}

/** A signed node-to-node call already accepted (src/cluster/used-calls.ts), kept while it could be presented again. */
export interface NodeCallSignaturesTable {
  signature: string;
  expires_at: Timestamp;
}
