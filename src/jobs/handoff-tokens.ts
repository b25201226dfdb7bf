import { createHmac } from 'node:crypto';
import type { Kysely } from 'kysely';
import type { DB } from '../db/schema.ts';
import type { JobLinks } from './handoff-url.ts';
import { toJob } from './service.ts';
import type { Job } from './types.ts';
import { randomSecret, sha256 } from '../security/secrets.ts';
import { jobRowByHandoffHash } from './rows.ts';

/** How long after the job ended its handoff link still shows the outcome (the receipt), and the job still shows the link. */
export const RECEIPT_GRACE_MS = 30 * 60_000;

// The handoff token: base64url(HMAC-SHA256(SECRET_KEY, "handoff:<jobId>:<holdExpiresAt>")), 256 bits,
// unguessable without the key, valid for one job and one hold. The database keeps only its SHA-256
// (jobs.handoff_token_hash, for lookup); the URL shown on every poll is recomputed from the key, so
// nothing stored in the database lets anyone open a handoff.

export function handoffToken(secretKey: string, jobId: string, holdExpiresAt: string): string {
  return createHmac('sha256', secretKey).update(`handoff:${jobId}:${holdExpiresAt}`).digest('base64url');
}

export function handoffTokenHash(token: string): string {
  return sha256(token);
}

/** A paused job whose hold has not run out: the only state in which a handoff is open. */
export function handoffOpen(job: Job, now = new Date()): boolean {
  return job.status === 'paused_payment' && job.holdExpiresAt !== null && new Date(job.holdExpiresAt) > now;
}

/**
 * When the handoff ended, for a job whose hold is over: the job's end, or for a paused job past its
 * hold (its holder is recording the expiry, or waiting for a payment in flight) the hold's deadline.
 */
export function handoffEndedAt(job: Job): Date {
  if (job.status === 'paused_payment' && job.holdExpiresAt) return new Date(job.holdExpiresAt);
  return new Date(job.completedAt ?? job.updatedAt);
}

/**
 * Whether the job's handoff link opens anything: the payment while the hold lasts, then the outcome
 * (the receipt: the confirmation code, or how the hold ended) for RECEIPT_GRACE_MS after the end.
 */
export function handoffLinkLive(job: Job, now = new Date()): boolean {
  if (!job.holdExpiresAt) return false;
  return handoffOpen(job, now) || now.getTime() - handoffEndedAt(job).getTime() <= RECEIPT_GRACE_MS;
}

export function handoffLinks(baseUrl: string, secretKey: string): JobLinks {
  const issued = (job: Job) => (job.holdExpiresAt ? `${baseUrl}/handoff/${handoffToken(secretKey, job.jobId, job.holdExpiresAt)}` : null);
  return {
    // Shown while the link opens something: the payment, then the receipt (it dies 30 minutes after the end).
    handoffUrl: (job) => (handoffLinkLive(job) ? issued(job) : null),
    issuedHandoffUrl: issued,
    // The live view of a running job is the handoff issue's (issue 6).
    sessionUrl: () => null,
  };
}

/** The job a handoff token belongs to (whatever its status now), or null. Callers check handoffOpen(). */
export async function findJobByHandoffToken(db: Kysely<DB>, token: string): Promise<Job | null> {
  if (!/^[A-Za-z0-9_-]{43}$/.test(token)) return null;
  const row = await jobRowByHandoffHash(db, handoffTokenHash(token));
  return row ? toJob(row) : null;
}

/**
 * SECRET_KEY from the configuration, or (development and test only) one generated on first start and
 * kept in the settings table, so every process on the database computes the same tokens.
 */
export async function resolveSecretKey(db: Kysely<DB>, configured: string | undefined): Promise<string> {
  if (configured) return configured;
  await db.insertInto('settings').values({ name: 'secret_key', value: randomSecret(48) }).onConflict((oc) => oc.column('name').doNothing()).execute();
  const row = await db.selectFrom('settings').select('value').where('name', '=', 'secret_key').executeTakeFirstOrThrow();
  return row.value;
}
