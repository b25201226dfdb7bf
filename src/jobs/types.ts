// The vocabulary of the domain core. Statuses are the REST ones; the MCP surface maps them.
// The scenarios are their modules' (src/scenarios/): named here too, with the rest of the vocabulary.
import type { Scenario } from '../driver/types.ts';
export type { Scenario } from '../driver/types.ts';
export { SCENARIOS } from '../scenarios/index.ts';

export const JOB_STATUSES = ['pending', 'running', 'paused_payment', 'completed', 'no_availability', 'needs_login', 'captcha', 'error'] as const;
export type JobStatus = (typeof JOB_STATUSES)[number];
/** The statuses a job ends in (paused_payment is not one: the person is still paying). */
export const FINAL_STATUSES = ['completed', 'no_availability', 'needs_login', 'captcha', 'error'] as const satisfies readonly JobStatus[];

/** A job id as a client may write it: a UUID, in either case (the database compares them as UUIDs). */
export const JOB_ID_PATTERN = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export const AUDIT_EVENT_TYPES = [
  'job_created', 'job_started', 'step_started', 'paused_payment', 'job_completed', 'job_failed', 'job_aborted',
  'step_attempt', 'action_allowed', 'action_denied', 'time_adjusted', 'venue_switched', 'provider_fallback',
  'webhook_endpoint_disabled',
] as const;
export type AuditEventType = (typeof AUDIT_EVENT_TYPES)[number];

/** Who a job belongs to: an API key's organisation, or a signed-in user through an OAuth client. */
export type Owner =
  | { kind: 'organization'; organizationName: string; apiKeyId: number }
  | { kind: 'user'; userId: number; clientId: string | null };

/** Who is asking to read: an organisation (API key) or a user (OAuth). */
export type Reader = { kind: 'organization'; organizationName: string } | { kind: 'user'; userId: number };

export function ownerKey(owner: Owner | Reader): string {
  return owner.kind === 'organization' ? `org:${owner.organizationName}` : `user:${owner.userId}`;
}

export interface AuditEvent {
  jobId: string;
  stepIndex: number;
  type: string;
  timestamp: string;
  message: string;
  providerId?: string;
  fromTime?: string;
  toTime?: string;
  handoffUrl?: string;
  [extra: string]: unknown;
}

export interface Job {
  jobId: string;
  status: JobStatus;
  scenario: Scenario;
  organizationName: string | null;
  ownerKey: string;
  ownerUserId: number | null;
  oauthClientId: string | null;
  params: Record<string, unknown>;
  profile: Record<string, unknown>;
  consent: Record<string, unknown>;
  clientMetadata: Record<string, unknown>;
  summary: string;
  attemptCount: number;
  usedFallback: boolean;
  providerId: string | null;
  confirmationCode: string | null;
  error: Record<string, unknown> | null;
  holdExpiresAt: string | null;
  createdAt: string;
  updatedAt: string;
  startedAt: string | null;
  completedAt: string | null;
  /** When the traveller's personal data was erased from the job (jobs/retention.ts); null while it is kept. */
  personalDataErasedAt: string | null;
}

/** A failure the core reports by name; each surface turns the code into its own envelope. */
export class DomainError extends Error {
  readonly code: string;
  readonly details?: unknown;
  constructor(code: string, message: string, details?: unknown, cause?: unknown) {
    super(message, cause === undefined ? undefined : { cause });
    this.name = 'DomainError';
    this.code = code;
    this.details = details;
  }
}
