import { randomUUID } from 'node:crypto';
import type { Kysely, Selectable } from 'kysely';
import type { DB, JobsTable } from '../db/schema.ts';
import { sha256 } from '../security/secrets.ts';
import { RateLimited } from '../limits/refusal.ts';
import { withinDailyLimit } from './daily-limit.ts';
import { appendAuditEvent, decodeAuditCursor, listAuditPage, toAuditEvent } from './audit.ts';
import { loadJob, loadJobWithLatestMessage, loadJobWithLog } from './job-reads.ts';
import { parseExecutionJobRequest, type BookingRequest } from './schemas.ts';
import { storedProfileFor } from './profiles.ts';
import { describeRequest, searchRequestOf } from '../scenarios/index.ts';
import type { Queue } from './queue.ts';
import type { ProviderMode, ProviderRegistry } from '../driver/registry.ts';
import type { JobLinks } from './handoff-url.ts';
import { ownsJob, withoutCapabilities } from './ownership.ts';
import { DomainError, JOB_ID_PATTERN, ownerKey, SCENARIOS, type AuditEvent, type Job, type JobStatus, type Owner, type Reader, type Scenario } from './types.ts';

export interface JobDeps {
  db: Kysely<DB>;
  queue: Pick<Queue, 'enqueueBooking'> & Partial<Pick<Queue, 'wake'>>;
  /** `none` restores the contract's open v1-alpha reads: any organisation reads any job's data (not its links, not its writes: ownership.ts). */
  readIsolation: 'organization' | 'none';
  /** The providers (handed in at start: server.ts), asked whether a job's mode can be served. */
  providers: Pick<ProviderRegistry, 'modeProblem'>;
  /** Fills in the handoff URL of paused_payment events when they are read (it is never stored usable). */
  links: JobLinks;
  /** The mode of jobs people create through OAuth clients (no API key to take it from): live in production, test otherwise. */
  userJobMode: ProviderMode;
}

export interface CreateJobOptions {
  /** The scenarios this caller may create (an API key's allowed_job_types); undefined = all. */
  allowedScenarios?: readonly Scenario[];
  /** The API key's mode (test | live): the job books only on providers of that mode. Jobs of OAuth users take JobDeps.userJobMode. */
  mode?: ProviderMode;
  /** The API key's daily_limit: jobs it may create per UTC day (enforced here, in the creating transaction); null/undefined = none. */
  dailyLimit?: number | null;
}

export interface CreatedJob {
  job: Job;
  /** false when an earlier request with the same idempotency key already created it. */
  created: boolean;
}

/** Stable JSON: keys sorted, so equal requests hash equally whatever order their fields came in. */
function canonical(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonical).join(',')}]`;
  if (value && typeof value === 'object') {
    return `{${Object.keys(value)
      .sort()
      .filter((k) => (value as Record<string, unknown>)[k] !== undefined)
      .map((k) => `${JSON.stringify(k)}:${canonical((value as Record<string, unknown>)[k])}`)
      .join(',')}}`;
  }
  return JSON.stringify(value);
}

const INVALID_REQUEST = 'the request body failed validation; see details';

/**
 * Validates an ExecutionJobRequest body in full and creates its job. Every problem comes back in one
 * invalid_request, the stored profile's among them: a body with other problems has its profileId
 * checked too, and an otherwise valid one is checked by createJob (after an idempotent replay, which
 * answers even if the profile has since been deleted).
 */
export async function createJobFromRequest(deps: JobDeps, owner: Owner, body: unknown, options: CreateJobOptions = {}): Promise<CreatedJob> {
  const parsed = parseExecutionJobRequest(body);
  if (parsed.ok) return createJob(deps, owner, parsed.value, options);
  const raw = body as { request?: { scenario?: unknown }; profileId?: unknown } | null;
  const profileId = raw?.profileId;
  const readable = typeof profileId === 'number' && Number.isSafeInteger(profileId) && profileId > 0 && !parsed.issues.some((i) => i.path === 'profileId');
  if (!readable) throw new DomainError('invalid_request', INVALID_REQUEST, parsed.issues);
  const scenario = SCENARIOS.find((s) => s === raw?.request?.scenario);
  const stored = await storing(() => storedProfileFor(deps.db, owner, scenario, profileId));
  throw new DomainError('invalid_request', INVALID_REQUEST, [...parsed.issues, ...stored.issues]);
}

/** A database failure while creating a job is job_create_failed, which a client retries with the same idempotencyKey. */
async function storing<T>(work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (error) {
    if (error instanceof DomainError || error instanceof RateLimited) throw error;
    throw new DomainError('job_create_failed', 'the job could not be stored; retry with the same idempotencyKey', undefined, error);
  }
}

export async function createJob(deps: JobDeps, owner: Owner, request: BookingRequest, options: CreateJobOptions = {}): Promise<CreatedJob> {
  if (options.allowedScenarios && !options.allowedScenarios.includes(request.scenario)) {
    throw new DomainError('scenario_not_allowed', `this credential may not create ${request.scenario} jobs; it allows: ${options.allowedScenarios.join(', ') || 'none'}`);
  }
  const key = ownerKey(owner);
  const idempotencyKey = request.clientMetadata.idempotencyKey ?? null;
  const requestHash = sha256(canonical({ ...request, clientMetadata: { ...request.clientMetadata } }));

  return storing(async () => {
    if (idempotencyKey) {
      const existing = await findByIdempotencyKey(deps.db, key, idempotencyKey);
      if (existing) return { job: sameRequestOrConflict(existing, requestHash), created: false };
    }
    // Test keys book on test providers only, live keys on live ones: a job that cannot is refused now, not after browsing.
    const mode = owner.kind === 'user' ? deps.userJobMode : (options.mode ?? 'test');
    const mismatch = await deps.providers.modeProblem(request.scenario, request.consent, mode);
    if (mismatch) throw new DomainError('invalid_request', `no provider of this job's ${mode} mode can serve the request; see details`, [mismatch]);
    let profile = request.profile as Record<string, unknown> | undefined;
    if (!profile) {
      const stored = await storedProfileFor(deps.db, owner, request.scenario, request.profileId!, request.params);
      if (stored.issues.length) throw new DomainError('invalid_request', INVALID_REQUEST, stored.issues);
      profile = stored.profile!;
    }
    const id = randomUUID();
    const inserted = await deps.db.transaction().execute(async (trx) => {
      if (owner.kind === 'organization' && options.dailyLimit != null) await withinDailyLimit(trx, owner.apiKeyId, options.dailyLimit);
      const row = await trx
        .insertInto('jobs')
        .values({
          id,
          scenario: request.scenario,
          status: 'pending',
          owner_key: key,
          organization_name: owner.kind === 'organization' ? owner.organizationName : null,
          api_key_id: owner.kind === 'organization' ? owner.apiKeyId : null,
          owner_user_id: owner.kind === 'user' ? owner.userId : null,
          oauth_client_id: owner.kind === 'user' ? owner.clientId : null,
          params: JSON.stringify(request.params),
          profile: JSON.stringify(profile),
          profile_id: request.profileId ?? null,
          consent: JSON.stringify(request.consent),
          client_metadata: JSON.stringify(request.clientMetadata),
          idempotency_key: idempotencyKey,
          request_hash: requestHash,
          summary: `Queued: booking ${describeRequest(searchRequestOf(request.scenario, request.params))}.`,
          provider_id: null,
          confirmation_code: null,
          handoff_token_hash: null,
          mode,
        })
        .onConflict((oc) => oc.columns(['owner_key', 'idempotency_key']).where('idempotency_key', 'is not', null).doNothing())
        .returningAll()
        .executeTakeFirst();
      if (!row) return undefined;
      await appendAuditEvent(trx, id, { type: 'job_created', message: `${request.scenario} booking job created` });
      await deps.queue.enqueueBooking(trx, id);
      return row;
    });
    if (inserted) {
      // Committed: a worker in this process may take it now rather than at its next poll.
      deps.queue.wake?.();
      return { job: toJob(inserted), created: true };
    }
    // A concurrent request with the same key won the insert; answer with its job.
    const winner = await findByIdempotencyKey(deps.db, key, idempotencyKey!);
    if (!winner) throw new Error('the idempotency key conflicted but no job holds it');
    return { job: sameRequestOrConflict(winner, requestHash), created: false };
  });
}

function sameRequestOrConflict(row: Selectable<JobsTable>, requestHash: string): Job {
  if (row.request_hash !== requestHash) {
    throw new DomainError('idempotency_key_reused', 'this idempotencyKey was already used for a different request');
  }
  return toJob(row);
}

async function findByIdempotencyKey(db: Kysely<DB>, key: string, idempotencyKey: string) {
  return db.selectFrom('jobs').selectAll().where('owner_key', '=', key).where('idempotency_key', '=', idempotencyKey).executeTakeFirst();
}

function visibleTo(deps: JobDeps, reader: Reader | null, row: { owner_key: string }): boolean {
  if (reader === null) return true;
  if (reader.kind === 'organization' && deps.readIsolation === 'none') return true;
  return row.owner_key === ownerKey(reader);
}

/** The job as its reader may see it; null when it does not exist or belongs to someone else. */
export async function getJob(deps: JobDeps, reader: Reader | null, jobId: string): Promise<Job | null> {
  if (!JOB_ID_PATTERN.test(jobId)) return null;
  const row = await loadJob(deps.db, jobId.toLowerCase());
  if (!row || !visibleTo(deps, reader, row)) return null;
  return toJob(row);
}

/**
 * The job a write of `owner` acts on; null when it does not exist or belongs to someone else. Open
 * reads (readIsolation none) do not open writes: another owner's job is missing here, as for a read
 * under isolation, so a refused write tells nothing a missing job would not.
 */
export async function getOwnJob(deps: Pick<JobDeps, 'db'>, owner: Reader, jobId: string): Promise<Job | null> {
  if (!JOB_ID_PATTERN.test(jobId)) return null;
  const row = await loadJob(deps.db, jobId.toLowerCase());
  if (!row) return null;
  const job = toJob(row);
  return ownsJob(owner, job) ? job : null;
}

export interface JobAuditPage {
  jobId: string;
  count: number;
  events: AuditEvent[];
  /** Reads the next page (`after`); null when this page reached the end of the log. */
  nextCursor: string | null;
}

/**
 * A page of the job's audit log, oldest first: at most `limit` events after `after` (a nextCursor of
 * an earlier page; from the start when absent). A cursor this service did not write is invalid_cursor.
 */
export async function getJobAudit(deps: JobDeps, reader: Reader | null, jobId: string, limit: number, after?: string | null): Promise<JobAuditPage | null> {
  const afterId = after === undefined || after === null ? null : decodeAuditCursor(after);
  if (after !== undefined && after !== null && afterId === null) {
    throw new DomainError('invalid_cursor', '`after` is not a cursor this API returned: pass the nextCursor of the previous page unchanged');
  }
  const job = await getJob(deps, reader, jobId);
  if (!job) return null;
  const page = await listAuditPage(deps.db, job.jobId, limit, afterId);
  const events = withHandoffUrls(deps, reader, job, page.events);
  return { jobId: job.jobId, count: events.length, events, nextCursor: page.nextCursor };
}

// The paused_payment event shows its owner the handoff URL it issued. The database holds only the
// token's hash, so the URL is recomputed here, as it is for the job itself. Anyone else reading the
// log (open reads) gets no link: it opens the person's payment screen.
function withHandoffUrls(deps: JobDeps, reader: Reader | null, job: Job, events: AuditEvent[]): AuditEvent[] {
  if (!ownsJob(reader, job)) return events.map(withoutCapabilities);
  const issued = deps.links.issuedHandoffUrl(job);
  if (!issued) return events;
  return events.map((e) => (e.type === 'paused_payment' ? { ...e, handoffUrl: issued } : e));
}

/**
 * The job with its decision log, as GET /execution-jobs/{id} shows it: one statement (shared with
 * the reads that arrive alongside it), the log aggregated in the database.
 */
export async function getJobWithLog(deps: JobDeps, reader: Reader | null, jobId: string): Promise<{ job: Job; decisionLog: AuditEvent[] } | null> {
  if (!JOB_ID_PATTERN.test(jobId)) return null;
  const row = await loadJobWithLog(deps.db, jobId.toLowerCase());
  if (!row || !visibleTo(deps, reader, row)) return null;
  const { decision_log: log, ...jobRow } = row;
  const job = toJob(jobRow);
  return { job, decisionLog: withHandoffUrls(deps, reader, job, log.map((e) => toAuditEvent(row.id, e))) };
}

/**
 * The job with the message of the last entry of its decisionLog (null when it has no events), for
 * a reader that shows one status line: the same row, without the log read and aggregated.
 */
export async function getJobWithLatestMessage(deps: JobDeps, reader: Reader | null, jobId: string): Promise<{ job: Job; latestMessage: string | null } | null> {
  if (!JOB_ID_PATTERN.test(jobId)) return null;
  const row = await loadJobWithLatestMessage(deps.db, jobId.toLowerCase());
  if (!row || !visibleTo(deps, reader, row)) return null;
  return { job: toJob(row), latestMessage: row.latest_message };
}

export function toJob(row: Selectable<JobsTable>): Job {
  return {
    jobId: row.id,
    status: row.status as JobStatus,
    scenario: row.scenario as Scenario,
    organizationName: row.organization_name,
    ownerKey: row.owner_key,
    ownerUserId: row.owner_user_id,
    oauthClientId: row.oauth_client_id,
    params: row.params,
    profile: row.profile,
    consent: row.consent,
    clientMetadata: row.client_metadata,
    summary: row.summary,
    attemptCount: row.attempt_count,
    usedFallback: row.used_fallback,
    providerId: row.provider_id,
    confirmationCode: row.confirmation_code,
    error: row.error,
    holdExpiresAt: row.hold_expires_at?.toISOString() ?? null,
    createdAt: row.created_at.toISOString(),
    updatedAt: row.updated_at.toISOString(),
    startedAt: row.started_at?.toISOString() ?? null,
    completedAt: row.completed_at?.toISOString() ?? null,
    personalDataErasedAt: row.personal_data_erased_at?.toISOString() ?? null,
  };
}
