import { randomUUID } from 'node:crypto';
import { sql, type Kysely, type Selectable } from 'kysely';
import { fromKysely } from 'pg-boss';
import { z } from 'zod';
import type { DB, WebhookDeliveriesTable, WebhookEndpointsTable } from '../db/schema.ts';
import { WEBHOOK_QUEUE, type Queue } from '../jobs/queue.ts';
import { DomainError } from '../jobs/types.ts';
import { createWithinLimit } from '../limits/per-owner.ts';
import { AddressPolicyError, assertPublicUrl } from '../net/address-policy.ts';
import { encryptSecret, newSigningSecret } from './secrets.ts';

// An organisation's webhook endpoints: register (the signing secret is shown once), list, remove,
// rotate the secret (the old one keeps signing for the overlap), read the delivery log, replay a
// delivery. Everything is scoped to the organisation: another's endpoint is not found.

export interface EndpointDeps {
  db: Kysely<DB>;
  secretKey: string;
  /** Loopback and private addresses allowed (outside production only). */
  allowPrivate: boolean;
  /** How long the previous secret keeps signing after a rotation. */
  overlapSeconds: number;
}

/** Endpoints an organisation may have at once. */
export const MAX_ENDPOINTS = 20;
const ENDPOINT_LIMIT = { name: 'webhook.endpoints', max: MAX_ENDPOINTS };

export interface WebhookEndpoint {
  id: string;
  url: string;
  status: 'enabled' | 'disabled';
  createdAt: string;
  disabledAt: string | null;
  disabledReason: string | null;
  secretRotatedAt: string | null;
  /** Until then deliveries are signed with the previous secret too. */
  previousSecretExpiresAt: string | null;
}

export interface WebhookDelivery {
  /** The webhook-id header: the same on every attempt and replay. */
  id: string;
  type: string;
  jobId: string | null;
  status: string;
  attempts: number;
  responseCode: number | null;
  latencyMs: number | null;
  error: string | null;
  createdAt: string;
  lastAttemptAt: string | null;
  nextAttemptAt: string | null;
  deliveredAt: string | null;
}

const iso = (d: Date | null) => d?.toISOString() ?? null;

export function toEndpoint(row: Selectable<WebhookEndpointsTable>): WebhookEndpoint {
  const overlap = row.previous_secret_expires_at && row.previous_secret_expires_at > new Date() ? row.previous_secret_expires_at : null;
  return {
    id: row.id,
    url: row.url,
    status: row.disabled_at ? 'disabled' : 'enabled',
    createdAt: row.created_at.toISOString(),
    disabledAt: iso(row.disabled_at),
    disabledReason: row.disabled_reason,
    secretRotatedAt: iso(row.secret_rotated_at),
    previousSecretExpiresAt: iso(overlap),
  };
}

function toDelivery(row: Selectable<WebhookDeliveriesTable>): WebhookDelivery {
  return {
    id: row.id,
    type: row.event_type,
    jobId: row.job_id,
    status: row.status,
    attempts: row.attempts,
    responseCode: row.last_response_code,
    latencyMs: row.last_latency_ms,
    error: row.last_error,
    createdAt: row.created_at.toISOString(),
    lastAttemptAt: iso(row.last_attempt_at),
    nextAttemptAt: iso(row.next_attempt_at),
    deliveredAt: iso(row.delivered_at),
  };
}

export const webhookEndpointRequestSchema = z
  .object({ url: z.string({ error: 'url is required: the address to POST events to' }).max(2000, 'url is longer than 2000 characters').describe('https:// URL events are POSTed to') })
  .strict();
const createSchema = webhookEndpointRequestSchema;

/** Why a URL cannot be an endpoint, or null. */
async function urlProblem(raw: string, deps: EndpointDeps): Promise<string | null> {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return 'url is not an absolute URL';
  }
  if (url.protocol !== 'https:' && !(deps.allowPrivate && url.protocol === 'http:')) return 'url must be https://';
  if (url.username || url.password) return 'url must not carry user information';
  if (url.hash) return 'url must not have a fragment';
  try {
    await assertPublicUrl(url, { allowPrivate: deps.allowPrivate });
  } catch (error) {
    if (error instanceof AddressPolicyError) return `url ${error.message}`;
    throw error;
  }
  return null;
}

export async function createEndpoint(deps: EndpointDeps, organizationName: string, body: unknown): Promise<{ endpoint: WebhookEndpoint; secret: string }> {
  const parsed = createSchema.safeParse(body);
  if (!parsed.success) {
    throw new DomainError('invalid_request', 'the request body failed validation; see details', parsed.error.issues.map((i) => ({ path: i.path.join('.') || '(body)', message: i.message })));
  }
  const problem = await urlProblem(parsed.data.url, deps);
  if (problem) throw new DomainError('invalid_request', 'the request body failed validation; see details', [{ path: 'url', message: problem }]);
  const secret = newSigningSecret();
  const row = await createWithinLimit(deps.db, ENDPOINT_LIMIT, organizationName, {
    count: (trx) => endpointCount(trx, organizationName),
    create: (trx) =>
      trx
        .insertInto('webhook_endpoints')
        .values({ id: randomUUID(), organization_name: organizationName, url: new URL(parsed.data.url).href, secret_ciphertext: encryptSecret(deps.secretKey, secret) })
        .returningAll()
        .executeTakeFirstOrThrow(),
    refusal: () => new DomainError('webhook_endpoint_limit', `an organisation may have at most ${MAX_ENDPOINTS} webhook endpoints; remove one first`),
  });
  return { endpoint: toEndpoint(row), secret };
}

async function endpointCount(db: Kysely<DB>, organizationName: string): Promise<number> {
  const { n } = await db.selectFrom('webhook_endpoints').select(sql<number>`count(*)::int`.as('n')).where('organization_name', '=', organizationName).where('deleted_at', 'is', null).executeTakeFirstOrThrow();
  return n;
}

export async function listEndpoints(db: Kysely<DB>, organizationName: string): Promise<WebhookEndpoint[]> {
  const rows = await db.selectFrom('webhook_endpoints').selectAll().where('organization_name', '=', organizationName).where('deleted_at', 'is', null).orderBy('created_at').orderBy('id').execute();
  return rows.map(toEndpoint);
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

function notFound(id: string): DomainError {
  return new DomainError('webhook_endpoint_not_found', `no webhook endpoint ${id}`);
}

async function ownEndpoint(db: Kysely<DB>, organizationName: string, id: string): Promise<Selectable<WebhookEndpointsTable>> {
  if (!UUID.test(id)) throw notFound(id);
  const row = await db.selectFrom('webhook_endpoints').selectAll().where('id', '=', id.toLowerCase()).where('organization_name', '=', organizationName).where('deleted_at', 'is', null).executeTakeFirst();
  if (!row) throw notFound(id);
  return row;
}

/** Removes an endpoint: nothing more is sent to it (deliveries waiting for a retry are dropped). */
export async function removeEndpoint(db: Kysely<DB>, organizationName: string, id: string): Promise<void> {
  const row = await ownEndpoint(db, organizationName, id);
  await db.updateTable('webhook_endpoints').set({ deleted_at: new Date() }).where('id', '=', row.id).execute();
}

/** A new signing secret, shown once; the previous one keeps signing (beside it) for the overlap. */
export async function rotateSecret(deps: EndpointDeps, organizationName: string, id: string): Promise<{ endpoint: WebhookEndpoint; secret: string }> {
  const row = await ownEndpoint(deps.db, organizationName, id);
  const secret = newSigningSecret();
  const updated = await deps.db
    .updateTable('webhook_endpoints')
    .set({
      secret_ciphertext: encryptSecret(deps.secretKey, secret),
      previous_secret_ciphertext: row.secret_ciphertext,
      previous_secret_expires_at: new Date(Date.now() + deps.overlapSeconds * 1000),
      secret_rotated_at: new Date(),
    })
    .where('id', '=', row.id)
    .returningAll()
    .executeTakeFirstOrThrow();
  return { endpoint: toEndpoint(updated), secret };
}

/** The endpoint's delivery log, newest first. */
export async function listDeliveries(db: Kysely<DB>, organizationName: string, endpointId: string, limit: number): Promise<WebhookDelivery[]> {
  const endpoint = await ownEndpoint(db, organizationName, endpointId);
  const rows = await db.selectFrom('webhook_deliveries').selectAll().where('endpoint_id', '=', endpoint.id).orderBy('created_at', 'desc').orderBy('id', 'desc').limit(limit).execute();
  return rows.map(toDelivery);
}

/**
 * Sends a delivery again now, with the same webhook-id and event (a receiver that stored it drops
 * it as a duplicate). Its retry schedule starts over. Only a delivery that is done (delivered,
 * failed or cancelled) is replayed.
 */
export async function replayDelivery(db: Kysely<DB>, queue: Pick<Queue, 'boss'>, organizationName: string, endpointId: string, deliveryId: string): Promise<WebhookDelivery> {
  const endpoint = await ownEndpoint(db, organizationName, endpointId);
  if (endpoint.disabled_at) throw new DomainError('webhook_endpoint_disabled', 'the endpoint is disabled; remove it and register it again once it answers');
  return db.transaction().execute(async (trx) => {
    const row = await trx.selectFrom('webhook_deliveries').selectAll().where('id', '=', deliveryId).where('endpoint_id', '=', endpoint.id).forUpdate().executeTakeFirst();
    if (!row) throw new DomainError('webhook_delivery_not_found', `no delivery ${deliveryId} for this endpoint`);
    // A delivery still being sent has its next attempt in the queue already: a replay would start a
    // second retry chain beside it, and the receiver would get every later attempt twice.
    if (row.status === 'pending' || row.status === 'retrying') {
      const next = row.next_attempt_at ? `; its next attempt is due ${row.next_attempt_at.toISOString()}` : '';
      throw new DomainError('webhook_delivery_in_progress', `delivery ${deliveryId} is still being sent (${row.attempts} ${row.attempts === 1 ? 'attempt' : 'attempts'} so far${next}); replay it once it is delivered or has failed`);
    }
    const updated = await trx
      .updateTable('webhook_deliveries')
      .set({ status: 'pending', attempts: 0, next_attempt_at: new Date(), queued_at: new Date() })
      .where('id', '=', row.id)
      .returningAll()
      .executeTakeFirstOrThrow();
    await queue.boss.send(WEBHOOK_QUEUE, { deliveryId: row.id }, { db: fromKysely(trx) });
    return toDelivery(updated);
  });
}
